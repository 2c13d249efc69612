"""`inbox serve` and `inbox worker` as processes: one supervisor and one spawned child per role.

The supervisor spawns each role (the spawn start method everywhere, as on Windows), restarts a
child that ends, stops them all together, and keeps the listening socket, so a restarted HTTP
child serves the same port and connections made meanwhile wait in the kernel's backlog. A child
learns of a stop over its own control pipe, and stops on its own once the supervisor is gone.
Children share no lock: a kill -9 of any of them cannot leave the others waiting.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import multiprocessing
import os
import signal
import socket
import sqlite3
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from app.cli_errors import FAILURE_STATUS, CommandError
from backend.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from app.composition import Worker
    from app.lan.certificate import LanCertificate
    from app.lan.server import LanServer
    from backend.journal import JournalSignal

# The backend is imported by the runners, in the children that need it: the supervisor and small
# children (in tests) start without loading it.

log = logging.getLogger(__name__)


class Role(StrEnum):
    """What one child process runs."""

    # The HTTP API and the webhook intake.
    HTTP = "http"
    # The outbox sender: paced calls to the Graph API.
    SENDER = "sender"
    # Everything else that works in the background: webhook processor, sweepers, window timers,
    # retention.
    BACKGROUND = "background"


SERVE_ROLES = (Role.HTTP, Role.SENDER, Role.BACKGROUND)
WORKER_ROLES = (Role.SENDER, Role.BACKGROUND)

# A child that has not said it is ready by then is counted as failed to start.
READY_TIMEOUT_SECONDS = 40.0
# SIGTERM must end `inbox serve` within 10 s: children get this long, then stragglers are killed.
STOP_TIMEOUT_SECONDS = 9.0
# Inside that bound: the HTTP child lets requests in progress finish for this long.
HTTP_STOP_SECONDS = 4.0
# And the worker children stop their loops (the sender gives back what it has not sent).
WORKERS_STOP_SECONDS = 8.5
# A crashed child is started again after FIRST_BACKOFF × 2^(crashes in the window − 1), at most MAX.
FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 30.0
CRASH_WINDOW_SECONDS = 60.0
# A role failing this many times in a row before it is ready is misconfigured: everything stops.
FAILURES_BEFORE_GIVING_UP = 5
# The HTTP child's relay looks at its stop flag this often while no commit wakes it.
RELAY_POLL_SECONDS = 0.5
# Database connections of a worker child: its few loops, each holding at most one at a time.
WORKER_POOL_SIZE = 4
# On SQLite the HTTP process's writers try the write lock this often, for as long as the busy
# timeout of every other connection (SQLITE_BUSY_TIMEOUT_MS of backend.database).
URGENT_POLL_SECONDS = 0.0005
URGENT_LOCK_WAIT_SECONDS = 10.0
# Meanwhile a worker's transaction waits at most this long before it begins, then goes anyway.
URGENT_PATIENCE_SECONDS = 0.05

# Messages on a child's control pipe.
READY = "ready"
FAILED = "failed"
STOP = "stop"


@dataclass(frozen=True)
class ChildPlan:
    """What a spawned child needs, all of it picklable (sockets and pipes travel as handles)."""

    role: str
    settings: Settings
    # Child → supervisor: (READY, description) or (FAILED, message); supervisor → child: STOP.
    control: Connection
    # HTTP only: the socket the supervisor bound and keeps.
    listener: socket.socket | None = None
    # HTTP only, with INBOX_LAN_HOST: the office network's socket, served over TLS with this certificate.
    lan_listener: socket.socket | None = None
    lan_certificate: LanCertificate | None = None
    # Workers write a byte after each commit that journaled; the HTTP child reads them.
    journal_wake: socket.socket | None = None
    # SQLite only, for the HTTP and sender children: how many of this child's writers wait for the
    # write lock right now (they poll for it, and go before the background's).
    urgent_writers: ctypes.c_int | None = None
    # SQLite only, for the background child: the counts of the children whose writers go first.
    yield_to: tuple[ctypes.c_int, ...] = ()
    # Formatted log lines for the supervisor, the one writer of the installation's log file; a socket
    # of this child's own, so a child killed mid-line holds nothing the others need.
    log_lines: socket.socket | None = None


# ----------------------------------------------------------------------------- child side


class ProcessJournalSignal:
    """A journal signal that also wakes the long-polls of the HTTP process, through a socket.

    A byte on a socket, not a shared lock or event: a process killed while notifying cannot leave
    anything held that the others would wait for.
    """

    def __init__(self, wake: socket.socket, local: JournalSignal) -> None:
        """Notify `local` (waiters in this process) and the reader of `wake`."""
        wake.setblocking(False)
        self._wake = wake
        self._local = local

    def generation(self) -> int:
        """A number that changes whenever `notify` runs."""
        return self._local.generation()

    def wait(self, since: int, timeout: float) -> None:
        """Wait until notified in this process after generation `since`, or `timeout` seconds."""
        self._local.wait(since, timeout)

    def notify(self) -> None:
        """Wake waiters here and in the HTTP process."""
        self._local.notify()
        # A full buffer already holds a wake the HTTP process has not read; no reader means no HTTP
        # process right now (restarting, or none in `inbox worker`).
        with contextlib.suppress(OSError):
            self._wake.send(b"!")


class JournalWakeRelay:
    """In the HTTP process: turns the other processes' wake bytes into notifications of `signal`."""

    def __init__(self, wake: socket.socket, signal: JournalSignal) -> None:
        self._wake = wake
        self._signal = signal
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="journal-wake-relay", daemon=True)

    def start(self) -> None:
        """Relay on a thread until `stop`."""
        self._thread.start()

    def stop(self) -> None:
        """End the relay (within RELAY_POLL_SECONDS)."""
        self._stopped.set()
        self._thread.join(RELAY_POLL_SECONDS * 2)

    def _run(self) -> None:
        self._wake.settimeout(RELAY_POLL_SECONDS)
        while not self._stopped.is_set():
            try:
                # Read everything waiting before notifying: readers read the journal after they are
                # woken, so every commit whose byte was read here is visible to them.
                if not self._wake.recv(4096):
                    return
            except TimeoutError:
                continue
            except OSError:
                log.exception("the journal wake-up relay stopped; long-polls fall back to polling")
                return
            self._signal.notify()


