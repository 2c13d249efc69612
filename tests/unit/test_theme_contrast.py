"""Both colour schemes keep text readable: every text colour on its background reaches 4.5:1 (WCAG AA)."""

from __future__ import annotations

import re

import pytest

from ui.presentation import status_mark
from ui.theme import (
    DARK,
    LIGHT,
    contrast_ratio,
    stylesheet_source,
    surface_colour,
    text_colour,
    themed_stylesheet,
)
from ui.views import delegates, search

MINIMUM = 4.5
COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
RULE = re.compile(r"([^{}]+)\{([^}]*)\}")
DECLARATION = re.compile(r"([a-z-]+)\s*:\s*([^;]+)")
HEX = re.compile(r"#[0-9a-fA-F]{6}")
# Where a rule sets a text colour but no background, the text sits on one of these (window, panes, lists).
SURFACES = ("#ffffff", "#f9fafb", "#f3f4f6")
# Disabled controls are exempt from the contrast rule (WCAG 1.4.3).
EXEMPT = (":disabled",)


def stylesheet_pairs(theme: str) -> list[tuple[str, str, str]]:
    """(selector, text colour, background) of every stylesheet rule that colours text."""
    pairs = []
    stylesheet = COMMENT.sub("", themed_stylesheet(stylesheet_source(), theme))
    for written, body in RULE.findall(stylesheet):
        selector = " ".join(written.split())
        if any(mark in selector for mark in EXEMPT):
            continue
        declarations = {name: value for name, value in DECLARATION.findall(body)}
        colour = HEX.search(declarations.get("color", ""))
        if colour is None:
            continue
        background = HEX.search(declarations.get("background", ""))
        backgrounds = [background.group(0)] if background else [surface_colour(s, theme) for s in SURFACES]
        pairs.extend((selector, colour.group(0), shown) for shown in backgrounds)
    return pairs


def painted_pairs(theme: str) -> list[tuple[str, str, str]]:
    """(what, text colour, background) of the text the thread, list and search paint themselves."""
    fills = {
        "our bubble": delegates.OUTBOUND_FILL,
        "customer bubble": delegates.INBOUND_FILL,
        "loose reply": delegates.UNATTRIBUTED_FILL,
        "button choice": delegates.CHOICE_FILL,
        "note": delegates.NOTE_FILL,
        "selected row": "#e8f0fe",
        "hovered row": "#f5f7fa",
    }
    texts = {"text": "#111827", "muted": delegates.MUTED, "urgent": delegates.URGENT}
    pairs = [
        (f"{text_name} on {fill_name}", text_colour(text, theme), surface_colour(fill, theme))
        for fill_name, fill in fills.items()
        for text_name, text in texts.items()
    ]
    for state in ("read", "failed", "unknown", "held"):
        pairs.append(
            (
                f"{state} mark",
                text_colour(status_mark(state).colour, theme),
                surface_colour(delegates.OUTBOUND_FILL, theme),
            )
        )
    pairs.append(
        (
            "note caption",
            text_colour(delegates.NOTE_CAPTION, theme),
            surface_colour(delegates.NOTE_FILL, theme),
        )
    )
    pairs.append(
        ("link", text_colour(delegates.LINK, theme), surface_colour(delegates.UNATTRIBUTED_FILL, theme))
    )
    pairs.append(
        ("held reason", text_colour("#92400e", theme), surface_colour(delegates.OUTBOUND_FILL, theme))
    )
    pairs.append(("unread badge", text_colour("#ffffff", theme), surface_colour("#15803d", theme)))
    pairs.append(("window open", text_colour("#15803d", theme), surface_colour("#ffffff", theme)))
    pairs.append(
        (
            "voice note playing",
            text_colour(delegates.PLAYING, theme),
            surface_colour(delegates.INBOUND_FILL, theme),
        )
    )
    pairs.append(("search match", text_colour("#111827", theme), surface_colour(search.MATCH_FILL, theme)))
    return pairs


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_every_text_colour_is_readable_on_its_background(theme: str) -> None:
    """Stylesheet rules and painted text alike, in the light and the dark theme."""
    pairs = stylesheet_pairs(theme) + painted_pairs(theme)
    assert len(pairs) > 40
    low = [
        f"{what}: {text} on {background} is {contrast_ratio(text, background):.2f}:1"
        for what, text, background in pairs
        if contrast_ratio(text, background) < MINIMUM
    ]
    assert low == [], "\n".join(low)


def test_the_dark_theme_is_dark_and_the_light_theme_light() -> None:
    """The dark theme turns the window dark and its text light; light leaves the stylesheet as written."""
    assert themed_stylesheet(stylesheet_source(), LIGHT) == stylesheet_source()
    assert contrast_ratio(surface_colour("#ffffff", DARK), "#000000") < 2.0
    assert contrast_ratio(text_colour("#111827", DARK), "#ffffff") < 1.2


def test_contrast_ratio_matches_the_wcag_formula() -> None:
    """Black on white is 21:1, a colour on itself 1:1, and a known mid grey 4.54:1 on white."""
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
