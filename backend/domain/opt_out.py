"""Opt-outs of marketing: which customer message is only a stop keyword, and which sends are marketing."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Final

DEFAULT_OPT_OUT_KEYWORDS: Final = ("STOP", "UNSUBSCRIBE", "STOPP", "BAJA", "ARRÊT", "PARAR", "CANCELAR")
# The payload of a template's quick-reply button that asks to stop marketing (Meta's own opt-out button).
OPT_OUT_BUTTON_PAYLOAD: Final = "OPT_OUT"
# A `user_preferences` webhook's category and value that stop (or resume) marketing messages.
MARKETING_PREFERENCE_CATEGORY: Final = "marketing_messages"
PREFERENCE_STOP: Final = "stop"
PREFERENCE_RESUME: Final = "resume"
# Meta's code for a marketing message refused because the customer stopped marketing messages.
STOPPED_MARKETING_CODE: Final = 131050
MARKETING_CATEGORY: Final = "MARKETING"

# Why a contact is opted out, in a word a program can act on.
REASON_KEYWORD: Final = "keyword"
REASON_BUTTON: Final = "button"
REASON_USER_PREFERENCES: Final = "user_preferences"
REASON_META_REFUSED: Final = "meta_131050"
REASON_API: Final = "api"
REASONS: Final = frozenset(
    {REASON_KEYWORD, REASON_BUTTON, REASON_USER_PREFERENCES, REASON_META_REFUSED, REASON_API}
)

# The title a cancelled marketing send carries (its error's reason is `recipient_opted_out`).
OPTED_OUT_TITLE: Final = "recipient opted out"
OPTED_OUT_DETAILS: Final = "the customer asked to stop marketing messages before this one went out"


def fold(text: str) -> str:
    """Text compared without case or accents: `Arrêt`, `ARRET` and `arrêt` are one word."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _is_edge(char: str) -> bool:
    # Punctuation, symbols (emoji included) and spaces around the word carry no meaning of their own.
    return char.isspace() or unicodedata.category(char)[0] in {"P", "S", "Z", "C"}


def strip_edges(text: str) -> str:
    """The text without surrounding spaces, punctuation and symbols (`  ¡Baja! ` is `Baja`)."""
    start, end = 0, len(text)
    while start < end and _is_edge(text[start]):
        start += 1
    while end > start and _is_edge(text[end - 1]):
        end -= 1
    return text[start:end]


def keyword_set(keywords: Iterable[str]) -> frozenset[str]:
    """The folded keywords, ready for `is_opt_out_text`; blanks are dropped."""
    return frozenset(fold(strip_edges(word)) for word in keywords if strip_edges(word))


def is_opt_out_text(text: str | None, keywords: frozenset[str]) -> bool:
    """Whether a message is only an opt-out keyword (any case, surrounding spaces and punctuation ignored).

    A keyword inside a sentence ("stop sending me the wrong size") is not an opt-out: the customer is
    talking to us, and stopping their marketing would answer a question they did not ask.
    """
    if text is None:
        return False
    return fold(strip_edges(text)) in keywords


def is_opt_out_button(payload: str | None) -> bool:
    """Whether a tapped button's payload is the opt-out button's."""
    return payload is not None and payload.strip() == OPT_OUT_BUTTON_PAYLOAD


def is_marketing(*, purpose_marketing: bool, template_category: str | None) -> bool:
    """A send is marketing when its purpose says so or its template's category is MARKETING."""
    return purpose_marketing or (template_category or "").upper() == MARKETING_CATEGORY
