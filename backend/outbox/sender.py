"""The outbox sender: claims due rows in batches and keeps many Graph calls in flight at once.

One asyncio loop per sender, with three parts. The claim loop reserves due rows with their send
moments (`claim_batch`). The ticker runs one short transaction every 20 ms that records the answers
gathered so far, gives back what will not be sent, and starts (`queued` → `sending`) only the reserved
rows whose moment is within START_LEAD; so a row is `sending` only when its call is about to leave,
and a crash costs only the calls in flight. The dispatcher sends each started row at its moment.
Database work runs on one helper thread, where claims and ticks take turns: at most one of each is
ever outstanding, so a tick waits for at most one claim.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import json
import logging
import math
import os
import random
import socket
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import httpx

from backend.domain.graph_body import UnsendablePayloadError, build_send_body
from backend.domain.outcomes import OutcomeKind, SendOutcome, not_sent, outcome_of_answer, unknown
from backend.domain.pacing import PacingRules, send_interval
from backend.domain.send_errors import PAYLOAD_UNSENDABLE_TITLE
from backend.outbox.claim import (
    START_LEAD_SECONDS,
    Changes,
    ClaimedMessage,
    claim_batch,
    pacing_rules,
    release_reserved,
    start_reserved,
)
from backend.outbox.graph_transport import KeepAliveTransport
from backend.outbox.number_health import TierSource
from backend.outbox.opt_outs import after_refusals
from backend.outbox.outcomes import RecordSummary, give_back_unsent, record_outcomes
from backend.outbox.state_writes import journal_transitions
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
LOCAL_TOLERANCE = timedelta(milliseconds=10)
# Every tick starts the rows due before its next one plus a margin for the transaction itself.
TICK_SECONDS = 0.02
START_LEAD = timedelta(seconds=START_LEAD_SECONDS)
# Started rows wait for the dispatcher at most this long at the send interval: after a stall, the
# overdue rows beyond it stay reserved (their calls are not about to leave) and go back if too late.
STARTED_AHEAD = START_LEAD + timedelta(seconds=TICK_SECONDS)
IDLE_POLL_SECONDS = 0.2
SETTLE_POLL_SECONDS = 0.005
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
    # Rows a failed part held come back: reserved ones when their reservation ends, started ones
    # through their lease as `unknown`.
    if not task.cancelled() and task.exception() is not None:
        log.error("a part of the outbox sender failed", exc_info=task.exception())


def default_worker_id() -> str:
    """A name for this sender that says where it runs."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


Entry = tuple[datetime, int, ClaimedMessage]


