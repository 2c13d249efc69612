"""Webhook and /v1 latency while 0, 10 and 30 desks work over TLS on the office network.

Run: .venv/bin/python -m bench.lan_desks [--desks 0 10 30] [--seconds 20] [--wait 30]

One real `inbox serve` (SQLite in a temporary folder, loopback on 127.0.0.1, the LAN listener on
127.0.0.2 with its own certificate). Each desk is a thread with its own pinned TLS client, as the
desktop client holds one: it long-polls GET /v1/events?wait=30 and fetches a conversation's thread
every 3 s. Meanwhile probe rounds run one after another: a signed status webhook and GET /healthz
on loopback, GET /v1/me on loopback and over TLS (a fresh connection each, handshake included).
Every 2 s an inbound customer message is posted; each desk notes when its long-poll brings that
message's event, against the moment the event was journaled (its processing) and the moment the
webhook was posted. Printed per row: median, p99 and max in ms; the row with 0 desks is the baseline
of the same run; the load average is printed beside every row (two cores shared with the desks).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from app.lan.certificate import load_certificate
from backend.clock import utc_now
from backend.database import create_database
from backend.domain.webhook_signature import sign
from backend.users import create_user
from bench.webhooks import APP_SECRET, reply_body, status_body
from ui.api.pinning import PinnedContext

LAN_HOST = "127.0.0.2"
PHONE_NUMBER_ID = "1065403522"
THREAD_EVERY_SECONDS = 3.0
INBOUND_EVERY_SECONDS = 2.0
PROBE_PAUSE_SECONDS = 0.1
QUICK_MS = 1000.0
PROBES = ("webhook", "/healthz", "/v1/me loopback", "/v1/me TLS")


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@dataclass
class Row:
    """What one number of desks measured, in ms."""

    desks: int
    latencies: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in PROBES})
    after_processing: list[float] = field(default_factory=list)
    after_post: list[float] = field(default_factory=list)
    missed: int = 0
    desk_errors: int = 0
    load: str = ""


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


@contextmanager
def _serve(workdir: Path) -> Iterator[tuple[str, str, str]]:
    """`inbox serve` with a LAN listener; yields (loopback URL, LAN URL, fingerprint)."""
    port, lan_port = _free_port("127.0.0.1"), _free_port(LAN_HOST)
    env = {name: value for name, value in os.environ.items() if not name.startswith(("INBOX_", "WHATSAPP_"))}
    env.update(
        INBOX_DATA_DIR=str(workdir),
        INBOX_LAN_HOST=LAN_HOST,
        INBOX_LAN_PORT=str(lan_port),
        INBOX_LOG_LEVEL="WARNING",
        WHATSAPP_APP_SECRET=APP_SECRET,
        WHATSAPP_VERIFY_TOKEN="bench",
        WHATSAPP_TOKEN="bench",
        WHATSAPP_PHONE_NUMBER_ID=PHONE_NUMBER_ID,
        WHATSAPP_GRAPH_URL="http://127.0.0.1:9/v23.0",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL
    )
    loopback = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{loopback}/healthz", timeout=5).status_code == 200:
                    socket.create_connection((LAN_HOST, lan_port), timeout=5).close()
                    break
            except (httpx.TransportError, OSError):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("inbox serve did not start") from None
                time.sleep(0.2)
        kept = load_certificate(workdir)
        assert kept is not None
        yield loopback, f"https://{LAN_HOST}:{lan_port}", kept[0].fingerprint
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass(frozen=True)
class DeskPlan:
    """What the desks' process needs (picklable)."""

    url: str
    fingerprint: str
    token: str
    count: int
    wait: float
    after: int


