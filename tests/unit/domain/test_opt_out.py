"""Opt-out keywords: only a message that is a keyword alone opts out, in any case, language or punctuation."""

from __future__ import annotations

import pytest

from backend.domain.opt_out import (
    DEFAULT_OPT_OUT_KEYWORDS,
    is_marketing,
    is_opt_out_button,
    is_opt_out_text,
    keyword_set,
)

KEYWORDS = keyword_set(DEFAULT_OPT_OUT_KEYWORDS)


@pytest.mark.parametrize(
    "text",
    [
        "STOP",
        "stop",
        "  Stop  ",
        "Stop.",
        "STOP!!!",
        "unsubscribe",
        "Stopp",  # German, Norwegian, Swedish
        "baja",  # Spanish
        "¡BAJA!",
        "Arrêt",  # French
        "ARRET",  # without its accent
        "arrêt.",
        "Parar",  # Portuguese
        "cancelar",
        "\u00a0stop\u00a0",  # non-breaking spaces
        "stop 🙏",
        '"stop"',
        "ＳＴＯＰ",  # full-width letters from some keyboards
    ],
)
def test_a_keyword_alone_is_an_opt_out(text: str) -> None:
    assert is_opt_out_text(text, KEYWORDS)


@pytest.mark.parametrize(
    "text",
    [
        "stop sending me the wrong size",
        "Please stop",
        "don't stop",
        "stop stop",
        "stopping by tomorrow",
        "STOPPED",
        "bajar el precio?",
        "cancelar mi pedido 44812",
        "unsubscribe me from the newsletter but keep order updates",
        "st op",
        "",
        "   ",
        "?",
        None,
    ],
)
def test_a_keyword_inside_a_sentence_or_a_near_miss_is_not(text: str | None) -> None:
    assert not is_opt_out_text(text, KEYWORDS)


def test_the_keywords_are_configurable_and_compared_without_case_or_accents() -> None:
    keywords = keyword_set(["Désabonner", " fermati ", ""])
    assert is_opt_out_text("DESABONNER", keywords)
    assert is_opt_out_text("Fermati!", keywords)
    assert not is_opt_out_text("stop", keywords)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [("OPT_OUT", True), (" OPT_OUT ", True), ("opt_out", False), ("Confirm", False), (None, False)],
)
def test_the_opt_out_button_is_known_by_its_payload(payload: str | None, expected: bool) -> None:
    assert is_opt_out_button(payload) is expected


@pytest.mark.parametrize(
    ("purpose_marketing", "category", "expected"),
    [
        (True, None, True),
        (False, "MARKETING", True),
        (False, "marketing", True),
        (False, "UTILITY", False),
        (False, None, False),
        (True, "UTILITY", True),
    ],
)
def test_a_send_is_marketing_by_its_purpose_or_its_template_category(
    purpose_marketing: bool, category: str | None, expected: bool
) -> None:
    assert is_marketing(purpose_marketing=purpose_marketing, template_category=category) is expected
