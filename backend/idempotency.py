"""Idempotency-Key records: the first answer is stored and replayed; one request per key runs at a time.

A record is `in_progress` while its request runs and `done` once the first answer is stored, in the
same transaction as the request's effects. A process that dies mid-request leaves an `in_progress`
record whose `locked_until` passes within LOCK_SECONDS; the next request with the key takes it over.
Records are kept at least RETENTION (24 h); `purge` is for the retention sweeper.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from backend.database.models import IdempotencyRecord
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain.messages import MAX_DEDUPE_KEY_LENGTH

LOCK_SECONDS = 30.0
RETENTION = timedelta(hours=24)
# The key becomes the outbox dedupe key, so it has that key's limit.
MAX_KEY_LENGTH = MAX_DEDUPE_KEY_LENGTH
IN_PROGRESS = "in_progress"
DONE = "done"


class IdempotencyError(Exception):
    """A request the key refuses: 422 idempotency_conflict or 409 idempotency_in_progress."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class StoredAnswer:
    """The first answer given for a key."""

    status: int
    body: str


def fingerprint(method: str, path: str, body: Any) -> str:
    """SHA-256 of the canonical JSON of the method, path and body."""
    canonical = json.dumps(
        {"method": method, "path": path, "body": body},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _in_progress() -> IdempotencyError:
    return IdempotencyError(
        409,
        "idempotency_in_progress",
        "A request with this Idempotency-Key is still being handled; retry shortly.",
    )


def begin(
    session: Session,
    *,
    user_id: int,
    key: str,
    method: str,
    path: str,
    print_: str,
    now: datetime,
) -> int | StoredAnswer:
    """Claim the key for this request (its record id) or return the stored first answer.

    Raises IdempotencyError 422 for another request under the key, 409 while another request
    with the key runs.
    """
    locked_until = now + timedelta(seconds=LOCK_SECONDS)
    record: IdempotencyRecord | None = None
    # The holder of a key can release it between our insert and our read; then insert again.
    for _ in range(3):
        inserted = session.execute(
            insert_ignoring_conflicts(
                session,
                IdempotencyRecord,
                ["user_id", "key"],
                user_id=user_id,
                key=key,
                method=method,
                path=path[:512],
                fingerprint=print_,
                state=IN_PROGRESS,
                locked_until=locked_until,
                created_at=now,
            ).returning(IdempotencyRecord.id)
        ).scalar_one_or_none()
        if inserted is not None:
            return int(inserted)
        record = session.scalars(
            select(IdempotencyRecord).where(
                IdempotencyRecord.user_id == user_id, IdempotencyRecord.key == key
            )
        ).one_or_none()
        if record is not None:
            break
    if record is None:
        raise _in_progress()
    if record.fingerprint != print_:
        raise IdempotencyError(
            422,
            "idempotency_conflict",
            "This Idempotency-Key was already used for a different request; use a new key.",
        )
    if record.state == DONE and record.response_status is not None and record.response_body is not None:
        return StoredAnswer(record.response_status, record.response_body)
    if record.locked_until is not None and record.locked_until > now:
        raise _in_progress()
    # The request holding the key stopped without answering (its process died): take it over,
    # compare-and-set on locked_until so only one of several retries wins.
    taken = session.execute(
        update(IdempotencyRecord)
        .where(
            IdempotencyRecord.id == record.id,
            IdempotencyRecord.state == IN_PROGRESS,
            IdempotencyRecord.locked_until == record.locked_until,
        )
        .values(locked_until=locked_until)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        raise _in_progress()
    return record.id


def finish(session: Session, record_id: int, status: int, body: str) -> None:
    """Store the first answer in the caller's transaction."""
    session.execute(
        update(IdempotencyRecord)
        .where(IdempotencyRecord.id == record_id)
        .values(state=DONE, locked_until=None, response_status=status, response_body=body)
    )


def release(session: Session, record_id: int) -> None:
    """Forget a key whose request was refused or failed, so it can be used again."""
    session.execute(
        delete(IdempotencyRecord).where(
            IdempotencyRecord.id == record_id, IdempotencyRecord.state == IN_PROGRESS
        )
    )


def purge(session: Session, now: datetime, retention: timedelta = RETENTION) -> int:
    """Delete records older than `retention` (never less than 24 h); returns how many.

    An `in_progress` record that old belongs to a request long dead. The outbox keeps its own
    dedupe keys longer, so a message is still never queued twice for a purged key.
    """
    result = session.execute(
        delete(IdempotencyRecord).where(IdempotencyRecord.created_at < now - max(retention, RETENTION))
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
