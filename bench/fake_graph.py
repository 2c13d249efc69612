"""A minimal, fast stand-in for Graph's send endpoint that counts what it receives, per dedupe key.

HTTP/1.1 with keep-alive on raw asyncio streams, so one process answers many thousands of requests a
second. Modes: `accept` (200 with a wamid after `latency` seconds) and `hang` (never answers). Runs on
a background thread (`FakeGraph(...).start()`) or as its own process
(`python -m bench.fake_graph --port 0 --latency 0.3`, which prints its URL on the first line).
`GET /_stats` answers `{"requests": n, "keys": {key: count}}`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import threading
import time
from collections import Counter
from typing import Any

_HEADER_END = b"\r\n\r\n"


class FakeGraph:
    """The fake endpoint; thread-safe counters readable while it runs."""

    def __init__(
        self, *, latency: float = 0.0, mode: str = "accept", host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.latency = latency
        self.mode = mode
        self.host = host
        self.port = port
        self.keys: Counter[str] = Counter()
        self.arrivals: list[tuple[str, str, float]] = []  # (key, to, monotonic time)
        self.requests = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._sequence = 0
        self._closing: asyncio.Event | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task[Any]] = set()

    @property
    def url(self) -> str:
        """The base URL to use as the graph URL (`.../v23.0`)."""
        return f"http://{self.host}:{self.port}/v23.0"

    def start(self) -> FakeGraph:
        """Serve on a background thread; returns once the port is bound."""
        self._thread = threading.Thread(target=self._run_thread, name="fake-graph", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake Graph endpoint did not start")
        return self

    def stop(self) -> None:
        """Stop serving and close every connection."""
        if self._loop is not None and self._loop.is_running():
            future = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
            with contextlib.suppress(Exception):
                future.result(5)
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(5)

    async def _shutdown(self) -> None:
        # Handlers end by themselves once their connection closes; cancelling them instead trips a
        # bug in asyncio's stream callback on Python 3.11.
        if self._server is not None:
            self._server.close()
        if self._closing is not None:
            self._closing.set()
        for writer in list(self._writers):
            writer.close()
        if self._handlers:
            await asyncio.wait(set(self._handlers), timeout=3)

    def count(self, key: str) -> int:
        """How many requests carried this dedupe key."""
        with self._lock:
            return self.keys[key]

    def snapshot(self) -> dict[str, Any]:
        """The request count and per-key counts."""
        with self._lock:
            return {"requests": self.requests, "keys": dict(self.keys)}

    def _run_thread(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        loop.run_until_complete(self._bind())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._shutdown())
            loop.close()

    async def _bind(self) -> None:
        self._closing = asyncio.Event()
        self._server = await asyncio.start_server(self._serve_connection, self.host, self.port, backlog=2048)
        self.port = self._server.sockets[0].getsockname()[1]

    async def serve_forever(self) -> None:
        """Serve on the running loop until cancelled (for the process mode)."""
        await self._bind()
        self._ready.set()
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        self._writers.add(writer)
        try:
            while True:
                try:
                    head = await reader.readuntil(_HEADER_END)
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                request_line, _, header_block = head.partition(b"\r\n")
                length = 0
                for line in header_block.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                body = await reader.readexactly(length) if length else b""
                if request_line.startswith(b"GET /_stats"):
                    self._answer(writer, 200, json.dumps(self.snapshot()).encode())
                    await writer.drain()
                    continue
                if request_line.startswith(b"GET "):
                    # Only sends are faked; the account reads (templates, the number) are not, nor counted.
                    self._answer(writer, 404, b'{"error":{"message":"Unknown path","code":100}}')
                    await writer.drain()
                    continue
                _key, to = self._record(body)
                assert self._closing is not None
                if self.mode == "hang":
                    await self._closing.wait()
                    return
                if self.latency:
                    await asyncio.sleep(self.latency)
                self._sequence += 1
                answer = {
                    "messaging_product": "whatsapp",
                    "contacts": [{"input": to, "wa_id": to.lstrip("+")}],
                    "messages": [{"id": f"wamid.FAKE{self._sequence:012d}"}],
                }
                self._answer(writer, 200, json.dumps(answer).encode())
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            if task is not None:
                self._handlers.discard(task)

    def _record(self, body: bytes) -> tuple[str, str]:
        try:
            document = json.loads(body)
            key = str(document.get("biz_opaque_callback_data", ""))
            to = str(document.get("to", ""))
        except ValueError:
            key, to = "", ""
        with self._lock:
            self.requests += 1
            self.keys[key] += 1
            self.arrivals.append((key, to, time.monotonic()))
        return key, to

    @staticmethod
    def _answer(writer: asyncio.StreamWriter, status: int, payload: bytes) -> None:
        writer.write(
            b"HTTP/1.1 %d OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (status, len(payload), payload)
        )


def main(argv: list[str] | None = None) -> int:
    """Run the fake endpoint in this process until killed; print its URL first."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--mode", choices=["accept", "hang"], default="accept")
    args = parser.parse_args(argv)
    graph = FakeGraph(latency=args.latency, mode=args.mode, port=args.port)

    async def serve() -> None:
        task = asyncio.create_task(graph.serve_forever())
        while not graph._ready.is_set():
            await asyncio.sleep(0.01)
        print(graph.url, flush=True)
        await task

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
