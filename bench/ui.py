"""Desktop client on a big inbox: painted inbox, switching to a long thread, stalls under live updates.

Run: .venv/bin/python -m bench.ui [--conversations 10000] [--messages 200000] [--seconds 10]

The backend runs in a child process (so the client's memory is its own), over a SQLite file filled
directly; a second child writes journal events at 100 per second while the client shows the inbox.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

TARGET_PAINTED_INBOX_S = 1.5
TARGET_SWITCH_MS = 200.0
TARGET_STALL_MS = 50.0
BIG_THREAD = 2_000
STALL_TICK_MS = 5


# -- data ------------------------------------------------------------------------------------------
def fill_database(url: str, conversations: int, messages: int) -> tuple[int, str]:
    """Insert contacts, conversations, outbound and inbound messages directly; returns (big id, token)."""
    from sqlalchemy import insert

    from backend.database import create_database, upgrade_database
    from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage
    from backend.users import create_user

    database = create_database(url)
    upgrade_database(database)
    now = datetime.now(UTC)
    chooser = random.Random(7)
    with database.transaction() as session:
        token = create_user(session, "bench", "supervisor", now)
        session.execute(
            insert(Contact),
            [
                {
                    "id": number,
                    "wa_id": f"1650{number:07d}",
                    "number": f"+1650{number:07d}",
                    "profile_name": f"Customer {number}",
                    "last_inbound_at": now - timedelta(minutes=number % 3000),
                    "window_closes_at": now + timedelta(hours=24) - timedelta(minutes=number % 3000),
                    "created_at": now - timedelta(days=30),
                }
                for number in range(1, conversations + 1)
            ],
        )
        session.execute(
            insert(Conversation),
            [
                {
                    "id": number,
                    "contact_id": number,
                    "last_message_at": now - timedelta(minutes=number % 3000),
                    "unread_count": number % 4,
                    "created_at": now - timedelta(days=30),
                }
                for number in range(1, conversations + 1)
            ],
        )
    # The big conversation gets BIG_THREAD outbound messages; the rest are spread over all others.
    big = 1
    plan = [big] * BIG_THREAD + [chooser.randint(2, conversations) for _ in range(messages - BIG_THREAD)]
    batch: list[dict[str, Any]] = []
    inbound: list[dict[str, Any]] = []
    outbound_id = 0
    for position, conversation_id in enumerate(plan):
        moment = now - timedelta(days=2) + timedelta(seconds=position)
        if conversation_id != big and position % 3 == 2:
            inbound.append(
                {
                    "wamid": f"wamid.in.{position}",
                    "contact_id": conversation_id,
                    "conversation_id": conversation_id,
                    "type": "text",
                    "text": f"Customer message {position}",
                    "placement": "reply" if position % 30 else "work_queue",
                    "raw": {},
                    "sent_at": moment,
                    "received_at": moment,
                }
            )
        else:
            outbound_id += 1
            batch.append(
                {
                    "id": outbound_id,
                    "dedupe_key": f"bench-{position}",
                    "to_number": f"+1650{conversation_id:07d}",
                    "purpose": "support",
                    "priority": 0,
                    "trigger_ref": f"order-{position}",
                    "kind": "text",
                    "payload": {"text": {"body": f"Message number {position} about your order."}},
                    "state": "read" if position % 5 else "delivered",
                    "attempts": 1,
                    "wamid": f"wamid.out.{position}",
                    "not_before": moment,
                    "business_initiated": True,
                    "urgent": False,
                    "conversation_id": conversation_id,
                    "created_at": moment,
                    "updated_at": moment,
                    "sent_at": moment,
                    "delivered_at": moment + timedelta(seconds=2),
                }
            )
        if len(batch) + len(inbound) >= 20_000 or position == len(plan) - 1:
            with database.transaction() as session:
                if batch:
                    session.execute(insert(OutboxMessage), batch)
                if inbound:
                    session.execute(insert(InboundMessage), inbound)
            batch, inbound = [], []
    database.dispose()
    return big, token


# -- child processes -------------------------------------------------------------------------------
def serve(url: str) -> None:
    """Child: the backend's HTTP API on a free port; prints the URL, runs until stdin closes."""
    import logging

    from app.composition import build_parts
    from app.http_server import HttpServer
    from backend.database import create_database
    from backend.settings import load_settings
    from backend.web import create_app

    logging.disable(logging.WARNING)
    settings = load_settings(environ={"INBOX_DATABASE_URL": url, "INBOX_DATA_DIR": tempfile.gettempdir()})
    database = create_database(url)
    server = HttpServer(create_app(build_parts(settings, database)), "127.0.0.1", 0, threads=16).start()
    print(server.url, flush=True)
    sys.stdin.read()
    server.stop()