class UrgentWriters:
    """How many writers of the HTTP process wait for SQLite's write lock, in memory all processes read.

    A count, not a lock: a process killed at any moment leaves at most a stale count, which costs
    the workers URGENT_PATIENCE_SECONDS per transaction until the supervisor resets it.
    """

    def __init__(self, shared: ctypes.c_int) -> None:
        self._shared = shared
        self._lock = threading.Lock()
        self._count = 0
        shared.value = 0

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """Count this writer as waiting while the block runs."""
        self._add(1)
        try:
            yield
        finally:
            self._add(-1)

    def _add(self, change: int) -> None:
        with self._lock:
            self._count += change
            self._shared.value = self._count


class _PollingCursor(sqlite3.Cursor):
    """Takes SQLite's write lock by trying every URGENT_POLL_SECONDS, not with SQLite's growing sleeps.

    SQLite has one write lock for all processes, and its own busy handler sleeps 1, 2, 5 … up to
    100 ms between tries: a worker process that commits and begins again at once would get in
    before a sleeping webhook writer nearly every time. Here the HTTP process's writer tries often
    and says it waits (UrgentWriters); the workers, before they begin, let it go first.
    """

    def execute(self, sql: str, parameters: Any = (), /) -> _PollingCursor:
        """Run `sql`; BEGIN IMMEDIATE is tried again and again until the write lock is taken."""
        if sql != "BEGIN IMMEDIATE":
            super().execute(sql, parameters)
            return self
        super().execute("PRAGMA busy_timeout=0")
        try:
            if not self._try_lock():
                with contextlib.ExitStack() as waiting:
                    urgent: UrgentWriters | None = getattr(self.connection, "urgent_writers", None)
                    if urgent is not None:
                        waiting.enter_context(urgent.waiting())
                    deadline = time.monotonic() + URGENT_LOCK_WAIT_SECONDS
                    while not self._try_lock(last=time.monotonic() >= deadline):
                        time.sleep(URGENT_POLL_SECONDS)
        finally:
            # A connection broken meanwhile has already said so.
            with contextlib.suppress(sqlite3.Error):
                super().execute(f"PRAGMA busy_timeout={round(URGENT_LOCK_WAIT_SECONDS * 1000)}")
        return self

    def _try_lock(self, *, last: bool = False) -> bool:
        """Whether BEGIN IMMEDIATE took the lock; the error itself when it is not busy, or the last try."""
        try:
            super().execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or last:
                raise
            return False
        return True


