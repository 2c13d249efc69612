"""Where the pace is kept: calls approved at the sender's pace, written with and without the transport's
write spacing, measured by their arrival in the sandbox's ledger.

Run: .venv/bin/python -m bench.write_pacing [--sends 3000] [--latency-ms 300] [--rounds 3]

`inbox sandbox` runs as a process of its own, with the Graph latency given (300 ms by default: every
call of the first 0.3 s opens a new connection, as at the start of a drain). This process plays the
sender's dispatcher: it approves one call every `send_interval(paced_rate(1000))` (the product's pace
under INBOX_SEND_RATE=1000) and hands each to a cold KeepAliveTransport at its moment, alternating
rounds without the write spacing (the pace kept only where calls are approved) and with it (the pace
kept again where each call is written, as the sender does). Printed per round: the busiest sliding
second by arrival (the cap is 1,000), the rate, and the delay from approval to write. Figures, not a
test: it exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from backend.domain.pacing import paced_rate, send_interval
from backend.outbox.graph_transport import KeepAliveTransport
from backend.outbox.sender import LOCAL_TOLERANCE
from bench.e2e import (
    GRAPH_TOKEN,
    PHONE_NUMBER_ID,
    SANDBOX_THROUGHPUT,
    SEND_RATE,
    busiest_second,
    graph_send_body,
    ledger_figures,
    wait_until,
)
from bench.harness import START_TIMEOUT_SECONDS, customer_number, free_port
from bench.webhooks import APP_SECRET

ROOT = Path(__file__).resolve().parents[1]
APPROVAL_TOLERANCE_SECONDS = LOCAL_TOLERANCE.total_seconds()
MODES = ("approval only", "approval + write")


class TimedTransport(KeepAliveTransport):
    """The product's transport, noting when each request is written."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.written: list[float] = []

    async def _exchange(
        self, connection: Any, request: httpx.Request, *timeouts: float | None
    ) -> httpx.Response:
        self.written.append(time.perf_counter())
        return await super()._exchange(connection, request, *timeouts)


@dataclass
class Round:
    """One round's figures."""

    mode: str
    busiest: int
    rate: float | None
    approved_busiest: int
    written_busiest: int
    delay_median_ms: float
    delay_p99_ms: float
    delay_max_ms: float
    answers: dict[int, int]


async def _dispatch(port: int, prefix: str, sends: int, first_customer: int, gated: bool) -> dict[str, Any]:
    """Approve one call per interval, as the dispatcher does, and hand each to the transport at once."""
    interval = send_interval(paced_rate(SEND_RATE)).total_seconds()
    transport = TimedTransport(max_connections=2000, write_interval=interval if gated else None)
    url = httpx.URL(f"http://127.0.0.1:{port}/v23.0/{PHONE_NUMBER_ID}/messages")
    headers = httpx.Headers({"Authorization": f"Bearer {GRAPH_TOKEN}", "Content-Type": "application/json"})
    timeouts = {"connect": 10.0, "read": 30.0, "write": 10.0, "pool": 10.0}
    answers: dict[int, int] = {}
    approved: list[float] = []

    async def one(index: int) -> None:
        request = httpx.Request(
            "POST",
            url,
            headers=headers,
            content=graph_send_body(f"{prefix}-{index}", customer_number(first_customer + index)),
            extensions={"timeout": timeouts},
        )
        try:
            response = await transport.handle_async_request(request)
            status = response.status_code
        except httpx.HTTPError:
            status = 0
        answers[status] = answers.get(status, 0) + 1

    tasks: set[asyncio.Task[None]] = set()
    began = time.perf_counter()
    arrival = began
    for index in range(sends):
        # The dispatcher's rule: wait for the call's moment, then for the pace (GCRA, 10 ms of slack),
        # so calls late after a stall of this loop are spaced, not sent in a burst.
        moment = max(began + index * interval, arrival - APPROVAL_TOLERANCE_SECONDS)
        delay = moment - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        now = time.perf_counter()
        arrival = max(arrival, now) + interval
        approved.append(now)
        task = asyncio.create_task(one(index))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    while tasks:
        await asyncio.gather(*list(tasks))
    await transport.aclose()
    return {"approved": approved, "written": transport.written, "answers": answers}


