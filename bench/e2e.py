"""End to end, measured from outside: the drain rate at the cap, the busiest second, webhook intake while
the processor runs, and CPU per message, each next to a baseline measured in the same run.

Run: .venv/bin/python -m bench.e2e [--messages 5000] [--latencies 0,300] [--only drain|intake] [--quick]
On PostgreSQL: INBOX_BENCH_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres, same command.

`inbox sandbox` (throughput 1,100/s, default status webhooks: sent, delivered, read 0.5 s apart) and
`inbox serve` (INBOX_SEND_RATE=1000, production defaults otherwise) run as processes of their own on a
fresh database: a SQLite file, or a new PostgreSQL database (dropped at the end) when
INBOX_BENCH_DATABASE_URL names a server.

- Drain, for each Graph latency: a backlog of N messages to N customers enqueued through
  POST /v1/messages/batch (1,000 a call, each with `not_before`), every row due at one moment far
  enough ahead that the backlog is complete before the first send (the slack is printed). Rate and
  busiest sliding second come from the sandbox's ledger, over the time each call arrived there
  (`requested_at`, before the injected latency): (N − 1) / (last − first). The time of acceptance is
  printed too, but it carries the latency's ±20 % jitter, which stretches the span at both ends (the
  baseline shows it). Then the time until every row is `read`, which means every status webhook was
  received and processed.
- Baseline, for each latency: a bare keep-alive client in another process posting N sends straight to
  the sandbox, paced at 1,000/s: the ceiling of the sandbox and this machine.
- Intake: signed status webhooks (10,000) over 16 keep-alive connections from another process
  (bench.webhooks' load generator) while the product's processor applies them to seeded rows.

CPU is utime + stime from /proc: of `inbox serve` and every process below it (the product, by role
from its `child ROLE pid N` lines), and apart from it of the sandbox and the load clients (not the
product). A drain's CPU runs from the first batch call to the last row read, less the idle wait for
the due moment. Linux only. `--quick` is a smoke run (1,000 messages, 2,000 webhooks). Figures, not a
test: it exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, insert, select

from backend.clock import utc_now
from backend.database import create_database
from backend.database.models import Contact, Conversation, OutboxMessage, WebhookDelivery
from backend.users import create_user
from bench.chaos import fresh_database_url
from bench.harness import CHILD_LINE, START_TIMEOUT_SECONDS, BackendProcess, customer_number, free_port
from bench.webhooks import APP_SECRET, START, STATUS_NAMES, TARGET_MEDIAN_MS, TARGET_P99_MS, TARGET_RATE

ROOT = Path(__file__).resolve().parents[1]
SEND_RATE = 1000
SANDBOX_THROUGHPUT = 1100
TARGET_DRAIN_RATE = 900.0
BATCH_SIZE = 1000
INTAKE_CONNECTIONS = 16
GRAPH_TOKEN = "e2e-graph-token-3c81"
VERIFY_TOKEN = "e2e-verify-token-70d2"
# The business number bench.webhooks' status bodies name, so the processor applies them.
PHONE_NUMBER_ID = "1065403522"
PURPOSE = "order_update"
# Drains send to +1 415 555 …: the intake phase's status webhooks name a +1 650 customer of their own.
FIRST_CUSTOMER = 10000
# Room for the batch API to take the backlog before it is due (measured on a slow machine: 0.5 ms a
# message on SQLite, 1.5 ms on PostgreSQL), several times over.
ENQUEUE_SECONDS_PER_MESSAGE = 0.004
# A wait gives up when nothing moved for this long.
STALL_SECONDS = 30.0
MAX_SECONDS_SHOWN = 40
ROLE_ORDER = ("supervisor", "http", "sender", "background")


# ---------------------------------------------------------------------------------------------------
# CPU and load, from /proc.


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (index 0 is the state), or None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def process_tree(root: int) -> list[int]:
    """`root` and every process below it, children of children included."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    waiting = [root]
    while waiting:
        pid = waiting.pop()
        found.append(pid)
        waiting.extend(children.get(pid, []))
    return found


def cpu_seconds(pid: int) -> float | None:
    """CPU a process used so far, user + system, its reaped children included (they count once)."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    # utime, stime, cutime, cstime: a child that ended and was waited for lives on in its parent's c*.
    return sum(int(fields[index]) for index in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")


def sample_tree(root: int) -> dict[int, float]:
    """CPU seconds so far of each process in the tree under `root`."""
    sample: dict[int, float] = {}
    for pid in process_tree(root):
        seconds = cpu_seconds(pid)
        if seconds is not None:
            sample[pid] = seconds
    return sample


def cpu_between(before: dict[int, float], after: dict[int, float]) -> dict[int, float]:
    """CPU seconds each process used between two samples (a process born in between: all of it)."""
    return {pid: seconds - before.get(pid, 0.0) for pid, seconds in after.items()}


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages."""
    return os.getloadavg()