class _PollingConnection(sqlite3.Connection):
    """A SQLite connection whose cursors take the write lock first among the processes."""

    # Set right after connecting, when the other processes are told of waiting writers.
    urgent_writers: UrgentWriters | None = None

    def cursor(self, factory: Any = _PollingCursor) -> Any:
        """A cursor that polls for the write lock."""
        return super().cursor(factory)


def take_write_lock_first(engine: Engine, urgent: UrgentWriters | None = None) -> None:
    """Make the writers of `engine` (the HTTP and sender processes on SQLite) poll for the write lock.

    Every connection of the engine is made with `_PollingConnection`; the webhook body writer and
    the API's transactions both begin with BEGIN IMMEDIATE through its cursors. With `urgent`,
    writers waiting for the lock are counted there for the other processes to see.
    """
    from sqlalchemy import event

    def connect_polling(_dialect: Any, _record: Any, _arguments: Any, parameters: dict[str, Any]) -> None:
        parameters["factory"] = _PollingConnection

    def tell_connection(connection: Any, _record: Any) -> None:
        if isinstance(connection, _PollingConnection):
            connection.urgent_writers = urgent

    event.listen(engine, "do_connect", connect_polling)
    event.listen(engine, "connect", tell_connection)


def yield_to_urgent_writers(engine: Engine, urgent_writers: Sequence[ctypes.c_int]) -> None:
    """Make each transaction of `engine` (the background process on SQLite) let the waiting writers
    counted in `urgent_writers` (the HTTP and sender processes') go first.

    A transaction that finds one waiting waits until none does (they poll, so that is a moment)
    or URGENT_PATIENCE_SECONDS, so the background always progresses.
    """
    from sqlalchemy import event

    counts = tuple(urgent_writers)

    def someone_waits() -> bool:
        return any(count.value for count in counts)

    def let_urgent_go_first(_connection: Any) -> None:
        if not someone_waits():
            return
        deadline = time.monotonic() + URGENT_PATIENCE_SECONDS
        while someone_waits() and time.monotonic() < deadline:
            time.sleep(URGENT_POLL_SECONDS)

    # When a transaction's connection is taken, before its "begin" listener takes the write lock
    # (BEGIN IMMEDIATE): waiting after that would hold the lock the HTTP writer waits for.
    event.listen(engine, "engine_connect", let_urgent_go_first)


# Every connection of a server's process is named so on PostgreSQL (pg_stat_activity.application_name).
SERVER_APPLICATION_PREFIX = "inbox "


def server_application_name(role: str) -> str:
    """How a child's connections introduce themselves: role, pid of its supervisor, machine."""
    return f"{SERVER_APPLICATION_PREFIX}{role} (supervisor pid {os.getppid()} on {socket.gethostname()})"


class RoleRunner(Protocol):
    """What a child runs for its role."""

    # Said to the supervisor once running: the URL, or the workers' names.
    description: str

    def start(self) -> None:
        """Start serving or working; returns at once."""

    def orphaned(self) -> None:
        """The supervisor is gone: give up what another `inbox serve` would need (the port)."""

    def stop(self, timeout: float) -> None:
        """Stop within `timeout` seconds and release the database."""