def write_events(url: str, rate: float, seconds: float, big: int, conversations: int) -> None:
    """Child: journal events at `rate` per second: state changes in the open thread, replies elsewhere."""
    from backend.database import create_database
    from backend.journal import journal

    database = create_database(url)
    chooser = random.Random(11)
    start = time.monotonic()
    count = 0
    states = ("delivered", "read")
    while time.monotonic() - start < seconds:
        due = int((time.monotonic() - start) * rate)
        with database.transaction() as session:
            for _ in range(due - count):
                now = datetime.now(UTC)
                if count % 2:
                    position = chooser.randrange(BIG_THREAD)
                    journal(
                        session,
                        "message.state_changed",
                        {
                            "key": f"bench-{position}",
                            "conversation_id": big,
                            "state": states[count % 2],
                            "previous_state": "sent",
                            "wamid": f"wamid.out.{position}",
                        },
                        now,
                    )
                else:
                    journal(
                        session,
                        "inbound.received",
                        {
                            "wamid": f"wamid.live.{count}",
                            "conversation_id": chooser.randint(2, conversations),
                            "attributed": True,
                            "reply_to_key": None,
                            "type": "text",
                        },
                        now,
                    )
                count += 1
        time.sleep(0.01)
    database.dispose()


# -- the client measurements ------------------------------------------------------------------------
def resident_megabytes() -> float:
    """This process's resident memory now, in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(  # noqa: PLR0917 - one caller, and every figure needs these
    url: str, token: str, big: int, seconds: float, database_url: str, conversations: int
) -> dict[str, float]:
    """Open the client on the backend and take the four figures."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QElapsedTimer, QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from ui.api.client import ApiClient
    from ui.app import application
    from ui.runner import BackgroundRunner
    from ui.views.main_window import MainWindow

    app = application(offscreen=True)
    figures: dict[str, float] = {"rss_before_mb": resident_megabytes()}

    class PaintWatch(QObject):
        """Notes the first paint of a widget after it was armed."""

        def __init__(self) -> None:
            super().__init__()
            self.armed = False
            self.painted_at: float | None = None

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if self.armed and event.type() == QEvent.Type.Paint and self.painted_at is None:
                self.painted_at = time.perf_counter()
            return False

    def wait_until(condition: Any, timeout: float = 30.0) -> None:
        deadline = time.perf_counter() + timeout
        while not condition():
            if time.perf_counter() > deadline:
                raise TimeoutError("the client did not get there in time")
            app.processEvents()
            time.sleep(0.001)

    # 1. Time to a painted inbox.
    start = time.perf_counter()
    api = ApiClient(url, token)
    runner = BackgroundRunner()
    window = MainWindow(api, runner, user_name="bench", wait_seconds=5.0)
    list_watch = PaintWatch()
    window.inbox.conversation_list.viewport().installEventFilter(list_watch)
    window.show()
    window.start()
    wait_until(lambda: len(window.inbox.conversations.items) > 0)
    list_watch.armed = True
    window.inbox.conversation_list.viewport().update()
    wait_until(lambda: list_watch.painted_at is not None)
    assert list_watch.painted_at is not None
    figures["painted_inbox_s"] = list_watch.painted_at - start

    # 2. Switching to the 2,000-message conversation.
    wait_until(lambda: window.feed is not None and window.feed.connected and not window.feed._needs_start_seq)
    thread_watch = PaintWatch()
    window.inbox.thread_view.viewport().installEventFilter(thread_watch)
    wait_until(lambda: window.inbox.conversations.row_of(big) is not None)
    switch_start = time.perf_counter()
    window.inbox.select_conversation_id(big)
    wait_until(lambda: len(window.inbox.thread_model.items) > 0)
    figures["switch_data_ms"] = (time.perf_counter() - switch_start) * 1000
    thread_watch.armed = True
    window.inbox.thread_view.viewport().update()
    wait_until(lambda: thread_watch.painted_at is not None)
    assert thread_watch.painted_at is not None
    figures["switch_ms"] = (thread_watch.painted_at - switch_start) * 1000
    full_start = time.perf_counter()
    while window.inbox.thread_model.canFetchMore(window.inbox.thread_model.index(-1, 0)) or (
        window.inbox.thread_model._loading
    ):
        window.inbox.thread_model.fetchMore(window.inbox.thread_model.index(-1, 0))
        app.processEvents()
        time.sleep(0.001)
    figures["whole_thread_loaded_ms"] = (time.perf_counter() - full_start) * 1000 + figures["switch_ms"]
    figures["thread_rows"] = float(len(window.inbox.thread_model.items))

    # 3. Longest GUI-thread stall: first idle (the machine's own noise), then while 100 events/s arrive.
    clock = QElapsedTimer()
    clock.start()
    longest = [0.0]
    last = [clock.elapsed()]
    received = [0]

    def tick() -> None:
        now = clock.elapsed()
        longest[0] = max(longest[0], now - last[0] - STALL_TICK_MS)
        last[0] = now

    def count(events: list[Any]) -> None:
        received[0] += len(events)

    heartbeat = QTimer()
    heartbeat.setInterval(STALL_TICK_MS)
    heartbeat.timeout.connect(tick)

    def watch(duration: float, until_done: Any = None) -> float:
        longest[0] = 0.0
        last[0] = clock.elapsed()
        heartbeat.start()
        begun = time.perf_counter()
        while time.perf_counter() - begun < duration or (until_done is not None and until_done()):
            app.processEvents()
            time.sleep(0.001)
            if time.perf_counter() - begun > duration + 20:
                break
        heartbeat.stop()
        return max(0.0, longest[0])

    figures["idle_stall_ms"] = watch(min(seconds, 5.0))
    assert window.feed is not None
    window.feed.events_arrived.connect(count)
    writer = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.ui",
            "--write-events",
            database_url,
            "--seconds",
            str(seconds),
            "--big",
            str(big),
            "--conversations",
            str(conversations),
        ]
    )
    runner.longest_delivery = (0.0, "")
    longest[0] = watch(seconds + 1, lambda: writer.poll() is None)
    figures["longest_stall_ms"] = max(0.0, longest[0])
    figures["longest_delivery_ms"] = runner.longest_delivery[0] * 1000
    print(f"longest single result handler: {runner.longest_delivery[1]}", flush=True)
    figures["events_received"] = float(received[0])
    figures["rss_after_mb"] = resident_megabytes()
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    window.stop()
    runner.shutdown()
    api.close()
    window.close()
    QApplication.processEvents()
    return figures


