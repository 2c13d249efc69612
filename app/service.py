"""Runs the backend in one process: the HTTP app and the background workers on threads."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from app.composition import GraphTransport, Worker, build_workers
from backend.parts import BackendParts
from backend.web import create_app
from backend.web.factory import InboxApp

log = logging.getLogger(__name__)


@dataclass
class Service:
    """The backend's parts with the web app (if served here) and the workers running on them."""

    parts: BackendParts
    web_app: InboxApp | None
    workers: list[Worker] = field(default_factory=list)
    stop_event: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start_workers(self) -> None:
        """Start every worker on its own thread."""
        for worker in self.workers:
            thread = threading.Thread(target=self._run_worker, args=(worker,), name=worker.name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def _run_worker(self, worker: Worker) -> None:
        try:
            worker.run(self.stop_event)
        except Exception:  # a worker dying must be visible, never silent
            log.exception("worker %s stopped with an error", worker.name)

    def stop(self, timeout: float = 10.0) -> None:
        """Ask every worker to stop and wait for them, at most `timeout` seconds in all."""
        self.stop_event.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.parts.database.dispose()


def build_service(
    parts: BackendParts, *, graph_transport: GraphTransport | None = None, serve_http: bool = True
) -> Service:
    """The web app (unless `serve_http` is off) and every worker, on the same parts."""
    web_app = create_app(parts) if serve_http else None
    return Service(
        parts=parts, web_app=web_app, workers=build_workers(parts, graph_transport=graph_transport)
    )