class HttpRole:
    """The HTTP API and webhook intake on the supervisor's socket."""

    def __init__(self, plan: ChildPlan) -> None:
        from app.composition import build_parts
        from app.http_server import HttpServer
        from backend.database import create_database
        from backend.journal import LocalJournalSignal
        from backend.web import create_app

        if plan.listener is None:
            raise ValueError("the HTTP process needs the supervisor's listening socket")
        settings = plan.settings
        signal = LocalJournalSignal()
        database = create_database(
            settings.database_url,
            sqlite_synchronous=settings.sqlite_synchronous,
            application_name=server_application_name(plan.role),
            # The background process checkpoints SQLite's log (WalCheckpointer), off every commit.
            checkpoint_on_commit=False,
        )
        if database.is_sqlite:
            urgent = UrgentWriters(plan.urgent_writers) if plan.urgent_writers is not None else None
            take_write_lock_first(database.engine, urgent)
        self._parts = build_parts(settings, database, journal_signal=signal)
        self._server = HttpServer(create_app(self._parts), listener=plan.listener)
        self._lan_server: LanServer | None = None
        self.description = self._server.url
        if plan.lan_listener is not None and plan.lan_certificate is not None:
            from app.lan.server import LanServer

            # An app of its own: the desks' long-polls wait on the LAN server's threads, not loopback's.
            self._lan_server = LanServer(create_app(self._parts), plan.lan_listener, plan.lan_certificate)
            self.description += f" and {self._lan_server.url} (office network, /v1 only, TLS)"
        self._relay = JournalWakeRelay(plan.journal_wake, signal) if plan.journal_wake else None

    def start(self) -> None:
        """Serve, and relay the workers' commits to the long-polls."""
        self._server.start()
        if self._lan_server is not None:
            self._lan_server.start()
        if self._relay is not None:
            self._relay.start()

    def orphaned(self) -> None:
        """Close the listening sockets at once: a new `inbox serve` can bind the ports."""
        self._server.close_listener()
        if self._lan_server is not None:
            self._lan_server.stop(1.0)

    def stop(self, timeout: float) -> None:
        """Let requests in progress finish, then close."""
        if self._lan_server is not None:
            # Both servers wind down together: the desks' long-polls are answered first, at once.
            lan_stop = threading.Thread(target=self._lan_server.stop, args=(timeout,), name="lan-stop")
            lan_stop.start()
            self._server.stop(timeout)
            lan_stop.join(timeout)
        else:
            self._server.stop(timeout)
        if self._relay is not None:
            self._relay.stop()
        self._parts.database.dispose()


class WorkersRole:
    """Some of the background workers, on threads of this process."""

    def __init__(self, plan: ChildPlan, chosen: Callable[[Worker], bool]) -> None:
        from app.composition import build_parts, build_workers
        from app.service import Service
        from backend.database import create_database
        from backend.journal import LocalJournalSignal

        settings = plan.settings
        signal = ProcessJournalSignal(plan.journal_wake, LocalJournalSignal()) if plan.journal_wake else None
        database = create_database(
            settings.database_url,
            sqlite_synchronous=settings.sqlite_synchronous,
            pool_size=WORKER_POOL_SIZE,
            application_name=server_application_name(plan.role),
            # The background process checkpoints SQLite's log (WalCheckpointer), off every commit.
            checkpoint_on_commit=False,
        )
        if database.is_sqlite and plan.urgent_writers is not None:
            # The sender's calls wait for its short transactions: it polls for the lock as HTTP does.
            take_write_lock_first(database.engine, UrgentWriters(plan.urgent_writers))
        if plan.yield_to:
            yield_to_urgent_writers(database.engine, plan.yield_to)
        parts = build_parts(settings, database, journal_signal=signal)
        workers = [worker for worker in build_workers(parts) if chosen(worker)]
        self._service = Service(parts=parts, web_app=None, workers=workers)
        self.description = ", ".join(worker.name for worker in workers)

    def start(self) -> None:
        """Start every worker on its own thread."""
        self._service.start_workers()

    def orphaned(self) -> None:
        """Nothing to give up before stopping."""

    def stop(self, timeout: float) -> None:
        """Stop the workers (the sender gives back what it has not sent)."""
        self._service.stop(timeout)


def _is_sender(worker: Worker) -> bool:
    from backend.outbox.sender import OutboxSender

    return isinstance(worker, OutboxSender)


def runner_for(plan: ChildPlan) -> RoleRunner:
    """The runner of the plan's role, built (database, parts) but not started."""
    if plan.role == Role.HTTP:
        return HttpRole(plan)
    if plan.role == Role.SENDER:
        return WorkersRole(plan, _is_sender)
    if plan.role == Role.BACKGROUND:
        # Everything but the sender, so a worker added to build_workers runs without more wiring.
        return WorkersRole(plan, lambda worker: not _is_sender(worker))
    raise ValueError(f"unknown role {plan.role!r}")


