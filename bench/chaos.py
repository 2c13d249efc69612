"""Chaos benchmark: crash, kill, cut, scale out, stop and storm the backend through the sandbox, and count.

Run: `.venv/bin/python -m bench.chaos` (SQLite; PostgreSQL too when INBOX_BENCH_DATABASE_URL names a
PostgreSQL server, e.g. postgresql+psycopg://postgres@127.0.0.1:5432/postgres). `--small` uses the
sizes of the CI tests. Prints one row per scenario: duplicates and lost must be 0.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url

from backend.clock import utc_now
from backend.database import create_database, upgrade_database
from backend.database.models import OutboxMessage
from backend.domain import states
from backend.domain.messages import TemplateRequest
from backend.outbox.enqueue import MessageRequest, enqueue
from backend.settings import load_settings
from backend.templates import load_templates
from bench.harness import FAST_SETTINGS, Rig, SendRecord, Verdict, keys_for, run_in_background


@dataclass
class Result:
    """One row of the chaos table."""

    scenario: str
    database: str
    verdict: Verdict
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def _stuck(self) -> str:
        verdict = self.verdict
        if verdict.drained and not verdict.in_sending:
            return ""
        return f"; NOT DRAINED, still waiting for {verdict.waiting}, {verdict.in_sending} in sending"

    def row(self) -> str:
        """The table row."""
        verdict = self.verdict
        unknown = len(verdict.left_unknown)
        return (
            f"| {self.scenario} | {self.database} | {verdict.messages} + {verdict.inbound} in | "
            f"{verdict.duplicates} | {verdict.lost} | {unknown} | {len(verdict.mismatched)} | "
            f"{verdict.recovery_seconds:.1f} s | {'yes' if verdict.ok else 'NO'} | "
            f"{self.notes}{self._stuck()} |"
        )


HEADER = (
    "| scenario | database | messages (sends + inbound) | duplicates | lost | left unknown | "
    "state ≠ ledger | recovery | held | notes |\n|---|---|---|---|---|---|---|---|---|---|"
)


@dataclass(frozen=True)
class Sizes:
    """How much traffic each scenario carries."""

    sends: int
    inbound: int
    kills: int
    storm: int
    backlog: int
    scale: int
    drain_seconds: float
    # How long a client keeps retrying a send through crashes (a crashed request holds its
    # Idempotency-Key for 30 s); a send never answered 202 carries no promise.
    patience_seconds: float
    # The backlog sent at the cap when the kill comes.
    at_cap: int


LARGE = Sizes(
    sends=5000,
    inbound=5000,
    kills=6,
    storm=1500,
    backlog=2000,
    scale=3000,
    drain_seconds=120,
    patience_seconds=60,
    at_cap=5000,
)
SMALL = Sizes(
    sends=120,
    inbound=60,
    kills=3,
    storm=80,
    backlog=200,
    scale=300,
    drain_seconds=45,
    patience_seconds=8,
    at_cap=1500,
)


def dialect_of(url: str) -> str:
    """sqlite or postgresql."""
    return "postgresql" if url.startswith("postgresql") else "sqlite"


@contextmanager
def fresh_database_url(server_url: str | None, workdir: Path) -> Iterator[str]:
    """A new migrated database: a SQLite file, or a new PostgreSQL database dropped afterwards."""
    if server_url is None:
        url = f"sqlite:///{workdir / f'chaos-{uuid.uuid4().hex[:8]}.db'}"
        database = create_database(url)
        upgrade_database(database)
        database.dispose()
        yield url
        return
    base = make_url(server_url).set(drivername="postgresql+psycopg")
    name = f"inbox_chaos_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = base.set(database=name).render_as_string(hide_password=False)
    database = create_database(url)
    upgrade_database(database)
    database.dispose()
    try:
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def enqueue_backlog(rig: Rig, prefix: str, count: int, *, purpose: str = "order_update") -> None:
    """Store `count` queued rows directly (no process running), one customer each."""
    settings = load_settings(environ=rig.environment())
    templates = load_templates(settings.templates_file)
    now = utc_now()
    with rig.database.transaction() as session:
        for key, to, purpose_ in keys_for(prefix, count, purpose=purpose):
            request = MessageRequest(
                dedupe_key=key,
                to=to,
                purpose=purpose_,
                template=TemplateRequest("order_shipped", "en", (key,)),
            )
            enqueue(session, request, templates=templates, settings=settings, now=now)


def _traffic(
    rig: Rig, sends: int, inbound: int, prefix: str, record: SendRecord, *, deadline: float, spread: float
) -> tuple[threading.Thread, threading.Thread]:
    """Sends through the API and customers writing, both spread over `spread` seconds."""
    keys = keys_for(prefix, sends)
    pause = spread / max(inbound, 1)
    senders = run_in_background(lambda: rig.send_many(keys, record, deadline=deadline, spread_seconds=spread))
    writers = run_in_background(lambda: rig.inbound_many(inbound, first_customer=10000, pause=pause))
    return senders, writers


def crash_during_traffic(url: str, workdir: Path, sizes: Sizes, *, kills: int, back_to_back: bool) -> Result:
    """Scenarios 1 and 2: kill -9 `inbox serve` during sends and webhooks, restart, drain, count."""
    rng = random.Random(1 if back_to_back else 2)
    rig = Rig(url, workdir)
    # A client's patience runs from the server's return: on a slow machine restarts outlast the spread.
    rig.client_patience = sizes.patience_seconds
    try:
        serve = rig.start_serve()
        record = SendRecord()
        spread = kills * (0.3 if back_to_back else 1.5) + 2.0 * kills
        deadline = time.monotonic() + spread + sizes.patience_seconds
        senders, writers = _traffic(
            rig, sizes.sends, sizes.inbound, "crash", record, deadline=deadline, spread=spread
        )
        restarts: list[float] = []
        for _ in range(kills):
            time.sleep(rng.uniform(0.0, 0.3) if back_to_back else rng.uniform(0.5, 2.0))
            began = time.monotonic()
            serve = rig.kill_and_restart(serve)
            restarts.append(time.monotonic() - began)
        senders.join()
        writers.join()
        clients_done = time.monotonic() - rig.last_restart
        drained, recovery = rig.drain(sizes.drain_seconds)
        verdict = rig.verdict(record, drained, recovery)
        if os.environ.get("INBOX_CHAOS_DEBUG"):
            print(rig.drain_log[:: max(1, len(rig.drain_log) // 20)])
        name = "2 ten kills in a row" if back_to_back else "1 kill -9 during traffic"
        notes = (
            f"{kills} kills, restart {statistics.median(restarts):.1f} s median; last 202 "
            f"{clients_done:.1f} s after the last restart; {len(record.unacknowledged)} never answered 202"
        )
        return Result(name, dialect_of(url), verdict, notes, {"clients_done": clients_done})
    finally:
        rig.close()


def cut_connections(url: str, workdir: Path, sizes: Sizes, *, cuts: int = 5) -> Result:
    """Scenario 3 (PostgreSQL): pg_terminate_backend every connection mid-run; workers reconnect and drain."""
    rig = Rig(url, workdir)
    try:
        rig.start_serve()
        workers = [rig.start_worker() for _ in range(2)]
        record = SendRecord()
        deadline = time.monotonic() + sizes.drain_seconds * 2
        senders, writers = _traffic(
            rig, sizes.sends, sizes.inbound, "cut", record, deadline=deadline, spread=cuts * 0.8
        )
        terminated = 0
        for _ in range(cuts):
            time.sleep(0.7)
            terminated += rig.terminate_database_connections()
        rig.last_restart = time.monotonic()
        senders.join()
        writers.join()
        drained, recovery = rig.drain(sizes.drain_seconds)
        verdict = rig.verdict(record, drained, recovery)
        alive = sum(1 for backend in rig.processes if backend.alive)
        notes = (
            f"{cuts} cuts, {terminated} connections killed, {alive}/{1 + len(workers)} processes alive after"
        )
        return Result(
            "3 pg_terminate_backend", "postgresql", verdict, notes, {"alive": alive, "terminated": terminated}
        )
    finally:
        rig.close()


def scale_out(url: str, workdir: Path, sizes: Sizes, workers: int) -> Result:
    """Scenario 4 (PostgreSQL): a backlog drained by 2 `inbox serve` + N `inbox worker`; sends per second."""
    # No crash here, so the default lease: a short one expires rows a busy process has booked but not sent.
    rig = Rig(
        url,
        workdir,
        receivers=2,
        settings={
            "INBOX_SEND_RATE": "1000",
            "INBOX_SEND_LEASE_SECONDS": "30",
            "INBOX_READ_TIMEOUT_SECONDS": "10",
        },
    )
    try:
        enqueue_backlog(rig, f"scale{workers}", sizes.scale)
        began = time.monotonic()
        for port in rig.ports:
            rig.start_serve(port, wait=False)
        for _ in range(workers):
            rig.start_worker(wait=False)
        for backend in rig.processes:
            rig.wait_ready(backend)
        started = time.monotonic()
        rig.inbound_many(sizes.inbound // 10, first_customer=10000)
        reached, ended = _wait_until_sent(rig, sizes.drain_seconds)
        rig.last_restart = began
        drained, recovery = rig.drain(sizes.drain_seconds)
        record = SendRecord(acknowledged={f"scale{workers}-{i}" for i in range(sizes.scale)})
        verdict = rig.verdict(record, drained, recovery)
        rate = reached / (ended - started)
        notes = (
            f"2 serve + {workers} worker: {rate:.0f} sends/s; "
            f"131056 from sandbox: {verdict.pair_limit_rejections}"
        )
        return Result(f"4 scale-out {workers} worker", "postgresql", verdict, notes, {"rate": rate})
    finally:
        rig.close()


def _wait_until_sent(rig: Rig, timeout: float) -> tuple[int, float]:
    """Wait until no row is queued or sending; (rows that reached Meta, the monotonic time it ended)."""
    deadline = time.monotonic() + timeout
    at_meta = list(states.AT_META_STATES)
    busy = [states.QUEUED, states.SENDING]
    done = 0
    while time.monotonic() < deadline:
        with rig.database.reader() as session:
            done = (
                session.scalar(
                    select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state.in_(at_meta))
                )
                or 0
            )
            left = session.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state.in_(busy))
            )
        if not left:
            break
        time.sleep(0.05)
    return done, time.monotonic()


def stop_under_backlog(url: str, workdir: Path, sizes: Sizes) -> Result:
    """Scenario 5: SIGTERM every process with a backlog and calls in flight; each exits within 10 s and
    nothing is left `sending`; then a restart drains the rest without a duplicate."""
    postgres = dialect_of(url) == "postgresql"
    # A low send rate and slow answers, so a backlog is left and calls are mid-air at the stop: 200 rows
    # at 20/s outlast starting three processes on a busy machine (at 50/s a loaded run drained them).
    rig = Rig(
        url,
        workdir,
        sandbox_options={"latency_ms": 1000.0},
        settings={"INBOX_READ_TIMEOUT_SECONDS": "2", "INBOX_SEND_RATE": "20"},
    )
    try:
        enqueue_backlog(rig, "stop", sizes.backlog)
        # All three start together, so the backlog is not drained while one waits for the next.
        rig.start_serve(wait=False)
        if postgres:
            rig.start_worker(wait=False)
            rig.start_worker(wait=False)
        for backend in rig.processes:
            rig.wait_ready(backend)
        time.sleep(1.5)
        took = rig.stop_all(timeout=15)
        slowest = max(took.values())
        with rig.database.reader() as session:
            sending = session.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state == states.SENDING)
            )
            queued = session.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state == states.QUEUED)
            )
        rig.processes.clear()
        rig.sandbox.set_faults(latency_ms=0.0)
        # The restart drains at the usual pace: the low rate only had to keep a backlog at the stop.
        rig.settings["INBOX_SEND_RATE"] = FAST_SETTINGS["INBOX_SEND_RATE"]
        rig.start_serve()
        rig.last_restart = time.monotonic()
        record = SendRecord(acknowledged={f"stop-{i}" for i in range(sizes.backlog)})
        drained, recovery = rig.drain(sizes.drain_seconds)
        verdict = rig.verdict(record, drained, recovery)
        notes = (
            f"{len(took)} processes stopped, slowest {slowest:.1f} s; at stop: {sending} sending, "
            f"{queued} still queued"
        )
        return Result(
            "5 SIGTERM under backlog",
            dialect_of(url),
            verdict,
            notes,
            {"slowest": slowest, "sending_at_stop": sending, "queued_at_stop": queued},
        )
    finally:
        rig.close()


def webhook_storm(url: str, workdir: Path, sizes: Sizes) -> Result:
    """Scenario 6: 30% duplicate deliveries, shuffled, 10% failed and retried; states equal the ledger."""
    rig = Rig(
        url,
        workdir,
        sandbox_options={"webhook_duplicate_rate": 0.3, "webhook_shuffle": True, "webhook_failure_rate": 0.1},
    )
    try:
        rig.start_serve()
        record = SendRecord()
        deadline = time.monotonic() + sizes.drain_seconds * 2
        senders, writers = _traffic(
            rig, sizes.storm, sizes.storm // 2, "storm", record, deadline=deadline, spread=2.0
        )
        senders.join()
        writers.join()
        rig.last_restart = time.monotonic()
        drained, recovery = rig.drain(sizes.drain_seconds)
        verdict = rig.verdict(record, drained, recovery)
        stats = rig.sandbox.stats()
        notes = (
            f"{stats['webhooks_duplicated']} duplicated, {stats['webhook_failures_injected']} failed "
            f"and retried, of {stats['webhooks_sent']} deliveries"
        )
        return Result("6 webhook storm", dialect_of(url), verdict, notes, {"stats": stats})
    finally:
        rig.close()


def read_timeouts(url: str, workdir: Path, sizes: Sizes) -> Result:
    """Scenario 7: 10% of sends accepted but answered after the read timeout, 5% dropped unanswered
    and never accepted; half the purposes `review`, half `resend`.

    An accepted send resolves by its status webhook whatever its rule; a dropped one (no webhook will
    ever come) waits for a supervisor under `review` and is sent again once under `resend`.
    """
    rig = Rig(url, workdir, sandbox_options={"read_timeout_rate": 0.1, "drop_rate": 0.05})
    try:
        rig.start_serve()
        record = SendRecord()
        deadline = time.monotonic() + sizes.drain_seconds * 2
        half = sizes.storm // 2
        keys = keys_for("invoice", half) + keys_for("reminder", half, purpose="reminder", first_customer=half)
        rig.send_many(keys, record, deadline=deadline)
        rig.last_restart = time.monotonic()
        drained, recovery = rig.drain(sizes.drain_seconds)
        verdict = rig.verdict(record, drained, recovery)
        stats = rig.sandbox.stats()
        with rig.database.reader() as session:
            # Each dropped `resend` send costs one more attempt (a resend can be dropped again).
            resent = session.scalar(
                select(func.coalesce(func.sum(OutboxMessage.attempts - 1), 0)).where(
                    OutboxMessage.purpose == "reminder"
                )
            )
        notes = (
            f"{stats['timeouts_injected']} answers withheld past the read timeout, {stats['drops_injected']} "
            f"dropped; {len(verdict.left_unknown)} review rows wait for a supervisor, {resent} resends "
            "of resend rows"
        )
        extra = {"stats": stats, "resent": resent}
        return Result("7 read timeouts 10% + drops 5%", dialect_of(url), verdict, notes, extra)
    finally:
        rig.close()


CAP = 1000


def kill_at_the_cap(url: str, workdir: Path, sizes: Sizes) -> Result:
    """Scenario 8: kill -9 `inbox serve` while it sends a backlog at 1,000/s, restart, drain; count the rows
    left `unknown` and how many of them never reached the sandbox's ledger.

    A row is `sending` only once its call is about to leave, so `unknown` rows that customers never got
    are at most the calls of the last few tens of milliseconds, not the second of booked moments.
    """
    rig = Rig(
        url,
        workdir,
        # The sandbox takes a little more than the cap, as Meta does, so no send is refused for pace.
        sandbox_options={"throughput": 1100},
        settings={"INBOX_SEND_RATE": str(CAP)},
    )
    try:
        enqueue_backlog(rig, "cap", sizes.at_cap)
        serve = rig.start_serve()
        # Kill mid-drain at the settled pace: once a third of the backlog reached customers, measure the
        # pace for half a second, then kill.
        _wait_for_ledger(rig, sizes.at_cap // 3, sizes.drain_seconds)
        before, began = len(rig.sandbox.ledger()), time.monotonic()
        time.sleep(0.5)
        rate = (len(rig.sandbox.ledger()) - before) / (time.monotonic() - began)
        serve.kill()
        with rig.database.reader() as session:
            sending = session.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state == states.SENDING)
            )
            reserved = session.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(OutboxMessage.state == states.QUEUED, OutboxMessage.claimed_by.is_not(None))
            )
        reached = len(rig.sandbox.ledger())
        rig.restart(serve)
        record = SendRecord(acknowledged={f"cap-{i}" for i in range(sizes.at_cap)})
        drained, recovery = rig.drain(sizes.drain_seconds)
        verdict = rig.verdict(record, drained, recovery)
        never_reached = [row for row in verdict.left_unknown if not row["customer_has_it"]]
        notes = (
            f"killed at {rate:.0f}/s with {reached} in the ledger: {sending} sending, {reserved} reserved; "
            f"left unknown {len(verdict.left_unknown)}, never in the ledger {len(never_reached)}"
        )
        extra = {
            "rate": rate,
            "sending_at_kill": sending,
            "reserved_at_kill": reserved,
            "unknown_never_reached": len(never_reached),
        }
        return Result("8 kill -9 at 1,000/s", dialect_of(url), verdict, notes, extra)
    finally:
        rig.close()


def _wait_for_ledger(rig: Rig, count: int, timeout: float) -> None:
    """Wait until the sandbox's ledger holds `count` messages (or the timeout passes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(rig.sandbox.ledger()) < count:
        time.sleep(0.05)


