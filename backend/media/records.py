"""Media rows: a pending row per customer file, the thread's view of it, retries, uploads."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from backend.database import Database
from backend.database.models import MediaFile, OutboxMessage
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain import media as rules
from backend.domain import states
from backend.domain.webhook_events import InboundMessageEvent
from backend.media.store import MediaStore

_CHUNK = 500


def add_inbound_media(session: Session, events: Iterable[InboundMessageEvent], now: datetime) -> int:
    """A pending row for each new media id of these messages, for the fetcher; how many were new."""
    rows = [
        {
            "media_id": event.media_id,
            "direction": rules.INBOUND,
            "mime_type": event.media_mime_type,
            "sha256": event.media_sha256,
            "filename": event.media_filename,
            "state": rules.PENDING,
            "attempts": 0,
            "next_attempt_at": now,
            "created_at": now,
        }
        for event in events
        if event.media_id
    ]
    if not rows:
        return 0
    statement = insert_ignoring_conflicts(session, MediaFile, ["media_id"]).returning(MediaFile.id)
    return len(list(session.execute(statement, rows)))


def media_by_ids(session: Session, media_ids: Iterable[str]) -> dict[str, MediaFile]:
    """The rows of these media ids, by media id."""
    values = sorted(set(media_ids))
    found: dict[str, MediaFile] = {}
    for start in range(0, len(values), _CHUNK):
        chunk = values[start : start + _CHUNK]
        for row in session.scalars(select(MediaFile).where(MediaFile.media_id.in_(chunk))):
            found[row.media_id] = row
    return found


def media_resource(
    row: MediaFile | None, media_id: str, mime_type: str | None, caption: str | None
) -> dict[str, Any]:
    """The `media` field of a thread item; a message whose row is gone shows as failed."""
    if row is None:
        return {
            "id": media_id,
            "mime_type": mime_type,
            "filename": None,
            "caption": caption,
            "size": None,
            "duration_seconds": None,
            "state": rules.FAILED,
            "error": "the file is no longer kept",
        }
    return {
        "id": row.media_id,
        "mime_type": row.mime_type or mime_type,
        "filename": row.filename,
        "caption": caption,
        "size": row.size,
        "duration_seconds": row.duration_seconds,
        "state": row.state,
        "error": row.error,
    }


def retry_media(session: Session, now: datetime, media_ids: list[str] | None = None) -> list[str]:
    """Put failed media (all, or these ids) back to pending for the fetcher; the ids that were."""
    query = select(MediaFile.media_id).where(
        MediaFile.state == rules.FAILED, MediaFile.direction == rules.INBOUND
    )
    if media_ids is not None:
        query = query.where(MediaFile.media_id.in_(media_ids))
    chosen = list(session.scalars(query))
    for start in range(0, len(chosen), _CHUNK):
        session.execute(
            update(MediaFile)
            .where(MediaFile.media_id.in_(chosen[start : start + _CHUNK]), MediaFile.state == rules.FAILED)
            .values(
                state=rules.PENDING,
                attempts=0,
                error=None,
                next_attempt_at=now,
                lease_expires_at=None,
            )
        )
    return chosen


def new_upload_id() -> str:
    """A public id for a file uploaded through the API (Meta's ids are digits; ours never are)."""
    return "up_" + secrets.token_hex(12)


def add_upload(
    session: Session,
    *,
    digest: str,
    mime_type: str,
    size: int,
    filename: str | None,
    created_by: int | None,
    now: datetime,
    duration_seconds: float | None = None,
) -> MediaFile:
    """Record a file an agent or a system uploaded, its bytes already in the store."""
    row = MediaFile(
        media_id=new_upload_id(),
        direction=rules.OUTBOUND,
        mime_type=mime_type,
        sha256=None,
        content_hash=digest,
        filename=filename,
        size=size,
        duration_seconds=duration_seconds,
        state=rules.STORED,
        attempts=0,
        created_by=created_by,
        created_at=now,
        stored_at=now,
    )
    session.add(row)
    session.flush()
    return row


def remove_old_media(database: Database, store: MediaStore, cutoff: datetime) -> int:
    """Remove media that arrived before `cutoff`, and each file no remaining row names; rows removed.

    Only media goes: the messages stay and show the file as no longer kept. An upload a queued
    message still waits for is kept whatever its age.
    """
    removed = 0
    while True:
        with database.transaction() as session:
            waiting = select(OutboxMessage.media_id).where(
                OutboxMessage.state == states.QUEUED, OutboxMessage.media_id.is_not(None)
            )
            rows = session.execute(
                select(MediaFile.id, MediaFile.content_hash)
                .where(MediaFile.created_at < cutoff, MediaFile.media_id.not_in(waiting))
                .limit(_CHUNK)
            ).all()
            if not rows:
                return removed
            session.execute(delete(MediaFile).where(MediaFile.id.in_([row.id for row in rows])))
            hashes = sorted({row.content_hash for row in rows if row.content_hash})
            still_named = set(
                session.scalars(select(MediaFile.content_hash).where(MediaFile.content_hash.in_(hashes)))
            )
        # Files go after the commit: a crash in between leaves a file without a row, never the reverse.
        for digest in hashes:
            if digest not in still_named:
                store.remove(digest)
        removed += len(rows)


def media_disk_use(session: Session) -> dict[str, int]:
    """Files kept and their bytes (each content once), and customers' files pending or failed."""
    per_file = (
        select(MediaFile.content_hash, func.max(MediaFile.size).label("size"))
        .where(MediaFile.content_hash.is_not(None))
        .group_by(MediaFile.content_hash)
        .subquery()
    )
    files, size = session.execute(
        select(func.count(), func.coalesce(func.sum(per_file.c.size), 0)).select_from(per_file)
    ).one()
    by_state = dict(
        session.execute(
            select(MediaFile.state, func.count())
            .where(MediaFile.direction == rules.INBOUND)
            .group_by(MediaFile.state)
        ).all()
    )
    return {
        "files": int(files),
        "bytes": int(size),
        "pending": int(by_state.get(rules.PENDING, 0)),
        "failed": int(by_state.get(rules.FAILED, 0)),
    }
