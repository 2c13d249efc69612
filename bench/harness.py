"""Chaos rig: the sandbox in this process, `inbox serve` and `inbox worker` as child processes on one
database, traffic through the HTTP API and signed webhooks, faults (kill -9, SIGTERM, killed database
connections), and the counts that decide whether a promise held.

The sandbox's ledger is the truth of what customers received; the database is what the backend
believes. Used by bench/chaos.py (large sizes) and tests/e2e/test_chaos.py (small sizes).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select, text

from backend.clock import utc_now
from backend.database import Database, create_database
from backend.database.models import InboundMessage, OutboxMessage, StatusEvent, WebhookDelivery
from backend.domain import states
from backend.sandbox.server import Sandbox, SandboxConfig
from backend.users import create_user

ROOT = Path(__file__).resolve().parents[1]
APP_SECRET = "chaos-app-secret-5b1f"
GRAPH_TOKEN = "chaos-graph-token-9d27"
VERIFY_TOKEN = "chaos-verify-token-44c0"
PHONE_NUMBER_ID = "100000000000001"
START_TIMEOUT_SECONDS = 40.0
# Lines the supervisor of `inbox serve` and `inbox worker` prints each time it starts a child.
CHILD_LINE = re.compile(r"^child (\w+) pid (\d+)$", re.MULTILINE)

# Settings for time-compressed runs: short leases and waits so a crash is recovered in seconds.
FAST_SETTINGS = {
    "INBOX_CONNECT_TIMEOUT_SECONDS": "1",
    "INBOX_READ_TIMEOUT_SECONDS": "1.5",
    "INBOX_SEND_LEASE_SECONDS": "10",
    "INBOX_UNKNOWN_WAIT_SECONDS": "3",
    "INBOX_PAIR_INTERVAL_SECONDS": "0.2",
    "INBOX_SEND_RATE": "400",
    "INBOX_LOG_LEVEL": "INFO",
}

FAST_SANDBOX: dict[str, Any] = {
    "status_delay": 0.05,
    "skip_delivered_rate": 0.0,
    "throughput": 1000,
    "webhook_retry_base_seconds": 0.05,
    "webhook_retry_max_seconds": 0.5,
    "read_timeout_hold_seconds": 5.0,
    "seed": 7,
}


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def customer_number(index: int) -> str:
    """A valid E.164 number for simulated customer `index` (20,000 distinct)."""
    area = "650" if index % 20000 < 10000 else "415"
    return f"+1{area}555{index % 10000:04d}"


class RoundRobinTransport(httpx.AsyncBaseTransport):
    """The one address Meta posts to, spread over several `inbox serve` receivers (a load balancer)."""

    def __init__(self, ports: list[int]) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._ports = itertools.cycle(ports)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Forward to the next receiver."""
        request.url = request.url.copy_with(port=next(self._ports))
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._inner.aclose()


@dataclass
class BackendProcess:
    """One `inbox serve` or `inbox worker`: a supervisor and its children, in a process group of their own."""

    role: str
    port: int | None
    log_path: Path
    process: subprocess.Popen[bytes]
    started_at: float = field(default_factory=time.monotonic)

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    def kill(self, *, group: bool = True) -> None:
        """kill -9 of the supervisor and every child at once (a machine crash): no handler runs, nothing
        is flushed. With `group` off, only the supervisor: its children stop on their own."""
        if group:
            # Also when the supervisor has ended: children it left would be in the group still.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        elif self.alive:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def children(self) -> dict[str, int]:
        """The pid of each role's newest child, from the supervisor's log."""
        return {role: int(pid) for role, pid in CHILD_LINE.findall(self.log())}

    def kill_child(self, role: str) -> int:
        """kill -9 of one child process (the supervisor starts another); its pid."""
        pid = self.children()[role]
        os.kill(pid, signal.SIGKILL)
        return pid

    def terminate(self) -> None:
        """Send SIGTERM (a graceful stop) without waiting."""
        if self.alive:
            os.kill(self.process.pid, signal.SIGTERM)

    def log(self) -> str:
        """Everything the process wrote to stdout and stderr."""
        return self.log_path.read_text(errors="replace")