def stop_timeout_for(role: str) -> float:
    """How long a child of `role` takes at most to stop, inside the supervisor's bound."""
    return HTTP_STOP_SECONDS if role == Role.HTTP else WORKERS_STOP_SECONDS


def configure_child_logging(plan: ChildPlan) -> None:
    """Log like the `inbox` command, each line naming the role, on the inherited stderr and the log file."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s [%(processName)s]: %(message)s"
    )
    logging.getLogger().setLevel(plan.settings.log_level)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    if plan.log_lines is not None:
        from app.log_files import LineSender

        logging.getLogger().addHandler(LineSender(plan.log_lines))


def watch_supervisor(
    plan: ChildPlan, stop: threading.Event, on_orphaned: Callable[[], None] = lambda: None
) -> threading.Thread:
    """Set `stop` when the supervisor says so; once the supervisor is gone, call `on_orphaned` and set it."""
    parent = multiprocessing.parent_process()
    sentinel = parent.sentinel if parent is not None else None

    def watch() -> None:
        watched: list[Any] = [plan.control] if sentinel is None else [plan.control, sentinel]
        while watched:
            ready = wait(watched)
            orphaned = sentinel is not None and sentinel in ready
            if plan.control in ready:
                try:
                    if plan.control.recv() == STOP:
                        stop.set()
                except (EOFError, OSError):
                    orphaned = True
                watched.remove(plan.control)
            if orphaned:
                log.warning("the supervisor is gone; stopping")
                on_orphaned()
                stop.set()
                return

    thread = threading.Thread(target=watch, name="supervisor-watch", daemon=True)
    thread.start()
    return thread


def report(plan: ChildPlan, kind: str, text: str) -> None:
    """Tell the supervisor READY or FAILED; a gone supervisor is noticed by the watch instead."""
    try:
        plan.control.send((kind, text))
    except OSError:
        log.debug("the supervisor did not hear %s", kind)


def exit_child(status: int) -> NoReturn:
    """End the process now that its work is stopped, whatever threads a library left behind."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def freeze_startup_objects() -> None:
    """Collect the start-up garbage, then keep every object still alive out of later collections."""
    # A child holds 50,000 to 140,000 objects once its role is built (modules, mappers, the web app),
    # and a full collection walked them all: 90-130 ms in which the sender started nothing and the
    # processor held SQLite's write lock, the longest pauses in bench.e2e's ledger. Frozen, they are
    # never walked again; what the role makes while running is collected as before.
    gc.collect()
    gc.freeze()


def child_main(plan: ChildPlan) -> None:
    """The spawned child: build the role's runner, say ready, run until told to stop, stop in bound."""
    # Ctrl+C reaches every process of the console; the supervisor decides and tells each child.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    configure_child_logging(plan)
    stop = threading.Event()
    # A SIGTERM sent to the child alone (a service manager stopping the whole group) stops it too.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: stop.set())
    try:
        runner = runner_for(plan)
        watch_supervisor(plan, stop, runner.orphaned)
        # Before any worker runs: what they make is theirs to collect.
        freeze_startup_objects()
        runner.start()
    except Exception as error:
        log.exception("the %s process could not start", plan.role)
        # One line: the supervisor ends its own message with it.
        first_line = next(iter(str(error).splitlines()), "")
        report(plan, FAILED, f"{type(error).__name__}: {first_line}")
        exit_child(FAILURE_STATUS)
    report(plan, READY, runner.description)
    while not stop.wait(1.0):
        pass
    status = 0
    try:
        runner.stop(stop_timeout_for(plan.role))
    except Exception:
        log.exception("the %s process did not stop cleanly", plan.role)
        status = FAILURE_STATUS
    exit_child(status)


# ----------------------------------------------------------------------------- supervisor side


@dataclass
class _Child:
    role: str
    process: BaseProcess
    control: Connection
    started_at: float
    ready: bool = False
    description: str = ""
    failure: str | None = None
    # Its end of the pipe closed: nothing more to read, only the sentinel to wait for.
    silent: bool = False