def run_all(server_url: str | None, sizes: Sizes, only: set[str] | None = None) -> list[Result]:
    """Every scenario that applies to this database."""
    results: list[Result] = []
    postgres = server_url is not None

    def wanted(number: str) -> bool:
        return only is None or number in only

    with tempfile.TemporaryDirectory(prefix="inbox-chaos-") as temporary:
        workdir = Path(temporary)

        def run(number: str, function: Any, *args: Any) -> None:
            if not wanted(number):
                return
            folder = workdir / f"s{number}-{uuid.uuid4().hex[:6]}"
            folder.mkdir()
            with fresh_database_url(server_url, folder) as url:
                result = function(url, folder, sizes, *args)
            results.append(result)
            print(result.row(), flush=True)

        run(
            "1",
            lambda url, folder, s: crash_during_traffic(url, folder, s, kills=s.kills, back_to_back=False),
        )
        run("2", lambda url, folder, s: crash_during_traffic(url, folder, s, kills=10, back_to_back=True))
        if postgres:
            run("3", cut_connections)
        if postgres:
            for workers in (1, 2, 4):
                run("4", scale_out, workers)
        run("5", stop_under_backlog)
        run("6", webhook_storm)
        run("7", read_timeouts)
        run("8", kill_at_the_cap)
    return results


