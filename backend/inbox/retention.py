"""Retention: old event keys, raw webhook bodies and finished outbox rows are removed by a sweeper."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import OperationalError

from backend import idempotency
from backend.database.models import (
    InboundMessage,
    OutboxMessage,
    ProcessedEvent,
    SendDecision,
    StatusEvent,
    WebhookDelivery,
)
from backend.domain import states
from backend.media.records import remove_old_media
from backend.media.store import MediaStore
from backend.parts import BackendParts

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_SECONDS = 3600.0
BATCH = 1000
# A file half received this long ago belongs to an upload whose process died: nobody finishes it.
ABANDONED_UPLOAD_SECONDS = 24 * 3600.0
# Rows still waiting for something (queued, sending, unknown, held) are never removed, however old.
FINISHED_STATES = (
    states.ACCEPTED,
    states.SENT,
    states.DELIVERED,
    states.READ,
    states.FAILED,
    states.CANCELLED,
)


@dataclass
class RetentionResult:
    """How many rows one sweep removed."""

    event_keys: int = 0
    raw_bodies: int = 0
    outbox_rows: int = 0
    idempotency_records: int = 0
    media_files: int = 0
    abandoned_uploads: int = 0


class RetentionSweeper:
    """Worker removing what is past its retention period, in small transactions."""

    name = "retention-sweeper"

    def __init__(self, parts: BackendParts, *, interval_seconds: float = DEFAULT_INTERVAL_SECONDS) -> None:
        self._database = parts.database
        self._settings = parts.settings
        self._clock = parts.clock
        self.interval_seconds = interval_seconds

    def run_once(self) -> RetentionResult:
        """Remove everything past its retention period now."""
        now = self._clock()
        settings = self._settings
        result = RetentionResult()
        key_cutoff = now - timedelta(days=settings.processed_keys_retention_days)
        body_cutoff = now - timedelta(days=settings.raw_bodies_retention_days)
        result.event_keys = self._delete_in_batches(ProcessedEvent, ProcessedEvent.processed_at < key_cutoff)
        # A body not yet processed is kept whatever its age: it is the only copy of its events.
        result.raw_bodies = self._delete_in_batches(
            WebhookDelivery,
            WebhookDelivery.received_at < body_cutoff,
            WebhookDelivery.processed_at.is_not(None),
        )
        with self._database.transaction() as session:
            result.idempotency_records = idempotency.purge(session, now)
        with self._database.reader() as session:
            purposes = list(session.scalars(select(OutboxMessage.purpose).distinct()))
        for purpose in purposes:
            cutoff = now - timedelta(days=settings.rule_for(purpose).retention_days)
            result.outbox_rows += self._delete_outbox(purpose, cutoff)
        store = MediaStore.for_settings(settings)
        result.media_files = remove_old_media(
            self._database, store, now - timedelta(days=settings.media_retention_days)
        )
        result.abandoned_uploads = store.remove_abandoned(ABANDONED_UPLOAD_SECONDS)
        return result

    def _delete_in_batches(self, model: Any, *conditions: Any) -> int:
        removed = 0
        while True:
            with self._database.transaction() as session:
                ids = list(session.scalars(select(model.id).where(*conditions).limit(BATCH)))
                if ids:
                    session.execute(delete(model).where(model.id.in_(ids)))
            removed += len(ids)
            if len(ids) < BATCH:
                return removed

    def _delete_outbox(self, purpose: str, cutoff: Any) -> int:
        removed = 0
        while True:
            with self._database.transaction() as session:
                ids = list(
                    session.scalars(
                        select(OutboxMessage.id)
                        .where(
                            OutboxMessage.purpose == purpose,
                            OutboxMessage.state.in_(FINISHED_STATES),
                            OutboxMessage.updated_at < cutoff,
                        )
                        .limit(BATCH)
                    )
                )
                if ids:
                    # Replies and status evidence outlive the row they pointed to; decisions go with it.
                    session.execute(
                        update(InboundMessage)
                        .where(InboundMessage.reply_to_message_id.in_(ids))
                        .values(reply_to_message_id=None)
                    )
                    session.execute(
                        update(StatusEvent).where(StatusEvent.message_id.in_(ids)).values(message_id=None)
                    )
                    session.execute(delete(SendDecision).where(SendDecision.message_id.in_(ids)))
                    session.execute(delete(OutboxMessage).where(OutboxMessage.id.in_(ids)))
            removed += len(ids)
            if len(ids) < BATCH:
                return removed

    def run(self, stop: threading.Event) -> None:
        """Sweep every interval until stop is set."""
        while not stop.is_set():
            try:
                self.run_once()
            except OperationalError as error:
                log.warning("retention sweep paused, the database is unavailable: %s", error)
            stop.wait(self.interval_seconds)