def _round(control: httpx.Client, port: int, number: int, mode: str, sends: int) -> Round:
    prefix = f"pace-{number}"
    first_customer = 50000 + number * sends
    result = asyncio.run(_dispatch(port, prefix, sends, first_customer, mode == MODES[1]))
    entries = control.get("/ledger").json()["messages"]
    figures = ledger_figures(entries, prefix)
    # Writes happen in the order their turn came, which for calls on new connections is not the order
    # they were approved in: compare the two streams as wholes.
    approved, written = result["approved"], sorted(result["written"])
    delays = sorted((write - approve) * 1000 for approve, write in zip(approved, written, strict=False))
    return Round(
        mode=mode,
        busiest=figures.busiest_by_request,
        rate=figures.rate,
        approved_busiest=busiest_second(approved),
        written_busiest=busiest_second(written),
        delay_median_ms=delays[len(delays) // 2],
        delay_p99_ms=delays[int(len(delays) * 0.99)],
        delay_max_ms=delays[-1],
        answers=result["answers"],
    )


def main() -> None:
    """Start the sandbox, alternate the two modes, print each round and the summary."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sends", type=int, default=3000)
    parser.add_argument("--latency-ms", type=float, default=300.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    port = free_port()
    environment = {name: value for name, value in os.environ.items() if not name.startswith("INBOX_")}
    with tempfile.TemporaryDirectory(prefix="bench-pacing-") as workdir:
        environment["INBOX_DATA_DIR"] = workdir
        log_path = Path(workdir) / "sandbox.log"
        with log_path.open("wb") as log_file:
            sandbox = subprocess.Popen(
                [sys.executable, "-m", "app", "sandbox", "--port", str(port), "--token", GRAPH_TOKEN,
                 "--phone-number-id", PHONE_NUMBER_ID, "--throughput", str(SANDBOX_THROUGHPUT),
                 "--app-secret", APP_SECRET],
                stdout=log_file, stderr=subprocess.STDOUT, env=environment, cwd=ROOT,
            )  # fmt: skip
        control = httpx.Client(base_url=f"http://127.0.0.1:{port}/_sandbox", timeout=60)
        try:
            if not wait_until(lambda: _answers(control), START_TIMEOUT_SECONDS):
                raise RuntimeError(f"the sandbox did not start:\n{log_path.read_text()[-3000:]}")
            control.post("/faults", json={"latency_ms": args.latency_ms}).raise_for_status()
            rate = paced_rate(SEND_RATE)
            print(
                f"bench.write_pacing: {args.sends:,} calls a round approved at {rate:g}/s"
                f" (cap {SEND_RATE:,}),"
                f" Graph latency {args.latency_ms:g} ms, {os.cpu_count()} cores,"
                f" load average {' '.join(f'{value:.2f}' for value in os.getloadavg())}",
                flush=True,
            )
            rounds: list[Round] = []
            numbers = itertools.count(1)
            for _ in range(args.rounds):
                for mode in MODES:
                    result = _round(control, port, next(numbers), mode, args.sends)
                    rounds.append(result)
                    print(
                        f"  {mode:17} busiest second {result.busiest:,} by arrival"
                        f" (approved {result.approved_busiest:,}, written {result.written_busiest:,}),"
                        f" {result.rate or 0:,.0f}/s; approval → write median"
                        f" {result.delay_median_ms:.2f} ms,"
                        f" p99 {result.delay_p99_ms:.1f} ms, max {result.delay_max_ms:.1f} ms; answers"
                        f" {result.answers}",
                        flush=True,
                    )
                    time.sleep(2.0)
            print()
            for mode in MODES:
                mine = [result.busiest for result in rounds if result.mode == mode]
                spread = f"{min(mine):,}–{max(mine):,}"
                print(f"  {mode:17} busiest second by arrival: {spread} (cap {SEND_RATE:,})")
        finally:
            sandbox.terminate()
            sandbox.wait(15)
            control.close()


def _answers(control: httpx.Client) -> bool:
    try:
        return control.get("/stats").status_code == 200
    except httpx.HTTPError:
        return False


if __name__ == "__main__":
    main()
