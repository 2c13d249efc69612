"""How many sends a second the sandbox answers, with load from another process and webhooks on.

Runs `inbox sandbox` as its own process (throughput cap lifted, status webhooks to a counting sink in a
third process) and drives it from this process over raw keep-alive connections with template sends to
3,000 customers (so the pair limit is never hit). Prints sends/s, latency percentiles, webhook statuses
delivered, and, as the baseline, the same load against a bare Flask endpoint under waitress that
answers a fixed body without checking anything.

    .venv/bin/python -m bench.sandbox [--seconds 10] [--connections 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

TOKEN = "bench-token"
PHONE_NUMBER_ID = "100000000000001"
RECIPIENTS = 3000


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _send_request(port: int, number: int) -> bytes:
    body = json.dumps(
        {
            "messaging_product": "whatsapp",
            "to": f"+1650555{1000 + number % RECIPIENTS:04d}",
            "type": "template",
            "template": {
                "name": "order_shipped",
                "language": {"code": "en"},
                "components": [{"type": "body", "parameters": [{"type": "text", "text": f"A-{number}"}]}],
            },
            "biz_opaque_callback_data": f"bench-{number}",
        },
        separators=(",", ":"),
    ).encode()
    head = (
        f"POST /v23.0/{PHONE_NUMBER_ID}/messages HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


@dataclass
class _Tally:
    """What the load connections saw."""

    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)


async def _connection(port: int, requests: list[bytes], deadline: float, tally: _Tally, limit: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    index = 0
    try:
        while time.perf_counter() < deadline and index < limit:
            request = requests[index % len(requests)]
            index += 1
            started = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            if length:
                await reader.readexactly(length)
            tally.latencies.append(time.perf_counter() - started)
            status = int(head[9:12])
            tally.statuses[status] = tally.statuses.get(status, 0) + 1
    finally:
        writer.close()


def drive(port: int, seconds: float, connections: int, *, each: int = 10**9) -> dict[str, Any]:
    """Send as fast as `connections` keep-alive connections allow for `seconds` (at most `each` per
    connection); return figures."""
    per_connection = [
        [_send_request(port, n * connections + c) for n in range(RECIPIENTS // connections + 1)]
        for c in range(connections)
    ]
    tally = _Tally()

    async def run() -> float:
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(
            *(_connection(port, per_connection[c], deadline, tally, each) for c in range(connections))
        )
        return time.perf_counter() - started

    elapsed = asyncio.run(run())
    latencies = sorted(tally.latencies)
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
        "statuses": tally.statuses,
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def run_sink(port: int) -> None:
    """A webhook receiver answering 200 and counting statuses (runs as its own process)."""
    from backend.sandbox.http import HttpServer, Request, Response

    counts = {"posts": 0, "statuses": 0}

    def handle(request: Request) -> Response:
        if request.method == "GET":
            return Response(200, json.dumps(counts).encode())
        counts["posts"] += 1
        counts["statuses"] += request.body.count(b'"status":')
        return Response(200, b"")

    async def serve() -> None:
        server = HttpServer(handle)
        await server.start("127.0.0.1", port)
        await asyncio.Event().wait()

    asyncio.run(serve())


def run_baseline(port: int) -> None:
    """A bare Flask endpoint under waitress with a fixed answer (runs as its own process)."""
    from flask import Flask
    from waitress import serve

    app = Flask("baseline")
    answer = (
        '{"messaging_product":"whatsapp","contacts":[{"input":"+16505551000","wa_id":"16505551000"}],'
        '"messages":[{"id":"wamid.X","message_status":"accepted"}]}'
    )

    @app.post("/v23.0/<phone>/messages")
    def send(phone: str) -> tuple[str, int, dict[str, str]]:
        return answer, 200, {"Content-Type": "application/json"}

    serve(app, host="127.0.0.1", port=port, threads=8, _quiet=True)


def _spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main() -> None:
    """Measure the sandbox and the baseline; print both."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--sink", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sink is not None:
        run_sink(args.sink)
        return
    if args.baseline is not None:
        run_baseline(args.baseline)
        return

    sink_port, sandbox_port, baseline_port = _free_port(), _free_port(), _free_port()
    sink = _spawn("-m", "bench.sandbox", "--sink", str(sink_port))
    _wait_for_port(sink_port)
    sandbox = _spawn(
        "-m", "app", "sandbox", "--port", str(sandbox_port), "--app-secret", "bench-secret",
        "--token", TOKEN, "--phone-number-id", PHONE_NUMBER_ID, "--throughput", "1000000",
        "--status-delay", "0.5", "--webhook-url", f"http://127.0.0.1:{sink_port}/webhooks/whatsapp",
    )  # fmt: skip
    try:
        _wait_for_port(sandbox_port)
        # Warm up: one send to each customer, so number parsing is cached as in a long run.
        drive(sandbox_port, 60.0, args.connections, each=RECIPIENTS // args.connections + 1)
        cpu_before, load_before = _cpu_seconds(sandbox.pid), _cpu_seconds(os.getpid())
        measured = drive(sandbox_port, args.seconds, args.connections)
        cpu_per_send = (_cpu_seconds(sandbox.pid) - cpu_before) / max(1, measured["requests"])
        load_per_send = (_cpu_seconds(os.getpid()) - load_before) / max(1, measured["requests"])
        stats = httpx.get(f"http://127.0.0.1:{sandbox_port}/_sandbox/stats", timeout=30).json()
        deadline = time.monotonic() + 60
        while stats["webhooks_pending"] and time.monotonic() < deadline:
            time.sleep(0.5)
            stats = httpx.get(f"http://127.0.0.1:{sandbox_port}/_sandbox/stats", timeout=30).json()
        received = httpx.get(f"http://127.0.0.1:{sink_port}/", timeout=5).json()
    finally:
        _stop(sandbox)
        _stop(sink)

    baseline_process = _spawn("-m", "bench.sandbox", "--baseline", str(baseline_port))
    try:
        _wait_for_port(baseline_port)
        drive(baseline_port, 0.5, args.connections)
        baseline = drive(baseline_port, min(args.seconds, 5.0), args.connections)
    finally:
        _stop(baseline_process)

    print(f"sandbox: {measured['per_second']:,.0f} sends/s over {args.seconds:.0f} s, {args.connections} "
          f"keep-alive connections from another process (target ≥ 5,000)")  # fmt: skip
    print(f"  latency p50 {measured['p50_ms']:.2f} ms, p99 {measured['p99_ms']:.2f} ms; "
          f"answers by status {measured['statuses']}")  # fmt: skip
    print(f"  sandbox CPU per send (incl. its webhooks): {cpu_per_send * 1e6:.0f} µs, i.e. "
          f"{1 / cpu_per_send:,.0f} sends/s per free core; load average now {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")  # fmt: skip
    print(f"  load generator CPU per send: {load_per_send * 1e6:.0f} µs (it shares the same two cores)")
    print(f"  accepted {stats['accepted']:,}, rejected {stats['rejected']}, ledger {stats['ledger']:,}")
    print(f"  webhooks: {received['statuses']:,} statuses in {received['posts']:,} signed POSTs delivered "
          f"(pending {stats['webhooks_pending']}, retried {stats['webhooks_retried']})")  # fmt: skip
    print("baseline (bare Flask endpoint under waitress, fixed answer, no checks): "
          f"{baseline['per_second']:,.0f} req/s, p50 {baseline['p50_ms']:.2f} ms, "
          f"p99 {baseline['p99_ms']:.2f} ms")  # fmt: skip
    print(f"sandbox / baseline: {measured['per_second'] / baseline['per_second']:.1f}×")


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()
