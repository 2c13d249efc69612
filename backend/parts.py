"""The backend's long-lived parts, built once in app/ and handed to the web app and to every worker."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from sqlalchemy.orm import Session

from backend.clock import Clock
from backend.database import Database
from backend.database.models import Contact, Conversation
from backend.domain.templates import TemplateCatalog
from backend.domain.webhook_events import InboundMessageEvent
from backend.journal import JournalSignal
from backend.settings import Settings

# Called in the processor's transaction for an inbound message that opened its contact's window.
WindowOpenedHook = Callable[[Session, InboundMessageEvent, Contact, Conversation, datetime], None]


class BodyStore(Protocol):
    """Stores raw webhook bodies durably; the web app answers 200 only once `store` returned True."""

    def store(self, body: bytes, signature: str | None) -> bool:
        """Commit one body; True once it is durable."""

    def submit(self, body: bytes, signature: str | None) -> Future[bool]:
        """Queue one body for commit without waiting; the future says whether it is durable."""

    @property
    def timeout_seconds(self) -> float:
        """How long a caller waits for a commit before it answers 503."""

    def close(self) -> None:
        """Refuse new bodies."""


class WriteTurns(Protocol):
    """Order among the writers of one SQLite file in this process: webhook bodies go first."""

    def urgent(self) -> AbstractContextManager[None]:
        """Hold the turn for storing webhook bodies."""

    def background(self) -> AbstractContextManager[None]:
        """Hold the turn for background work, after waiting bodies unless it waited too long."""


@dataclass(frozen=True)
class Hooks:
    """Behaviour that app/ plugs into the backend's steps."""

    # The away message (the outbox's AutoReply) when it is switched on.
    on_window_opened: WindowOpenedHook | None = None


@dataclass(frozen=True)
class BackendParts:
    """Everything the web app and the workers of one process share."""

    settings: Settings
    database: Database
    templates: TemplateCatalog
    # utc_now, or the database server's clock on PostgreSQL so processes on several machines agree.
    clock: Clock
    # Notified after each commit of `database` that journaled; long-polls wait on it.
    journal_signal: JournalSignal
    delivery_store: BodyStore
    write_turns: WriteTurns
    hooks: Hooks = field(default_factory=Hooks)
