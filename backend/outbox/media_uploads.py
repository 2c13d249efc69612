"""The media uploader: gives Meta each file a queued message needs, before the claim may take that message.

Its steps: find files named by queued messages that Meta does not hold (never uploaded, or uploaded
more than GRAPH_MEDIA_VALIDITY ago), take a lease on each, upload it to `/{PHONE_NUMBER_ID}/media`, and
keep Meta's id with the time. The outbox row is never touched: the claim's due query takes a file's
message only once its upload is recorded, so a failed upload is simply tried again later and can
never make a second message.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import timedelta

import httpx
from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import OperationalError

from backend.database.models import MediaFile, OutboxMessage
from backend.domain import media as rules
from backend.domain import states
from backend.media.store import MediaStore
from backend.parts import BackendParts

log = logging.getLogger(__name__)

BATCH = 16
LEASE_SECONDS = 600.0
IDLE_SECONDS = 0.2
RETRY_AFTER_SECONDS = 2.0
# Seconds before each further try of a failed upload; the last one repeats (a message waits for its file).
UPLOAD_BACKOFF_SECONDS = (1.0, 5.0, 30.0, 120.0, 600.0)


class UploadError(Exception):
    """An upload that did not give Meta the file; the message says why."""


@dataclass
class UploadResult:
    """What one run did."""

    uploaded: int = 0
    failed: int = 0
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def tried(self) -> int:
        """Files tried."""
        return self.uploaded + self.failed


class MediaUploader:
    """Worker uploading the files of queued media messages to Meta, once per validity period."""

    name = "media-uploader"

    def __init__(self, parts: BackendParts, *, transport: httpx.BaseTransport | None = None) -> None:
        self._database = parts.database
        self._clock = parts.clock
        self._turns = parts.write_turns
        self._settings = parts.settings
        self._store = MediaStore.for_settings(parts.settings)
        self._transport = transport

    def run_once(self) -> UploadResult:
        """Upload every file due now."""
        result = UploadResult()
        chosen = self._claim()
        if not chosen:
            return result
        settings = self._settings
        timeout = httpx.Timeout(settings.read_timeout_seconds * 3, connect=settings.connect_timeout_seconds)
        with httpx.Client(transport=self._transport, timeout=timeout) as client:
            for media_id in chosen:
                try:
                    graph_id = self._upload(client, media_id)
                except UploadError as error:
                    self._record_failure(media_id, str(error))
                    result.failed += 1
                    result.errors[media_id] = str(error)
                else:
                    self._record_upload(media_id, graph_id)
                    result.uploaded += 1
        return result

    def run(self, stop: threading.Event) -> None:
        """Upload until stop is set, resting briefly whenever nothing is due."""
        while not stop.is_set():
            try:
                result = self.run_once()
            except OperationalError as error:
                log.warning("media uploads paused, the database is unavailable: %s", error)
                stop.wait(RETRY_AFTER_SECONDS)
                continue
            if result.tried == 0:
                stop.wait(IDLE_SECONDS)

    def _claim(self) -> list[str]:
        now = self._clock()
        waiting = (
            select(OutboxMessage.media_id)
            .where(OutboxMessage.state == states.QUEUED, OutboxMessage.media_id.is_not(None))
            .distinct()
        )
        query = (
            select(MediaFile.id, MediaFile.media_id)
            .where(
                MediaFile.media_id.in_(waiting),
                MediaFile.direction == rules.OUTBOUND,
                or_(
                    MediaFile.graph_uploaded_at.is_(None),
                    MediaFile.graph_uploaded_at <= now - rules.GRAPH_MEDIA_VALIDITY,
                ),
                or_(MediaFile.next_attempt_at.is_(None), MediaFile.next_attempt_at <= now),
                or_(MediaFile.lease_expires_at.is_(None), MediaFile.lease_expires_at < now),
            )
            .order_by(MediaFile.id)
            .limit(BATCH)
        )
        # An idle uploader only reads: the write lock (SQLite has one) is taken when there is work.
        with self._database.reader() as session:
            if session.execute(query.with_only_columns(MediaFile.id).limit(1)).first() is None:
                return []
        if not self._database.is_sqlite:
            query = query.with_for_update(skip_locked=True)
        with self._turns.background(), self._database.transaction() as session:
            rows = session.execute(query).all()
            if rows:
                session.execute(
                    update(MediaFile)
                    .where(MediaFile.id.in_([row.id for row in rows]))
                    .values(lease_expires_at=now + timedelta(seconds=LEASE_SECONDS))
                )
        return [row.media_id for row in rows]

    def _upload(self, client: httpx.Client, media_id: str) -> str:
        settings = self._settings
        token, phone_number_id = settings.whatsapp_token, settings.whatsapp_phone_number_id
        if not token or not phone_number_id:
            raise UploadError("no access token or phone number id is configured")
        with self._database.reader() as session:
            row = session.scalars(select(MediaFile).where(MediaFile.media_id == media_id)).one()
            digest, mime_type, filename = row.content_hash, row.mime_type, row.filename
        if digest is None or not self._store.has(digest):
            raise UploadError("the file is no longer kept")
        content = self._store.read(digest)
        name = filename or rules.default_filename(rules.kind_of(mime_type), media_id, mime_type)
        mime = mime_type or "application/octet-stream"
        try:
            response = client.post(
                f"{settings.graph_url.rstrip('/')}/{phone_number_id}/media",
                headers={"Authorization": f"Bearer {token}"},
                data={"messaging_product": "whatsapp", "type": mime},
                files={"file": (name, content, mime)},
            )
        except httpx.HTTPError as error:
            raise UploadError(f"Meta could not be reached: {type(error).__name__}") from None
        try:
            answer = response.json()
        except ValueError:
            answer = None
        graph_id = answer.get("id") if isinstance(answer, dict) else None
        if response.status_code != 200 or not isinstance(graph_id, str) or not graph_id:
            message = ""
            if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
                message = f": {answer['error'].get('message')}"
            raise UploadError(f"Meta refused the upload (HTTP {response.status_code}{message})")
        return graph_id

    def _record_upload(self, media_id: str, graph_id: str) -> None:
        now = self._clock()
        with self._turns.background(), self._database.transaction() as session:
            session.execute(
                update(MediaFile)
                .where(MediaFile.media_id == media_id)
                .values(
                    graph_media_id=graph_id,
                    graph_uploaded_at=now,
                    lease_expires_at=None,
                    next_attempt_at=None,
                    attempts=0,
                    error=None,
                )
            )
        log.info("uploaded media %s to WhatsApp as %s", media_id, graph_id)

    def _record_failure(self, media_id: str, reason: str) -> None:
        now = self._clock()
        with self._turns.background(), self._database.transaction() as session:
            attempts = session.scalar(select(MediaFile.attempts).where(MediaFile.media_id == media_id)) or 0
            delay = UPLOAD_BACKOFF_SECONDS[min(attempts, len(UPLOAD_BACKOFF_SECONDS) - 1)]
            session.execute(
                update(MediaFile)
                .where(and_(MediaFile.media_id == media_id))
                .values(
                    attempts=attempts + 1,
                    error=reason[:1000],
                    lease_expires_at=None,
                    next_attempt_at=now + timedelta(seconds=delay),
                )
            )
        log.warning("uploading media %s failed (tried again in %.0f s): %s", media_id, delay, reason)
