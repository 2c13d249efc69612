"""Full-text search over what customers and the business wrote, through the index of migration 0004."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    ColumnElement,
    Select,
    cast,
    column,
    false,
    func,
    literal,
    literal_column,
    select,
    table,
    union,
)
from sqlalchemy.dialects.postgresql import TSQUERY
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal

from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage
from backend.domain.messages import preview_text
from backend.domain.templates import PLACEHOLDER, TemplateCatalog

MAX_QUERY_LENGTH = 200
INBOUND = "inbound"
OUTBOUND = "outbound"
# A bound above every row id: the first page starts below it.
UNBOUNDED = 2**53

# Letters and digits: every other character separates words, so quotes, *, -, :, ^, (, ), %, _ and
# backslashes in a query are plain text and never index syntax or LIKE wildcards.
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class SearchPosition:
    """Where the next page starts: below these inbound and outbound row ids (0: nothing left there)."""

    inbound_below: int = UNBOUNDED
    outbound_below: int = UNBOUNDED

    def as_cursor(self) -> dict[str, int]:
        """The position as whole numbers, for an opaque cursor."""
        return {"i": self.inbound_below, "o": self.outbound_below}

    @classmethod
    def from_cursor(cls, values: dict[str, int]) -> SearchPosition:
        """The position an opaque cursor holds."""
        return cls(values["i"], values["o"])


@dataclass(frozen=True)
class SearchPage:
    """One page of results, newest first, and where the next page starts (None: no more)."""

    results: list[dict[str, Any]]
    next_position: SearchPosition | None


@dataclass(frozen=True)
class _Word:
    text: str
    prefix: bool
    # The templates (name, language) whose body holds the word: their rows match it too.
    templates: tuple[tuple[str, str], ...]


def query_words(text: str) -> list[str]:
    """The words of a query: runs of letters and digits."""
    return _WORD.findall(unicodedata.normalize("NFC", text))


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _words(text: str, catalog: TemplateCatalog | None) -> list[_Word]:
    found = query_words(text)
    template_words: list[tuple[tuple[str, str], set[str]]] = []
    if catalog is not None:
        for template in catalog:
            body = PLACEHOLDER.sub(" ", template.body)
            body_words = {_fold(word) for word in query_words(body)}
            template_words.append(((template.name, template.language), body_words))
    words: list[_Word] = []
    for position, word in enumerate(found):
        # The last word is matched as a prefix: results come while the word is still being typed.
        prefix = position == len(found) - 1
        folded = _fold(word)
        templates = tuple(
            key
            for key, body_words in template_words
            if any(
                body_word == folded or (prefix and body_word.startswith(folded)) for body_word in body_words
            )
        )
        words.append(_Word(word, prefix, templates))
    return words


class _PerDialect(ColumnElement[bool]):
    """A condition written once for SQLite (FTS5 MATCH) and once for PostgreSQL (tsvector @@)."""

    # Both branches take part in the cache key, so statements are cached by shape, words bound apart.
    inherit_cache = True
    _traverse_internals = [  # noqa: RUF012 (SQLAlchemy declares it a list)
        ("sqlite", InternalTraversal.dp_clauseelement),
        ("postgresql", InternalTraversal.dp_clauseelement),
    ]
    type = Boolean()
    # Already a condition: SQLite must not get "= 1" after it.
    _is_implicitly_boolean = True

    def __init__(self, sqlite: ColumnElement[bool], postgresql: ColumnElement[bool]) -> None:
        self.sqlite = sqlite
        self.postgresql = postgresql


@compiles(_PerDialect)
def _compile_postgresql(element: _PerDialect, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.postgresql, **kw)


@compiles(_PerDialect, "sqlite")
def _compile_sqlite(element: _PerDialect, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.sqlite, **kw)


def _fts5_phrase(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def _fts5_query(words: list[_Word], *, with_templates: bool) -> str:
    parts = []
    for word in words:
        choices = ["body : " + _fts5_phrase(word.text) + ("*" if word.prefix else "")]
        if with_templates:
            for name, language in word.templates:
                choices.append("template : " + _fts5_phrase("t" + f"{name} {language}".encode().hex()))
        parts.append("(" + " OR ".join(choices) + ")")
    return " AND ".join(parts)


def _tsquery(words: list[_Word], *, with_templates: bool) -> ColumnElement[Any]:
    simple: ColumnElement[Any] = literal_column("'simple'::regconfig")
    combined: ColumnElement[Any] | None = None
    for word in words:
        # Folded by the same function as the documents, so both sides agree whatever the locale.
        folded = func.fts_fold(literal(word.text))
        if word.prefix:
            term: ColumnElement[Any] = func.to_tsquery(simple, folded.op("||")(literal(":*")))
        else:
            term = func.plainto_tsquery(simple, folded)
        if with_templates:
            for name, language in word.templates:
                marker = "_" + hashlib.md5(f"{name} {language}".encode()).hexdigest()
                term = term.op("||")(cast(literal(f"'{marker}'"), TSQUERY))
        combined = term if combined is None else combined.op("&&")(term)
    assert combined is not None
    return combined


def _hits(
    direction: str, words: list[_Word], *, below: int | None = None, limit: int | None = None
) -> Select[Any]:
    """The ids (`rowid`) of one direction's messages holding every word.

    With a limit: newest first, below `below`. Both indexes walk ids downwards and stop at the limit
    (FTS5 natively, PostgreSQL by the primary key when the words are common), so a page costs about
    the same however many messages match.
    """
    outbound = direction == OUTBOUND
    name = "fts_outbound" if outbound else "fts_inbound"
    index = table(name, column("rowid"), column("document"))
    matches = _PerDialect(
        literal_column(name).op("MATCH")(literal(_fts5_query(words, with_templates=outbound))),
        index.c.document.op("@@")(_tsquery(words, with_templates=outbound)),
    )
    query = select(index.c.rowid).where(matches)
    if below is not None and limit is not None:
        query = query.where(index.c.rowid < below).order_by(index.c.rowid.desc()).limit(limit)
    return query


def conversation_ids_matching(text: str, catalog: TemplateCatalog | None = None) -> Select[int]:
    """A select of the ids of conversations where a message's text holds every word of `text`.

    With a catalog, a template message also matches the words of its template's body.
    """
    words = _words(text, catalog)
    if not words:
        return select(Conversation.id).where(false())
    inbound_hits = _hits(INBOUND, words).subquery()
    outbound_hits = _hits(OUTBOUND, words).subquery()
    inbound = select(InboundMessage.conversation_id).join_from(
        inbound_hits, InboundMessage, InboundMessage.id == inbound_hits.c.rowid
    )
    outbound = select(OutboxMessage.conversation_id).join_from(
        outbound_hits, OutboxMessage, OutboxMessage.id == outbound_hits.c.rowid
    )
    matching = union(inbound, outbound).subquery()
    return select(matching.c.conversation_id).where(matching.c.conversation_id.is_not(None))


@dataclass(frozen=True)
class _Hit:
    at: datetime
    row_id: int
    # None for a message outside any conversation: not shown, but it counts for paging.
    result: dict[str, Any] | None


def _inbound_hits(session: Session, words: list[_Word], below: int, count: int) -> list[_Hit]:
    if below <= 0:
        return []
    hits = _hits(INBOUND, words, below=below, limit=count).subquery()
    query = (
        select(
            InboundMessage.id,
            InboundMessage.conversation_id,
            InboundMessage.wamid,
            InboundMessage.text,
            InboundMessage.caption,
            InboundMessage.choice_title,
            InboundMessage.received_at,
            Contact.profile_name,
            Contact.number,
        )
        .select_from(hits)
        .join(InboundMessage, InboundMessage.id == hits.c.rowid)
        .join(Conversation, Conversation.id == InboundMessage.conversation_id)
        .join(Contact, Contact.id == Conversation.contact_id)
        .order_by(hits.c.rowid.desc())
    )
    return [
        _Hit(
            row.received_at,
            row.id,
            {
                "conversation_id": row.conversation_id,
                "direction": INBOUND,
                "wamid": row.wamid,
                "text": next((t for t in (row.text, row.caption, row.choice_title) if t is not None), ""),
                "at": _iso(row.received_at),
                "contact": {"name": row.profile_name, "number": row.number},
            },
        )
        for row in session.execute(query)
    ]


def _outbound_hits(
    session: Session, words: list[_Word], below: int, count: int, catalog: TemplateCatalog | None
) -> list[_Hit]:
    if below <= 0:
        return []
    hits = _hits(OUTBOUND, words, below=below, limit=count).subquery()
    query = (
        select(
            OutboxMessage.id,
            OutboxMessage.conversation_id,
            OutboxMessage.dedupe_key,
            OutboxMessage.kind,
            OutboxMessage.payload,
            OutboxMessage.created_at,
            Contact.profile_name,
            Contact.number,
        )
        .select_from(hits)
        .join(OutboxMessage, OutboxMessage.id == hits.c.rowid)
        .outerjoin(Conversation, Conversation.id == OutboxMessage.conversation_id)
        .outerjoin(Contact, Contact.id == Conversation.contact_id)
        .order_by(hits.c.rowid.desc())
    )
    return [
        _Hit(
            row.created_at,
            row.id,
            {
                "conversation_id": row.conversation_id,
                "direction": OUTBOUND,
                "key": row.dedupe_key,
                "text": preview_text(row.kind, row.payload, catalog),
                "at": _iso(row.created_at),
                "contact": {"name": row.profile_name, "number": row.number},
            }
            if row.conversation_id is not None
            else None,
        )
        for row in session.execute(query)
    ]


def search_messages(
    session: Session,
    text: str,
    *,
    limit: int,
    after: SearchPosition | None = None,
    catalog: TemplateCatalog | None = None,
) -> SearchPage:
    """Messages whose text holds every word of `text` (the last as a prefix), newest first.

    Each direction is read newest first by row id (rows are stored as they happen, so ids follow
    time) and the two are merged by time; the cursor remembers how far each direction got.
    """
    words = _words(text, catalog)
    if not words:
        return SearchPage([], None)
    position = after or SearchPosition()
    inbound = _inbound_hits(session, words, position.inbound_below, limit + 1)
    outbound = _outbound_hits(session, words, position.outbound_below, limit + 1, catalog)
    results: list[dict[str, Any]] = []
    taken_inbound = taken_outbound = 0
    while len(results) < limit and (taken_inbound < len(inbound) or taken_outbound < len(outbound)):
        # At the same moment, outbound first.
        if taken_outbound == len(outbound) or (
            taken_inbound < len(inbound) and inbound[taken_inbound].at > outbound[taken_outbound].at
        ):
            hit = inbound[taken_inbound]
            taken_inbound += 1
        else:
            hit = outbound[taken_outbound]
            taken_outbound += 1
        if hit.result is not None:
            results.append(hit.result)
    if taken_inbound == len(inbound) and taken_outbound == len(outbound):
        return SearchPage(results, None)
    next_position = SearchPosition(
        _below(inbound, taken_inbound, position.inbound_below),
        _below(outbound, taken_outbound, position.outbound_below),
    )
    return SearchPage(results, next_position)


def _below(hits: list[_Hit], taken: int, before: int) -> int:
    """The next page's bound for one direction: below the last hit taken, 0 when none is left."""
    if taken == len(hits):
        return 0
    return hits[taken - 1].row_id if taken else before


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
