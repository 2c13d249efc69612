"""The composition root: one set of parts, shared by the web app and every worker of a process."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from app.composition import build_parts
from app.service import build_service
from backend.clock import utc_now
from backend.database import Database
from backend.journal import LocalJournalSignal
from backend.outbox.auto_reply import AutoReply
from backend.outbox.database_clock import DatabaseClock
from backend.settings import Settings
from backend.users import create_user
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import NOW, encode, envelope, make_settings, post_signed, text_message


class CountingSignal(LocalJournalSignal):
    """A journal signal that counts its notifications and waits, as an injected one would be used."""

    def __init__(self) -> None:
        super().__init__()
        self.notified = 0
        self.waits = 0

    def notify(self) -> None:
        self.notified += 1
        super().notify()

    def wait(self, since: int, timeout: float) -> None:
        self.waits += 1
        super().wait(since, timeout)


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return make_settings(tmp_path, database_url)


def _never_called(request: httpx.Request) -> httpx.Response:
    raise AssertionError("nothing is sent in this test")


def test_a_workers_commit_wakes_the_web_apps_long_polls_through_the_injected_signal(
    database: Database, settings: Settings
) -> None:
    signal = CountingSignal()
    parts = build_parts(settings, database, journal_signal=signal)
    service = build_service(parts, graph_transport=httpx.MockTransport(_never_called))
    assert service.web_app is not None
    client = service.web_app.test_client()
    with database.transaction() as session:
        token = create_user(session, "desk", "agent", NOW)
    # The body goes through the web app's delivery store; the worker of the same parts applies it.
    assert post_signed(client, encode(envelope(text_message("wamid.PARTS1")))).status_code == 200
    processor = next(worker for worker in service.workers if isinstance(worker, WebhookProcessor))
    assert processor.run_once().applied == 1
    assert signal.notified == 1
    headers = {"Authorization": f"Bearer {token}"}
    page = client.get("/v1/events?after=0", headers=headers).get_json()
    assert [event["type"] for event in page["events"]] == ["inbound.received"]
    # A long-poll with nothing new waits on that same signal.
    client.get(f"/v1/events?after={page['next']}&wait=0.1", headers=headers)
    assert signal.waits >= 1


def test_serving_without_http_builds_the_workers_alone(database: Database, settings: Settings) -> None:
    service = build_service(build_parts(settings, database), serve_http=False)
    assert service.web_app is None
    assert [worker.name for worker in service.workers] == [
        "outbox-sender",
        "outbox-sweeper",
        # Templates and the number's quality and limit, read from Meta.
        "account-sync",
        "webhook-processor",
        "window-timers",
        "conversation-timers",
        "retention-sweeper",
        "webhook-dispatcher",
        "daily-backup",
        "media-fetcher",
        "media-uploader",
        # PostgreSQL numbers journal entries after commit; SQLite's single writer numbers them at once.
        *([] if database.is_sqlite else ["journal-sequencer"]),
        # SQLite's log is checkpointed by a worker, off the writers' commits.
        *(["wal-checkpointer"] if database.is_sqlite else []),
    ]


def test_the_away_message_is_wired_only_when_switched_on(database: Database, settings: Settings) -> None:
    assert build_parts(settings, database).hooks.on_window_opened is None
    hook = build_parts(replace(settings, auto_reply_enabled=True), database).hooks.on_window_opened
    assert isinstance(hook, AutoReply)


def test_postgresql_parts_follow_the_database_servers_clock(database: Database, settings: Settings) -> None:
    clock = build_parts(settings, database).clock
    if database.is_sqlite:
        assert clock is utc_now
    else:
        assert isinstance(clock, DatabaseClock)
    assert build_parts(settings, database, clock=utc_now).clock is utc_now
