"""The outbox sender: claims due rows in batches and keeps many Graph calls in flight at once.

One asyncio loop per sender. Database work runs on one helper thread (claims and outcome batches
never wait on each other inside a process); each claimed batch gets a dispatcher that starts every
request at the moment pacing gave it; answers are recorded in batches.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import random
import socket
import threading
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import httpx

from backend.domain.graph_body import UnsendablePayloadError, build_send_body
from backend.domain.outcomes import OutcomeKind, SendOutcome, not_sent, outcome_of_answer, unknown
from backend.domain.pacing import PacingRules, send_interval
from backend.domain.send_errors import PAYLOAD_UNSENDABLE_TITLE
from backend.outbox.claim import ClaimedMessage, claim_batch, pacing_rules
from backend.outbox.graph_transport import KeepAliveTransport
from backend.outbox.outcomes import RecordSummary, record_outcomes, release_unsent
from backend.parts import BackendParts

log = logging.getLogger(__name__)

Transport = httpx.BaseTransport | httpx.AsyncBaseTransport
SleepUntil = Callable[[datetime], Awaitable[None]]
_T = TypeVar("_T")

MAX_BATCH = 500
MAX_AUTO_IN_FLIGHT = 2000
MAX_LAG_SECONDS = 0.5
SHORT_WAIT_SECONDS = 0.05
# Timers are not finer than a millisecond or so; rows due within this of each other may go together.
LOCAL_TOLERANCE = timedelta(milliseconds=20)
FLUSH_SIZE = 256
FLUSH_INTERVAL_SECONDS = 0.02
IDLE_POLL_SECONDS = 0.2
BUSY_POLL_SECONDS = 0.02
# On stop, requests already sent get this long to answer before they are recorded as unknown.
SHUTDOWN_GRACE_SECONDS = 5.0


class _SyncTransportAdapter(httpx.AsyncBaseTransport):
    """Lets a synchronous transport serve the async sender, each call on a helper thread."""

    def __init__(self, transport: httpx.BaseTransport, threads: int) -> None:
        self._transport = transport
        # Its own threads, so a call that never returns cannot hold up the loop's shutdown.
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="outbox-sync-transport")

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Run the synchronous transport off the loop and read the whole answer."""

        def call() -> httpx.Response:
            response = self._transport.handle_request(request)
            content = response.read()
            return httpx.Response(response.status_code, headers=response.headers, content=content)

        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    async def aclose(self) -> None:
        """Let go of the helper threads without waiting for calls still running."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def _proxy_for(url: httpx.URL) -> str | None:
    """The proxy the environment asks for to reach `url` (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY), if any."""
    if url.host in {"127.0.0.1", "localhost", "::1"}:
        return None
    names = ("HTTPS_PROXY", "ALL_PROXY") if url.scheme == "https" else ("HTTP_PROXY", "ALL_PROXY")
    for name in names:
        value = os.environ.get(name) or os.environ.get(name.lower())
        if value:
            return value
    return None


def _log_failure(task: asyncio.Task[None]) -> None:
    # Rows a failed dispatcher held stay `sending` and come back as `unknown` through their lease.
    if not task.cancelled() and task.exception() is not None:
        log.error("an outbox dispatcher failed", exc_info=task.exception())


def default_worker_id() -> str:
    """A name for this sender that says where it runs."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass
class _Pending:
    """One sender run's bookkeeping: answers to record and rows to give back."""

    results: list[tuple[ClaimedMessage, SendOutcome]]
    released: list[ClaimedMessage]