@dataclass
class _Run:
    """One sender run: rows waiting for their start or their moment, requests in flight, and what the
    next tick writes."""

    # Reserved rows by moment, waiting for the tick that starts them.
    reserved: list[Entry] = field(default_factory=list)
    # Started rows by moment, waiting for the dispatcher to send them.
    ready: list[Entry] = field(default_factory=list)
    requests: set[asyncio.Task[None]] = field(default_factory=set)
    # Claimed rows whose request has not started yet (reserved, ready, or at the dispatcher).
    waiting: int = 0
    # For the next tick: answers to record, started rows never sent, reservations to give up.
    results: list[tuple[ClaimedMessage, SendOutcome]] = field(default_factory=list)
    given_back: list[ClaimedMessage] = field(default_factory=list)
    released: list[ClaimedMessage] = field(default_factory=list)
    # Claims whose rows go back (one slipped past its moment): the rest are booked again, not rushed.
    abandoned: set[str] = field(default_factory=set)
    closing: bool = False
    order: Iterator[int] = field(default_factory=itertools.count)
    wake_ticker: asyncio.Event = field(default_factory=asyncio.Event)
    wake_dispatcher: asyncio.Event = field(default_factory=asyncio.Event)
    dispatcher_idle: asyncio.Event = field(default_factory=asyncio.Event)

    def entry(self, message: ClaimedMessage) -> Entry:
        """A heap entry: by moment, then in arrival order."""
        return (message.dispatch_at, next(self.order), message)

    def has_writes(self) -> bool:
        """Whether the next tick has something to write even without rows to start."""
        return bool(self.results or self.given_back or self.released)


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
        self._rules: PacingRules = pacing_rules(settings, horizon_seconds)
        # The claim's pace, margin under the cap included: this process keeps the same one.
        self._interval = send_interval(self._rules.rate)
        # How many started rows the dispatcher sends within STARTED_AHEAD at the send interval.
        self._start_room = max(1, STARTED_AHEAD // self._interval)
        self._arrival = datetime(2000, 1, 1, tzinfo=UTC)
        # Meta's messaging limit (from quality webhooks and reads) unless one was set by hand.
        self._tier = TierSource(parts.database, settings)
        self._templates = parts.templates
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
        # A started row waits up to START_LEAD for its moment and may go up to MAX_LAG_SECONDS late;
        # its lease covers both before the call's own time.
        self._lease_seconds = settings.send_lease_seconds + START_LEAD_SECONDS + MAX_LAG_SECONDS
        self._stopping = asyncio.Event()
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
                # A broken loop must not end sending for good; rows it held come back by themselves:
                # reserved ones when their reservation ends, started ones through their lease.
                log.exception("the outbox sender failed; starting it again in a second")
                stop.wait(1.0)

    # ----- the loops

    async def _run_once(self) -> int:
        self._stopping = asyncio.Event()
        run = _Run()
        with self._database_executor():
            async with self._open_transport() as transport:
                claimed = await self._in_database(self._claim, min(self._max_in_flight, MAX_BATCH))
                self._take(run, claimed)
                parts = self._start_parts(run, transport)
                while run.waiting or run.requests:
                    await asyncio.sleep(SETTLE_POLL_SECONDS)
                await self._close(run, parts)
                await self._tick(run, raise_errors=True)
                return len(claimed)

    async def _serve(self, stop: threading.Event) -> None:
        self._stopping = asyncio.Event()
        run = _Run()
        with self._database_executor():
            async with self._open_transport() as transport:
                parts = self._start_parts(run, transport)
                # Small claims cost nearly as much as large ones: wait for a useful amount of room.
                least = max(1, min(MAX_BATCH, self._max_in_flight // 4))
                while not stop.is_set():
                    room = min(self._max_in_flight - len(run.requests) - run.waiting, MAX_BATCH)
                    if room < least:
                        await asyncio.sleep(BUSY_POLL_SECONDS)
                        continue
                    try:
                        claimed = await self._in_database(self._claim, room)
                    except Exception:
                        log.exception("claiming outbox rows failed; trying again shortly")
                        claimed = []
                    self._take(run, claimed)
                    if len(claimed) < room:
                        await asyncio.sleep(self._pause_after(claimed))
                await self._stop(run, parts)

    async def _stop(self, run: _Run, parts: list[asyncio.Task[None]]) -> None:
        """No new request starts: reservations go back at once, started rows not yet sent are given back,
        requests already sent get the grace (one deadline for all of them), then count as unknown."""
        self._stopping.set()
        run.wake_ticker.set()
        run.wake_dispatcher.set()
        if run.requests:
            _done, late = await asyncio.wait(set(run.requests), timeout=self._grace)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
        await self._close(run, parts)
        await self._tick(run, raise_errors=False)

    def _start_parts(self, run: _Run, transport: httpx.AsyncBaseTransport) -> list[asyncio.Task[None]]:
        parts = [
            asyncio.create_task(self._tick_loop(run)),
            asyncio.create_task(self._dispatch_loop(run, transport)),
        ]
        for task in parts:
            task.add_done_callback(_log_failure)
        return parts

    async def _close(self, run: _Run, parts: list[asyncio.Task[None]]) -> None:
        # Never cancelled: a tick cut off while its transaction runs would lose the rows it started.
        run.closing = True
        run.wake_ticker.set()
        run.wake_dispatcher.set()
        run.dispatcher_idle.set()
        await asyncio.wait(parts)

    def _take(self, run: _Run, claimed: list[ClaimedMessage]) -> None:
        """A claim's rows join the run: rows it started wait for their moment, the rest for their start."""
        run.waiting += len(claimed)
        for message in claimed:
            heap = run.ready if message.lease_expires_at is not None else run.reserved
            heapq.heappush(heap, run.entry(message))
        if run.ready:
            run.dispatcher_idle.clear()
            run.wake_dispatcher.set()
        if claimed:
            # An idle ticker waits without a timeout: rows to start, or answers to come, give it one.
            run.wake_ticker.set()

    def _pause_after(self, claimed: list[ClaimedMessage]) -> float:
        """How long to wait before the next claim when the last one took less than there was room for."""
        if not claimed:
            return IDLE_POLL_SECONDS
        # Pacing booked moments up to the horizon: claim again when half of that is used up.
        booked = (claimed[-1].dispatch_at - self._clock()).total_seconds()
        return min(self._horizon, max(BUSY_POLL_SECONDS, booked - self._horizon / 2))

    async def _tick_loop(self, run: _Run) -> None:
        while True:
            await self._next_tick(run)
            if run.closing:
                return
            await self._tick(run, raise_errors=False)

    async def _next_tick(self, run: _Run) -> None:
        """Wait for the next tick: TICK_SECONDS while there is work, or a wake-up (a claim, the stop)."""
        if self._sleep_until is not None and run.reserved:
            # Injected time moves only while no started row waits for its moment, so each send keeps it.
            await run.dispatcher_idle.wait()
            start_at = run.reserved[0][0] - START_LEAD
            if not run.closing and start_at > self._clock():
                await self._sleep_until(start_at)
            return
        # Work in hand (rows not yet sent, calls whose answers will come) means ticking; otherwise a
        # claim wakes the ticker, and the idle poll is only a backstop.
        busy = run.waiting or run.requests or run.has_writes()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.wake_ticker.wait(), TICK_SECONDS if busy else IDLE_POLL_SECONDS)

    async def _tick(self, run: _Run, *, raise_errors: bool) -> None:
        """One transaction: record answers, give back and release what will not be sent, and start the
        reserved rows whose moment is within START_LEAD (all of them go back once stopping)."""
        run.wake_ticker.clear()
        now = self._clock()
        stopping = self._stopping.is_set() or run.closing
        start_before = now + START_LEAD
        too_late = now - timedelta(seconds=MAX_LAG_SECONDS)
        room = self._start_room - len(run.ready)
        to_start: list[ClaimedMessage] = []
        while run.reserved and (stopping or run.reserved[0][0] <= start_before):
            message = run.reserved[0][2]
            if stopping or message.token in run.abandoned or message.dispatch_at < too_late:
                run.released.append(message)
                run.waiting -= 1
            elif len(to_start) >= room:
                break
            else:
                to_start.append(message)
            heapq.heappop(run.reserved)
        if not to_start and not run.has_writes():
            return
        results, given_back, released = run.results, run.given_back, run.released
        run.results, run.given_back, run.released = [], [], []
        try:
            started = await self._in_database(self._tick_step, (results, given_back, released, to_start))
        except Exception:
            # Nothing of it was written: keep it all for the next tick.
            run.results[:0] = results
            run.given_back[:0] = given_back
            run.released[:0] = released
            for message in to_start:
                heapq.heappush(run.reserved, run.entry(message))
            if raise_errors:
                raise
            log.exception("an outbox tick failed; keeping its work for the next one")
            return
        # Rows not started were cancelled or reserved again by another claim: not ours to send.
        run.waiting -= len(to_start) - len(started)
        for message in started:
            heapq.heappush(run.ready, run.entry(message))
        if started:
            run.dispatcher_idle.clear()
            run.wake_dispatcher.set()

    async def _dispatch_loop(self, run: _Run, transport: httpx.AsyncBaseTransport) -> None:
        """Send each started row at its moment, in moment order.

        If this process falls behind its booked moments (a busy machine, a slow database), late rows
        are spaced at the send interval rather than sent in a burst, and a row that would go more than
        MAX_LAG_SECONDS late is given back together with the rest of its claim, to be booked again:
        the cap holds in every second.
        """
        while True:
            if not run.ready:
                if run.closing:
                    return
                run.wake_dispatcher.clear()
                run.dispatcher_idle.set()
                await run.wake_dispatcher.wait()
                continue
            message = heapq.heappop(run.ready)[2]
            sendable = message.token not in run.abandoned and await self._wait_for_turn(message)
            # Counted as waiting until here, so the ticker keeps ticking for a row in the dispatcher's hand.
            run.waiting -= 1
            if not sendable:
                run.given_back.append(message)
                run.abandoned.add(message.token)
                continue
            task = asyncio.create_task(self._send_and_keep(transport, message, run))
            run.requests.add(task)
            task.add_done_callback(run.requests.discard)

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
        # One wait, as for the moment itself: a timer waking a hair early costs less than the tolerance,
        # and a clock that does not move (a test's) must not hold the row for ever.
        allowed_at = self._arrival - LOCAL_TOLERANCE
        if allowed_at > self._clock() and not await self._wait_until(allowed_at):
            return False
        now = self._clock()
        if (now - message.dispatch_at).total_seconds() > MAX_LAG_SECONDS:
            return False
        # No await between the check and this update: the pace is this process's, across every claim.
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
        self, transport: httpx.AsyncBaseTransport, message: ClaimedMessage, run: _Run
    ) -> None:
        try:
            outcome = await self.send(transport, message)
        except asyncio.CancelledError:
            outcome = unknown("the sender stopped while waiting for the answer")
            run.results.append((message, outcome))
            raise
        run.results.append((message, outcome))

    async def send(self, transport: httpx.AsyncBaseTransport, message: ClaimedMessage) -> SendOutcome:
        """One Graph call for one row, classified; never raises for a network or Meta failure."""
        try:
            body = build_send_body(
                kind=message.kind,
                payload=message.payload,
                to_number=message.to_number,
                dedupe_key=message.dedupe_key,
                reply_to=message.reply_to,
                graph_media_id=message.graph_media_id,
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
            rules = self._rules
            tier = self._tier.limit(session)
            if tier != rules.tier_limit:
                rules = replace(rules, tier_limit=tier)
            return claim_batch(
                session,
                rules=rules,
                lease_seconds=self._lease_seconds,
                now=self._clock(),
                limit=limit,
                worker_id=self.worker_id,
            )

    def _tick_step(
        self,
        work: tuple[
            list[tuple[ClaimedMessage, SendOutcome]],
            list[ClaimedMessage],
            list[ClaimedMessage],
            list[ClaimedMessage],
        ],
    ) -> list[ClaimedMessage]:
        """The tick's transaction; the rows it started."""
        results, given_back, released, to_start = work
        summary = RecordSummary()
        try:
            with self.database.transaction() as session:
                now = self._clock()
                changes: Changes = []
                summary = record_outcomes(
                    session, results, settings=self.settings, now=now, jitter=self._jitter, changes=changes
                )
                after_refusals(session, results, settings=self.settings, templates=self._templates, now=now)
                give_back_unsent(session, given_back, now, changes)
                release_reserved(session, released, now)
                started = start_reserved(
                    session, to_start, now=now, lease_seconds=self._lease_seconds, changes=changes
                )
                journal_transitions(session, changes, now)
        finally:
            # After the commit (or its failure): Meta's answers are logged either way, as evidence.
            summary.log_answers()
        return started

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
            # Writes keep the pace rows were approved at: a call held up on its way (a new connection, a
            # busy loop) must not leave together with the calls approved after it.
            return KeepAliveTransport(
                max_connections=self._max_in_flight, write_interval=self._interval.total_seconds()
            )
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