def main() -> None:
    """Run the scenarios on SQLite, then on PostgreSQL when a server is named; print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--small", action="store_true", help="the CI sizes")
    parser.add_argument("--only", help="comma-separated scenario numbers, e.g. 1,4")
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    args = parser.parse_args()
    sizes = SMALL if args.small else LARGE
    only = set(args.only.split(",")) if args.only else None
    server_url = os.environ.get("INBOX_BENCH_DATABASE_URL") or None
    print(HEADER, flush=True)
    results: list[Result] = []
    if args.database in {"sqlite", "both"}:
        results += run_all(None, sizes, only)
    if args.database in {"postgresql", "both"}:
        if server_url is None:
            print("(PostgreSQL skipped: set INBOX_BENCH_DATABASE_URL to a PostgreSQL server URL)")
        else:
            results += run_all(server_url, sizes, only)
    print()
    for result in results:
        if result.verdict.left_unknown:
            print(f"{result.scenario} on {result.database}: left unknown, with evidence:")
            for row in result.verdict.left_unknown[:20]:
                print(f"  {row}")
        for line in (result.verdict.lost_detail + result.verdict.mismatched)[:20]:
            print(f"  {result.scenario} on {result.database}: {line}")
    rates = {r.scenario: r.extra["rate"] for r in results if "rate" in r.extra and r.scenario.startswith("4")}
    if rates:
        print("scale-out on PostgreSQL (sends/s reaching Meta, 2 receivers + N workers):")
        for name, rate in rates.items():
            print(f"  {name}: {rate:.0f}/s")
    print("baseline: every row must show duplicates 0 and lost 0; recovery is from the last fault to drained")


if __name__ == "__main__":
    main()