def describe_exit(exit_code: int | None) -> str:
    """`exit code 3` or `killed by SIGKILL`, as the log says it."""
    if exit_code is None:
        return "still running"
    if exit_code < 0:
        try:
            return f"killed by {signal.Signals(-exit_code).name}"
        except ValueError:
            return f"killed by signal {-exit_code}"
    return f"exit code {exit_code}"


@dataclass
class _RoleHistory:
    crashes: deque[float] = field(default_factory=deque)
    failures_before_ready: int = 0
    last_failure: str = ""


class Supervisor:
    """Runs one child process per role; restarts a child that ends, stops them all together."""

    def __init__(
        self,
        settings: Settings,
        roles: Sequence[str],
        *,
        listener: socket.socket | None = None,
        lan_listener: socket.socket | None = None,
        lan_certificate: LanCertificate | None = None,
        target: Callable[[ChildPlan], None] = child_main,
        first_backoff: float = FIRST_BACKOFF_SECONDS,
        ready_timeout: float = READY_TIMEOUT_SECONDS,
        announce: Callable[[str], None] | None = None,
        log_handler: logging.Handler | None = None,
    ) -> None:
        """`target` is the spawned children's entry (a top-level function); `announce` prints lines
        such as `child sender pid 123` that tools read (default: standard output); the children's
        records also go to `log_handler` (the log file), written from this process only."""
        self._settings = settings
        self._roles = tuple(roles)
        self._listener = listener
        self._lan_listener = lan_listener
        self._lan_certificate = lan_certificate
        self._target = target
        self._first_backoff = first_backoff
        self._ready_timeout = ready_timeout
        self._announce = announce or (lambda line: print(line, flush=True))
        self._context = multiprocessing.get_context("spawn")
        self._children: dict[str, _Child] = {}
        self._history = {role: _RoleHistory() for role in self._roles}
        self._restart_at: dict[str, float] = {}
        self._started = False
        self._stopping = False
        self._stop_requested = False
        # A byte here interrupts the supervisor's wait (a stop asked for from a signal handler).
        self._interrupt_reader, self._interrupt_writer = socket.socketpair()
        self._interrupt_writer.setblocking(False)
        # Journal wake-ups from the workers to the HTTP process, when this supervisor runs both.
        self._wake_reader: socket.socket | None = None
        self._wake_writer: socket.socket | None = None
        if Role.HTTP in self._roles and len(self._roles) > 1:
            self._wake_reader, self._wake_writer = socket.socketpair()
        # On SQLite, with other roles beside them: the waiting writers of the roles that go first.
        self._urgent_writers: dict[str, ctypes.c_int] = {}
        if settings.is_sqlite and len(self._roles) > 1:
            self._urgent_writers = {
                role: self._context.RawValue(ctypes.c_int, 0)
                for role in self._roles
                if role in (Role.HTTP, Role.SENDER)
            }
        # Set when a role kept failing before it was ready: the reason everything stopped.
        self.failure: str | None = None
        self._log_handler = log_handler
        self._log_readers: list[threading.Thread] = []

    # ----- the children

    @property
    def stop_requested(self) -> bool:
        """Whether a stop was asked for (a signal, `request_stop`, or a role that kept failing)."""
        return self._stop_requested

    def pids(self) -> dict[str, int]:
        """The pid of each running child, by role."""
        return {role: child.process.pid for role, child in self._children.items() if child.process.pid}

    def _plan(self, role: str, control: Connection) -> ChildPlan:
        if role == Role.HTTP:
            listener, wake = self._listener, self._wake_reader
        else:
            listener, wake = None, self._wake_writer
        return ChildPlan(
            role=role,
            settings=self._settings,
            control=control,
            listener=listener,
            lan_listener=self._lan_listener if role == Role.HTTP else None,
            lan_certificate=self._lan_certificate if role == Role.HTTP else None,
            journal_wake=wake,
            urgent_writers=self._urgent_writers.get(role),
            yield_to=tuple(self._urgent_writers.values()) if role == Role.BACKGROUND else (),
        )

    def _spawn(self, role: str) -> None:
        own_end, child_end = self._context.Pipe()
        plan = self._plan(role, child_end)
        lines_end: socket.socket | None = None
        if self._log_handler is not None:
            lines_end, child_lines = socket.socketpair()
            plan = replace(plan, log_lines=child_lines)
        process = self._context.Process(target=self._target, args=(plan,), name=role, daemon=True)
        process.start()
        # The child holds its end now; keeping ours would hide the child's death from recv.
        child_end.close()
        if lines_end is not None and plan.log_lines is not None:
            plan.log_lines.close()
            reader = threading.Thread(
                target=_write_lines, args=(lines_end, self._log_handler), name=f"log-{role}", daemon=True
            )
            reader.start()
            self._log_readers = [thread for thread in self._log_readers if thread.is_alive()] + [reader]
        self._children[role] = _Child(role, process, own_end, time.monotonic())
        self._announce(f"child {role} pid {process.pid}")

    def _receive(self, child: _Child) -> bool:
        """Handle one message from the child; False once its pipe is closed (it ended)."""
        try:
            kind, text = child.control.recv()
        except (EOFError, OSError):
            child.silent = True
            return False  # its sentinel says how it ended
        if kind == READY:
            child.ready = True
            child.description = text
            self._history[child.role].failures_before_ready = 0
            if self._started and not self._stopping:
                log.info("child %s pid %s is ready again", child.role, child.process.pid)
        elif kind == FAILED:
            child.failure = text
        return True

    def _ended(self, child: _Child) -> int | None:
        """Forget an ended child and decide what follows (a restart, or giving up); its exit code."""
        process = child.process
        pid = process.pid
        # The sentinel can fire a moment before the exit status is there to collect.
        process.join(1.0)
        exit_code = process.exitcode
        how = describe_exit(exit_code)
        if exit_code is not None:
            process.close()
        # A failure reported just before the end may still wait in the pipe.
        while child.control.poll() and self._receive(child):
            pass
        child.control.close()
        del self._children[child.role]
        if child.role in self._urgent_writers:
            # Writers it counted as waiting died with it.
            self._urgent_writers[child.role].value = 0
        if self._stopping:
            return exit_code
        history = self._history[child.role]
        now = time.monotonic()
        history.crashes.append(now)
        while history.crashes and history.crashes[0] < now - CRASH_WINDOW_SECONDS:
            history.crashes.popleft()
        backoff = min(MAX_BACKOFF_SECONDS, self._first_backoff * 2 ** (len(history.crashes) - 1))
        if not child.ready:
            history.failures_before_ready += 1
            history.last_failure = child.failure or how
            if not self._started:
                raise CommandError(
                    f"the {child.role} process could not start: {history.last_failure}",
                    exit_status=FAILURE_STATUS,
                )
            if history.failures_before_ready >= FAILURES_BEFORE_GIVING_UP:
                self.failure = (
                    f"the {child.role} process failed {history.failures_before_ready} times in a row "
                    f"before it was ready (last: {history.last_failure}); stopping everything"
                )
                log.error("%s", self.failure)
                self.request_stop()
                return exit_code
        log.warning(
            "child %s pid %s ended (%s%s); starting it again in %.1f s",
            child.role,
            pid,
            how,
            "" if child.ready else ", before it was ready",
            backoff,
        )
        self._restart_at[child.role] = now + backoff
        return exit_code

    def _poll(self, timeout: float) -> None:
        """Wait up to `timeout` for a message, an ended child or a stop request, and handle them."""
        children = list(self._children.values())
        watched: list[Any] = [self._interrupt_reader]
        for child in children:
            watched += [child.process.sentinel] if child.silent else [child.control, child.process.sentinel]
        ready = wait(watched, max(timeout, 0.0))
        if self._interrupt_reader in ready:
            with contextlib.suppress(OSError):
                self._interrupt_reader.recv(64)
        for child in children:
            if child.control in ready:
                self._receive(child)
        for child in children:
            if child.process.sentinel in ready:
                self._ended(child)

    def _check_ready_timeouts(self) -> None:
        now = time.monotonic()
        for child in list(self._children.values()):
            if not child.ready and now - child.started_at > self._ready_timeout and child.failure is None:
                child.failure = f"not ready within {self._ready_timeout:.0f} s"
                log.error("child %s pid %s %s; killing it", child.role, child.process.pid, child.failure)
                child.process.kill()

    # ----- the life cycle

    def start(self) -> dict[str, str]:
        """Start every role and wait until each is ready; what each said (URL, workers) by role.

        A child that fails before it is ready at this first start ends everything with a
        CommandError: it is a setting or the environment, and starting it again would not help.
        Returns early, with what is ready so far, if a stop is asked for meanwhile.
        """
        for role in self._roles:
            self._spawn(role)
        try:
            # A child may end after it was ready while the others get ready: it is started again.
            while not self._stop_requested and not self._all_ready():
                self._supervise_once()
        except CommandError:
            self.stop()
            raise
        self._started = True
        return {role: child.description for role, child in self._children.items() if child.ready}

    def run(self) -> int:
        """Supervise until a stop is asked for; 0, or 1 when a role kept failing before it was ready."""
        while not self._stop_requested:
            self._supervise_once()
        return FAILURE_STATUS if self.failure else 0

    def _all_ready(self) -> bool:
        return all(role in self._children and self._children[role].ready for role in self._roles)

    def _supervise_once(self) -> None:
        """Start the children whose backoff is over, then wait a little for what happens next."""
        now = time.monotonic()
        for role, moment in sorted(self._restart_at.items(), key=lambda item: item[1]):
            if moment <= now:
                del self._restart_at[role]
                self._spawn(role)
        self._check_ready_timeouts()
        upcoming = [moment - now for moment in self._restart_at.values()]
        self._poll(min([0.5, *upcoming]))

    def request_stop(self) -> None:
        """Make `start` or `run` return soon; safe to call from a signal handler or another thread."""
        self._stop_requested = True
        # A full buffer means a wake-up is already waiting.
        with contextlib.suppress(OSError):
            self._interrupt_writer.send(b"!")

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> dict[str, int | None]:
        """Tell every child to stop at once, wait for all against one deadline, kill stragglers.

        Returns each child's exit code by role (negative: the signal that ended it).
        """
        self._stopping = True
        self._stop_requested = True
        self._restart_at.clear()
        deadline = time.monotonic() + timeout
        for child in self._children.values():
            # A child already gone cannot hear it; its sentinel says so below.
            with contextlib.suppress(OSError):
                child.control.send(STOP)
        codes: dict[str, int | None] = {}
        while self._children and time.monotonic() < deadline:
            children = list(self._children.values())
            ready = wait([child.process.sentinel for child in children], deadline - time.monotonic())
            for child in children:
                if child.process.sentinel in ready:
                    codes[child.role] = self._ended(child)
        for child in list(self._children.values()):
            pid = child.process.pid
            log.error("child %s pid %s did not stop within %.1f s; killing it", child.role, pid, timeout)
            child.process.kill()
            child.process.join(2.0)
            codes[child.role] = self._ended(child)
        for end in (self._wake_reader, self._wake_writer, self._interrupt_reader, self._interrupt_writer):
            if end is not None:
                end.close()
        # Every child is gone: its reader ends once it has written what the child sent.
        for reader in self._log_readers:
            reader.join(1.0)
        return codes


def _write_lines(source: socket.socket, handler: logging.Handler | None) -> None:
    """Write the lines one child sends into the log file, until the child's end closes."""
    from app.log_files import InstallationLogHandler

    pending = b""
    with source:
        while True:
            try:
                chunk = source.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            if isinstance(handler, InstallationLogHandler):
                for line in lines:
                    handler.write_line(line.decode("utf-8", "replace"))


def supervise(supervisor: Supervisor, announce_ready: Callable[[dict[str, str]], str]) -> int:
    """Start the children, print `announce_ready(descriptions)`, supervise until SIGINT/SIGTERM, stop.

    Ends with a CommandError (exit 1) when a role cannot start or keeps failing.
    """

    def handle(signum: int, _frame: FrameType | None) -> None:
        log.info("received signal %s, stopping", signum)
        supervisor.request_stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    described = supervisor.start()
    if not supervisor.stop_requested:
        print(announce_ready(described), flush=True)
    status = supervisor.run()
    supervisor.stop()
    if supervisor.failure:
        raise CommandError(supervisor.failure, exit_status=FAILURE_STATUS)
    return status
