"""The media fetcher: after a webhook is stored and processed, fetch each customer file from Meta and keep it.

Its steps: claim due pending rows (a lease, so a crashed fetcher's rows are taken again), resolve each
media id (`GET /{version}/{MEDIA_ID}`), download the URL with the access token, check Meta's size and
SHA-256, keep the bytes in the media store, and record the outcome. The network work happens outside
any transaction, so it can neither delay the webhook's 200 nor hold up the webhook processor.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import or_, select, update
from sqlalchemy.exc import OperationalError

from backend.database.models import InboundMessage, MediaFile
from backend.domain import media as rules
from backend.journal import journal
from backend.media.duration import duration_seconds
from backend.media.store import MediaStore
from backend.parts import BackendParts

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 8
DEFAULT_BATCH = 32
LEASE_SECONDS = 300.0
IDLE_SECONDS = 0.5
RETRY_AFTER_SECONDS = 2.0
# Answers to a download that mean the URL is no longer good (it expires minutes after it is given).
EXPIRED_URL_STATUSES = frozenset({401, 403, 404, 410})
MAX_DOWNLOAD_BYTES = rules.MAX_UPLOAD_BYTES + rules.MEGABYTE


class FetchError(Exception):
    """A try that did not keep the file; the message says why in words an agent understands."""


@dataclass(frozen=True)
class Claimed:
    """A pending media row a fetcher holds."""

    media_id: str
    sha256: str | None
    attempts: int
    mime_type: str | None


@dataclass(frozen=True)
class Fetched:
    """A file downloaded, checked and kept."""

    digest: str
    size: int
    mime_type: str | None
    # How long a voice note, audio or video lasts; None for other files and unreadable ones.
    duration_seconds: float | None = None


@dataclass
class FetchResult:
    """What one run did."""

    stored: int = 0
    retrying: int = 0
    failed: int = 0
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def claimed(self) -> int:
        """Rows tried."""
        return self.stored + self.retrying + self.failed


class MediaFetcher:
    """Worker keeping customers' media: claim, resolve, download, check, store, record."""

    name = "media-fetcher"

    def __init__(
        self,
        parts: BackendParts,
        *,
        transport: httpx.BaseTransport | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self._database = parts.database
        self._clock = parts.clock
        self._turns = parts.write_turns
        self._settings = parts.settings
        self._store = MediaStore.for_settings(parts.settings)
        self._transport = transport
        self.concurrency = concurrency
        self.batch_size = batch_size
        self._client: httpx.Client | None = None

    def _http(self) -> httpx.Client:
        if self._client is None:
            settings = self._settings
            timeout = httpx.Timeout(settings.read_timeout_seconds, connect=settings.connect_timeout_seconds)
            self._client = httpx.Client(
                transport=self._transport,
                timeout=timeout,
                limits=httpx.Limits(
                    max_connections=self.concurrency, max_keepalive_connections=self.concurrency
                ),
                follow_redirects=True,
            )
        return self._client

    def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            self._client.close()
            self._client = None

    # ----------------------------------------------------------------- steps

    def run_once(self) -> FetchResult:
        """Try every due pending file once (a batch at a time, several downloads at once)."""
        result = FetchResult()
        claimed = self._claim()
        if not claimed:
            return result
        self._http()  # made here, once: the download threads share it
        try:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(claimed))) as pool:
                outcomes = list(pool.map(self._fetch_one, claimed))
        finally:
            # One client per batch: connections never outlive the downloads they were opened for.
            self.close()
        self._record(claimed, outcomes, result)
        return result

    def drain(self) -> FetchResult:
        """Run until nothing due is left (tests and benchmarks)."""
        total = FetchResult()
        while True:
            result = self.run_once()
            total.stored += result.stored
            total.retrying += result.retrying
            total.failed += result.failed
            total.errors.update(result.errors)
            if result.claimed == 0:
                return total

    def run(self, stop: threading.Event) -> None:
        """Fetch until stop is set, resting briefly whenever nothing is due."""
        try:
            while not stop.is_set():
                try:
                    result = self.run_once()
                except OperationalError as error:
                    log.warning("media fetching paused, the database is unavailable: %s", error)
                    stop.wait(RETRY_AFTER_SECONDS)
                    continue
                if result.claimed == 0:
                    stop.wait(IDLE_SECONDS)
        finally:
            self.close()

    def _claim(self) -> list[Claimed]:
        now = self._clock()
        query = (
            select(
                MediaFile.id, MediaFile.media_id, MediaFile.sha256, MediaFile.attempts, MediaFile.mime_type
            )
            .where(
                MediaFile.state == rules.PENDING,
                MediaFile.direction == rules.INBOUND,
                MediaFile.next_attempt_at <= now,
                or_(MediaFile.lease_expires_at.is_(None), MediaFile.lease_expires_at < now),
            )
            .order_by(MediaFile.next_attempt_at, MediaFile.id)
            .limit(self.batch_size)
        )
        # An idle fetcher only reads: the write lock (SQLite has one) is taken when there is work.
        with self._database.reader() as session:
            if session.execute(query.with_only_columns(MediaFile.id).limit(1)).first() is None:
                return []
        if not self._database.is_sqlite:
            # Several worker processes share the queue; each takes rows no other holds.
            query = query.with_for_update(skip_locked=True)
        with self._turns.background(), self._database.transaction() as session:
            rows = session.execute(query).all()
            if not rows:
                return []
            session.execute(
                update(MediaFile)
                .where(MediaFile.id.in_([row.id for row in rows]))
                .values(lease_expires_at=now + timedelta(seconds=LEASE_SECONDS))
            )
        return [Claimed(row.media_id, row.sha256, row.attempts, row.mime_type) for row in rows]

    def _fetch_one(self, claimed: Claimed) -> Fetched | FetchError:
        try:
            return self._fetch(claimed)
        except FetchError as error:
            return error
        except Exception as error:  # a fetch's failure is data: the others go on
            log.exception("fetching media %s failed unexpectedly", claimed.media_id)
            return FetchError(f"unexpected error: {error}")

    def _fetch(self, claimed: Claimed) -> Fetched:
        token = self._settings.whatsapp_token
        if not token:
            raise FetchError("no access token is configured (WHATSAPP_TOKEN)")
        headers = {"Authorization": f"Bearer {token}"}
        info = self._resolve(claimed.media_id, headers)
        content = self._download(info["url"], headers)
        if content is None:
            # The URL expired between resolving and downloading: ask Meta for a fresh one.
            info = self._resolve(claimed.media_id, headers)
            content = self._download(info["url"], headers)
            if content is None:
                raise FetchError("the download link expired twice in a row")
        expected_size = info.get("file_size")
        sized = isinstance(expected_size, int) and not isinstance(expected_size, bool)
        if sized and expected_size != len(content):
            raise FetchError(
                f"the download was {len(content)} bytes but Meta said {expected_size}: it was cut short"
            )
        expected_hash = info.get("sha256") or claimed.sha256
        if (
            isinstance(expected_hash, str)
            and expected_hash
            and not rules.matches_meta_sha256(content, expected_hash)
        ):
            raise FetchError("the downloaded file does not match Meta's SHA-256: it was corrupted")
        given_type = info.get("mime_type")
        mime_type = given_type if isinstance(given_type, str) else None
        digest = self._store.put(content)
        # Read here, on the download's thread in the background process: never on the webhook's path.
        kept_type = mime_type or claimed.mime_type
        length = duration_seconds(self._store.path_of(digest), kept_type)
        return Fetched(digest, len(content), mime_type, length)

    def _resolve(self, media_id: str, headers: dict[str, str]) -> dict[str, Any]:
        url = f"{self._settings.graph_url.rstrip('/')}/{media_id}"
        try:
            response = self._http().get(url, headers=headers)
        except httpx.HTTPError as error:
            raise FetchError(f"Meta could not be reached to find the file: {type(error).__name__}") from None
        if response.status_code != 200:
            reason = _graph_reason(response)
            raise FetchError(f"Meta did not give the file's link (HTTP {response.status_code}{reason})")
        try:
            info = response.json()
        except ValueError:
            raise FetchError("Meta's answer about the file was not JSON") from None
        if not isinstance(info, dict) or not isinstance(info.get("url"), str):
            raise FetchError("Meta's answer about the file had no download link")
        return info

    def _download(self, url: str, headers: dict[str, str]) -> bytes | None:
        """The bytes, or None when the link has expired."""
        try:
            with self._http().stream("GET", url, headers=headers) as response:
                if response.status_code in EXPIRED_URL_STATUSES:
                    return None
                if response.status_code != 200:
                    raise FetchError(f"the download failed (HTTP {response.status_code})")
                chunks: list[bytes] = []
                received = 0
                for chunk in response.iter_bytes():
                    received += len(chunk)
                    if received > MAX_DOWNLOAD_BYTES:
                        raise FetchError("the file is larger than WhatsApp allows")
                    chunks.append(chunk)
                return b"".join(chunks)
        except httpx.HTTPError as error:
            raise FetchError(f"the download was interrupted: {type(error).__name__}") from None

    def _record(
        self, claimed: list[Claimed], outcomes: list[Fetched | FetchError], result: FetchResult
    ) -> None:
        now = self._clock()
        changed: list[tuple[str, str]] = []
        with self._turns.background(), self._database.transaction() as session:
            for item, outcome in zip(claimed, outcomes, strict=True):
                if isinstance(outcome, Fetched):
                    values: dict[str, Any] = {
                        "state": rules.STORED,
                        "content_hash": outcome.digest,
                        "size": outcome.size,
                        "duration_seconds": outcome.duration_seconds,
                        "error": None,
                        "stored_at": now,
                        "lease_expires_at": None,
                        "attempts": item.attempts + 1,
                    }
                    if outcome.mime_type:
                        values["mime_type"] = outcome.mime_type[:100]
                    result.stored += 1
                    changed.append((item.media_id, rules.STORED))
                else:
                    attempts = item.attempts + 1
                    delay = rules.next_fetch_delay(attempts)
                    reason = str(outcome)[:1000]
                    result.errors[item.media_id] = reason
                    values = {"attempts": attempts, "error": reason, "lease_expires_at": None}
                    if delay is None:
                        values["state"] = rules.FAILED
                        result.failed += 1
                        changed.append((item.media_id, rules.FAILED))
                        log.warning("media %s could not be kept: %s", item.media_id, reason)
                    else:
                        values["next_attempt_at"] = now + delay
                        result.retrying += 1
                session.execute(
                    update(MediaFile)
                    .where(MediaFile.media_id == item.media_id, MediaFile.state == rules.PENDING)
                    .values(**values)
                )
            _journal_changes(session, changed, now)


def _journal_changes(session: Any, changed: list[tuple[str, str]], now: datetime) -> None:
    """Tell live clients which conversations' media changed, so they show the picture or the failure."""
    if not changed:
        return
    states = dict(changed)
    rows = session.execute(
        select(InboundMessage.media_id, InboundMessage.conversation_id, InboundMessage.wamid).where(
            InboundMessage.media_id.in_(list(states))
        )
    ).all()
    for media_id, conversation_id, wamid in rows:
        journal(
            session,
            "media.updated",
            {
                "media_id": media_id,
                "conversation_id": conversation_id,
                "wamid": wamid,
                "state": states[media_id],
            },
            now,
        )


def _graph_reason(response: httpx.Response) -> str:
    try:
        error = response.json().get("error", {})
        message = error.get("message")
    except (ValueError, AttributeError):
        return ""
    return f": {message}" if isinstance(message, str) and message else ""