@dataclass
class SendRecord:
    """What the client learnt about its sends."""

    acknowledged: set[str] = field(default_factory=set)  # answered 202
    unacknowledged: set[str] = field(default_factory=set)  # never got a 202 before the deadline
    transport_errors: int = 0
    retries: int = 0


@dataclass
class Verdict:
    """The counts after a run has drained."""

    messages: int
    inbound: int
    duplicates: int
    lost: int
    left_unknown: list[dict[str, Any]]
    mismatched: list[str]
    lost_detail: list[str]
    drained: bool
    recovery_seconds: float
    pair_limit_rejections: int
    in_sending: int
    waiting: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether both promises held."""
        return (
            self.duplicates == 0
            and self.lost == 0
            and not self.mismatched
            and self.drained
            and not self.in_sending
        )


class Rig:
    """A sandbox plus backend processes on one database; `close` stops them all."""

    def __init__(
        self,
        database_url: str,
        workdir: Path,
        *,
        receivers: int = 1,
        sandbox_options: dict[str, Any] | None = None,
        settings: dict[str, str] | None = None,
        purposes: dict[str, str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.workdir = workdir
        self.database: Database = create_database(database_url)
        self.ports = [free_port() for _ in range(receivers)]
        self.settings = {**FAST_SETTINGS, **(settings or {})}
        self.purposes = purposes or {"reminder": "resend"}
        self.processes: list[BackendProcess] = []
        self.inbound_wamids: list[str] = []
        self.last_restart = time.monotonic()
        # Set: clients keep trying until this long after the last restart, as patient clients would.
        self.client_patience: float | None = None
        self.drain_log: list[tuple[float, dict[str, int]]] = []
        self._serial = itertools.count()
        options = {**FAST_SANDBOX, **(sandbox_options or {})}
        transport = RoundRobinTransport(self.ports) if receivers > 1 else None
        self.sandbox = Sandbox(
            SandboxConfig(
                app_secret=APP_SECRET,
                token=GRAPH_TOKEN,
                phone_number_id=PHONE_NUMBER_ID,
                webhook_url=f"http://127.0.0.1:{self.ports[0]}/webhooks/whatsapp",
                webhook_transport=transport,
                **options,
            )
        )
        with self.database.transaction() as session:
            self.token = create_user(session, f"chaos-{os.getpid()}-{id(self)}", "supervisor", utc_now())
        data_dir = workdir / "data"
        data_dir.mkdir(parents=True, exist_ok=True)
        lines = [f'[purposes.{name}]\nunknown_rule = "{rule}"\n' for name, rule in self.purposes.items()]
        (data_dir / "inbox.toml").write_text("\n".join(lines))
        self.data_dir = data_dir
        self.sandbox.start()
        self._clients = threading.local()
        self._clients_lock = threading.Lock()
        self._all_clients: list[httpx.Client] = []

    # ------------------------------------------------------------------ processes

    def environment(self) -> dict[str, str]:
        """The environment of a backend child process."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("INBOX_", "WHATSAPP_"))}
        env.update(self.settings)
        env.update(
            {
                "INBOX_DATA_DIR": str(self.data_dir),
                "INBOX_DATABASE_URL": self.database_url,
                "WHATSAPP_GRAPH_URL": self.sandbox.graph_url,
                "WHATSAPP_TOKEN": GRAPH_TOKEN,
                "WHATSAPP_PHONE_NUMBER_ID": PHONE_NUMBER_ID,
                "WHATSAPP_APP_SECRET": APP_SECRET,
                "WHATSAPP_VERIFY_TOKEN": VERIFY_TOKEN,
                "PYTHONUNBUFFERED": "1",
            }
        )
        return env

    def _spawn(self, role: str, port: int | None) -> BackendProcess:
        number = next(self._serial)
        log_path = self.workdir / f"{role}-{number}.log"
        arguments = [sys.executable, "-m", "app", role]
        if port is not None:
            arguments += ["--port", str(port)]
        with log_path.open("wb") as log_file:
            # A process group of its own, so a kill of the group takes the supervisor and its children.
            process = subprocess.Popen(
                arguments,
                cwd=ROOT,
                env=self.environment(),
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        backend = BackendProcess(role, port, log_path, process)
        self.processes.append(backend)
        return backend

    def start_serve(self, port: int | None = None, *, wait: bool = True) -> BackendProcess:
        """Start `inbox serve` on one of the receiver ports; wait until /healthz answers."""
        backend = self._spawn("serve", self.ports[0] if port is None else port)
        if wait:
            self.wait_ready(backend)
        return backend

    def start_worker(self, *, wait: bool = True) -> BackendProcess:
        """Start `inbox worker`; wait until it says it is running."""
        backend = self._spawn("worker", None)
        if wait:
            self.wait_ready(backend)
        return backend

    def wait_ready(self, backend: BackendProcess) -> None:
        """Block until `inbox serve` has every process ready and answers /healthz, or `inbox worker` runs."""
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if not backend.alive:
                raise RuntimeError(f"inbox {backend.role} ended early:\n{backend.log()[-3000:]}")
            if backend.role == "worker":
                if "inbox worker is running" in backend.log():
                    return
            # The HTTP process may answer before the sender and the background process are ready;
            # `inbox serve` says when all of them are.
            elif "inbox is serving on" in backend.log():
                try:
                    if httpx.get(f"http://127.0.0.1:{backend.port}/healthz", timeout=1).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
            time.sleep(0.05)
        raise RuntimeError(f"inbox {backend.role} did not start:\n{backend.log()[-3000:]}")

    def restart(self, backend: BackendProcess) -> BackendProcess:
        """Start a process of the same role (and port) as `backend`, which must have ended."""
        self.processes.remove(backend)
        replacement = self._spawn(backend.role, backend.port)
        self.wait_ready(replacement)
        self.last_restart = time.monotonic()
        return replacement

    def kill_and_restart(self, backend: BackendProcess) -> BackendProcess:
        """kill -9 then start again."""
        backend.kill()
        return self.restart(backend)

    def stop_all(self, timeout: float = 15.0) -> dict[int, float]:
        """SIGTERM every process; returns how long each took to exit (pid → seconds)."""
        began = time.monotonic()
        for backend in self.processes:
            backend.terminate()
        took: dict[int, float] = {}
        for backend in self.processes:
            try:
                backend.process.wait(max(0.1, timeout - (time.monotonic() - began)))
                took[backend.process.pid] = time.monotonic() - began
            except subprocess.TimeoutExpired:
                took[backend.process.pid] = float("inf")
                backend.kill()
        return took

    def terminate_database_connections(self) -> int:
        """PostgreSQL only: pg_terminate_backend every other connection to this database."""
        with self.database.engine.connect() as connection:
            killed = connection.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            ).scalar_one()
            connection.commit()
        return int(killed)

    def close(self) -> None:
        """Stop every process and the sandbox."""
        for backend in self.processes:
            backend.kill()
        with self._clients_lock:
            for client in self._all_clients:
                client.close()
            self._all_clients.clear()
        self.sandbox.stop()
        self.database.dispose()

    # ------------------------------------------------------------------ traffic

    def _client(self) -> httpx.Client:
        client: httpx.Client | None = getattr(self._clients, "client", None)
        if client is None:
            client = httpx.Client(headers={"Authorization": f"Bearer {self.token}"}, timeout=5)
            self._clients.client = client
            with self._clients_lock:
                self._all_clients.append(client)
        return client

    def api_url(self) -> str:
        """The base URL of one receiver (chosen at random, as a load balancer would)."""
        return f"http://127.0.0.1:{random.choice(self.ports)}"

    def send_one(
        self,
        key: str,
        to: str,
        record: SendRecord,
        deadline: float,
        purpose: str = "order_update",
        *,
        defer_conflicts: bool = False,
    ) -> bool | None:
        """POST one message under its Idempotency-Key, retrying through crashes until 202 or the deadline.

        With `defer_conflicts`, a 409 (a crashed request still holds the key for up to 30 s) returns
        None at once so the caller can come back to the key later, as a patient client would.
        """
        body = {
            "to": to,
            "purpose": purpose,
            "template": {"name": "order_shipped", "language": "en", "parameters": [key]},
        }
        while time.monotonic() < self._sending_until(deadline):
            try:
                response = self._client().post(
                    f"{self.api_url()}/v1/messages", json=body, headers={"Idempotency-Key": key}
                )
            except httpx.HTTPError:
                record.transport_errors += 1
                time.sleep(0.1)
                continue
            if response.status_code == 202:
                record.acknowledged.add(key)
                return True
            record.retries += 1
            if response.status_code == 409 and defer_conflicts:
                return None
            time.sleep(0.2)
        record.unacknowledged.add(key)
        return False

    def _sending_until(self, deadline: float) -> float:
        """When clients give up: the deadline, or `client_patience` after the last restart if later."""
        if self.client_patience is None:
            return deadline
        return max(deadline, self.last_restart + self.client_patience)

    def send_many(
        self,
        keys: Iterable[tuple[str, str, str]],
        record: SendRecord,
        *,
        deadline: float,
        threads: int = 8,
        spread_seconds: float = 0.0,
    ) -> None:
        """Send (key, to, purpose) triples from a pool of client threads, spread over `spread_seconds`;
        keys held by a crashed request are tried again at the end."""
        items = list(keys)
        began = time.monotonic()
        interval = spread_seconds / max(len(items), 1)
        deferred: list[tuple[str, str, str]] = []

        def send(numbered: tuple[int, tuple[str, str, str]]) -> None:
            index, (key, to, purpose) = numbered
            delay = began + index * interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if self.send_one(key, to, record, deadline, purpose, defer_conflicts=True) is None:
                deferred.append((key, to, purpose))

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(send, enumerate(items)))
            list(pool.map(lambda item: self.send_one(item[0], item[1], record, deadline, item[2]), deferred))

    def inbound_many(self, count: int, *, first_customer: int = 0, pause: float = 0.0) -> None:
        """`count` customers write to us (inbound message webhooks)."""
        for index in range(count):
            number = customer_number(first_customer + index)
            self.inbound_wamids.append(self.sandbox.inbound(number, f"chaos hello {index}"))
            if pause:
                time.sleep(pause)

    # ------------------------------------------------------------------ counting

    def ledger_counts(self) -> Counter[str]:
        """How many times customers received each key."""
        return Counter(
            str(entry["biz_opaque_callback_data"])
            for entry in self.sandbox.ledger()
            if entry["biz_opaque_callback_data"] is not None
        )

    def _rows(self) -> dict[str, OutboxMessage]:
        with self.database.reader() as session:
            rows = list(session.scalars(select(OutboxMessage)))
            session.expunge_all()
        return {row.dedupe_key: row for row in rows}

    def settled(self) -> bool:
        """No webhook waiting anywhere, nothing queued or in flight, every received message read."""
        return not self.waiting_for()

    def waiting_for(self) -> dict[str, int]:
        """What a drain still waits for (empty when settled)."""
        stats = self.sandbox.stats()
        if stats["webhooks_pending"]:
            return {"webhooks_pending": int(stats["webhooks_pending"])}
        received = set(self.ledger_counts())

        def counted(table: Any, *conditions: Any) -> Any:
            return select(func.count()).select_from(table).where(*conditions).scalar_subquery()

        # One statement, so one snapshot: on PostgreSQL each statement of a transaction sees the
        # latest commit, and a sweep committed between two counts (unknown rows going back to
        # `queued`) would be missed by both, the row counted neither busy nor undecided.
        with self.database.reader() as session:
            busy, unprocessed, undecided, inbound, behind = session.execute(
                select(
                    counted(OutboxMessage, OutboxMessage.state.in_([states.QUEUED, states.SENDING])),
                    counted(WebhookDelivery, WebhookDelivery.processed_at.is_(None)),
                    # An `unknown` row without a hold reason still waits for its purpose's rule to decide.
                    counted(
                        OutboxMessage,
                        OutboxMessage.state == states.UNKNOWN,
                        OutboxMessage.hold_reason.is_(None),
                    ),
                    counted(InboundMessage),
                    counted(
                        OutboxMessage,
                        OutboxMessage.dedupe_key.in_(received),
                        OutboxMessage.state != states.READ,
                    ),
                )
            ).one()
        missing_inbound = max(0, len(self.inbound_wamids) - (inbound or 0))
        waiting = {"busy": busy or 0, "unprocessed": unprocessed or 0, "behind": behind or 0}
        waiting["undecided"] = undecided or 0
        waiting["missing_inbound"] = missing_inbound
        return {name: count for name, count in waiting.items() if count}

    def drain(self, timeout: float) -> tuple[bool, float]:
        """Wait until settled; returns (settled, seconds since the last restart)."""
        deadline = time.monotonic() + timeout
        self.drain_log.clear()
        while time.monotonic() < deadline:
            try:
                waiting = self.waiting_for()
                self.drain_log.append((time.monotonic() - self.last_restart, waiting))
                if not waiting:
                    return True, time.monotonic() - self.last_restart
            except Exception:  # the database may be mid-restart; look again
                pass
            time.sleep(0.25)
        return False, time.monotonic() - self.last_restart

    def verdict(self, record: SendRecord, drained: bool, recovery_seconds: float) -> Verdict:
        """Count duplicates, losses, rows left unknown (with evidence) and state mismatches."""
        ledger = self.ledger_counts()
        rows = self._rows()
        duplicates = sum(count - 1 for count in ledger.values() if count > 1)
        lost_detail = [
            f"{key}: answered 202 but has no row" for key in sorted(record.acknowledged - rows.keys())
        ]
        for key, row in rows.items():
            if row.state in states.AT_META_STATES and key not in ledger:
                lost_detail.append(f"{key}: {row.state} but no customer received it")
        with self.database.reader() as session:
            stored = set(session.scalars(select(InboundMessage.wamid)))
            evidence = Counter(
                str(key)
                for key in session.scalars(
                    select(StatusEvent.callback_data).where(StatusEvent.callback_data.is_not(None))
                )
            )
        lost_detail += [
            f"{wamid}: inbound never processed" for wamid in self.inbound_wamids if wamid not in stored
        ]
        mismatched = [
            f"{key}: customer has it, row is {rows[key].state if key in rows else 'missing'}"
            for key in sorted(ledger)
            if key not in rows or rows[key].state != states.READ
        ]
        left_unknown = [
            {
                "key": row.dedupe_key,
                "purpose": row.purpose,
                "attempts": row.attempts,
                "hold_reason": row.hold_reason,
                "error": row.last_error_title,
                "status_webhooks": evidence.get(row.dedupe_key, 0),
                "customer_has_it": row.dedupe_key in ledger,
            }
            for row in rows.values()
            if row.state == states.UNKNOWN
        ]
        in_sending = sum(1 for row in rows.values() if row.state == states.SENDING)
        rejected = self.sandbox.stats()["rejected"]
        return Verdict(
            messages=len(record.acknowledged),
            inbound=len(self.inbound_wamids),
            duplicates=duplicates,
            lost=len(lost_detail),
            left_unknown=left_unknown,
            mismatched=mismatched,
            lost_detail=lost_detail,
            drained=drained,
            recovery_seconds=recovery_seconds,
            pair_limit_rejections=int(rejected.get("131056", 0)),
            in_sending=in_sending,
            waiting=self.drain_log[-1][1] if self.drain_log else {},
        )


def keys_for(
    prefix: str, count: int, *, purpose: str = "order_update", first_customer: int = 0
) -> list[tuple[str, str, str]]:
    """(key, to, purpose) for `count` sends, one customer each (no pair limit in the way)."""
    return [(f"{prefix}-{index}", customer_number(first_customer + index), purpose) for index in range(count)]


def run_in_background(function: Callable[[], None]) -> threading.Thread:
    """Start `function` on a daemon thread."""
    thread = threading.Thread(target=function, daemon=True)
    thread.start()
    return thread
