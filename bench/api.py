"""HTTP API figures: idempotent sends per second, replay latency and event long-poll wake-up latency.

Serves the real app under the production server on a fresh database (SQLite in a temporary folder unless
--database-url names a PostgreSQL database to migrate) and drives it from client threads with
keep-alive connections. The baseline is the same number of enqueues called directly, one
transaction each, without HTTP or Idempotency-Key records.

    .venv/bin/python -m bench.api [--seconds 5] [--clients 8] [--database-url URL]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from app.composition import build_parts
from app.http_server import HttpServer
from backend.database import Database, create_database, upgrade_database
from backend.outbox.enqueue import MessageRequest, enqueue
from backend.settings import load_settings
from backend.templates import load_templates
from backend.users import create_user
from backend.web import create_app

BODY = {"to": "+16505551234", "purpose": "bench", "text": "Your order has shipped."}


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def _sends(url: str, token: str, seconds: float, clients: int, prefix: str) -> tuple[list[str], list[float]]:
    latencies: list[float] = []
    keys: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(number: int) -> None:
        mine: list[float] = []
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            sequence = 0
            while time.monotonic() < deadline:
                sequence += 1
                started = time.perf_counter()
                key = f"{prefix}-{number}-{sequence}"
                response = http.post("/v1/messages", json=BODY, headers={"Idempotency-Key": key})
                mine.append(time.perf_counter() - started)
                assert response.status_code == 202, response.text
                with lock:
                    keys.append(key)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(number,)) for number in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return keys, latencies


def _replays(url: str, token: str, keys: list[str]) -> list[float]:
    latencies = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        for key in keys:
            started = time.perf_counter()
            response = http.post("/v1/messages", json=BODY, headers={"Idempotency-Key": key})
            latencies.append(time.perf_counter() - started)
            assert response.headers.get("Idempotent-Replayed") == "true", response.text
    return latencies


def _wake_latencies(url: str, token: str, rounds: int) -> list[float]:
    latencies = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=40) as http:
        after = int(http.get("/v1/events", params={"after": 0, "limit": 1000}).json()["next"])
        while True:
            page = http.get("/v1/events", params={"after": after, "limit": 1000}).json()
            if not page["events"]:
                break
            after = page["next"]
        for index in range(rounds):
            sent_at: list[float] = []

            def send_soon(index: int = index, sent_at: list[float] = sent_at) -> None:
                time.sleep(0.2)
                with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as other:
                    other.post("/v1/messages", json=BODY, headers={"Idempotency-Key": f"wake-{index}"})
                    sent_at.append(time.perf_counter())

            thread = threading.Thread(target=send_soon)
            thread.start()
            page = http.get("/v1/events", params={"after": after, "wait": 10}).json()
            woke = time.perf_counter()
            thread.join()
            assert page["events"], "the long-poll returned without the new event"
            after = page["next"]
            # The sender's answer and the poll's answer race; the gap is how late the poll woke.
            latencies.append(max(0.0, woke - sent_at[0]))
    return latencies


def _baseline(database: Database, count: int) -> float:
    settings = load_settings(environ={"INBOX_DATA_DIR": tempfile.mkdtemp()})
    catalog = load_templates()
    started = time.perf_counter()
    for index in range(count):
        with database.transaction() as session:
            enqueue(
                session,
                MessageRequest(
                    dedupe_key=f"direct-{index}", to=BODY["to"], purpose=BODY["purpose"], text=BODY["text"]
                ),
                templates=catalog,
                settings=settings,
                now=datetime.now(UTC),
            )
    return count / (time.perf_counter() - started)


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-api-"))
    database = create_database(args.database_url or f"sqlite:///{folder / 'inbox.db'}")
    upgrade_database(database)
    with database.transaction() as session:
        token = create_user(session, f"bench-{time.time_ns()}", "agent", datetime.now(UTC))
    settings = load_settings(environ={"INBOX_DATA_DIR": str(folder)})
    server = HttpServer(create_app(build_parts(settings, database)), "127.0.0.1", 0).start()
    try:
        keys, latencies = _sends(server.url, token, args.seconds, args.clients, "send")
        count = len(keys)
        replays = _replays(server.url, token, keys[:200])
        wakes = _wake_latencies(server.url, token, 10)
        baseline = _baseline(database, max(200, min(count, 2000)))
    finally:
        server.stop()
        database.dispose()
    print(f"database: {database.dialect}, {args.clients} clients, {args.seconds:g} s")
    print(
        f"POST /v1/messages (new keys): {count / args.seconds:.0f}/s, "
        f"p50 {_percentile(latencies, 0.5) * 1000:.1f} ms, p95 {_percentile(latencies, 0.95) * 1000:.1f} ms"
    )
    print(
        f"replay of a stored answer:    p50 {statistics.median(replays) * 1000:.1f} ms, "
        f"p95 {_percentile(replays, 0.95) * 1000:.1f} ms (one client)"
    )
    print(
        f"events long-poll wake-up after a commit: p50 {statistics.median(wakes) * 1000:.1f} ms, "
        f"max {max(wakes) * 1000:.1f} ms"
    )
    print(f"baseline, enqueue called directly (no HTTP, no key record): {baseline:.0f}/s, one thread")


if __name__ == "__main__":
    main()
