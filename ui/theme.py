"""Light and dark: the stylesheet and painted colours of the client, following the system colour scheme.

Colours are written once, as the light theme's; the dark theme maps each light colour to its dark
counterpart by role (a text colour, or a surface behind text), so both stay in step.
"""

from __future__ import annotations

import re
from importlib import resources

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

LIGHT, DARK, SYSTEM = "light", "dark", "system"

# Surfaces, borders and fills: light → dark.
DARK_SURFACES = {
    "#ffffff": "#1e293b",
    "#f9fafb": "#172033",
    "#f3f4f6": "#0f172a",
    "#e5e7eb": "#334155",
    "#d1d5db": "#475569",
    "#fca5a5": "#7f1d1d",
    "#86efac": "#14532d",
    "#16a34a": "#22c55e",
    "#15803d": "#166534",
    "#fff7e6": "#3b2f12",
    "#fee2e2": "#450a0a",
    "#f59e0b": "#b45309",
    "#efeae2": "#0b141a",
    "#e8f0fe": "#1e3a5f",
    "#dcfce7": "#14532d",
    "#e0f2fe": "#0c4a6e",
    "#7dd3fc": "#0369a1",
    "#fef9c3": "#3f3a12",
    "#f5f7fa": "#1f2c34",
    "#dcf8c6": "#054d40",
    "#fef08a": "#854d0e",
    "#ca8a04": "#a16207",
}
# Text and marks: light → dark.
DARK_TEXTS = {
    "#111827": "#f3f4f6",
    "#4b5563": "#cbd5e1",
    "#374151": "#e2e8f0",
    "#6b7280": "#a3adbb",
    "#065f46": "#6ee7b7",
    "#991b1b": "#fecaca",
    "#92400e": "#fcd34d",
    "#dc2626": "#f87171",
    "#b91c1c": "#fca5a5",
    "#b45309": "#fbbf24",
    "#9ca3af": "#64748b",
    "#ffffff": "#ffffff",
    "#075985": "#bae6fd",
    "#0ea5e9": "#38bdf8",
    "#2563eb": "#60a5fa",
    "#d97706": "#fbbf24",
    "#854d0e": "#fde68a",
    "#15803d": "#4ade80",
    "#16a34a": "#4ade80",
    "#b3261e": "#f87171",
    "#0369a1": "#7dd3fc",
}
_TEXT_PROPERTIES = ("color", "selection-color")
_DECLARATION = re.compile(r"([a-z-]+):(\s*)([^;}]*)")
_BODY = re.compile(r"\{([^}]*)\}")
_HEX = re.compile(r"#[0-9a-fA-F]{6}")

# What the agent chose (system, light or dark) and the theme it gives, for the whole application.
_state = {"choice": SYSTEM, "theme": LIGHT}


def theme_choice() -> str:
    """What the agent chose: system, light or dark."""
    return _state["choice"]


def current_theme() -> str:
    """The theme in use: light or dark."""
    return _state["theme"]


def is_dark() -> bool:
    """Whether the dark theme is in use."""
    return _state["theme"] == DARK


def text_colour(light: str, theme: str | None = None) -> str:
    """A text colour in the theme (given as its light value)."""
    if (theme or _state["theme"]) == DARK:
        return DARK_TEXTS.get(light.lower(), light)
    return light


def surface_colour(light: str, theme: str | None = None) -> str:
    """A surface colour in the theme (given as its light value)."""
    if (theme or _state["theme"]) == DARK:
        return DARK_SURFACES.get(light.lower(), light)
    return light


def text_qcolor(light: str) -> QColor:
    """text_colour as a QColor, for painting."""
    return QColor(text_colour(light))


def surface_qcolor(light: str) -> QColor:
    """surface_colour as a QColor, for painting."""
    return QColor(surface_colour(light))


def themed_stylesheet(stylesheet: str, theme: str | None = None) -> str:
    """A stylesheet written in light colours, in the theme: text colours and surfaces mapped by role."""

    def declaration(found: re.Match[str]) -> str:
        name, spacing, value = found.group(1), found.group(2), found.group(3)
        mapping = text_colour if name in _TEXT_PROPERTIES else surface_colour
        return f"{name}:{spacing}" + _HEX.sub(lambda colour: mapping(colour.group(0), theme), value)

    def body(found: re.Match[str]) -> str:
        return "{" + _DECLARATION.sub(declaration, found.group(1)) + "}"

    # A rule's body only: selectors (QTabBar::tab:selected) hold colons too.
    if "{" not in stylesheet:
        return _DECLARATION.sub(declaration, stylesheet)
    return _BODY.sub(body, stylesheet)


def stylesheet_source() -> str:
    """The client's stylesheet shipped in resources/, in light colours."""
    return resources.files("resources").joinpath("inbox.qss").read_text(encoding="utf-8")


def system_theme() -> str:
    """Dark when the system's colour scheme is dark (Qt's colour-scheme hint), light otherwise."""
    app = QGuiApplication.instance()
    if isinstance(app, QGuiApplication) and app.styleHints().colorScheme() == Qt.ColorScheme.Dark:
        return DARK
    return LIGHT


def apply_theme(choice: str) -> str:
    """Follow the system (choice 'system') or force light or dark; returns the theme now in use."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        raise RuntimeError("the theme is applied after the application is made")
    if choice not in (SYSTEM, LIGHT, DARK):
        raise ValueError(f"no theme {choice!r}; choose system, light or dark")
    hints = app.styleHints()
    if choice == SYSTEM:
        hints.unsetColorScheme()
        theme = system_theme()
    else:
        hints.setColorScheme(Qt.ColorScheme.Dark if choice == DARK else Qt.ColorScheme.Light)
        theme = choice
    _state.update(choice=choice, theme=theme)
    app.setPalette(_palette(theme))
    set_stylesheet = getattr(app, "setStyleSheet", None)
    if set_stylesheet is not None:
        set_stylesheet(themed_stylesheet(stylesheet_source(), theme))
    return theme


def _palette(theme: str) -> QPalette:
    """The widget palette under the stylesheet (menus, tooltips, scroll bars)."""
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: surface_colour("#f3f4f6", theme),
        QPalette.ColorRole.Base: surface_colour("#ffffff", theme),
        QPalette.ColorRole.AlternateBase: surface_colour("#f9fafb", theme),
        QPalette.ColorRole.Button: surface_colour("#ffffff", theme),
        QPalette.ColorRole.ToolTipBase: surface_colour("#ffffff", theme),
        QPalette.ColorRole.WindowText: text_colour("#111827", theme),
        QPalette.ColorRole.Text: text_colour("#111827", theme),
        QPalette.ColorRole.ButtonText: text_colour("#111827", theme),
        QPalette.ColorRole.ToolTipText: text_colour("#111827", theme),
        QPalette.ColorRole.PlaceholderText: text_colour("#6b7280", theme),
        QPalette.ColorRole.Highlight: surface_colour("#e8f0fe", theme),
        QPalette.ColorRole.HighlightedText: text_colour("#111827", theme),
        QPalette.ColorRole.Link: text_colour("#2563eb", theme),
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    return palette


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    channels = []
    for start in (1, 3, 5):
        value = int(colour[start : start + 2], 16) / 255
        channels.append(value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4)
    red, green, blue = channels
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    lighter, darker = sorted((relative_luminance(foreground), relative_luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)