def main() -> None:
    """Fill a database, start the backend, and print the client's figures next to their targets."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--seconds", type=float, default=10.0, help="live-update phase length")
    parser.add_argument("--serve", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--write-events", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--big", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    if args.write_events:
        write_events(args.write_events, 100.0, args.seconds, args.big, args.conversations)
        return

    folder = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    url = f"sqlite:///{folder / 'inbox.db'}"
    started = time.perf_counter()
    big, token = fill_database(url, args.conversations, args.messages)
    print(
        f"database: {args.conversations:,} conversations, {args.messages:,} messages "
        f"(one of {BIG_THREAD:,}) in {time.perf_counter() - started:.1f} s",
        flush=True,
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.ui", "--serve", url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        # The server's shutdown chatter is not a figure.
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    backend_url = server.stdout.readline().strip()
    try:
        figures = measure(backend_url, token, big, args.seconds, url, args.conversations)
    finally:
        server.stdin.close()
        server.wait(10)
    print()
    print(f"{'measure':48} {'this run':>12} {'target':>12}")
    rows = [
        ("time to a painted inbox", f"{figures['painted_inbox_s']:.2f} s", f"<= {TARGET_PAINTED_INBOX_S} s"),
        (
            "switch to a 2,000-message conversation (painted)",
            f"{figures['switch_ms']:.0f} ms",
            f"<= {TARGET_SWITCH_MS:.0f} ms",
        ),
        ("  of which the first page arrived", f"{figures['switch_data_ms']:.0f} ms", "-"),
        (
            f"  all {int(figures['thread_rows']):,} entries loaded",
            f"{figures['whole_thread_loaded_ms']:.0f} ms",
            "-",
        ),
        (
            f"longest GUI stall, 100 events/s for {args.seconds:g} s",
            f"{figures['longest_stall_ms']:.1f} ms",
            f"< {TARGET_STALL_MS:.0f} ms",
        ),
        ("  same window idle, same machine (baseline)", f"{figures['idle_stall_ms']:.1f} ms", "-"),
        ("  longest single result handler", f"{figures['longest_delivery_ms']:.1f} ms", "-"),
        ("  events received live", f"{int(figures['events_received']):,}", f"{int(args.seconds * 100):,}"),
        ("resident memory before the window", f"{figures['rss_before_mb']:.0f} MB", "(baseline)"),
        ("resident memory after the run", f"{figures['rss_after_mb']:.0f} MB", "-"),
        ("peak resident memory", f"{figures['peak_rss_mb']:.0f} MB", "-"),
    ]
    for name, value, target in rows:
        print(f"{name:48} {value:>12} {target:>12}")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    # Skip interpreter teardown: Qt objects and daemon threads finalising in random order can crash it.
    os._exit(0)
