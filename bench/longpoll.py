"""Webhook, /healthz and /v1 latency while N desks long-poll GET /v1/events, N = 0, 16, 64, 96.

Run: .venv/bin/python -m bench.longpoll [--clients 0 16 64 96] [--wait 30] [--budget 35] [--rounds 200]

Two servers on one fresh SQLite database, in the same run:
- baseline: the old server, waitress with 16 threads shared by everything, long-polls unbounded;
- product: HttpServer as `inbox serve` builds it (16 threads for everything else + 64 long-poll slots;
  past the slots a long-poll answers at once with Retry-After, which these clients honour).
N client threads long-poll with wait=30 s as a desk does, re-polling at once after each answer. Once
they wait, probe rounds run one after another (up to --rounds, within --budget seconds): a signed status
webhook, GET /healthz and GET /v1/me, sent together. Printed per row: median, p95 and max of each, in ms; a
probe still unanswered after the probe timeout counts as that timeout and is reported.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import httpx
from sqlalchemy import func, select
from waitress.server import create_server

from app.composition import build_parts
from app.http_server import RESERVE_THREADS, HttpServer
from backend.database import Database, create_database, upgrade_database
from backend.database.models import JournalEntry
from backend.domain.webhook_signature import sign
from backend.journal import journal
from backend.settings import Settings
from backend.users import create_user
from backend.web import create_app
from backend.web.factory import InboxApp, WebContext
from backend.web.long_polls import LONG_POLL_SLOTS
from bench.webhooks import APP_SECRET, status_body

OLD_THREADS = 16
PROBE_TIMEOUT_SECONDS = 45.0
QUICK_MS = 1000.0
START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
PROBES = ("webhook", "/healthz", "/v1/me")


class Served(Protocol):
    """A running server: its URL, and how to stop it."""

    @property
    def url(self) -> str:
        """The base URL clients use."""

    def stop(self) -> None:
        """Stop serving."""


class OldServer:
    """The server as it was: waitress with 16 threads for every request, long-polls included."""

    def __init__(self, app: InboxApp) -> None:
        self._server = create_server(
            app,
            host="127.0.0.1",
            port=0,
            threads=OLD_THREADS,
            ident="inbox",
            backlog=1024,
            connection_limit=1000,
            clear_untrusted_proxy_headers=True,
        )
        self._url = f"http://127.0.0.1:{self._server.effective_port}"
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The base URL clients use."""
        return self._url

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # closing the socket from stop() ends the loop
            self._server.run()

    def stop(self) -> None:
        """Stop accepting connections."""
        self._server.close()
        self._thread.join(5)


@dataclass
class Row:
    """The probes' latencies (ms) for one server and one N."""

    label: str
    clients: int
    latencies: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in PROBES})
    timeouts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROBES, 0))
    over_capacity_answers: int = 0
    over_capacity_max_ms: float = 0.0


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def _latest_seq(database: Database) -> int:
    with database.reader() as session:
        return int(session.scalar(select(func.max(JournalEntry.seq))) or 0)


def _wake_long_polls(database: Database) -> None:
    """A journal entry: every waiting long-poll answers at once."""
    with database.transaction() as session:
        journal(session, "bench.stop", {}, START)


class Desks:
    """N long-polling clients, each re-polling at once after an answer (after Retry-After if given)."""

    def __init__(self, url: str, token: str, *, count: int, after: int, wait: float, row: Row) -> None:
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._row = row
        self._threads = [
            threading.Thread(target=self._desk, args=(url, token, after, wait), daemon=True)
            for _ in range(count)
        ]
        for thread in self._threads:
            thread.start()

    def _desk(self, url: str, token: str, after: int, wait: float) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=url, headers=headers, timeout=wait + PROBE_TIMEOUT_SECONDS) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    response = client.get("/v1/events", params={"after": after, "wait": wait})
                except httpx.HTTPError:
                    self._stop.wait(1.0)
                    continue
                if response.status_code != 200:
                    self._stop.wait(1.0)
                    continue
                after = int(response.json()["next"])
                retry_after = response.headers.get("Retry-After")
                if retry_after is not None:
                    with self._lock:
                        self._row.over_capacity_answers += 1
                        elapsed_ms = (time.perf_counter() - started) * 1000
                        self._row.over_capacity_max_ms = max(self._row.over_capacity_max_ms, elapsed_ms)
                    self._stop.wait(float(retry_after))

    def stop(self, database: Database) -> None:
        """End every desk: wake the waiting long-polls, then wait for the threads."""
        self._stop.set()
        deadline = time.monotonic() + PROBE_TIMEOUT_SECONDS + 30
        while any(thread.is_alive() for thread in self._threads) and time.monotonic() < deadline:
            _wake_long_polls(database)
            wake_again = time.monotonic() + 1.0
            for thread in self._threads:
                thread.join(max(0.0, wake_again - time.monotonic()))


def _probe(url: str, token: str, name: str, index: int) -> float | None:
    """One probe's latency in ms, or None when it timed out."""
    if name == "webhook":
        body = status_body(index)
        request: dict[str, Any] = {
            "method": "POST",
            "url": "/webhooks/whatsapp",
            "content": body,
            "headers": {"X-Hub-Signature-256": sign(body, APP_SECRET), "Content-Type": "application/json"},
        }
    elif name == "/healthz":
        request = {"method": "GET", "url": "/healthz"}
    else:
        request = {"method": "GET", "url": "/v1/me", "headers": {"Authorization": f"Bearer {token}"}}
    with httpx.Client(base_url=url, timeout=PROBE_TIMEOUT_SECONDS) as client:
        started = time.perf_counter()
        try:
            response = client.request(**request)
        except httpx.TimeoutException:
            return None
        elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"{name} answered {response.status_code}: {response.text[:200]}")
    return elapsed


