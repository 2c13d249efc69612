"""Search and canned replies: their calls and their wire format, parsed strictly."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from ui.api.paths import api_path
from ui.api.resources import Contact, Page, WireFormatError, _Fields

R = TypeVar("R")

INBOUND = "inbound"
OUTBOUND = "outbound"


@dataclass(frozen=True)
class SearchHit:
    """One message whose text holds every searched word."""

    conversation_id: int
    direction: str
    # The wamid of a customer's message, the key of ours.
    ref: str
    text: str
    at: datetime
    contact: Contact

    @property
    def inbound(self) -> bool:
        """Whether the customer wrote it."""
        return self.direction == INBOUND

    @classmethod
    def parse(cls, fields: _Fields) -> SearchHit:
        """Read a search result: an inbound one names its wamid, an outbound one its key."""
        direction = fields.string("direction")
        if direction == INBOUND:
            ref = fields.string("wamid")
        elif direction == OUTBOUND:
            ref = fields.string("key")
        else:
            raise WireFormatError(f"{fields.where}.direction must be inbound or outbound, not {direction!r}")
        contact = fields.nested("contact")
        return cls(
            conversation_id=fields.integer("conversation_id"),
            direction=direction,
            ref=ref,
            text=fields.string("text"),
            at=fields.time("at"),
            contact=Contact(
                wa_id=None, number=contact.optional_string("number"), name=contact.optional_string("name")
            ),
        )


@dataclass(frozen=True)
class CannedReply:
    """A saved reply an agent inserts by its shortcut."""

    id: int
    shortcut: str
    title: str
    text: str
    updated_at: datetime
    # The text with {{name}} and {{number}} filled for one conversation; None when asked without one.
    filled: str | None = None

    @property
    def insertion(self) -> str:
        """What goes into the composer: the filled text when known."""
        return self.filled if self.filled is not None else self.text

    @classmethod
    def parse(cls, fields: _Fields, *, filled: bool) -> CannedReply:
        """Read a canned reply; `filled` only when it was asked for a conversation."""
        return cls(
            id=fields.integer("id"),
            shortcut=fields.string("shortcut"),
            title=fields.string("title"),
            text=fields.string("text"),
            updated_at=fields.time("updated_at"),
            filled=fields.string("filled") if filled else None,
        )

    @classmethod
    def from_json(cls, body: object) -> CannedReply:
        """Parse one canned reply as creating or changing it answers."""
        return cls.parse(_Fields(body, "canned reply"), filled=False)


def parse_search_page(body: object) -> Page[SearchHit]:
    """`GET /v1/search`."""
    fields = _Fields(body, "search results")
    return Page(
        [SearchHit.parse(entry) for entry in fields.entries("results")], fields.optional_string("next_cursor")
    )


def parse_canned_replies(body: object, *, filled: bool = False) -> list[CannedReply]:
    """`GET /v1/canned-replies`, with each reply's filled text when asked for a conversation."""
    entries = _Fields(body, "canned reply list").entries("canned_replies")
    return [CannedReply.parse(entry, filled=filled) for entry in entries]


def parse_filled_canned_replies(body: object) -> list[CannedReply]:
    """`GET /v1/canned-replies?conversation_id=N`."""
    return parse_canned_replies(body, filled=True)


def parse_no_content(_body: object) -> None:
    """An answer without a body (204)."""


class LibraryCalls:
    """The calls for search and canned replies, mixed into the API client."""

    @abstractmethod
    def _call(
        self,
        method: str,
        path: str,
        parse: Callable[[Any], R],
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
    ) -> R:
        """Send one request and parse its body; every failure becomes an ApiError (the client does it)."""

    def search(self, q: str, cursor: str | None = None, limit: int = 50) -> Page[SearchHit]:
        """One page of messages holding every word of `q`, newest first."""
        return self._call(
            "GET",
            api_path("v1", "search"),
            parse_search_page,
            params={"q": q, "cursor": cursor, "limit": limit},
        )

    def canned_replies(self, conversation_id: int | None = None) -> list[CannedReply]:
        """Every canned reply by shortcut; for a conversation, each with its placeholders filled."""
        if conversation_id is None:
            return self._call("GET", api_path("v1", "canned-replies"), parse_canned_replies)
        return self._call(
            "GET",
            api_path("v1", "canned-replies"),
            parse_filled_canned_replies,
            params={"conversation_id": conversation_id},
        )

    def create_canned_reply(self, shortcut: str, title: str, text: str) -> CannedReply:
        """Save a new canned reply (supervisors only)."""
        return self._call(
            "POST",
            api_path("v1", "canned-replies"),
            CannedReply.from_json,
            json={"shortcut": shortcut, "title": title, "text": text},
        )

    def update_canned_reply(self, canned_reply_id: int, shortcut: str, title: str, text: str) -> CannedReply:
        """Replace a canned reply's shortcut, title and text (supervisors only)."""
        return self._call(
            "PUT",
            api_path("v1", "canned-replies", canned_reply_id),
            CannedReply.from_json,
            json={"shortcut": shortcut, "title": title, "text": text},
        )

    def delete_canned_reply(self, canned_reply_id: int) -> None:
        """Delete a canned reply (supervisors only)."""

        self._call("DELETE", api_path("v1", "canned-replies", canned_reply_id), parse_no_content)
