"""Outbox benchmark: drain rate, rate held under latency, the sequential baseline, and claim cost vs backlog.

Run: `.venv/bin/python -m bench.outbox` (about two minutes). The Graph endpoint is `bench.fake_graph`
in its own process; the database is a fresh SQLite file (PostgreSQL too for the claim cost when
INBOX_BENCH_DATABASE_URL names an empty PostgreSQL database).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import delete, func, insert, select, update

from app.composition import build_parts
from backend.database import Database, create_database, upgrade_database
from backend.database.models import JournalEntry, OutboxMessage, PacingSlot, PendingJournalEntry
from backend.domain import states
from backend.domain.graph_body import build_send_body
from backend.domain.outcomes import OutcomeKind, outcome_of_answer
from backend.outbox.claim import claim_batch, pacing_rules
from backend.outbox.sender import OutboxSender
from backend.settings import Settings, load_settings

TEMPLATE_PAYLOAD = {"template": {"name": "order_shipped", "language": "en", "parameters": ["44812"]}}


@contextmanager
def fake_graph_process(latency: float) -> Iterator[str]:
    """Start `bench.fake_graph` in its own process; yields its graph URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.fake_graph", "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url.startswith("http"):
            raise RuntimeError("the fake Graph endpoint did not start")
        yield url
    finally:
        process.terminate()
        process.wait(10)


def fresh_database(directory: Path, name: str) -> Database:
    """A new migrated SQLite database."""
    database = create_database(f"sqlite:///{directory / name}.db")
    upgrade_database(database)
    return database


def bench_settings(directory: Path, graph_url: str, **overrides: Any) -> Settings:
    """Settings pointing at the fake endpoint; overrides are not range-checked (the drain runs uncapped)."""
    settings = load_settings(
        environ={
            "INBOX_DATA_DIR": str(directory),
            "WHATSAPP_TOKEN": "bench-token",
            "WHATSAPP_PHONE_NUMBER_ID": "106540352242922",
            "WHATSAPP_GRAPH_URL": graph_url,
        }
    )
    return replace(settings, **overrides)


def fill(database: Database, count: int, *, start: int = 0) -> None:
    """Insert `count` due template rows to distinct customers, fast (no contacts: pacing needs none)."""
    now = datetime.now(UTC)
    batch = 5000
    for offset in range(start, start + count, batch):
        rows = [
            {
                "dedupe_key": f"bench-{i}",
                "to_number": f"+4479{i:08d}",
                "purpose": "order_shipped",
                "priority": 0,
                "kind": "template",
                "payload": TEMPLATE_PAYLOAD,
                "state": states.QUEUED,
                "attempts": 0,
                "not_before": now,
                "business_initiated": True,
                "urgent": False,
                "created_at": now,
                "updated_at": now,
            }
            for i in range(offset, min(offset + batch, start + count))
        ]
        with database.transaction() as session:
            session.execute(insert(OutboxMessage), rows)


def accepted_count(database: Database) -> int:
    """Rows Meta (the fake) took."""
    with database.reader() as session:
        return int(
            session.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.state == states.ACCEPTED)
            )
            or 0
        )


def run_sender(
    database: Database, settings: Settings, total: int, timeout: float, max_in_flight: int | None = None
) -> list[tuple[float, int]]:
    """Run the real sender until `total` rows are accepted; samples of (seconds, accepted)."""
    sender = OutboxSender(build_parts(settings, database), max_in_flight=max_in_flight)
    stop = threading.Event()
    thread = threading.Thread(target=sender.run, args=(stop,), daemon=True)
    began = time.perf_counter()
    thread.start()
    samples = [(0.0, 0)]
    try:
        while time.perf_counter() - began < timeout:
            time.sleep(0.25)
            done = accepted_count(database)
            samples.append((time.perf_counter() - began, done))
            if done >= total:
                break
    finally:
        stop.set()
        thread.join(30)
    return samples


def finish_rate(samples: list[tuple[float, int]], total: int) -> float:
    """Rows per second until the last row was accepted."""
    for seconds, done in samples:
        if done >= total:
            return total / seconds
    seconds, done = samples[-1]
    return done / seconds


def steady_rate(samples: list[tuple[float, int]], total: int) -> float:
    """Rows per second between 10% and 90% of the run (start-up and the tail left out)."""
    low = next(s for s in samples if s[1] >= total * 0.1)
    high = next((s for s in samples if s[1] >= total * 0.9), samples[-1])
    return (high[1] - low[1]) / (high[0] - low[0])


def baseline_rate(database: Database, settings: Settings, total: int) -> float:
    """The sequential loop of the seeds: claim one row, send it, mark it, then the next."""
    url = f"{settings.graph_url}/{settings.whatsapp_phone_number_id}/messages"
    headers = {"Authorization": f"Bearer {settings.whatsapp_token}"}
    timeout = httpx.Timeout(settings.read_timeout_seconds, connect=settings.connect_timeout_seconds)
    began = time.perf_counter()
    with httpx.Client(timeout=timeout) as client:
        for _ in range(total):
            with database.transaction() as session:
                row = session.execute(
                    select(
                        OutboxMessage.id,
                        OutboxMessage.dedupe_key,
                        OutboxMessage.to_number,
                        OutboxMessage.payload,
                    )
                    .where(
                        OutboxMessage.state == states.QUEUED, OutboxMessage.not_before <= datetime.now(UTC)
                    )
                    .order_by(OutboxMessage.not_before, OutboxMessage.id)
                    .limit(1)
                ).first()
                if row is None:
                    break
                session.execute(
                    update(OutboxMessage)
                    .where(OutboxMessage.id == row.id, OutboxMessage.state == states.QUEUED)
                    .values(state=states.SENDING, attempts=OutboxMessage.attempts + 1)
                )
            body = build_send_body(
                kind="template",
                payload=row.payload,
                to_number=row.to_number,
                dedupe_key=row.dedupe_key,
                reply_to=None,
            )
            response = client.post(url, content=json.dumps(body), headers=headers)
            outcome = outcome_of_answer(response.status_code, response.json())
            with database.transaction() as session:
                accepted = outcome.kind is OutcomeKind.ACCEPTED
                session.execute(
                    update(OutboxMessage)
                    .where(OutboxMessage.id == row.id)
                    .values(state=states.ACCEPTED if accepted else states.UNKNOWN, wamid=outcome.wamid)
                )
    return total / (time.perf_counter() - began)