def _wait_until_held(app: InboxApp, expected: int) -> None:
    """Wait until `expected` long-polls are inside the app, waiting."""
    context = app.extensions["inbox"]
    assert isinstance(context, WebContext)
    deadline = time.monotonic() + 30
    while context.long_polls.taken < expected:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {context.long_polls.taken} of {expected} long-polls got to wait")
        time.sleep(0.05)
    time.sleep(0.5)  # the rest of the desks reach the server's queue or their over-capacity answer


def run_row(
    *,
    label: str,
    start: Callable[[InboxApp], Served],
    held_at_most: int,
    database: Database,
    settings: Settings,
    token: str,
    clients: int,
    wait: float,
    budget: float,
    rounds: int,
    probe_counter: list[int],
) -> Row:
    """Start a server, N desks, probe until the budget is spent, stop everything."""
    row = Row(label, clients)
    app = create_app(build_parts(settings, database))
    server = start(app)
    desks = Desks(server.url, token, count=clients, after=_latest_seq(database), wait=wait, row=row)
    try:
        _wait_until_held(app, min(clients, held_at_most))
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=len(PROBES)) as pool:
            for _ in range(rounds):
                if time.monotonic() - began >= budget:
                    break
                probe_counter[0] += 1
                futures = {
                    name: pool.submit(_probe, server.url, token, name, probe_counter[0]) for name in PROBES
                }
                for name, future in futures.items():
                    latency = future.result()
                    if latency is None:
                        row.timeouts[name] += 1
                        latency = PROBE_TIMEOUT_SECONDS * 1000
                    row.latencies[name].append(latency)
    finally:
        desks.stop(database)
        # Let the server's threads finish writing their last answers before its sockets close.
        time.sleep(0.5)
        server.stop()
    return row


def _print_row(row: Row) -> None:
    cells = []
    for name in PROBES:
        values = row.latencies[name]
        timed_out = f" ({row.timeouts[name]} timed out)" if row.timeouts[name] else ""
        cells.append(
            f"{_percentile(values, 0.5):8.1f} {_percentile(values, 0.95):8.1f} {max(values):8.1f}{timed_out}"
        )
    samples = len(row.latencies[PROBES[0]])
    over = ""
    if row.over_capacity_answers:
        slowest = row.over_capacity_max_ms
        over = f"   over-capacity answers {row.over_capacity_answers} (slowest {slowest:.1f} ms)"
    print(f"  {row.label:<9} N={row.clients:<3} {' | '.join(cells)}   probes {samples}{over}")


def _verdict(rows: list[Row]) -> None:
    for row in rows:
        if row.label != "product":
            continue
        worst = max(max(values) for values in row.latencies.values())
        verdict = "met" if worst < QUICK_MS else "NOT met"
        print(
            f"  product N={row.clients}: every probe under {QUICK_MS:.0f} ms: {verdict} (max {worst:.1f} ms)"
        )


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, nargs="+", default=[0, 16, 64, 96])
    parser.add_argument("--wait", type=float, default=30.0, help="each long-poll's wait, seconds")
    parser.add_argument("--budget", type=float, default=35.0, help="seconds of probing per row at most")
    parser.add_argument("--rounds", type=int, default=200, help="probe rounds per row at most")
    args = parser.parse_args()
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="bench-longpoll-") as directory:
        workdir = Path(directory)
        database = create_database(f"sqlite:///{workdir / 'longpoll.db'}")
        upgrade_database(database)
        settings = Settings(
            data_dir=workdir,
            database_url=str(database.engine.url),
            whatsapp_app_secret=APP_SECRET,
            whatsapp_verify_token="bench",
        )
        with database.transaction() as session:
            token = create_user(session, "desk", "agent", START)
        servers: list[tuple[str, Callable[[InboxApp], Served], int]] = [
            ("baseline", OldServer, OLD_THREADS),
            ("product", lambda app: HttpServer(app, "127.0.0.1", 0).start(), LONG_POLL_SLOTS),
        ]
        print(
            f"Long-polls (wait={args.wait:g} s) vs a signed webhook, /healthz and GET /v1/me, on SQLite.\n"
            f"  baseline: waitress, {OLD_THREADS} threads for everything, long-polls unbounded (old server)\n"
            f"  product:  HttpServer, {RESERVE_THREADS} threads + {LONG_POLL_SLOTS} long-poll slots\n"
            f"  latency in ms, each probe: median p95 max; a probe unanswered after"
            f" {PROBE_TIMEOUT_SECONDS:g} s counts as {PROBE_TIMEOUT_SECONDS:g} s\n"
            f"                   {' | '.join(f'{name:>26}' for name in PROBES)}"
        )
        rows: list[Row] = []
        probe_counter = [0]
        for clients in args.clients:
            for label, start, held_at_most in servers:
                row = run_row(
                    label=label,
                    start=start,
                    held_at_most=held_at_most,
                    database=database,
                    settings=settings,
                    token=token,
                    clients=clients,
                    wait=args.wait,
                    budget=args.budget,
                    rounds=args.rounds,
                    probe_counter=probe_counter,
                )
                rows.append(row)
                _print_row(row)
        _verdict(rows)
        database.dispose()


if __name__ == "__main__":
    main()
