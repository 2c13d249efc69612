"""The composition root: builds the backend's parts once and the workers that share them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import httpx

from backend.clock import Clock, utc_now
from backend.database import Database
from backend.database.checkpoint import WalCheckpointer
from backend.dispatch.dispatcher import WebhookDispatcher
from backend.domain.templates import TemplateCatalog
from backend.inbox.conversation_timers import ConversationTimers
from backend.inbox.retention import RetentionSweeper
from backend.inbox.windows import WindowTimers
from backend.journal import JournalSequencer, JournalSignal, LocalJournalSignal, watch_journal_commits
from backend.media.fetcher import MediaFetcher
from backend.operations.daily import DailyBackup
from backend.outbox.account_sync import AccountSync
from backend.outbox.auto_reply import AutoReply
from backend.outbox.database_clock import DatabaseClock
from backend.outbox.media_uploads import MediaUploader
from backend.outbox.sender import OutboxSender
from backend.outbox.template_store import StoredTemplateCatalog
from backend.outbox.workers import OutboxSweeper
from backend.parts import BackendParts, Hooks
from backend.settings import Settings
from backend.templates import load_templates
from backend.webhooks.processor import WebhookProcessor
from backend.webhooks.store import DeliveryStore, write_turns_for

GraphTransport = httpx.BaseTransport | httpx.AsyncBaseTransport


class Worker(Protocol):
    """A background loop of named steps; `run` returns when `stop` is set."""

    name: str

    def run(self, stop: threading.Event) -> None:
        """Work until stop is set."""


def build_parts(
    settings: Settings,
    database: Database,
    *,
    clock: Clock | None = None,
    templates: TemplateCatalog | None = None,
    journal_signal: JournalSignal | None = None,
) -> BackendParts:
    """The parts one process shares, from its settings and its open database.

    Without a clock, PostgreSQL follows the database server's clock so processes on several machines
    agree on time. Without a journal signal, commits wake long-polls of this process only.
    """
    if clock is None:
        clock = utc_now if database.is_sqlite else DatabaseClock(database)
    if templates is None:
        # With a business account the templates come from Meta (synced into the database), else the file.
        if settings.whatsapp_business_account_id:
            templates = StoredTemplateCatalog(database)
        else:
            templates = load_templates(settings.templates_file)
    if journal_signal is None:
        journal_signal = LocalJournalSignal()
    watch_journal_commits(database, journal_signal.notify)
    turns = write_turns_for(database)
    hooks = Hooks(on_window_opened=AutoReply(settings, templates) if settings.auto_reply_enabled else None)
    return BackendParts(
        settings=settings,
        database=database,
        templates=templates,
        clock=clock,
        journal_signal=journal_signal,
        delivery_store=DeliveryStore(database, clock=clock, turns=turns),
        write_turns=turns,
        hooks=hooks,
    )


def graph_client_factory(
    settings: Settings, transport: GraphTransport | None = None
) -> Callable[[], httpx.Client]:
    """Makes the blocking Graph client of the account reads (the injected transport, or the network)."""
    sync_transport = transport if isinstance(transport, httpx.BaseTransport) else None
    timeout = httpx.Timeout(settings.read_timeout_seconds, connect=settings.connect_timeout_seconds)

    def make() -> httpx.Client:
        return httpx.Client(transport=sync_transport, timeout=timeout)

    return make


def build_workers(
    parts: BackendParts,
    *,
    graph_transport: GraphTransport | None = None,
    webhook_client: httpx.Client | None = None,
) -> list[Worker]:
    """Every background worker, for `inbox serve` (threads beside the HTTP server) and `inbox worker`.

    Each part of the backend adds its workers here, one block each.
    """
    workers: list[Worker] = []
    # Outbox: the sender (graph_transport None = real network) and its sweeps.
    workers.append(OutboxSender(parts, transport=graph_transport))
    workers.append(OutboxSweeper(parts))
    # Meta's view of the account: templates and their status, the number's quality and messaging limit.
    workers.append(
        AccountSync(
            parts.database, parts.settings, parts.clock, graph_client_factory(parts.settings, graph_transport)
        )
    )
    # Webhooks and inbox: stored bodies to effects, window timers, snoozes and presence, retention.
    workers.append(WebhookProcessor(parts))
    workers.append(WindowTimers(parts))
    workers.append(ConversationTimers(parts))
    workers.append(RetentionSweeper(parts))
    # Outgoing webhooks: journal events to the shop's endpoints (webhook_client None = real network).
    workers.append(WebhookDispatcher(parts, client=webhook_client))
    # Operations: the daily backup into the data folder's backups/.
    workers.append(DailyBackup(parts))
    # Media: customers' files fetched from Meta after their webhook was processed (graph_transport is
    # the sender's asynchronous seam; the fetcher takes only a synchronous one).
    media_transport = graph_transport if isinstance(graph_transport, httpx.BaseTransport) else None
    workers.append(MediaFetcher(parts, transport=media_transport))
    workers.append(MediaUploader(parts, transport=media_transport))
    # Journal: on PostgreSQL, committed entries are numbered after commit (SQLite numbers them at once).
    if not parts.database.is_sqlite:
        workers.append(JournalSequencer(parts.database))
    # Database: SQLite's log is checkpointed here, not by whichever writer's commit grows it.
    if parts.database.is_sqlite:
        workers.append(WalCheckpointer(parts.database))
    return workers
