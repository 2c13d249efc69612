"""Idempotency-Key records: the first answer is stored and replayed; one request per key runs at a time.

A record is `in_progress` while its request runs and `done` once the first answer is stored, in the
same transaction as the request's effects. A process that dies mid-request leaves an `in_progress`
record whose `locked_until` passes within LOCK_SECONDS; the next request with the key takes it over.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import Response
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from backend.database import Database
from backend.database.models import IdempotencyRecord
from backend.database.upsert import insert_ignoring_conflicts
from backend.web.errors import ApiError

LOCK_SECONDS = 30.0
RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255
IN_PROGRESS = "in_progress"
DONE = "done"
REPLAYED_HEADER = "Idempotent-Replayed"


@dataclass(frozen=True)
class StoredAnswer:
    """The first answer given for a key."""

    status: int
    body: str


@dataclass(frozen=True)
class Answer:
    """What a request under a key answers: its status, JSON payload and whether it is a replay."""

    status: int
    payload: dict[str, Any]
    replayed: bool = False


def check_key(raw: str | None) -> str:
    """The Idempotency-Key header value, or 400 idempotency_key_invalid."""
    if raw is None or not raw.strip() or len(raw) > MAX_KEY_LENGTH:
        raise ApiError(
            400,
            "idempotency_key_invalid",
            f"Send an Idempotency-Key header of 1 to {MAX_KEY_LENGTH} characters.",
        )
    return raw


def fingerprint(method: str, path: str, body: Any) -> str:
    """SHA-256 of the canonical JSON of the method, path and body."""
    canonical = json.dumps(
        {"method": method, "path": path, "body": body},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


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

    Raises ApiError 422 idempotency_conflict for another body, 409 idempotency_in_progress while
    another request with the key runs.
    """
    locked_until = now + timedelta(seconds=LOCK_SECONDS)
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
        select(IdempotencyRecord).where(IdempotencyRecord.user_id == user_id, IdempotencyRecord.key == key)
    ).one()
    if record.fingerprint != print_:
        raise ApiError(
            422,
            "idempotency_conflict",
            "This Idempotency-Key was already used for a different request; use a new key.",
        )
    if record.state == DONE and record.response_status is not None and record.response_body is not None:
        return StoredAnswer(record.response_status, record.response_body)
    if record.locked_until is not None and record.locked_until > now:
        raise ApiError(
            409,
            "idempotency_in_progress",
            "A request with this Idempotency-Key is still being handled; retry shortly.",
        )
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
        raise ApiError(
            409,
            "idempotency_in_progress",
            "A request with this Idempotency-Key is still being handled; retry shortly.",
        )
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
    """Delete answered records older than `retention` (at least 24 h); returns how many."""
    result = session.execute(
        delete(IdempotencyRecord).where(
            IdempotencyRecord.state == DONE, IdempotencyRecord.created_at < now - max(retention, RETENTION)
        )
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def encode(payload: dict[str, Any]) -> str:
    """The exact JSON text of an answer (stored, and replayed byte for byte)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n"


def json_response(status: int, body: str, *, replayed: bool) -> Response:
    """A JSON response with this exact body."""
    response = Response(body, status=status, mimetype="application/json")
    if replayed:
        response.headers[REPLAYED_HEADER] = "true"
    return response


def run_once(
    database: Database,
    *,
    user_id: int,
    key: str,
    method: str,
    path: str,
    body: Any,
    now: datetime,
    action: Callable[[Session], Answer],
) -> Response:
    """Run `action` once per (user, key): store its answer with its effects, or replay the stored one."""
    print_ = fingerprint(method, path, body)
    with database.transaction() as session:
        claim = begin(session, user_id=user_id, key=key, method=method, path=path, print_=print_, now=now)
    if isinstance(claim, StoredAnswer):
        return json_response(claim.status, claim.body, replayed=True)
    try:
        with database.transaction() as session:
            answer = action(session)
            text = encode(answer.payload)
            finish(session, claim, answer.status, text)
    except BaseException:
        # A refused or failed request does not burn the key.
        with database.transaction() as session:
            release(session, claim)
        raise
    return json_response(answer.status, text, replayed=answer.replayed)
