"""Long-polls never starve the server: past its slots they answer at once, and other routes stay fast.

Through the real server with a small pool, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.composition import build_parts
from app.http_server import HttpServer
from backend.database import Database
from backend.domain.webhook_signature import sign
from backend.journal import journal
from backend.users import create_user
from backend.web import create_app
from backend.web.factory import InboxApp, WebContext
from backend.web.long_polls import LongPollSlots
from tests.integration.webhooks.support import APP_SECRET, NOW, encode, envelope, make_settings, text_message

RESERVE_THREADS = 2
LONG_POLL_SLOTS = 3
EXTRA_LONG_POLLS = 4
WAIT_SECONDS = 25
QUICK_SECONDS = 1.0


@dataclass
class Served:
    """The product's app on a small pool of the real server, and a token."""

    app: InboxApp
    database: Database
    url: str
    token: str

    @property
    def slots(self) -> LongPollSlots:
        context = self.app.extensions["inbox"]
        assert isinstance(context, WebContext)
        return context.long_polls

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def served(database: Database, database_url: str, tmp_path: Path) -> Iterator[Served]:
    with database.transaction() as session:
        token = create_user(session, "desk", "agent", NOW)
    app = create_app(build_parts(make_settings(tmp_path, database_url), database))
    server = HttpServer(app, "127.0.0.1", 0, threads=RESERVE_THREADS, long_poll_slots=LONG_POLL_SLOTS).start()
    try:
        yield Served(app, database, server.url, token)
    finally:
        server.stop()


def _journal_something(database: Database) -> None:
    with database.transaction() as session:
        journal(session, "test.event", {"n": 1}, NOW)


def _time_request(served: Served, method: str, path: str, **options: object) -> tuple[float, httpx.Response]:
    started = time.monotonic()
    with httpx.Client(base_url=served.url, timeout=WAIT_SECONDS + 10) as client:
        response = client.request(method, path, **options)  # type: ignore[arg-type]
    return time.monotonic() - started, response


@pytest.mark.timeout(90)
def test_long_polls_past_the_slots_answer_at_once_and_never_block_other_routes(served: Served) -> None:
    held: list[tuple[float, httpx.Response]] = []
    lock = threading.Lock()

    def long_poll() -> None:
        answer = _time_request(
            served, "GET", f"/v1/events?after=0&wait={WAIT_SECONDS}", headers=served.headers()
        )
        with lock:
            held.append(answer)

    waiting = [threading.Thread(target=long_poll) for _ in range(LONG_POLL_SLOTS)]
    for thread in waiting:
        thread.start()
    deadline = time.monotonic() + 10
    while served.slots.taken < LONG_POLL_SLOTS:
        assert time.monotonic() < deadline, "the long-polls never took their slots"
        time.sleep(0.02)

    # More long-polls than the server holds: each answers at once, empty, with the same `next`.
    for _ in range(EXTRA_LONG_POLLS):
        elapsed, response = _time_request(
            served, "GET", f"/v1/events?after=0&wait={WAIT_SECONDS}", headers=served.headers()
        )
        assert response.status_code == 200
        assert response.json() == {"events": [], "next": 0}
        assert response.headers["Retry-After"] == "1"
        assert elapsed < QUICK_SECONDS, elapsed

    # Meanwhile a webhook, /healthz and an ordinary /v1 request each answer within a second.
    body = encode(envelope(text_message("wamid.DURING")))
    signed = {"X-Hub-Signature-256": sign(body, APP_SECRET), "Content-Type": "application/json"}
    for method, path, options in (
        ("POST", "/webhooks/whatsapp", {"content": body, "headers": signed}),
        ("GET", "/healthz", {}),
        ("GET", "/v1/me", {"headers": served.headers()}),
        ("GET", "/v1/events?after=0&wait=0", {"headers": served.headers()}),
    ):
        elapsed, response = _time_request(served, method, path, **options)
        assert response.status_code == 200, (path, response.text)
        assert elapsed < QUICK_SECONDS, (path, elapsed)
        assert "Retry-After" not in response.headers
    assert served.slots.taken == LONG_POLL_SLOTS

    # The held long-polls still get what the journal gains, and give their slots back.
    _journal_something(served.database)
    for thread in waiting:
        thread.join(WAIT_SECONDS + 10)
    assert len(held) == LONG_POLL_SLOTS
    for elapsed, response in held:
        assert [event["type"] for event in response.json()["events"]] == ["test.event"]
        assert elapsed < WAIT_SECONDS
    assert served.slots.taken == 0


@pytest.mark.timeout(60)
def test_a_long_poll_past_the_slots_still_gets_what_is_already_there(served: Served) -> None:
    _journal_something(served.database)
    taken = [served.slots.try_take() for _ in range(LONG_POLL_SLOTS)]
    assert all(taken)
    try:
        elapsed, response = _time_request(
            served, "GET", f"/v1/events?after=0&wait={WAIT_SECONDS}", headers=served.headers()
        )
    finally:
        for _ in range(LONG_POLL_SLOTS):
            served.slots.give_back()
    assert elapsed < QUICK_SECONDS
    page = response.json()
    assert [event["type"] for event in page["events"]] == ["test.event"]
    assert page["next"] == page["events"][0]["seq"]
    assert response.headers["Retry-After"] == "1"


def test_slots_are_taken_up_to_the_limit_without_blocking() -> None:
    slots = LongPollSlots(2)
    assert [slots.try_take() for _ in range(3)] == [True, True, False]
    slots.give_back()
    assert slots.taken == 1
    assert slots.try_take()
    assert not LongPollSlots(0).try_take()
    with pytest.raises(ValueError):
        LongPollSlots(-1)