class OutboxSender:
    """A worker that sends due outbox rows; `run_once()` for tests, `run(stop)` for service."""

    name = "outbox-sender"

    def __init__(
        self,
        parts: BackendParts,
        *,
        transport: Transport | None = None,
        sleep_until: SleepUntil | None = None,
        jitter: Callable[[], float] = random.random,
        worker_id: str | None = None,
        max_in_flight: int | None = None,
        horizon_seconds: float = 1.0,
        shutdown_grace_seconds: float = SHUTDOWN_GRACE_SECONDS,
    ) -> None:
        settings = parts.settings
        self.database = parts.database
        self.settings = settings
        self.worker_id = worker_id or default_worker_id()
        self._transport = transport
        self._clock = parts.clock
        self._sleep_until = sleep_until
        self._jitter = jitter
        # Enough requests in flight plus rows waiting for their moment to hold the rate for about a second
        # and a half of latency, unless told otherwise.
        self._max_in_flight = max(
            1,
            max_in_flight
            or max(settings.send_concurrency, min(MAX_AUTO_IN_FLIGHT, math.ceil(settings.send_rate * 1.5))),
        )
        self._horizon = horizon_seconds
        self._interval = send_interval(settings.send_rate)
        self._arrival = datetime(2000, 1, 1, tzinfo=UTC)
        self._rules: PacingRules = pacing_rules(settings, horizon_seconds)
        self._grace = shutdown_grace_seconds
        # Parsed once: URL and header parsing per request cost more than the socket work at volume.
        self._url = httpx.URL(
            f"{settings.graph_url.rstrip('/')}/{settings.whatsapp_phone_number_id}/messages"
        )
        self._headers = httpx.Headers(
            {"Authorization": f"Bearer {settings.whatsapp_token or ''}", "Content-Type": "application/json"}
        )
        self._timeouts = {
            "connect": settings.connect_timeout_seconds,
            "read": settings.read_timeout_seconds,
            "write": settings.read_timeout_seconds,
            "pool": settings.connect_timeout_seconds,
        }
        self._stopping = asyncio.Event()
        self._waiting = 0  # claimed rows whose request has not started yet
        self._database_thread: ThreadPoolExecutor | None = None

    # ----- entry points

    def run_once(self) -> int:
        """Claim one batch, send it, record every answer; the number of rows claimed."""
        return asyncio.run(self._run_once())

    def run(self, stop: threading.Event) -> None:
        """Send until `stop` is set, then finish in-flight calls (bounded) and leave nothing in `sending`."""
        while not stop.is_set():
            try:
                asyncio.run(self._serve(stop))
            except Exception:
                # A broken loop must not end sending for good; rows it held come back through the lease.
                log.exception("the outbox sender failed; starting it again in a second")
                stop.wait(1.0)

    # ----- the loops

    async def _run_once(self) -> int:
        self._stopping = asyncio.Event()
        self._waiting = 0
        with self._database_executor():
            async with self._open_transport() as transport:
                claimed = await self._in_database(self._claim, min(self._max_in_flight, MAX_BATCH))
                pending = _Pending([], [])
                self._waiting += len(claimed)
                await self._dispatch(transport, claimed, pending, set())
                await self._flush(pending, raise_errors=True)
                return len(claimed)

    async def _serve(self, stop: threading.Event) -> None:
        self._stopping = asyncio.Event()
        self._waiting = 0
        pending = _Pending([], [])
        requests: set[asyncio.Task[None]] = set()
        dispatchers: set[asyncio.Task[None]] = set()
        flusher_stop = asyncio.Event()
        with self._database_executor():
            async with self._open_transport() as transport:
                flusher = asyncio.create_task(self._flush_loop(pending, flusher_stop))
                # Small claims cost nearly as much as large ones: wait for a useful amount of room.
                least = max(1, min(MAX_BATCH, self._max_in_flight // 4))
                while not stop.is_set():
                    room = min(self._max_in_flight - len(requests) - self._waiting, MAX_BATCH)
                    if room < least:
                        await asyncio.sleep(BUSY_POLL_SECONDS)
                        continue
                    try:
                        claimed = await self._in_database(self._claim, room)
                    except Exception:
                        log.exception("claiming outbox rows failed; trying again shortly")
                        claimed = []
                    if claimed:
                        self._waiting += len(claimed)
                        task = asyncio.create_task(self._dispatch(transport, claimed, pending, requests))
                        dispatchers.add(task)
                        task.add_done_callback(dispatchers.discard)
                        task.add_done_callback(_log_failure)
                    if len(claimed) < room:
                        await asyncio.sleep(self._pause_after(claimed))
                # Stop: no new request starts; rows still waiting for their moment go back to the queue,
                # requests already sent get a bounded wait, then count as unknown.
                self._stopping.set()
                if dispatchers:
                    await asyncio.wait(set(dispatchers), timeout=self._grace + 1.0)
                if requests:
                    _done, late = await asyncio.wait(set(requests), timeout=self._grace)
                    for task in late:
                        task.cancel()
                    if late:
                        await asyncio.wait(late)
                for task in dispatchers:
                    task.cancel()
                flusher_stop.set()
                await flusher
                await self._flush(pending, raise_errors=False)

    def _pause_after(self, claimed: list[ClaimedMessage]) -> float:
        """How long to wait before the next claim when the last one took less than there was room for."""
        if not claimed:
            return IDLE_POLL_SECONDS
        # Pacing booked moments up to the horizon: claim again when half of that is used up.
        booked = (claimed[-1].dispatch_at - self._clock()).total_seconds()
        return min(self._horizon, max(BUSY_POLL_SECONDS, booked - self._horizon / 2))

    async def _flush_loop(self, pending: _Pending, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(FLUSH_INTERVAL_SECONDS)
            await self._flush(pending, raise_errors=False)

    async def _flush(self, pending: _Pending, *, raise_errors: bool) -> None:
        """Record the answers gathered so far in one transaction; on failure keep them for the next try."""
        if not pending.results and not pending.released:
            return
        results, released = pending.results, pending.released
        pending.results, pending.released = [], []
        try:
            await self._in_database(self._record, (results, released))
        except Exception:
            pending.results[:0] = results
            pending.released[:0] = released
            if raise_errors:
                raise
            log.exception("recording send outcomes failed; keeping them for the next try")

    async def _dispatch(
        self,
        transport: httpx.AsyncBaseTransport,
        claimed: list[ClaimedMessage],
        pending: _Pending,
        requests: set[asyncio.Task[None]],
    ) -> None:
        """Start each request at its moment, in order; on stop, give back those not yet started.

        If this process falls behind its booked moments (a busy machine, a slow database), late rows
        are spaced at the send interval rather than sent in a burst, and rows that would go more than
        MAX_LAG_SECONDS late are given back to be booked again: the cap holds in every second.
        """
        started: list[asyncio.Task[None]] = []
        for index, message in enumerate(claimed):
            if not await self._wait_for_turn(message):
                pending.released.extend(claimed[index:])
                self._waiting -= len(claimed) - index
                break
            self._waiting -= 1
            task = asyncio.create_task(self._send_and_keep(transport, message, pending))
            requests.add(task)
            task.add_done_callback(requests.discard)
            started.append(task)
        if started:
            await asyncio.wait(started)

    async def _wait_for_turn(self, message: ClaimedMessage) -> bool:
        """Wait for the row's moment and for this process's own pace; False: give the row back.

        The process keeps a theoretical arrival time (GCRA) at the send interval with a small
        tolerance: on time, rows simply go at their booked moments; after a stall, the late rows are
        spaced at the interval instead of sent in a burst, so a second holds at most the cap plus the
        tolerance's worth (none below 100 per second). Rows more than MAX_LAG_SECONDS late are given
        back to be booked again.
        """
        if self._stopping.is_set() or not await self._wait_until(message.dispatch_at):
            return False
        while (allowed_at := self._arrival - LOCAL_TOLERANCE) > self._clock():
            if not await self._wait_until(allowed_at):
                return False
        now = self._clock()
        if (now - message.dispatch_at).total_seconds() > MAX_LAG_SECONDS:
            return False
        # No await between the check and this update: dispatchers of several batches take turns here.
        self._arrival = max(self._arrival, now) + self._interval
        return True

    async def _wait_until(self, moment: datetime) -> bool:
        """Wait for a send moment; False if the sender is stopping first."""
        if self._sleep_until is not None:
            await self._sleep_until(moment)
            return not self._stopping.is_set()
        delay = (moment - self._clock()).total_seconds()
        if delay <= 0:
            return True
        if delay < SHORT_WAIT_SECONDS:
            # The common case at high rates: a plain sleep, without a task to watch for the stop.
            await asyncio.sleep(delay)
            return not self._stopping.is_set()
        try:
            await asyncio.wait_for(self._stopping.wait(), delay)
        except TimeoutError:
            return True
        return False

    async def _send_and_keep(
        self, transport: httpx.AsyncBaseTransport, message: ClaimedMessage, pending: _Pending
    ) -> None:
        try:
            outcome = await self.send(transport, message)
        except asyncio.CancelledError:
            outcome = unknown("the sender stopped while waiting for the answer")
            pending.results.append((message, outcome))
            raise
        pending.results.append((message, outcome))

    async def send(self, transport: httpx.AsyncBaseTransport, message: ClaimedMessage) -> SendOutcome:
        """One Graph call for one row, classified; never raises for a network or Meta failure."""
        try:
            body = build_send_body(
                kind=message.kind,
                payload=message.payload,
                to_number=message.to_number,
                dedupe_key=message.dedupe_key,
                reply_to=message.reply_to,
            )
        except (UnsendablePayloadError, KeyError, TypeError) as error:
            return SendOutcome(OutcomeKind.FAIL, title=PAYLOAD_UNSENDABLE_TITLE, details=str(error))
        try:
            request = httpx.Request(
                "POST",
                self._url,
                headers=self._headers,
                content=json.dumps(body).encode(),
                extensions={"timeout": self._timeouts},
            )
            # Straight to the transport: a client's cookie, auth and redirect steps do nothing for this
            # call and cost more than the socket work at thousands of calls a second.
            response = await transport.handle_async_request(request)
            await response.aread()
        except (
            httpx.ConnectError,
            httpx.ConnectTimeout,
            httpx.PoolTimeout,
            httpx.UnsupportedProtocol,
        ) as error:
            return not_sent(f"{type(error).__name__}: {error}")
        except httpx.HTTPError as error:
            # Read timeout, dropped connection, protocol error after writing: Meta may have it.
            return unknown(f"{type(error).__name__}: {error}")
        try:
            answer: Any = response.json()
        except ValueError:
            answer = None
        return outcome_of_answer(response.status_code, answer)

    # ----- database steps (run on the database thread)

    def _claim(self, limit: int) -> list[ClaimedMessage]:
        with self.database.transaction() as session:
            return claim_batch(
                session,
                rules=self._rules,
                lease_seconds=self.settings.send_lease_seconds,
                now=self._clock(),
                limit=limit,
                worker_id=self.worker_id,
            )

    def _record(
        self, batch: tuple[list[tuple[ClaimedMessage, SendOutcome]], list[ClaimedMessage]]
    ) -> RecordSummary:
        results, released = batch
        with self.database.transaction() as session:
            now = self._clock()
            summary = record_outcomes(session, results, settings=self.settings, now=now, jitter=self._jitter)
            release_unsent(session, released, now)
            return summary

    # ----- plumbing

    def _open_transport(self) -> httpx.AsyncBaseTransport:
        """The transport for this run: the injected one, or the keep-alive one for the real Graph API."""
        transport = self._transport
        if transport is None:
            proxy = _proxy_for(self._url)
            if proxy is not None:
                # Behind a proxy, httpx's own transport knows how to tunnel; throughput matters less there.
                limits = httpx.Limits(max_connections=self._max_in_flight)
                return httpx.AsyncHTTPTransport(proxy=proxy, limits=limits)
            return KeepAliveTransport(max_connections=self._max_in_flight)
        if isinstance(transport, httpx.AsyncBaseTransport):
            return transport
        return _SyncTransportAdapter(transport, self._max_in_flight)

    def _database_executor(self) -> ThreadPoolExecutor:
        self._database_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{self.name}-database")
        return self._database_thread

    async def _in_database(self, function: Callable[[Any], _T], argument: Any) -> _T:
        assert self._database_thread is not None
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._database_thread, function, argument)
