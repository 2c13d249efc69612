"""HTTP servers for the intake process, compared by measurement: waitress, cheroot, granian, and the
product's own (granian-embedded: granian's embedded server in the process, webhooks on its event loop,
the rest of the app on threads; app/http_server.py).

Run: .venv/bin/python -m bench.http_servers [--requests N] [--rounds R] [--connections C] [--threads T]

Each server runs in its own spawned process, as the supervisor of `inbox serve` would start it, and
is handed a socket bound by this process where its API allows one. The load comes from a second
process (the keep-alive client of `bench.webhooks`, on uvloop where installed) that also measures
its own CPU time, so a saturated client shows in the figures instead of passing for a slow server.
Printed for each server, in the same run and in alternating rounds: (a) a no-op WSGI app and (b)
the product's webhook intake on SQLite, each with requests/s, median and p99 latency and CPU
milliseconds per request of the server's processes (from /proc/<pid>/stat); then a graceful-stop
check (a request in flight and an idle keep-alive connection while the server is told to stop),
what each server offers for Windows, pre-bound sockets and threads, and a recommendation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
WEBHOOK_PATH = "/webhooks/whatsapp"
# The graceful-stop check holds one request in the app this long while the server is told to stop.
SLOW_PATH = "/slow"
SLOW_SECONDS = 1.0
# A key holding "/" must reach the app as one path segment: the app needs the raw request target.
RAW_TARGET_PATH = "/raw-target"
RAW_TARGET_REQUEST = RAW_TARGET_PATH + "/a%2Fcancel"
# Each server is given this long to stop; the supervisor of `inbox serve` has 10 s for everything.
STOP_TIMEOUT_SECONDS = 5
READY_TIMEOUT_SECONDS = 120.0
WARM_UP_REQUESTS = 1000
SERVERS = ("waitress", "cheroot", "granian", "granian-embedded")
APPS = ("noop", "intake")
APP_TITLES = {
    "noop": "(a) no-op WSGI app (reads the body, answers {})",
    "intake": "(b) the product's intake: POST /webhooks/whatsapp, signature checked, body committed (SQLite)",
}
# The decision rule: another server replaces waitress only if it clearly wins on the intake.
CLEAR_RATE_GAIN = 1.2
CLEAR_CPU_SAVING = 0.7
LATENCY_TOLERANCE = 1.1
LATENCY_SLACK_MS = 0.5

# A load client busier than this may be what limits the rate: the round is marked.
CLIENT_BOUND_PERCENT = 80.0

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


# ---------------------------------------------------------------------------------------------------
# CPU time of a process and its descendants (Linux).


def _process_table() -> dict[int, tuple[int, int]] | None:
    """pid -> (parent pid, CPU clock ticks used by all its threads), or None where /proc is missing."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return None
    table: dict[int, tuple[int, int]] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:  # the process ended while the table was read
            continue
        # The command name is in parentheses and may hold spaces: the fields start after the last ")".
        fields = text[text.rindex(")") + 2 :].split()
        table[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    return table


def _descendants(table: dict[int, tuple[int, int]], roots: Iterable[int]) -> set[int]:
    """The roots and every process below them."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _ticks) in table.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    waiting = [root for root in roots if root in table]
    while waiting:
        pid = waiting.pop()
        if pid not in found:
            found.add(pid)
            waiting.extend(children.get(pid, []))
    return found


def tree_cpu_seconds(roots: Iterable[int]) -> float | None:
    """CPU seconds used so far by the root processes and their descendants (None without /proc)."""
    table = _process_table()
    if table is None:
        return None
    ticks = sum(table[pid][1] for pid in _descendants(table, roots))
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_threads(roots: Iterable[int]) -> int | None:
    """OS threads of the root processes and their descendants (None without /proc)."""
    table = _process_table()
    if table is None:
        return None
    total = 0
    for pid in _descendants(table, roots):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Threads:"):
                total += int(line.split()[1])
    return total


# ---------------------------------------------------------------------------------------------------
# The apps, built inside the server's process.


def intake_database_path(workdir: Path, server: str) -> Path:
    """The SQLite file one server's intake writes to."""
    return workdir / f"intake-{server}.db"


def build_app(app: str, workdir: Path, server: str) -> WsgiApp:
    """The WSGI app to serve: the no-op app, or the product's app on a fresh SQLite database."""
    if app == "noop":
        from bench.webhooks import _no_op_app

        def no_op_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            """The server's own ceiling: read the body and answer 200; SLOW_PATH holds the request a while.

            RAW_TARGET_PATH answers the raw request target the server passed on, if any.
            """
            if environ.get("PATH_INFO") == SLOW_PATH:
                time.sleep(SLOW_SECONDS)
            if str(environ.get("PATH_INFO", "")).startswith(RAW_TARGET_PATH):
                raw = str(environ.get("RAW_URI") or environ.get("REQUEST_URI") or "").encode("latin-1")
                start_response("200 OK", [("Content-Length", str(len(raw)))])
                return [raw]
            return _no_op_app(environ, start_response)

        return no_op_app
    from app.composition import build_parts
    from backend.web import create_app
    from bench.webhooks import _fresh_database, _settings

    database = _fresh_database(workdir, intake_database_path(workdir, server).name)
    product: WsgiApp = create_app(build_parts(_settings(workdir, database), database))
    return product


# ---------------------------------------------------------------------------------------------------
# The servers, each run by `serve_main` in its own spawned process.


@dataclass(frozen=True)
class ServerPlan:
    """What a server's process needs (pickled for spawn, as on Windows)."""

    server: str
    app: str
    workdir: str
    threads: int
    listener: socket.socket | None  # bound here and handed over, for the servers that accept one
    port: int
    stop: Any  # a multiprocessing Event
    report: Connection


def _run_waitress(plan: ServerPlan, app: WsgiApp, stop: threading.Event) -> None:
    """Waitress as app/http_server.py configures it, on the handed-over socket; drains on stop."""
    from waitress import wasyncore
    from waitress.server import create_server

    from backend.webhooks.receiver import MAX_WEBHOOK_BYTES

    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    server = create_server(
        app,
        sockets=[plan.listener],
        threads=plan.threads,
        ident="inbox",
        backlog=1024,
        connection_limit=1000,
        clear_untrusted_proxy_headers=True,
        max_request_body_size=MAX_WEBHOOK_BYTES,
    )
    runner = threading.Thread(target=server.run, name="waitress", daemon=True)
    runner.start()
    plan.report.send(("ready", None))
    stop.wait()
    # The same drain as the product's server: no new connection, running requests finish and
    # their answers are sent, then every connection is closed.
    deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
    server.accepting = False
    server.task_dispatcher.shutdown(cancel_pending=True, timeout=STOP_TIMEOUT_SECONDS)
    while time.monotonic() < deadline and any(
        getattr(channel, "total_outbufs_len", 0) for channel in list(server._map.values())
    ):
        time.sleep(0.01)
    server.close()
    wasyncore.close_all(server._map)


def _run_cheroot(plan: ServerPlan, app: WsgiApp, stop: threading.Event) -> None:
    """Cheroot with a fixed pool of threads, on the handed-over socket; `stop()` drains."""
    from cheroot.wsgi import Server

    from backend.webhooks.receiver import MAX_WEBHOOK_BYTES

    assert plan.listener is not None
    listener = plan.listener

    # Without the bench extra installed mypy sees Server as Any, which strict mode refuses to subclass.
    class PreboundServer(Server):  # type: ignore[misc, unused-ignore]
        """Cheroot has no parameter for a bound socket; its `bind` step is where it makes one."""

        def bind(self, family: Any, type: Any, proto: int = 0) -> None:
            """Use the handed-over socket instead of binding a new one, with the option cheroot sets."""
            # Cheroot writes head and body in two sends: without TCP_NODELAY (inherited by accepted
            # connections from the listener) each answer waits ~40 ms for the client's delayed ACK.
            if self.nodelay:
                listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.socket = listener

    server = PreboundServer(
        listener.getsockname()[:2],
        app,
        numthreads=plan.threads,
        max=plan.threads,
        request_queue_size=1024,
        shutdown_timeout=STOP_TIMEOUT_SECONDS,
    )
    # Cheroot keeps at most 10 idle keep-alive connections by default and closes the others after
    # each answer; waitress allows 1000 connections.
    server.keep_alive_conn_limit = 1000
    server.max_request_body_size = MAX_WEBHOOK_BYTES
    server.prepare()
    runner = threading.Thread(target=server.serve, name="cheroot", daemon=True)
    runner.start()
    plan.report.send(("ready", None))
    stop.wait()
    server.stop()
    runner.join(STOP_TIMEOUT_SECONDS)


def granian_app_loader(target: str) -> WsgiApp:
    """Granian's target loader, run in granian's worker process: "app|workdir|server" to an app."""
    app, workdir, server = target.split("|")
    return build_app(app, Path(workdir), server)


def _wait_until_accepting(port: int, timeout: float) -> bool:
    """Whether something accepts TCP connections on the port within the timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=1).close()
        except OSError:
            time.sleep(0.05)
        else:
            return True
    return False


def _run_granian(plan: ServerPlan, app: WsgiApp | None, stop: threading.Event) -> None:
    """Granian's documented API, `Granian(...).serve()`: it binds the port and spawns its own worker."""
    # Granian serves WSGI only from worker processes (or threads on free-threaded builds); its
    # in-process embedding (granian.server.embed) hosts ASGI and RSGI apps only.
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces

    server = Granian(
        f"{plan.app}|{plan.workdir}|{plan.server}",
        address=HOST,
        port=plan.port,
        interface=Interfaces.WSGI,
        workers=1,
        blocking_threads=plan.threads,
        backlog=1024,
        http=HTTPModes.http1,
        log_enabled=False,
        workers_kill_timeout=STOP_TIMEOUT_SECONDS,
    )
    interrupt: Callable[[], None] = server.signal_handler_interrupt

    def watch() -> None:
        if _wait_until_accepting(plan.port, READY_TIMEOUT_SECONDS):
            plan.report.send(("ready", None))
        else:
            plan.report.send(("failed", "granian's worker never accepted connections"))
        stop.wait()
        # What granian's own SIGINT/SIGTERM handler does; callable from a thread on every platform.
        interrupt()

    threading.Thread(target=watch, name="granian-stop", daemon=True).start()
    # Granian's worker is started the way it is on Windows, where spawn is the only method.
    multiprocessing.set_start_method("spawn", force=True)
    # serve() must run on the main thread: it installs signal handlers and waits for them.
    server.serve(target_loader=granian_app_loader)


def _run_granian_embedded(plan: ServerPlan, app: WsgiApp, stop: threading.Event) -> None:
    """The product's server (app/http_server.py): granian's embedded server on the handed-over socket."""
    from app.http_server import HttpServer

    server = HttpServer(app, listener=plan.listener, threads=plan.threads).start()
    plan.report.send(("ready", None))
    stop.wait()
    server.stop(STOP_TIMEOUT_SECONDS)


RUNNERS: dict[str, Callable[[ServerPlan, Any, threading.Event], None]] = {
    "waitress": _run_waitress,
    "cheroot": _run_cheroot,
    "granian": _run_granian,
    "granian-embedded": _run_granian_embedded,
}


def serve_main(plan: ServerPlan) -> None:
    """Entry of a server's process: build the app, serve until told to stop, then exit."""
    import signal

    # Ctrl+C reaches the whole console group; the benchmark decides when servers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING)
    stop = threading.Event()

    def bridge() -> None:
        plan.stop.wait()
        stop.set()

    threading.Thread(target=bridge, name="stop-bridge", daemon=True).start()
    try:
        # Granian builds the app in its own worker process.
        app = None if plan.server == "granian" else build_app(plan.app, Path(plan.workdir), plan.server)
        RUNNERS[plan.server](plan, app, stop)
    except Exception as error:
        plan.report.send(("failed", f"{type(error).__name__}: {error}"))
        raise


# ---------------------------------------------------------------------------------------------------
# The load generator (its own process).


def run_load_generator(port: int, requests: int, connections: int, path: str, watch: list[int]) -> None:
    """Entry of the load process: send the load, print one JSON line with its own and the server's CPU."""
    from bench.webhooks import _load

    loop_name = "asyncio"
    try:
        import uvloop
    except ImportError:  # Windows: asyncio's own loop
        pass
    else:
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        loop_name = "uvloop"
    server_before = tree_cpu_seconds(watch)
    client_before = time.process_time()
    started = time.perf_counter()
    result = asyncio.run(_load(port, requests, connections, path))
    elapsed = time.perf_counter() - started
    client_cpu = time.process_time() - client_before
    server_after = tree_cpu_seconds(watch)
    result.update(
        elapsed=elapsed,
        client_cpu=client_cpu,
        server_cpu=None if server_before is None or server_after is None else server_after - server_before,
        loop=loop_name,
    )
    print(json.dumps(result), flush=True)


def load_from_second_process(
    port: int, requests: int, connections: int, path: str, watch: list[int]
) -> dict[str, Any]:
    """Run the load generator in a new process and return its figures."""
    output = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.http_servers",
            "--load-port",
            str(port),
            "--requests",
            str(requests),
            "--connections",
            str(connections),
            "--path",
            path,
            "--watch",
            ",".join(str(pid) for pid in watch),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(output.stdout.strip().splitlines()[-1])
    result["codes"] = {int(code): count for code, count in result["codes"].items()}
    return result


# ---------------------------------------------------------------------------------------------------
# The benchmark (this process).


@dataclass
class RunningServer:
    """One server process serving one app, as seen from the benchmark."""

    server: str
    app: str
    process: Any
    port: int
    stop: Any
    report: Connection
    rounds: list[dict[str, Any]] = field(default_factory=list)
    answered_200: int = 0
    threads: int | None = None


def start_server(context: Any, server: str, app: str, workdir: Path, threads: int) -> RunningServer:
    """Spawn one server process; granian is given a free port, the others a bound socket."""
    listener = socket.create_server((HOST, 0), backlog=1024)
    port = listener.getsockname()[1]
    if server == "granian":
        # Granian binds the address itself (its workers open their own listener on Linux).
        listener.close()
        handed: socket.socket | None = None
    else:
        handed = listener
    receiving, sending = context.Pipe(duplex=False)
    stop = context.Event()
    plan = ServerPlan(server, app, str(workdir), threads, handed, port, stop, sending)
    process = context.Process(target=serve_main, args=(plan,), name=f"{server}-{app}", daemon=False)
    process.start()
    if handed is not None:
        # The child holds its own copy now; closing ours lets a stopped server refuse connections.
        handed.close()
    sending.close()
    return RunningServer(server, app, process, port, stop, receiving)


def wait_ready(running: RunningServer) -> None:
    """Wait for the server's "ready"; raise with its message if it failed."""
    if not running.report.poll(READY_TIMEOUT_SECONDS):
        raise RuntimeError(f"{running.server} ({running.app}) did not start in {READY_TIMEOUT_SECONDS:.0f} s")
    kind, message = running.report.recv()
    if kind != "ready":
        raise RuntimeError(f"{running.server} ({running.app}) failed to start: {message}")


def run_load(running: RunningServer, requests: int, connections: int) -> dict[str, Any]:
    """One load run against a server; counts its 200 answers."""
    result = load_from_second_process(
        running.port, requests, connections, WEBHOOK_PATH, [running.process.pid]
    )
    running.answered_200 += result["codes"].get(200, 0)
    return result


def _per_request_ms(seconds: float | None, result: dict[str, Any]) -> float | None:
    requests = sum(result["codes"].values())
    return None if seconds is None or not requests else seconds * 1000 / requests


def _number(value: float | None, width: int, decimals: int) -> str:
    return f"{'n/a':>{width}}" if value is None else f"{value:{width}.{decimals}f}"


def format_figures(result: dict[str, Any]) -> str:
    """req/s, latency, CPU per request of server and client, and how busy each was."""
    server_ms = _per_request_ms(result["server_cpu"], result)
    client_ms = _per_request_ms(result["client_cpu"], result)
    server_busy = None if result["server_cpu"] is None else 100 * result["server_cpu"] / result["elapsed"]
    client_busy = 100 * result["client_cpu"] / result["elapsed"]
    failures = {code: count for code, count in result["codes"].items() if code != 200}
    return (
        f"{result['rate']:7.0f}  {result['median_ms']:6.2f}  {result['p99_ms']:6.2f}"
        f"  {_number(server_ms, 7, 3)}  {_number(server_busy, 5, 0)}%"
        f"  {_number(client_ms, 7, 3)}  {client_busy:5.0f}%"
        f"{' client-bound' if client_busy >= CLIENT_BOUND_PERCENT else ''}"
        f"{'  not 200: ' + str(failures) if failures else ''}"
    )


TABLE_HEAD = "    server    round      req/s  p50 ms  p99 ms  srv CPU-ms/req  busy  cli CPU-ms/req  busy"


def _median_round(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    return sorted(rounds, key=lambda result: result["rate"])[len(rounds) // 2]


def _best_round(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    return max(rounds, key=lambda result: result["rate"])


@dataclass
class StopCheck:
    """What happened when a server was told to stop with one request in flight."""

    in_flight: str
    stop_seconds: float | None


def _read_whole_answer(connection: socket.socket) -> tuple[str, bytes]:
    """Read one whole HTTP answer: its status code (or what went wrong instead) and its body."""
    received = b""
    try:
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(65536)
            if not chunk:
                return "closed without an answer", b""
            received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        while len(body) < length:
            chunk = connection.recv(65536)
            if not chunk:
                return "closed mid-answer", body
            body += chunk
    except TimeoutError:
        return "no answer", b""
    except OSError as error:
        return type(error).__name__, b""
    return head[9:12].decode("ascii", "replace"), body


def _read_answer(connection: socket.socket) -> str:
    """Read one whole HTTP answer; its status code, or what went wrong instead."""
    return _read_whole_answer(connection)[0]


def passes_raw_target(running: RunningServer) -> bool:
    """Whether the app is handed the request target as sent (a%2Fcancel, not a/cancel)."""
    with socket.create_connection((HOST, running.port), timeout=5) as connection:
        connection.sendall(f"GET {RAW_TARGET_REQUEST} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode("ascii"))
        status, body = _read_whole_answer(connection)
    return status == "200" and body == RAW_TARGET_REQUEST.encode("ascii")


def check_graceful_stop(running: RunningServer) -> StopCheck:
    """Stop the server while a request is in the app and another connection idles in keep-alive."""
    idle = socket.create_connection((HOST, running.port), timeout=5)
    idle.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode("ascii"))
    _read_answer(idle)
    busy = socket.create_connection((HOST, running.port), timeout=STOP_TIMEOUT_SECONDS + 5)
    busy.sendall(f"GET {SLOW_PATH} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode("ascii"))
    time.sleep(SLOW_SECONDS / 4)  # the request is inside the app now
    started = time.monotonic()
    running.stop.set()
    in_flight = _read_answer(busy)
    busy.close()
    running.process.join(STOP_TIMEOUT_SECONDS + 10)
    stop_seconds: float | None = time.monotonic() - started
    if running.process.is_alive():
        running.process.kill()
        running.process.join()
        stop_seconds = None
    idle.close()
    return StopCheck(in_flight, stop_seconds)


def stop_server(running: RunningServer) -> float | None:
    """Stop a server and wait for its process; seconds taken, None if it had to be killed."""
    started = time.monotonic()
    running.stop.set()
    running.process.join(STOP_TIMEOUT_SECONDS + 10)
    if running.process.is_alive():
        running.process.kill()
        running.process.join()
        return None
    return time.monotonic() - started


def stored_rows(workdir: Path, server: str) -> int:
    """Webhook bodies committed by one server's intake."""
    from backend.database.models import WebhookDelivery

    with sqlite3.connect(intake_database_path(workdir, server)) as connection:
        row = connection.execute(f"SELECT count(*) FROM {WebhookDelivery.__tablename__}").fetchone()
    return int(row[0])


# What the documentation and the code of each server say; the stop behaviour is measured below.
FACTS = {
    "waitress": {
        "threads": "pure Python: one asyncore I/O thread (select) + a pool of N WSGI threads",
        "windows": "yes (pure Python, same code path)",
        "socket": "yes: create_server(app, sockets=[sock])",
        "stop": "no drain call of its own; close() drops in-flight work. The product drains"
        " (accepting=False, task_dispatcher.shutdown, flush, close), as this benchmark does",
    },
    "cheroot": {
        "threads": "pure Python: one accept/selector thread + a pool of N WSGI threads"
        " (+1 thread answering 503s)",
        "windows": "yes (pure Python; used by CherryPy on Windows)",
        "socket": "no parameter: systemd's LISTEN_PID/fd 3 (POSIX only) or overriding"
        " HTTPServer.bind (done here; it must then set TCP_NODELAY itself)",
        "stop": "stop(): closes the listener and idle connections, joins workers up to"
        " shutdown_timeout; keep_alive_conn_limit must be raised from 10",
    },
    "granian": {
        "threads": "Rust (tokio/hyper) I/O threads + N Python blocking threads, in a worker"
        " process that granian's own main process spawns: a second level of processes",
        "windows": "wheels yes; one worker only; the main stops workers with"
        " Process.terminate (TerminateProcess on Windows: no drain there)",
        "socket": "no: binds address:port itself (on Linux each worker binds anew)",
        "stop": "serve() owns the main thread and its signals; stop via its interrupt handler,"
        " workers get SIGTERM and drain; workers_kill_timeout bounds the wait",
    },
    "granian-embedded": {
        "threads": "granian's embedded server (granian.server.embed): Rust I/O threads and an asyncio"
        " loop in the calling process; webhooks on the loop, the WSGI app on N threads (a2wsgi)",
        "windows": "yes: the same asyncio code path, no process of its own",
        "socket": "yes: the server's shared-socket step is given a duplicate of the handed-over socket",
        "stop": "stop() interrupts the serve loop: the worker stops accepting and drains requests"
        " in flight; the raw request target reaches the app as RAW_URI (from ASGI's raw_path)",
    },
}


# What adopting each server would cost the supervisor of `inbox serve`, beyond its figures.
COSTS = {
    "cheroot": "no parameter for a bound socket (override `bind`, set TCP_NODELAY), keep-alive connections"
    " capped at 10 unless raised, two more dependencies (jaraco.functools, more-itertools)",
    "granian": "(1) no pre-bound socket: a restarted HTTP child binds again and connections are refused"
    " meanwhile (Meta retries webhooks); (2) a second level of processes: granian's main spawns the"
    " worker that runs the app, so the ready report, the parent-death watch and the journal wake relay"
    " move into that worker (its target loader); (3) on Windows the stop terminates that worker"
    " (TerminateProcess): requests in flight get no answer, which webhooks (retried, deduplicated) and"
    " keyed API calls survive, and long-polls reconnect; (4) a compiled dependency (Rust wheels)."
    " (1) to (3) hold for granian's documented entry point only: its internal WSGI worker, run in the"
    " HTTP process on the supervisor's socket, avoids them. What decides is (5): its WSGI environ"
    " carries only the decoded path, with no raw request target, so a key holding '/' (a%2Fcancel)"
    " would reach another key's route (a + /cancel); its ASGI interface passes raw_path",
    "granian-embedded": "a compiled dependency (Rust wheels), and granian's embedding reached below its"
    " documented API (the shared-socket step, its socket holder), so its version is held to one minor"
    " release; every route but the webhook pays a2wsgi's hand-offs between the loop and a thread (see the"
    " no-op app's CPU per request)",
}

# The server app/http_server.py runs.
PRODUCT_SERVER = "granian-embedded"


def _version(server: str) -> str:
    from importlib.metadata import version

    return f"{server} {version(server.split('-', maxsplit=1)[0])}"


def print_summary(app: str, servers: dict[str, RunningServer]) -> None:
    """Best and median round of each server for one app."""
    print(f"  summary, {APP_TITLES[app].split(':')[0]}")
    print(TABLE_HEAD)
    for name, running in servers.items():
        print(f"    {name:<9} best    {format_figures(_best_round(running.rounds))}")
        print(f"    {name:<9} median  {format_figures(_median_round(running.rounds))}")


def meets_intake_target(result: dict[str, Any]) -> bool:
    """Whether a round meets the product's intake target (rate, median and p99 at 16 connections)."""
    from bench.webhooks import TARGET_MEDIAN_MS, TARGET_P99_MS, TARGET_RATE

    return bool(
        result["rate"] >= TARGET_RATE
        and result["median_ms"] <= TARGET_MEDIAN_MS
        and result["p99_ms"] <= TARGET_P99_MS
    )


def _median_of(
    rounds: list[dict[str, Any]], figure: Callable[[dict[str, Any]], float | None]
) -> float | None:
    values = [value for value in map(figure, rounds) if value is not None]
    return statistics.median(values) if values else None


def _cpu_ms(result: dict[str, Any]) -> float | None:
    return _per_request_ms(result["server_cpu"], result)


def recommend(
    intake: dict[str, RunningServer],
    stops: dict[str, StopCheck],
    stored: dict[str, bool],
    raw_targets: dict[str, bool],
) -> list[str]:
    """The decision from the intake's figures: keep waitress unless another server clearly wins.

    Rounds are compared pair by pair (each round loads every server under the same conditions), and
    "clearly" means in every round: CLEAR_RATE_GAIN times waitress's rate, or CLEAR_CPU_SAVING times
    its CPU per request, with median and p99 (medians over the rounds) no worse than waitress's; and
    the server stores every 200, hands the app the raw request target (so a key holding "/" keeps its
    own route) and answers the request in flight when stopped.
    """
    lines: list[str] = []
    baseline = intake["waitress"].rounds
    baseline_median = _median_of(baseline, lambda result: result["median_ms"]) or 0.0
    baseline_p99 = _median_of(baseline, lambda result: result["p99_ms"]) or 0.0
    winners: list[tuple[float, str]] = []
    for name, running in intake.items():
        if name == "waitress":
            continue
        pairs = list(zip(running.rounds, baseline, strict=True))
        rate_ratios = [result["rate"] / base["rate"] for result, base in pairs]
        cpu_ratios = [
            cpu / base_cpu
            for cpu, base_cpu in ((_cpu_ms(result), _cpu_ms(base)) for result, base in pairs)
            if cpu is not None and base_cpu
        ]
        median_ms = _median_of(running.rounds, lambda result: result["median_ms"]) or 0.0
        p99_ms = _median_of(running.rounds, lambda result: result["p99_ms"]) or 0.0
        latency_equal = (
            median_ms <= baseline_median * LATENCY_TOLERANCE + LATENCY_SLACK_MS
            and p99_ms <= baseline_p99 * LATENCY_TOLERANCE + LATENCY_SLACK_MS
        )
        faster = all(ratio >= CLEAR_RATE_GAIN for ratio in rate_ratios)
        cheaper = len(cpu_ratios) == len(pairs) and all(ratio <= CLEAR_CPU_SAVING for ratio in cpu_ratios)
        check = stops[name]
        sound = (
            stored[name]
            and raw_targets[name]
            and check.in_flight == "200"
            and check.stop_seconds is not None
            and check.stop_seconds <= STOP_TIMEOUT_SECONDS + 1
        )
        wins = (faster or cheaper) and latency_equal and sound
        meets = meets_intake_target(_best_round(running.rounds))
        lines.append(
            f"  {name} against waitress, round by round: rate"
            f" {' '.join(f'{ratio:.2f}x' for ratio in rate_ratios)}, CPU per request"
            f" {' '.join(f'{ratio:.2f}x' for ratio in cpu_ratios) or 'n/a'}; median {median_ms:.2f}"
            f" vs {baseline_median:.2f} ms, p99 {p99_ms:.2f} vs {baseline_p99:.2f} ms (medians of rounds);"
            f" intake target met (best round) {'yes' if meets else 'no'}; every 200 stored"
            f" {'yes' if stored[name] else 'NO'};"
            f" raw target passed on {'yes' if raw_targets[name] else 'NO'};"
            f" in-flight answer on stop {check.in_flight}"
            f" -> {'clearly wins' if wins else 'does not clearly win'}"
        )
        if wins:
            winners.append((statistics.median(rate_ratios), name))
    waitress_meets = meets_intake_target(_best_round(baseline))
    lines.append(f"  waitress: intake target met (best round) {'yes' if waitress_meets else 'no'}")
    if winners:
        winner = max(winners)[1]
        lines.append(
            f"  Recommendation: {winner}, by the figures: it clearly beats waitress on the product's intake"
            " and drains on stop with the raw target passed on. Its cost:"
            f" {COSTS[winner]}. The product runs {PRODUCT_SERVER}."
        )
    else:
        lines.append(
            "  Recommendation: waitress: no candidate clearly beats it on the product's intake while"
            " storing every 200, passing the raw target on and draining on stop; waitress also takes a"
            " pre-bound socket, runs the same pure-Python code on Windows and adds no dependency."
            f" The product runs {PRODUCT_SERVER}."
        )
    return lines


def bench(requests: int, rounds: int, connections: int, threads: int, servers: tuple[str, ...]) -> None:
    """Start every server, load them in alternating rounds, check their stop, print the comparison."""
    if "waitress" not in servers:
        raise SystemExit("waitress is the baseline: keep it in --servers")
    load_before = os.getloadavg()
    print(
        f"HTTP servers: {rounds} alternating rounds of {requests} signed status webhooks (POST) per server"
        f" and app, {connections} keep-alive connections from a second process, {threads} WSGI threads each"
    )
    versions = ", ".join(_version(name) for name in servers)
    print(f"  {versions}; Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"  load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="bench-http-servers-") as directory:
        workdir = Path(directory)
        running = {
            (app, name): start_server(context, name, app, workdir, threads)
            for app in APPS
            for name in servers
        }
        try:
            for each in running.values():
                wait_ready(each)
            for each in running.values():
                run_load(each, WARM_UP_REQUESTS, connections)
                each.threads = tree_threads([each.process.pid])
            loop = "n/a"
            for app in APPS:
                print(APP_TITLES[app])
                print(TABLE_HEAD)
                for round_index in range(rounds):
                    # Each round starts with another server, so a burst from other programs hits all alike.
                    shift = round_index % len(servers)
                    for name in servers[shift:] + servers[:shift]:
                        result = run_load(running[(app, name)], requests, connections)
                        loop = result["loop"]
                        running[(app, name)].rounds.append(result)
                        print(f"    {name:<9} {round_index + 1:<7}  {format_figures(result)}")
            print(f"  (load client: bench.webhooks keep-alive client on {loop}; busy = CPU time / wall time)")
            for app in APPS:
                print_summary(app, {name: running[(app, name)] for name in servers})
            raw_targets = {name: passes_raw_target(running[("noop", name)]) for name in servers}
            stops = {name: check_graceful_stop(running[("noop", name)]) for name in servers}
            intake_stops = {name: stop_server(running[("intake", name)]) for name in servers}
        finally:
            for each in running.values():
                if each.process.is_alive():
                    each.stop.set()
                    each.process.join(STOP_TIMEOUT_SECONDS + 10)
                if each.process.is_alive():
                    each.process.kill()
        print("Intake: stored rows against 200 answers (warm-up included)")
        stored: dict[str, bool] = {}
        for name in servers:
            rows = stored_rows(workdir, name)
            answered = running[("intake", name)].answered_200
            stored[name] = rows == answered
            verdict = "equal" if stored[name] else "DIFFERENT"
            print(f"    {name:<9} stored {rows}  vs  200 answers {answered}: {verdict}")
    print(
        f"Graceful stop: asked while a request has {SLOW_SECONDS * 3 / 4:.2f} s left in the app and another"
        " connection idles in keep-alive (no-op app); then the intake's server, idle"
        f" (n/a: still running {STOP_TIMEOUT_SECONDS + 10} s later, killed)"
    )
    for name in servers:
        check = stops[name]
        print(
            f"    {name:<9} in-flight request answered: {check.in_flight:<4} process ended after"
            f" {_number(check.stop_seconds, 5, 2)} s; intake server ended after"
            f" {_number(intake_stops[name], 5, 2)} s"
        )
    print("Servers (from their documentation and code; threads counted after warm-up, no-op / intake)")
    for name in servers:
        facts = FACTS[name]
        counted = f"{running[('noop', name)].threads} / {running[('intake', name)].threads}"
        print(f"    {_version(name)}")
        print(f"      threads: {facts['threads']}; OS threads counted: {counted}")
        print(f"      Windows: {facts['windows']}")
        print(f"      pre-bound socket: {facts['socket']}")
        print(f"      stop: {facts['stop']}")
    load_after = os.getloadavg()
    print(f"  load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    print("Decision (intake)")
    print("Raw request target handed to the app (GET /raw-target/a%2Fcancel)")
    for name in servers:
        print(f"    {name:<9} {'yes' if raw_targets[name] else 'no: the app sees only the decoded path'}")
    intake_servers = {name: running[("intake", name)] for name in servers}
    for line in recommend(intake_servers, stops, stored, raw_targets):
        print(line)


def main() -> None:
    """Run the comparison (or, with --load-port, be the load generator)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=8000, help="requests per server, app and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=16, help="WSGI threads of every server")
    parser.add_argument("--servers", default=",".join(SERVERS), help="comma-separated, waitress first")
    parser.add_argument("--load-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--path", default=WEBHOOK_PATH, help=argparse.SUPPRESS)
    parser.add_argument("--watch", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_port:
        watch = [int(pid) for pid in args.watch.split(",") if pid]
        run_load_generator(args.load_port, args.requests, args.connections, args.path, watch)
        return
    servers = tuple(name.strip() for name in args.servers.split(",") if name.strip())
    unknown = [name for name in servers if name not in SERVERS]
    if unknown:
        parser.error(f"unknown servers: {', '.join(unknown)}")
    bench(args.requests, args.rounds, args.connections, args.threads, servers)


if __name__ == "__main__":
    main()