class _DeskThreads:
    """N desks over TLS on threads: each long-polls events and fetches a thread every few seconds."""

    def __init__(self, plan: DeskPlan) -> None:
        self._stop = threading.Event()
        self._lock = threading.Lock()
        # wamid -> moments (wall clock) each desk saw it, with the journal's own time of the event.
        self.seen: dict[str, list[tuple[float, float]]] = {}
        self.errors = 0
        self._threads = [
            threading.Thread(target=self._desk, args=(plan,), daemon=True) for _ in range(plan.count)
        ]
        for thread in self._threads:
            thread.start()

    def _desk(self, plan: DeskPlan) -> None:
        headers = {"Authorization": f"Bearer {plan.token}"}
        after = plan.after
        with (
            httpx.Client(
                base_url=plan.url,
                headers=headers,
                verify=PinnedContext(plan.fingerprint),
                timeout=plan.wait + 15,
            ) as poll,
            httpx.Client(
                base_url=plan.url, headers=headers, verify=PinnedContext(plan.fingerprint), timeout=15
            ) as fetch,
        ):
            next_thread = time.monotonic()
            conversation: int | None = None
            while not self._stop.is_set():
                try:
                    answer = poll.get("/v1/events", params={"after": after, "wait": plan.wait})
                    received = time.time()
                    answer.raise_for_status()
                    page = answer.json()
                    after = int(page["next"])
                    for event in page["events"]:
                        if event["type"] == "inbound.received":
                            conversation = int(event["data"]["conversation_id"])
                            journaled = datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()
                            with self._lock:
                                self.seen.setdefault(event["data"]["wamid"], []).append((received, journaled))
                    if conversation is not None and time.monotonic() >= next_thread:
                        fetch.get(f"/v1/conversations/{conversation}/thread").raise_for_status()
                        next_thread = time.monotonic() + THREAD_EVERY_SECONDS
                except (httpx.HTTPError, ValueError, KeyError):
                    with self._lock:
                        self.errors += 1
                    self._stop.wait(0.5)

    def stop(self) -> None:
        """Let each desk end after its current long-poll."""
        self._stop.set()
        for thread in self._threads:
            thread.join(20)


def desks_main(plan: DeskPlan, stop: Any, results: Any) -> None:
    """The desks' process: run them until `stop` is set, then report what they saw."""
    desks = _DeskThreads(plan)
    stop.wait()
    desks.stop()
    results.put((desks.seen, desks.errors))


class Desks:
    """The desks in a process of their own, so their TLS and JSON work does not slow the probes' timing."""

    def __init__(self, plan: DeskPlan) -> None:
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._results = context.Queue()
        self._process = context.Process(
            target=desks_main, args=(plan, self._stop, self._results), daemon=True
        )
        self._process.start()
        self.seen: dict[str, list[tuple[float, float]]] = {}
        self.errors = 0

    def stop(self, post_inbound: Any) -> None:
        """Stop every desk (one more message wakes the long-polls) and collect what they saw."""
        self._stop.set()
        post_inbound()
        self.seen, self.errors = self._results.get(timeout=60)
        self._process.join(10)


def _post(client: httpx.Client, body: bytes) -> float:
    started = time.perf_counter()
    answer = client.post(
        "/webhooks/whatsapp",
        content=body,
        headers={"X-Hub-Signature-256": sign(body, APP_SECRET), "Content-Type": "application/json"},
    )
    answer.raise_for_status()
    return (time.perf_counter() - started) * 1000


