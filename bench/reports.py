"""Report latency on a big history, and outgoing webhook deliveries per second to a local receiver.

Run: .venv/bin/python -m bench.reports [--messages 200000] [--conversations 10000] [--runs 30]
     [--events 2000] [--subscriptions 4] [--database-url postgresql+psycopg://user@host/any]

Reports: fills a fresh database directly (bulk inserts over 90 days: customer messages, agents'
replies, business messages of several purposes in every outcome, resolutions and reopenings), then
asks GET /v1/reports/summary for the last 30 days by day (Europe/Berlin) `--runs` times through the
app, beside a baseline measured in the same run: two plain counts of the same 30 days' messages.
Webhooks: a local HTTP receiver (keep-alive, answers 204); the dispatcher delivers `--events` journal
events to each of `--subscriptions` subscriptions over the real network stack, beside a baseline of
one bare httpx client posting the same number of signed bodies in a row.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, insert, select, text

from app.composition import build_parts
from backend.database import Database, create_database
from backend.database.models import (
    Contact,
    Conversation,
    ConversationStatusChange,
    InboundMessage,
    OutboxMessage,
)
from backend.dispatch.dispatcher import WebhookDispatcher, outgoing_client
from backend.domain.outgoing_webhooks import new_secret, new_webhook_id, sign
from backend.journal import journal_many, sequence_pending
from backend.reports.summary import report_range, summary
from backend.settings import load_settings
from backend.users import create_user
from backend.web import create_app
from bench.chaos import fresh_database_url

TARGET_P95_MS = 500.0
DAYS = 90
BATCH = 10_000
AGENTS = ("ana", "ben", "chloe", "dev", "eli")
PURPOSES = ("order_shipped", "appointment_reminder", "invoice", "delivery_window")
OUTCOMES = ("read", "read", "delivered", "delivered", "sent", "failed", "unknown")


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def fill(database: Database, conversations: int, messages: int, seed: int, now: datetime) -> dict[str, int]:
    """Contacts, conversations and a history of `messages` messages over 90 days, in bulk."""
    chooser = random.Random(seed)
    start = now - timedelta(days=DAYS)
    with database.transaction() as session:
        users = {name: create_user(session, name, "agent", start) for name in AGENTS}
        create_user(session, "owner", "supervisor", start)
        session.flush()
        user_ids: dict[str, int] = {
            name: user_id for name, user_id in session.execute(text("SELECT name, id FROM users"))
        }
    del users
    with database.transaction() as session:
        session.execute(
            insert(Contact),
            [
                {"id": n, "wa_id": f"1650{n:07d}", "number": f"+1650{n:07d}", "created_at": start}
                for n in range(1, conversations + 1)
            ],
        )
        session.execute(
            insert(Conversation),
            [
                {
                    "id": n,
                    "contact_id": n,
                    "unread_count": 0,
                    "status": "open",
                    "created_at": start + timedelta(seconds=chooser.randint(0, DAYS * 86400 // 2)),
                }
                for n in range(1, conversations + 1)
            ],
        )
    step = timedelta(days=DAYS) / messages
    rows: dict[str, list[dict[str, Any]]] = {"inbound": [], "outbound": [], "changes": []}
    counts = {"inbound": 0, "agent replies": 0, "business messages": 0, "status changes": 0}
    # As the product writes them: the first customer message since the last reply / resolution.
    waiting_reply: dict[int, datetime | None] = {}
    waiting_resolution: dict[int, datetime | None] = {}
    for position in range(messages):
        moment = start + step * position
        conversation_id = chooser.randint(1, conversations)
        roll = chooser.random()
        if roll < 0.5:
            rows["inbound"].append(
                {
                    "wamid": f"wamid.in.{position}",
                    "contact_id": conversation_id,
                    "conversation_id": conversation_id,
                    "type": "text",
                    "text": "Where is my order?",
                    "placement": "conversation",
                    "raw": {},
                    "sent_at": moment,
                    "received_at": moment,
                }
            )
            counts["inbound"] += 1
            waiting_reply[conversation_id] = waiting_reply.get(conversation_id) or moment
            waiting_resolution[conversation_id] = waiting_resolution.get(conversation_id) or moment
        else:
            agent = roll < 0.8
            author = chooser.choice(AGENTS)
            rows["outbound"].append(
                {
                    "dedupe_key": f"bench-{position}",
                    "to_number": f"+1650{conversation_id:07d}",
                    "purpose": "reply" if agent else chooser.choice(PURPOSES),
                    "origin": "agent" if agent else "api",
                    "created_by": user_ids[author] if agent else None,
                    "kind": "text",
                    "payload": {"text": "On its way."},
                    "state": "read" if agent else chooser.choice(OUTCOMES),
                    "attempts": 1,
                    "wamid": f"wamid.out.{position}",
                    "not_before": moment,
                    "conversation_id": conversation_id,
                    "created_at": moment,
                    "updated_at": moment,
                    "waiting_since": waiting_reply.pop(conversation_id, None) if agent else None,
                }
            )
            counts["agent replies" if agent else "business messages"] += 1
            if agent and chooser.random() < 0.3:  # the agent resolves; the customer may reopen later
                for previous, status, later in (("open", "resolved", 60), ("resolved", "open", 7200)):
                    rows["changes"].append(
                        {
                            "conversation_id": conversation_id,
                            "previous_status": previous,
                            "status": status,
                            "user_id": user_ids[author] if status == "resolved" else None,
                            "at": moment + timedelta(seconds=later),
                            "waiting_since": waiting_resolution.pop(conversation_id, None)
                            if status == "resolved"
                            else None,
                        }
                    )
                    counts["status changes"] += 1
        if sum(len(batch) for batch in rows.values()) >= BATCH or position == messages - 1:
            with database.transaction() as session:
                for table, batch in (
                    (InboundMessage, rows["inbound"]),
                    (OutboxMessage, rows["outbound"]),
                    (ConversationStatusChange, rows["changes"]),
                ):
                    if batch:
                        session.execute(insert(table), batch)
            rows = {name: [] for name in rows}
    with database.transaction() as session:
        session.execute(text("ANALYZE"))
    if database.is_sqlite:  # as after a while in service: the bulk load checkpointed out of the WAL
        database.dispose()
        with contextlib.closing(sqlite3.connect(str(database.engine.url.database))) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return counts


def measure_reports(
    database: Database, runs: int, now: datetime
) -> tuple[list[float], list[float], list[float], int]:
    """Seconds per report through the app and as a query alone, per baseline pair of counts; buckets."""
    settings = load_settings(environ={"INBOX_DATA_DIR": tempfile.gettempdir()})
    parts = build_parts(settings, database, clock=lambda: now)
    with database.transaction() as session:
        token = create_user(session, "bench-owner", "supervisor", now)
    client = create_app(parts).test_client()
    start, end = (now - timedelta(days=30)).isoformat(), now.isoformat()
    query = {"from": start, "to": end, "bucket": "day", "tz": "Europe/Berlin"}
    headers = {"Authorization": f"Bearer {token}"}
    buckets = 0
    latencies: list[float] = []
    queries: list[float] = []
    baseline: list[float] = []
    span = report_range(now - timedelta(days=30), now, "day", ZoneInfo("Europe/Berlin"), now)
    for run in range(runs + 3):  # three untimed runs warm the caches both start from
        began = time.perf_counter()
        answer = client.get("/v1/reports/summary", query_string=query, headers=headers)
        took = time.perf_counter() - began
        assert answer.status_code == 200, answer.get_data(as_text=True)
        buckets = len(answer.get_json()["buckets"])
        began = time.perf_counter()
        with database.reader() as session:
            summary(session, span)
        alone = time.perf_counter() - began
        began = time.perf_counter()
        with database.reader() as session:
            since, until = now - timedelta(days=30), now
            session.scalar(
                select(func.count())
                .select_from(InboundMessage)
                .where(InboundMessage.received_at >= since, InboundMessage.received_at < until)
            )
            session.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(OutboxMessage.created_at >= since, OutboxMessage.created_at < until)
            )
        counted = time.perf_counter() - began
        if run >= 3:
            latencies.append(took)
            queries.append(alone)
            baseline.append(counted)
    return latencies, queries, baseline, buckets


class _Receiver(BaseHTTPRequestHandler):
    """Answers 204 to every POST, keeping the connection open."""

    protocol_version = "HTTP/1.1"
    received = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        """Read the body, count it, answer 204."""
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with _Receiver.lock:
            _Receiver.received += 1
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@contextmanager
def receiver() -> Iterator[str]:
    """A local HTTP receiver on a free port; its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks"
    finally:
        server.shutdown()
        server.server_close()