def machine_ticks() -> tuple[int, int] | None:
    """CPU time of the whole machine so far, and the part of it the host gave to others (steal), in ticks."""
    try:
        with Path("/proc/stat").open(encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu":
        return None
    ticks = [int(value) for value in fields[1:9]]
    return sum(ticks), ticks[7]


def stolen_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of the machine's CPU time between two samples that the host gave to others."""
    if before is None or after is None or after[0] <= before[0]:
        return None
    return (after[1] - before[1]) / (after[0] - before[0])


def _format_load(load: tuple[float, float, float]) -> str:
    return f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"


# ---------------------------------------------------------------------------------------------------
# Times from the sandbox's ledger.


def rate_over(times: list[float]) -> float | None:
    """Messages per second from the first to the last: (N − 1) / (last − first)."""
    if len(times) < 2:
        return None
    span = max(times) - min(times)
    return (len(times) - 1) / span if span > 0 else None


def busiest_second(times: list[float]) -> int:
    """The most events in any sliding window of one second, [t, t + 1 s), by two pointers."""
    ordered = sorted(times)
    busiest = 0
    first = 0
    for last, moment in enumerate(ordered):
        while moment - ordered[first] >= 1.0:
            first += 1
        busiest = max(busiest, last - first + 1)
    return busiest


def busiest_window_start(times: list[float]) -> float | None:
    """Where the busiest sliding second begins, in seconds after the first event."""
    ordered = sorted(times)
    if not ordered:
        return None
    busiest, start, first = 0, ordered[0], 0
    for last, moment in enumerate(ordered):
        while moment - ordered[first] >= 1.0:
            first += 1
        if last - first + 1 > busiest:
            busiest, start = last - first + 1, ordered[first]
    return start - ordered[0]


def longest_gap(times: list[float]) -> tuple[float, float] | None:
    """The longest pause between two consecutive events, and where it ends (seconds after the first).

    A stall on either side shows as a gap followed by a bunch: what it held back arrives at once.
    """
    ordered = sorted(times)
    if len(ordered) < 2:
        return None
    gap, ends = max((later - earlier, later) for earlier, later in itertools.pairwise(ordered))
    return gap, ends - ordered[0]


def per_second(times: list[float]) -> list[int]:
    """How many events fell in each whole second counted from the first."""
    if not times:
        return []
    first = min(times)
    counts = [0] * (int(max(times) - first) + 1)
    for moment in times:
        counts[int(moment - first)] += 1
    return counts


def _epoch(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


@dataclass
class LedgerFigures:
    """What the ledger says about the sends under one key prefix."""

    received: int
    rate_by_receipt: float | None
    rate: float | None  # by arrival, the figure the target is judged on
    busiest_by_request: int
    busiest_by_receipt: int
    first: float | None
    last: float | None
    seconds: list[int]  # arrivals in each second from the first
    busiest_starts: float | None  # seconds after the first arrival
    gap: tuple[float, float] | None  # longest pause between arrivals, and where it ends


def ledger_figures(entries: list[dict[str, Any]], prefix: str) -> LedgerFigures:
    """Rate and busiest second of the ledger entries whose key starts with `prefix`."""
    mine = [
        entry
        for entry in entries
        if str(entry.get("biz_opaque_callback_data") or "").startswith(f"{prefix}-")
    ]
    received = [_epoch(entry["received_at"]) for entry in mine]
    requested = [_epoch(entry["requested_at"]) for entry in mine]
    return LedgerFigures(
        received=len(mine),
        rate_by_receipt=rate_over(received),
        rate=rate_over(requested),
        busiest_by_request=busiest_second(requested),
        busiest_by_receipt=busiest_second(received),
        first=min(received) if received else None,
        last=max(received) if received else None,
        seconds=per_second(requested),
        busiest_starts=busiest_window_start(requested),
        gap=longest_gap(requested),
    )


# ---------------------------------------------------------------------------------------------------
# The paced bare client (a second process): the baseline of a drain.


def graph_send_body(key: str, to: str) -> bytes:
    """The body of a template send as the product makes it, with `key` as its callback data."""
    return json.dumps(
        {
            "messaging_product": "whatsapp",
            "to": to,
            "type": "template",
            "template": {
                "name": "order_shipped",
                "language": {"code": "en"},
                "components": [{"type": "body", "parameters": [{"type": "text", "text": key}]}],
            },
            "biz_opaque_callback_data": key,
        },
        separators=(",", ":"),
    ).encode()


def _graph_request(port: int, key: str, to: str) -> bytes:
    """A template send as the product makes it, on a keep-alive connection."""
    body = graph_send_body(key, to)
    head = (
        f"POST /v23.0/{PHONE_NUMBER_ID}/messages HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {GRAPH_TOKEN}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _paced_sends(port: int, requests: list[bytes], rate: float) -> dict[str, Any]:
    """Post every request at its moment (`rate` a second), each on an idle connection or a new one."""
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    latencies: list[float] = []
    codes: dict[int, int] = {}
    opened = 0

    async def one(request: bytes) -> None:
        nonlocal opened
        if idle:
            reader, writer = idle.pop()
        else:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            opened += 1
        started = time.perf_counter()
        try:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
        except (OSError, asyncio.IncompleteReadError):
            codes[0] = codes.get(0, 0) + 1
            writer.close()
            return
        latencies.append(time.perf_counter() - started)
        code = int(head[9:12])
        codes[code] = codes.get(code, 0) + 1
        idle.append((reader, writer))

    tasks: set[asyncio.Task[None]] = set()
    began = time.perf_counter()
    cpu_began = time.process_time()
    for index, request in enumerate(requests):
        delay = began + index / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        task = asyncio.create_task(one(request))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    sending = time.perf_counter() - began
    while tasks:
        await asyncio.gather(*list(tasks))
    elapsed = time.perf_counter() - began
    cpu = time.process_time() - cpu_began
    for _reader, writer in idle:
        writer.close()
    latencies.sort()
    return {
        "sent": len(requests),
        "sent_per_second": (len(requests) - 1) / sending if sending > 0 else None,
        "answered_per_second": len(requests) / elapsed,
        "median_ms": latencies[len(latencies) // 2] * 1000 if latencies else None,
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000 if latencies else None,
        "codes": codes,
        "connections": opened,
        "cpu_seconds": cpu,
    }


def run_paced_client(port: int, count: int, rate: float, prefix: str, first_customer: int) -> None:
    """Entry of the baseline's client process: send, then print one JSON line of results."""
    requests = [
        _graph_request(port, f"{prefix}-{index}", customer_number(first_customer + index))
        for index in range(count)
    ]
    print(json.dumps(asyncio.run(_paced_sends(port, requests, rate))), flush=True)


def run_to_end(arguments: list[str], log_path: Path) -> tuple[str, float]:
    """Run a process to its end; its standard output and the CPU seconds it used, start-up included."""
    with log_path.open("wb") as output, log_path.with_suffix(".err").open("wb") as errors:
        process = subprocess.Popen(arguments, cwd=ROOT, stdout=output, stderr=errors)
    # wait4 rather than wait: the kernel's account of the child's CPU comes with its exit status.
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(
            f"{' '.join(arguments[1:4])} failed:\n{log_path.with_suffix('.err').read_text()[-3000:]}"
        )
    return log_path.read_text(), usage.ru_utime + usage.ru_stime


def _last_json(output: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    result["codes"] = {int(code): count for code, count in result["codes"].items()}
    return result


# ---------------------------------------------------------------------------------------------------
# The database, the sandbox and `inbox serve`.


def _environment(extra: dict[str, str]) -> dict[str, str]:
    """This environment without the product's own settings, plus `extra`."""
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith(("INBOX_", "WHATSAPP_"))
    }
    environment.update({"PYTHONUNBUFFERED": "1", **extra})
    return environment


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.05) -> bool:
    """Poll `predicate` until it holds (True) or `timeout` passes (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if predicate():
                return True
        time.sleep(interval)
    return False


def wait_for_progress(measure: Callable[[], int], goal: int, interval: float) -> tuple[bool, int]:
    """Poll `measure` until it reaches `goal`; gives up when it stays put for STALL_SECONDS."""
    last_value, last_change = -1, time.monotonic()
    while True:
        try:
            value = measure()
        except httpx.HTTPError:
            value = last_value
        if value >= goal:
            return True, value
        if value != last_value:
            last_value, last_change = value, time.monotonic()
        elif time.monotonic() - last_change > STALL_SECONDS:
            return False, value
        time.sleep(interval)


class Stack:
    """The sandbox and `inbox serve` as processes on one fresh database; `close` stops both."""

    def __init__(self, database_url: str, workdir: Path) -> None:
        self.database_url = database_url
        self.workdir = workdir
        self.database = create_database(database_url)
        with self.database.transaction() as session:
            token = create_user(session, "e2e-supervisor", "supervisor", utc_now())
        self.sandbox_port, self.serve_port = free_port(), free_port()
        data_dir = workdir / "data"
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.serve_environment = _environment(
            {
                "INBOX_DATA_DIR": str(data_dir),
                "INBOX_DATABASE_URL": database_url,
                "INBOX_SEND_RATE": str(SEND_RATE),
                "WHATSAPP_GRAPH_URL": f"http://127.0.0.1:{self.sandbox_port}/v23.0",
                "WHATSAPP_TOKEN": GRAPH_TOKEN,
                "WHATSAPP_PHONE_NUMBER_ID": PHONE_NUMBER_ID,
                "WHATSAPP_APP_SECRET": APP_SECRET,
                "WHATSAPP_VERIFY_TOKEN": VERIFY_TOKEN,
            }
        )
        self.sandbox_environment = _environment({"INBOX_DATA_DIR": str(data_dir)})
        self.control = httpx.Client(base_url=f"http://127.0.0.1:{self.sandbox_port}/_sandbox", timeout=60)
        self.api = httpx.Client(
            base_url=f"http://127.0.0.1:{self.serve_port}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        )
        self.sandbox: subprocess.Popen[bytes] | None = None
        self.serve: BackendProcess | None = None

    def start(self) -> None:
        """Start the sandbox, then `inbox serve`; return once both answer."""
        sandbox_log = self.workdir / "sandbox.log"
        arguments = [
            "sandbox", "--port", str(self.sandbox_port), "--app-secret", APP_SECRET,
            "--token", GRAPH_TOKEN, "--phone-number-id", PHONE_NUMBER_ID,
            "--throughput", str(SANDBOX_THROUGHPUT),
            "--webhook-url", f"http://127.0.0.1:{self.serve_port}/webhooks/whatsapp",
        ]  # fmt: skip
        self.sandbox = self._popen(arguments, sandbox_log, self.sandbox_environment)
        if not wait_until(lambda: self.control.get("/stats").status_code == 200, START_TIMEOUT_SECONDS):
            raise RuntimeError(f"the sandbox did not start:\n{sandbox_log.read_text()[-3000:]}")
        serve_log = self.workdir / "serve.log"
        process = self._popen(["serve", "--port", str(self.serve_port)], serve_log, self.serve_environment)
        self.serve = BackendProcess("serve", self.serve_port, serve_log, process)
        serve = self.serve
        if not wait_until(
            lambda: serve.alive and self.api.get("/healthz").status_code == 200, START_TIMEOUT_SECONDS
        ):
            raise RuntimeError(f"inbox serve did not start:\n{serve.log()[-3000:]}")

    @staticmethod
    def _popen(arguments: list[str], log_path: Path, environment: dict[str, str]) -> subprocess.Popen[bytes]:
        with log_path.open("wb") as log_file:
            # A session of its own, so stopping it takes every process it started.
            return subprocess.Popen(
                [sys.executable, "-m", "app", *arguments],
                cwd=ROOT,
                env=environment,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def roles(self) -> dict[int, str]:
        """Which role each process of `inbox serve` plays, from the `child ROLE pid N` lines of its log."""
        assert self.serve is not None
        named = {int(pid): role for role, pid in CHILD_LINE.findall(self.serve.log())}
        named[self.serve.process.pid] = "supervisor" if named else "serve (one process)"
        return named

    def product_sample(self) -> dict[int, float]:
        """CPU so far of `inbox serve` and every process below it."""
        assert self.serve is not None
        return sample_tree(self.serve.process.pid)

    def sandbox_cpu(self) -> float:
        """CPU so far of the sandbox process."""
        assert self.sandbox is not None
        return sum(sample_tree(self.sandbox.pid).values())

    def by_role(self, used: dict[int, float]) -> dict[str, float]:
        """CPU seconds summed by role (processes the log does not name count as `other`)."""
        roles = self.roles()
        totals: dict[str, float] = {}
        for pid, seconds in used.items():
            role = roles.get(pid, "other")
            totals[role] = totals.get(role, 0.0) + seconds
        return totals

    def stats(self) -> dict[str, Any]:
        """The sandbox's counts."""
        answer: dict[str, Any] = self.control.get("/stats").json()
        return answer

    def ledger(self) -> list[dict[str, Any]]:
        """Everything customers received so far."""
        entries: list[dict[str, Any]] = self.control.get("/ledger").json()["messages"]
        return entries

    def set_latency(self, latency_ms: float) -> None:
        """Graph latency from now on."""
        self.control.post("/faults", json={"latency_ms": latency_ms}).raise_for_status()

    def unprocessed_webhooks(self) -> int:
        """Webhook bodies stored and not processed yet."""
        with self.database.reader() as session:
            count = session.scalar(
                select(func.count())
                .select_from(WebhookDelivery)
                .where(WebhookDelivery.processed_at.is_(None))
            )
        return int(count or 0)

    def stored_webhooks(self) -> int:
        """Webhook bodies stored so far."""
        with self.database.reader() as session:
            return int(session.scalar(select(func.count()).select_from(WebhookDelivery)) or 0)

    def settle(self) -> None:
        """Wait until the sandbox has no webhook to deliver and the product none to process."""
        wait_until(lambda: not self.stats()["webhooks_pending"] and not self.unprocessed_webhooks(), 120, 0.2)

    def close(self) -> None:
        """SIGTERM both (kill -9 what is left after 15 s); close the clients and the database."""
        if self.serve is not None:
            self.serve.terminate()
            try:
                self.serve.process.wait(15)
            except subprocess.TimeoutExpired:
                self.serve.kill()
        if self.sandbox is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.sandbox.pid, signal.SIGTERM)
            try:
                self.sandbox.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.sandbox.pid, signal.SIGKILL)
                self.sandbox.wait(10)
        self.control.close()
        self.api.close()
        self.database.dispose()


# ---------------------------------------------------------------------------------------------------
# Phases.


@dataclass
class Phase:
    """What every phase records: its load averages and the CPU of each party."""

    name: str
    units: int
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    # A virtual machine's CPU time taken by the host for others: a busy neighbour shows here.
    ticks_before: tuple[int, int] | None = None
    ticks_after: tuple[int, int] | None = None
    product_cpu: dict[str, float] = field(default_factory=dict)
    sandbox_cpu: float | None = None
    client_cpu: float | None = None
    client_label: str = ""


@dataclass
class DrainResult:
    """One drain of a backlog through the product."""

    phase: Phase
    latency_ms: float
    messages: int
    ledger: LedgerFigures
    enqueue_seconds: float
    enqueue_cpu: float  # of the product, while the batch API took the backlog
    slack_seconds: float
    read: int
    read_seconds: float | None
    states: dict[str, int]
    rejected: dict[str, int]


@dataclass
class BaselineResult:
    """The bare client's paced sends straight to the sandbox."""

    phase: Phase
    latency_ms: float
    ledger: LedgerFigures
    client: dict[str, Any]


@dataclass
class IntakeResult:
    """Signed status webhooks into the product while its processor runs."""

    phase: Phase
    load: dict[str, Any]
    stored: int
    pending_at_end: int
    seconds_to_zero: float | None


@dataclass
class Snapshot:
    """CPU seconds used so far: by each process of the product, by the sandbox, by this process."""

    product: dict[int, float]
    sandbox: float
    bench: float

    @classmethod
    def take(cls, stack: Stack) -> Snapshot:
        """A sample of every party now."""
        return cls(stack.product_sample(), stack.sandbox_cpu(), time.process_time())

    def since(self, earlier: Snapshot) -> Snapshot:
        """CPU used from `earlier` to this sample."""
        return Snapshot(
            cpu_between(earlier.product, self.product),
            self.sandbox - earlier.sandbox,
            self.bench - earlier.bench,
        )

    def without(self, idle: Snapshot) -> Snapshot:
        """This use less an idle stretch inside it."""
        product = {pid: seconds - idle.product.get(pid, 0.0) for pid, seconds in self.product.items()}
        return Snapshot(product, self.sandbox - idle.sandbox, self.bench - idle.bench)


def _begin(phase: Phase, stack: Stack) -> Snapshot:
    phase.load_before = load_average()
    phase.ticks_before = machine_ticks()
    return Snapshot.take(stack)


def _end(phase: Phase) -> None:
    phase.load_after = load_average()
    phase.ticks_after = machine_ticks()


def _rejected_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    delta = {code: count - before.get(code, 0) for code, count in after.items()}
    return {code: count for code, count in delta.items() if count}


def drain(stack: Stack, latency_ms: float, messages: int, first_customer: int, lead: float) -> DrainResult:
    """Enqueue a backlog due at one moment, then wait for the ledger to hold it and every row to be read."""
    stack.settle()
    stack.set_latency(latency_ms)
    prefix = f"e2e-{latency_ms:g}ms"
    phase = Phase(f"drain, {latency_ms:g} ms Graph latency", messages)
    stats_before = stack.stats()
    before = _begin(phase, stack)
    due = time.time() + lead
    due_text = datetime.fromtimestamp(due, UTC).isoformat(timespec="milliseconds")
    began = time.monotonic()
    batch_ids: list[int] = []
    for start in range(0, messages, BATCH_SIZE):
        listed = [
            {
                "key": f"{prefix}-{index}",
                "to": customer_number(first_customer + index),
                "purpose": PURPOSE,
                "template": {"name": "order_shipped", "language": "en", "parameters": [f"A-{index}"]},
                "not_before": due_text,
            }
            for index in range(start, min(start + BATCH_SIZE, messages))
        ]
        response = stack.api.post(
            "/v1/messages/batch", json={"client_ref": f"{prefix}-{start}", "messages": listed}
        )
        if response.status_code != 202 or response.json()["queued"] != len(listed):
            raise RuntimeError(f"batch not queued: {response.status_code} {response.text[:500]}")
        batch_ids.append(int(response.json()["batch_id"]))
    enqueue_seconds = time.monotonic() - began
    enqueued = Snapshot.take(stack)
    slack = due - time.time()
    # The wait for the due moment is idle time: it is left out of the CPU per message.
    time.sleep(max(0.0, slack - 0.05))
    idle = Snapshot.take(stack).since(enqueued)
    goal = int(stats_before["ledger"]) + messages
    wait_for_progress(lambda: int(stack.stats()["ledger"]), goal, 0.2)

    def read_so_far() -> int:
        return sum(
            int(stack.api.get(f"/v1/batches/{batch_id}").json()["states"]["read"]) for batch_id in batch_ids
        )

    all_read, read = wait_for_progress(read_so_far, messages, 0.25)
    read_seconds = time.time() - due if all_read else None
    used = Snapshot.take(stack).since(before).without(idle)
    phase.product_cpu = stack.by_role(used.product)
    phase.sandbox_cpu = used.sandbox
    phase.client_cpu = used.bench
    phase.client_label = "this bench process: enqueue and polling"
    _end(phase)
    states: dict[str, int] = {}
    for batch_id in batch_ids:
        for state, count in stack.api.get(f"/v1/batches/{batch_id}").json()["states"].items():
            states[state] = states.get(state, 0) + int(count)
    return DrainResult(
        phase=phase,
        latency_ms=latency_ms,
        messages=messages,
        ledger=ledger_figures(stack.ledger(), prefix),
        enqueue_seconds=enqueue_seconds,
        enqueue_cpu=sum(enqueued.since(before).product.values()),
        slack_seconds=slack,
        read=read,
        read_seconds=read_seconds,
        states={state: count for state, count in states.items() if count},
        rejected=_rejected_delta(stats_before["rejected"], stack.stats()["rejected"]),
    )


def baseline(stack: Stack, latency_ms: float, sends: int, first_customer: int) -> BaselineResult:
    """A bare keep-alive client in another process posts `sends` to the sandbox at SEND_RATE a second."""
    stack.settle()
    stack.set_latency(latency_ms)
    prefix = f"base-{latency_ms:g}ms"
    phase = Phase(f"baseline, {latency_ms:g} ms: bare client → sandbox", sends)
    before = _begin(phase, stack)
    arguments = [
        sys.executable, "-m", "bench.e2e", "--paced-client", str(stack.sandbox_port),
        "--messages", str(sends), "--prefix", prefix, "--first-customer", str(first_customer),
    ]  # fmt: skip
    output, _whole_process = run_to_end(arguments, stack.workdir / f"{prefix}.out")
    client = _last_json(output)
    # The sandbox's share includes its status webhooks, as in a drain.
    wait_until(lambda: not stack.stats()["webhooks_pending"], 60, 0.2)
    phase.sandbox_cpu = stack.sandbox_cpu() - before.sandbox
    phase.client_cpu = float(client["cpu_seconds"])
    phase.client_label = "the bare client, its send loop"
    _end(phase)
    return BaselineResult(phase, latency_ms, ledger_figures(stack.ledger(), prefix), client)


def seed_status_targets(stack: Stack, messages: int) -> None:
    """Outbox rows the load generator's status webhooks name: half by wamid, half only by key."""
    wa_id = "16505551234"
    with stack.database.transaction() as session:
        contact = session.scalars(select(Contact).where(Contact.wa_id == wa_id)).one_or_none()
        if contact is None:
            contact = Contact(wa_id=wa_id, number=f"+{wa_id}", created_at=START)
            session.add(contact)
            session.flush()
        conversation = session.scalars(
            select(Conversation).where(Conversation.contact_id == contact.id)
        ).one_or_none()
        if conversation is None:
            conversation = Conversation(contact_id=contact.id, created_at=START)
            session.add(conversation)
            session.flush()
        rows = [
            {
                "dedupe_key": f"bench-{index}",
                "to_number": f"+{wa_id}",
                "purpose": "bench",
                "kind": "text",
                "payload": {"text": "hi"},
                "state": "accepted" if index % 2 == 0 else "unknown",
                "wamid": f"wamid.BENCH{index}" if index % 2 == 0 else None,
                "not_before": START,
                "conversation_id": conversation.id,
                "created_at": START,
                "updated_at": START,
            }
            for index in range(messages)
        ]
        session.execute(insert(OutboxMessage), rows)


def intake(stack: Stack, requests: int) -> IntakeResult:
    """Signed status webhooks over 16 keep-alive connections from another process, processor running."""
    stack.settle()
    seed_status_targets(stack, requests // len(STATUS_NAMES) + 1)
    stored_before = stack.stored_webhooks()
    phase = Phase(f"intake, {INTAKE_CONNECTIONS} connections", requests)
    before = _begin(phase, stack)
    arguments = [
        sys.executable, "-m", "bench.webhooks", "--load-port", str(stack.serve_port),
        "--requests", str(requests), "--connections", str(INTAKE_CONNECTIONS),
    ]  # fmt: skip
    output, client_cpu = run_to_end(arguments, stack.workdir / "intake.out")
    load_ended = time.monotonic()
    pending = stack.unprocessed_webhooks()
    caught_up = wait_until(lambda: not stack.unprocessed_webhooks(), 120, 0.05)
    seconds_to_zero = time.monotonic() - load_ended if caught_up else None
    phase.product_cpu = stack.by_role(Snapshot.take(stack).since(before).product)
    phase.client_cpu = client_cpu
    phase.client_label = "the load generator, whole process"
    _end(phase)
    return IntakeResult(
        phase=phase,
        load=_last_json(output),
        stored=stack.stored_webhooks() - stored_before,
        pending_at_end=pending,
        seconds_to_zero=seconds_to_zero,
    )


# ---------------------------------------------------------------------------------------------------
# Printing.


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}/s"


def _verdict(met: bool) -> str:
    return "target met" if met else "NOT met"


def print_drain(result: DrainResult) -> None:
    """The lines of one drain."""
    ledger = result.ledger
    read = (
        f"all {result.messages:,} read {result.read_seconds:.1f} s after they were due"
        if result.read_seconds is not None
        else f"only {result.read:,} of {result.messages:,} read before progress stopped"
    )
    print(f"{result.phase.name}:")
    print(
        f"  enqueued {result.messages:,} in {result.enqueue_seconds:.2f} s through the batch API"
        f" ({result.messages / result.enqueue_seconds:,.0f}/s, product CPU"
        f" {result.enqueue_cpu * 1000 / result.messages:.2f} ms per message),"
        f" {result.slack_seconds:.2f} s before they were due"
        + ("" if result.slack_seconds > 0 else "  (backlog NOT complete before the first was due)")
    )
    print(
        f"  ledger {ledger.received:,}: {_rate(ledger.rate)} by arrival ({_rate(ledger.rate_by_receipt)}"
        f" by acceptance); busiest second {ledger.busiest_by_request:,} by arrival"
        f" ({ledger.busiest_by_receipt:,} by acceptance)"
    )
    shown = " ".join(str(count) for count in ledger.seconds[:MAX_SECONDS_SHOWN])
    more = " …" if len(ledger.seconds) > MAX_SECONDS_SHOWN else ""
    print(f"  arrivals in each second from the first: {shown}{more}")
    if ledger.busiest_starts is not None and ledger.gap is not None:
        print(
            f"  busiest second begins {ledger.busiest_starts:.2f} s after the first arrival; longest pause"
            f" between arrivals {ledger.gap[0] * 1000:.0f} ms, ending {ledger.gap[1]:.2f} s after the first"
        )
    print(f"  {read}; final states {result.states}; sandbox refusals {result.rejected or 'none'}")


def print_baseline(result: BaselineResult) -> None:
    """The lines of one baseline."""
    client = result.client
    median = "—" if client["median_ms"] is None else f"{client['median_ms']:.1f}"
    p99 = "—" if client["p99_ms"] is None else f"{client['p99_ms']:.1f}"
    print(f"{result.phase.name}:")
    print(
        f"  ledger {result.ledger.received:,}: {_rate(result.ledger.rate)} by arrival"
        f" ({_rate(result.ledger.rate_by_receipt)} by acceptance); busiest second"
        f" {result.ledger.busiest_by_request:,} by arrival ({result.ledger.busiest_by_receipt:,} by"
        f" acceptance); client sent {_rate(client['sent_per_second'])}, median"
        f" {median} ms, p99 {p99} ms,"
        f" answers {client['codes']}, {client['connections']} connections"
    )


def print_intake(result: IntakeResult) -> None:
    """The lines of the intake phase."""
    load = result.load
    answered = load["codes"].get(200, 0)
    print(f"{result.phase.name}:")
    print(
        f"  {load['rate']:,.0f} webhooks/s, median {load['median_ms']:.2f} ms, p99 {load['p99_ms']:.2f} ms,"
        f" answers {load['codes']}; stored {result.stored:,} vs 200 answers {answered:,}:"
        f" {'equal' if result.stored == answered else 'DIFFERENT'}"
    )
    lag = "did not reach 0" if result.seconds_to_zero is None else f"0 after {result.seconds_to_zero:.2f} s"
    print(f"  processor: {result.pending_at_end:,} bodies pending when the load ended, {lag}")


def _roles(phases: list[Phase]) -> list[str]:
    # Helper processes that used no measurable CPU (under 10 ms in all) would only add a column of zeros.
    seen = {
        role
        for role in {role for phase in phases for role in phase.product_cpu}
        if sum(phase.product_cpu.get(role, 0.0) for phase in phases) >= 0.01
    }
    return [role for role in ROLE_ORDER if role in seen] + sorted(seen - set(ROLE_ORDER))


def print_cpu(phases: list[Phase]) -> None:
    """CPU-milliseconds per message (per webhook for intake), the product's and not the product's."""
    roles = _roles(phases)
    width = max(len(phase.name) for phase in phases) + 2
    print("CPU-ms per message (intake: per webhook), from /proc utime + stime:")
    header = "  " + "".ljust(width) + "product".rjust(9) + "".join(role.rjust(12) for role in roles)
    print(header + " | not the product: sandbox, client")
    for phase in phases:
        units = max(1, phase.units)
        if phase.product_cpu:
            total = f"{sum(phase.product_cpu.values()) * 1000 / units:9.3f}"
            parts = "".join(f"{phase.product_cpu.get(role, 0.0) * 1000 / units:12.3f}" for role in roles)
        else:
            total = "—".rjust(9)
            parts = "".join("—".rjust(12) for _role in roles)
        sandbox = "—" if phase.sandbox_cpu is None else f"{phase.sandbox_cpu * 1000 / units:.3f}"
        client = "—" if phase.client_cpu is None else f"{phase.client_cpu * 1000 / units:.3f}"
        print(f"  {phase.name.ljust(width)}{total}{parts} | {sandbox}, {client} ({phase.client_label})")


@dataclass
class Results:
    """Everything one run measured; `phases` in the order they ran."""

    database: str
    messages: int
    drains: list[DrainResult] = field(default_factory=list)
    baselines: list[BaselineResult] = field(default_factory=list)
    intake: IntakeResult | None = None
    phases: list[Phase] = field(default_factory=list)


def print_table(results: Results) -> None:
    """The final table: each target with its figure and whether it was met, then CPU and load averages."""
    rows: list[tuple[str, str, str]] = []
    for result in results.drains:
        latency = f"{result.latency_ms:g} ms"
        complete = result.ledger.received == result.messages
        rate = result.ledger.rate
        rows.append(
            (
                f"drain at {latency}: ≥ {TARGET_DRAIN_RATE:,.0f} messages/s (ledger, arrival)",
                _rate(rate) + ("" if complete else f" ({result.ledger.received:,} of {result.messages:,})"),
                _verdict(complete and rate is not None and rate >= TARGET_DRAIN_RATE),
            )
        )
        rows.append(
            (
                f"drain at {latency}: busiest second ≤ {SEND_RATE:,} (arrival)",
                f"{result.ledger.busiest_by_request:,}",
                _verdict(result.ledger.busiest_by_request <= SEND_RATE),
            )
        )
        rows.append(
            (
                f"drain at {latency}: every row read",
                "—" if result.read_seconds is None else f"{result.read_seconds:.1f} s after due",
                _verdict(result.read_seconds is not None),
            )
        )
    intake_result = results.intake
    if intake_result is not None:
        load = intake_result.load
        answered = load["codes"].get(200, 0)
        rows += [
            (
                f"intake ≥ {TARGET_RATE:,.0f} webhooks/s ({INTAKE_CONNECTIONS} connections)",
                f"{load['rate']:,.0f}/s",
                _verdict(load["rate"] >= TARGET_RATE),
            ),
            (
                f"intake median ≤ {TARGET_MEDIAN_MS:g} ms",
                f"{load['median_ms']:.2f} ms",
                _verdict(load["median_ms"] <= TARGET_MEDIAN_MS),
            ),
            (
                f"intake p99 ≤ {TARGET_P99_MS:g} ms",
                f"{load['p99_ms']:.2f} ms",
                _verdict(load["p99_ms"] <= TARGET_P99_MS),
            ),
            (
                "intake: stored rows = 200 answers",
                f"{intake_result.stored:,} = {answered:,}",
                _verdict(intake_result.stored == answered),
            ),
        ]
    for ceiling in results.baselines:
        rows.append(
            (
                f"baseline at {ceiling.latency_ms:g} ms: bare client → sandbox, paced {SEND_RATE:,}/s",
                f"{_rate(ceiling.ledger.rate)}, busiest {ceiling.ledger.busiest_by_request:,}",
                "ceiling",
            )
        )
    print()
    backlog = f"{results.messages:,} messages to {results.messages:,} customers, " if results.drains else ""
    print(
        f"bench.e2e on {results.database}: {backlog}cap INBOX_SEND_RATE={SEND_RATE},"
        f" sandbox --throughput {SANDBOX_THROUGHPUT}, {os.cpu_count()} cores"
    )
    first = max(len(row[0]) for row in rows) + 2
    second = max(len(row[1]) for row in rows) + 2
    print(f"  {'target'.ljust(first)}{'figure'.ljust(second)}verdict")
    for target, figure, verdict in rows:
        print(f"  {target.ljust(first)}{figure.ljust(second)}{verdict}")
    phases = results.phases
    print()
    print_cpu(phases)
    print()
    print("load average (1, 5, 15 min) before → after each phase; CPU time the host gave to others (steal):")
    width = max(len(phase.name) for phase in phases) + 2
    for phase in phases:
        before, after = _format_load(phase.load_before), _format_load(phase.load_after)
        stolen = stolen_share(phase.ticks_before, phase.ticks_after)
        shown = "—" if stolen is None else f"{stolen:.1%}"
        print(f"  {phase.name.ljust(width)}{before} → {after}; stolen {shown}")


# ---------------------------------------------------------------------------------------------------
# Entry.


def run(args: argparse.Namespace) -> None:
    """Start the processes, run the phases, print the figures."""
    messages: int = args.messages or (1000 if args.quick else 5000)
    intake_requests: int = args.intake_requests or (2000 if args.quick else 10000)
    latencies = [float(part) for part in args.latencies.split(",") if part.strip()]
    # Enough time to enqueue the backlog before the first row is due, with room to spare: a guess for
    # the first drain, then half as much again as the previous drain's enqueue took.
    lead: float = args.lead or 2.0 + messages * ENQUEUE_SECONDS_PER_MESSAGE
    server_url = os.environ.get("INBOX_BENCH_DATABASE_URL") or None
    database = "PostgreSQL" if server_url else "SQLite"
    print(
        f"bench.e2e: {database}, {messages:,} messages, latencies {args.latencies} ms,"
        f" {os.cpu_count()} cores, load average {_format_load(load_average())}",
        flush=True,
    )
    results = Results(database, messages)
    with contextlib.ExitStack() as cleanup:
        if args.keep:
            workdir = Path(tempfile.mkdtemp(prefix="bench-e2e-"))
            print(f"(logs kept in {workdir})")
        else:
            workdir = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="bench-e2e-")))
        url = cleanup.enter_context(fresh_database_url(server_url, workdir))
        stack = Stack(url, workdir)
        cleanup.callback(stack.close)
        stack.start()
        roles = stack.roles()
        print(f"inbox serve processes: {', '.join(f'{role} {pid}' for pid, role in sorted(roles.items()))}")
        if args.only != "intake":
            for number, latency in enumerate(latencies):
                first_customer = FIRST_CUSTOMER + number * messages
                drained = drain(stack, latency, messages, first_customer, lead)
                lead = args.lead or 2.0 + 1.5 * drained.enqueue_seconds
                results.drains.append(drained)
                results.phases.append(drained.phase)
                print_drain(drained)
                ceiling = baseline(stack, latency, messages, first_customer)
                results.baselines.append(ceiling)
                results.phases.append(ceiling.phase)
                print_baseline(ceiling)
                sys.stdout.flush()
        if args.only != "drain":
            results.intake = intake(stack, intake_requests)
            results.phases.append(results.intake.phase)
            print_intake(results.intake)
    print_table(results)


def main() -> None:
    """Run the benchmark (or, with --paced-client, be the baseline's client)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, help="backlog per drain (default 5,000; 1,000 with --quick)")
    parser.add_argument("--latencies", default="0,300", help="Graph latencies in ms, comma-separated")
    parser.add_argument("--only", choices=("drain", "intake"), help="run one half only")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1,000 messages, 2,000 webhooks")
    parser.add_argument("--intake-requests", type=int, help="status webhooks (default 10,000)")
    parser.add_argument("--lead", type=float, help="seconds between enqueueing and the moment rows are due")
    parser.add_argument("--keep", action="store_true", help="keep the logs of the processes")
    parser.add_argument("--paced-client", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    parser.add_argument("--first-customer", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.paced_client:
        run_paced_client(args.paced_client, args.messages, SEND_RATE, args.prefix, args.first_customer)
        return
    run(args)


if __name__ == "__main__":
    main()
