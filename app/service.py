"""Builds and runs the backend: HTTP API, webhook receiver and background workers."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Protocol

from flask import Flask

from backend.database import Database
from backend.settings import Settings
from backend.web import create_app

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
        for thread in self._threads:
            thread.join(timeout)
        self.database.dispose()


def build_service(settings: Settings, database: Database, *, serve_http: bool = True) -> Service:
    """Wire the backend's parts together from settings."""
    web_app = create_app(database, settings)
    workers: list[Worker] = []
    return Service(settings=settings, database=database, web_app=web_app, workers=workers)
