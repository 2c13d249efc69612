"""Named counts since the database was created, bumped inside the caller's transaction."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from backend.database.models import Counter
from backend.database.upsert import dialect_insert

DEDUPE_REJECTIONS = "dedupe_rejections"
DUPLICATE_WEBHOOKS = "duplicate_webhooks"
WEBHOOK_PARSE_FAILURES = "webhook_parse_failures"
UNMATCHED_STATUSES = "unmatched_statuses"
# Replies and reactions naming a message of ours that went to another contact: filed as unquoted.
CROSS_CONTACT_QUOTES = "cross_contact_quotes"
# Webhook messages and statuses about another business phone number: stored raw, not applied.
FOREIGN_NUMBER_EVENTS = "foreign_number_events"


def bump(session: Session, name: str, amount: int = 1) -> None:
    """Add `amount` to a counter, creating it on first use."""
    result = session.execute(update(Counter).where(Counter.name == name).values(value=Counter.value + amount))
    if result.rowcount == 0:  # type: ignore[attr-defined]
        _insert_or_add(session, name, amount)


def _insert_or_add(session: Session, name: str, amount: int) -> None:
    statement = dialect_insert(session, Counter).values(name=name, value=amount)
    session.execute(
        statement.on_conflict_do_update(index_elements=[Counter.name], set_={"value": Counter.value + amount})
    )


def read(session: Session, name: str) -> int:
    """The current value of a counter (0 if never bumped)."""
    return int(session.scalar(select(Counter.value).where(Counter.name == name)) or 0)
