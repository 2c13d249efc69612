"""Builds and runs the backend: HTTP API, webhook receiver and background workers."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

import httpx
from flask import Flask

from backend.clock import Clock, utc_now
from backend.database import Database
from backend.inbox.retention import RetentionSweeper
from backend.inbox.windows import WindowTimers
from backend.outbox.database_clock import DatabaseClock
from backend.outbox.sender import OutboxSender
from backend.outbox.workers import OutboxSweeper
from backend.settings import Settings
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor

log = logging.getLogger(__name__)


class Worker(Protocol):
    """A background loop of named steps; `run` returns when `stop` is set."""

    name: str

    def run(self, stop: threading.Event) -> None:
        """Work until stop is set."""


@dataclass
class Service:
    """The long-lived parts of the backend, made in one place."""

    settings: Settings
    database: Database
    web_app: Flask
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
        self.database.dispose()


GraphTransport = httpx.BaseTransport | httpx.AsyncBaseTransport


def build_workers(
    settings: Settings,
    database: Database,
    *,
    graph_transport: GraphTransport | None = None,
    clock: Clock | None = None,
) -> list[Worker]:
    """Every background worker, for `inbox serve` (threads beside the HTTP server) and `inbox worker`.

    Each part of the backend adds its workers here, one block each. Without a clock, PostgreSQL
    workers follow the database server's clock so processes on several machines agree on time.
    """
    if clock is None:
        clock = utc_now if database.is_sqlite else DatabaseClock(database)
    workers: list[Worker] = []
    # Outbox: the sender (graph_transport None = real network) and its sweeps.
    workers.append(OutboxSender(database, settings, transport=graph_transport, clock=clock))
    workers.append(OutboxSweeper(database, settings, clock=clock))
    # Webhooks and inbox: stored bodies to effects, window timers, retention.
    workers.append(WebhookProcessor(database, settings, clock=clock))
    workers.append(WindowTimers(database, clock=clock))
    workers.append(RetentionSweeper(database, settings, clock=clock))
    return workers


def build_service(
    settings: Settings,
    database: Database,
    *,
    graph_transport: GraphTransport | None = None,
    serve_http: bool = True,
) -> Service:
    """Wire the backend's parts together from settings."""
    web_app = create_app(database, settings)
    workers = build_workers(settings, database, graph_transport=graph_transport)
    return Service(settings=settings, database=database, web_app=web_app, workers=workers)