def claim_cost(
    database: Database, settings: Settings, *, claims: int = 40, batch: int = 100
) -> tuple[float, float]:
    """Median and best milliseconds of one claim of `batch` rows (each rolled back: the backlog stays)."""
    rules = pacing_rules(replace(settings, send_rate=1_000_000.0), horizon_seconds=60)
    timings = []
    for index in range(claims):
        session = database.sessions()
        try:
            session.begin()
            began = time.perf_counter()
            claimed = claim_batch(
                session,
                rules=rules,
                lease_seconds=30,
                now=datetime.now(UTC),
                limit=batch,
                worker_id=f"bench-{index}",
            )
            timings.append((time.perf_counter() - began) * 1000)
            assert len(claimed) == batch
        finally:
            session.rollback()
            session.close()
    return statistics.median(timings), min(timings)


def show(label: str, figure: str, note: str = "") -> None:
    """One line of results."""
    print(f"{label + ':':34}{figure}" + (f"  ({note})" if note else ""), flush=True)


def print_claim_costs(name: str, database: Database, settings: Settings) -> None:
    """Claim cost with 2,000 and with 100,000 queued rows."""
    fill(database, 2000)
    small_median, small_best = claim_cost(database, settings)
    fill(database, 98_000, start=2000)
    large_median, large_best = claim_cost(database, settings)
    show(
        f"claim of 100 rows, {name}",
        f"{small_median:.2f} ms at 2,000 queued, {large_median:.2f} ms at 100,000",
        f"median {(large_median / small_median - 1) * 100:+.0f}%, best of 40 "
        f"{small_best:.2f} / {large_best:.2f} ms {(large_best / small_best - 1) * 100:+.0f}%; "
        "target within 30%",
    )


def reset(database: Database) -> None:
    """Empty the outbox, journal and pacing slots between runs."""
    with database.transaction() as session:
        session.execute(delete(JournalEntry))
        session.execute(delete(PendingJournalEntry))
        session.execute(delete(PacingSlot))
        session.execute(delete(OutboxMessage))


def main(argv: list[str] | None = None) -> int:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--drain-rows", type=int, default=20_000)
    parser.add_argument("--latency-rows", type=int, default=12_000)
    parser.add_argument("--concurrency", type=int, default=256, help="requests in flight for the drain")
    args = parser.parse_args(argv)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"outbox benchmark on {os.cpu_count()} cores (load average {load}), SQLite (WAL, NORMAL)", flush=True
    )
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        results: dict[str, float] = {}

        with fake_graph_process(0.0) as url:
            database = fresh_database(directory, "drain")
            settings = bench_settings(
                directory, url, send_rate=1_000_000.0, send_concurrency=args.concurrency
            )
            fill(database, args.drain_rows)
            # Uncapped, the sender would open a connection per claimed row; keep it to the setting.
            samples = run_sender(
                database, settings, args.drain_rows, timeout=120, max_in_flight=args.concurrency
            )
            results["drain"] = finish_rate(samples, args.drain_rows)
            show(
                "drain, 0 ms latency",
                f"{results['drain']:.0f} msg/s",
                f"{args.drain_rows} rows; target >= 2000",
            )
            reset(database)
            fill(database, 2000)
            results["baseline_0"] = baseline_rate(database, settings, 2000)
            show(
                "baseline, 0 ms latency",
                f"{results['baseline_0']:.0f} msg/s",
                "sequential claim -> send -> mark",
            )
            show("ratio ours / baseline", f"{results['drain'] / results['baseline_0']:.1f} x")
            database.dispose()

        with fake_graph_process(0.3) as url:
            database = fresh_database(directory, "latency")
            settings = bench_settings(directory, url, send_rate=1000.0, send_concurrency=args.concurrency)
            fill(database, args.latency_rows)
            samples = run_sender(database, settings, args.latency_rows, timeout=120)
            results["held"] = steady_rate(samples, args.latency_rows)
            whole = finish_rate(samples, args.latency_rows)
            show(
                "300 ms latency, 1000 cap",
                f"{results['held']:.0f} msg/s = {results['held'] / 10:.1f}% of the cap",
                f"steady 10%-90%; whole run {whole:.0f} msg/s; target >= 95%",
            )
            reset(database)
            fill(database, 20)
            results["baseline_300"] = baseline_rate(database, settings, 20)
            show(
                "baseline, 300 ms latency",
                f"{results['baseline_300']:.1f} msg/s",
                "sequential claim -> send -> mark",
            )
            show("ratio ours / baseline", f"{results['held'] / results['baseline_300']:.0f} x")
            database.dispose()

        database = fresh_database(directory, "claims")
        settings = bench_settings(directory, "http://unused.invalid/v23.0")
        print_claim_costs("SQLite", database, settings)
        database.dispose()
        postgres_url = os.environ.get("INBOX_BENCH_DATABASE_URL")
        if postgres_url:
            database = create_database(postgres_url)
            upgrade_database(database)
            reset(database)
            print_claim_costs("PostgreSQL", database, settings)
            reset(database)
            database.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