def _timed(client: httpx.Client, path: str, headers: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    client.get(path, headers=headers).raise_for_status()
    return (time.perf_counter() - started) * 1000


def run_row(
    *,
    loopback: str,
    lan: str,
    fingerprint: str,
    token: str,
    desks: int,
    seconds: float,
    wait: float,
    counter: list[int],
) -> Row:
    """Start the desks, probe for `seconds`, post inbound messages, stop the desks."""
    row = Row(desks)
    bearer = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=loopback, timeout=30) as local:
        after = int(
            local.get("/v1/events", params={"after": 0, "wait": 0, "limit": 1}, headers=bearer).json()["next"]
        )
        after = _latest(local, bearer, after)

        def post_inbound() -> str:
            counter[0] += 1
            body = reply_body(counter[0])
            _post(local, body)
            return f"wamid.REPLY{counter[0]}"

        working = Desks(DeskPlan(lan, fingerprint, token, desks, wait, after))
        time.sleep(4.0 if desks else 0.2)  # the desks' process has started, and every desk waits
        posted: dict[str, float] = {}
        began = time.monotonic()
        next_inbound = began
        while time.monotonic() - began < seconds:
            if desks and time.monotonic() >= next_inbound:
                moment = time.time()
                posted[post_inbound()] = moment
                next_inbound = time.monotonic() + INBOUND_EVERY_SECONDS
            counter[0] += 1
            row.latencies["webhook"].append(_post(local, status_body(counter[0])))
            with httpx.Client(base_url=loopback, timeout=30) as fresh:
                row.latencies["/healthz"].append(_timed(fresh, "/healthz"))
            with httpx.Client(base_url=loopback, timeout=30) as fresh:
                row.latencies["/v1/me loopback"].append(_timed(fresh, "/v1/me", bearer))
            with httpx.Client(base_url=lan, verify=PinnedContext(fingerprint), timeout=30) as fresh:
                row.latencies["/v1/me TLS"].append(_timed(fresh, "/v1/me", bearer))
            time.sleep(PROBE_PAUSE_SECONDS)
        time.sleep(1.5)  # the last message reaches every desk
        row.load = " ".join(f"{value:.2f}" for value in os.getloadavg())
        working.stop(post_inbound)
    for wamid, moment in posted.items():
        sightings = working.seen.get(wamid, [])
        row.missed += desks - len(sightings)
        for received, journaled in sightings:
            row.after_processing.append((received - journaled) * 1000)
            row.after_post.append((received - moment) * 1000)
    row.desk_errors = working.errors
    return row


def _latest(client: httpx.Client, bearer: dict[str, str], after: int) -> int:
    """The journal's newest sequence number, reading page after page."""
    while True:
        page = client.get("/v1/events", params={"after": after, "wait": 0}, headers=bearer).json()
        if not page["events"]:
            return after
        after = int(page["next"])


def _cell(values: list[float]) -> str:
    if not values:
        return f"{'-':>8} {'-':>8} {'-':>8}"
    return f"{statistics.median(values):8.1f} {_percentile(values, 0.99):8.1f} {max(values):8.1f}"


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--desks", type=int, nargs="+", default=[0, 10, 30])
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of probing per row")
    parser.add_argument("--wait", type=float, default=30.0, help="each long-poll's wait, seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lan-") as directory:
        workdir = Path(directory)
        with _serve(workdir) as (loopback, lan, fingerprint):
            database = create_database(f"sqlite:///{workdir / 'inbox.db'}")
            with database.transaction() as session:
                token = create_user(session, "desk", "agent", utc_now())
            database.dispose()
            print(
                f"`inbox serve` on SQLite; desks over TLS to {lan} (cheroot, Python's ssl), probes one after "
                f"another for {args.seconds:g} s per row; long-polls wait={args.wait:g} s.\n"
                "  latency in ms: median p99 max. Delivery: from the event's journaling (processing) and "
                "from the webhook's POST to each desk's long-poll answer."
            )
            header = " | ".join(f"{name:>26}" for name in PROBES)
            print(f"  {'desks':<6} {header}")
            counter = [0]
            rows = []
            for desks in args.desks:
                row = run_row(
                    loopback=loopback,
                    lan=lan,
                    fingerprint=fingerprint,
                    token=token,
                    desks=desks,
                    seconds=args.seconds,
                    wait=args.wait,
                    counter=counter,
                )
                rows.append(row)
                cells = " | ".join(_cell(row.latencies[name]) for name in PROBES)
                print(f"  {desks:<6} {cells}   probes {len(row.latencies['webhook'])}  load {row.load}")
                if desks:
                    print(
                        f"         delivery after processing {_cell(row.after_processing)}"
                        f"   after POST {_cell(row.after_post)}"
                        f"   seen {len(row.after_post)}, missed {row.missed}, desk errors {row.desk_errors}"
                    )
            for row in rows:
                worst = max(max(values) for values in row.latencies.values())
                delivery = max(row.after_processing, default=0.0)
                met = worst < QUICK_MS and delivery < QUICK_MS and row.missed == 0
                print(
                    f"  {row.desks} desks: every probe and every delivery under {QUICK_MS:.0f} ms: "
                    f"{'met' if met else 'NOT met'} "
                    f"(probe max {worst:.1f} ms, delivery max {delivery:.1f} ms)"
                )


if __name__ == "__main__":
    main()