def measure_deliveries(database: Database, url: str, events: int, subscriptions: int) -> tuple[float, float]:
    """Deliveries per second by the dispatcher, and by one bare client posting signed bodies in a row."""
    settings = load_settings(environ={"INBOX_DATA_DIR": tempfile.gettempdir()})
    parts = build_parts(settings, database)
    client = create_app(parts).test_client()
    with database.transaction() as session:
        token = create_user(session, "bench-hooks", "supervisor", datetime.now(UTC))
    for _ in range(subscriptions):
        answer = client.post(
            "/v1/webhook-subscriptions",
            json={"url": url, "events": ["*"]},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 201
    with database.transaction() as session:
        journal_many(
            session,
            (("message.state_changed", {"key": f"k{n}", "state": "delivered"}) for n in range(events)),
            datetime.now(UTC),
        )
    sequence_pending(database, wait=True)
    _Receiver.received = 0
    http = outgoing_client()
    dispatcher = WebhookDispatcher(parts, client=http)
    began = time.perf_counter()
    result = dispatcher.run_once()
    took = time.perf_counter() - began
    dispatcher.close()
    http.close()
    assert result.delivered == events * subscriptions == _Receiver.received, (result, _Receiver.received)
    secret = new_secret()
    body = b'{"type":"message.state_changed","timestamp":"2026-12-01T00:00:00Z","seq":1,"data":{}}'
    with outgoing_client() as bare:
        began = time.perf_counter()
        for _ in range(events):
            webhook_id, stamp = new_webhook_id(), int(time.time())
            headers = {
                "content-type": "application/json",
                "webhook-id": webhook_id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": sign(secret, webhook_id, stamp, body),
            }
            assert bare.post(url, content=body, headers=headers).status_code == 204
        bare_took = time.perf_counter() - began
    return result.delivered / took, events / bare_took


def main() -> None:
    """Fill, measure both and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--events", type=int, default=2_000)
    parser.add_argument("--subscriptions", type=int, default=4)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument(
        "--database-url", help="a PostgreSQL server URL; SQLite in a temporary file if absent"
    )
    args = parser.parse_args()
    now = datetime.now(UTC).replace(microsecond=0)
    with (
        tempfile.TemporaryDirectory(prefix="bench-reports-") as folder,
        fresh_database_url(args.database_url, Path(folder)) as url,
    ):
        database = create_database(url)
        began = time.perf_counter()
        counts = fill(database, args.conversations, args.messages, args.seed, now)
        filled = time.perf_counter() - began
        latencies, queries, baseline, buckets = measure_reports(database, args.runs, now)
        print(
            f"database: {database.dialect}, {args.messages:,} messages over {DAYS} days in "
            f"{args.conversations:,} conversations "
            f"({', '.join(f'{value:,} {name}' for name, value in counts.items())}; filled in {filled:.1f} s)"
        )
        print(_load())
        print(
            f"GET /v1/reports/summary, 30 days by day in Europe/Berlin ({buckets} buckets), {args.runs} "
            f"runs: median {statistics.median(latencies) * 1000:.1f} ms, "
            f"p95 {_percentile(latencies, 0.95) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
        )
        print(
            f"the same report as a query alone (backend.reports.summary): median "
            f"{statistics.median(queries) * 1000:.1f} ms, p95 {_percentile(queries, 0.95) * 1000:.1f} ms"
        )
        print(
            f"baseline, same run: count the 30 days' inbound and outbound messages: median "
            f"{statistics.median(baseline) * 1000:.1f} ms, p95 {_percentile(baseline, 0.95) * 1000:.1f} ms"
        )
        p95 = _percentile(latencies, 0.95) * 1000
        verdict = "met" if p95 <= TARGET_P95_MS else "MISSED"
        print(f"target p95 <= {TARGET_P95_MS:.0f} ms: {verdict} ({p95:.1f} ms)", flush=True)
        with receiver() as endpoint:
            dispatched, bare = measure_deliveries(database, endpoint, args.events, args.subscriptions)
        database.dispose()
    print(_load())
    print(
        f"outgoing webhooks: {args.events:,} events x {args.subscriptions} subscriptions to a local "
        f"receiver: {dispatched:,.0f} deliveries/s "
        "(fan-out, claim, sign, POST, record; one task per subscription)"
    )
    print(f"baseline, same run: one bare httpx client posting signed bodies in a row: {bare:,.0f} posts/s")


if __name__ == "__main__":
    main()
