"""The API behind the real server (app/http_server.py): concurrent duplicates over HTTP execute once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import func, select

from app.http_server import HttpServer
from backend.database.models import OutboxMessage
from tests.integration.web.conftest import Api

ORDER = {
    "to": "+16505551234",
    "purpose": "order_shipped",
    "template": {"name": "order_shipped", "language": "en", "parameters": ["77"]},
}
CLIENTS = 12


@pytest.fixture
def server(api: Api) -> Iterator[HttpServer]:
    running = HttpServer(api.app, "127.0.0.1", 0).start()
    yield running
    running.stop()


@pytest.mark.timeout(60)
def test_concurrent_requests_with_one_key_execute_once_over_http(api: Api, server: HttpServer) -> None:
    barrier = threading.Barrier(CLIENTS)
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def post() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            barrier.wait()
            response = client.post(
                "/v1/messages",
                json=ORDER,
                headers={"Authorization": f"Bearer {api.agent_token}", "Idempotency-Key": "http-race"},
            )
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=post) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    statuses = sorted(response.status_code for response in answers)
    assert set(statuses) <= {202, 409}, statuses
    first = [r for r in answers if r.status_code == 202 and "Idempotent-Replayed" not in r.headers]
    assert len(first) == 1
    for response in answers:
        if response.status_code == 202:
            assert response.content == first[0].content
        else:
            assert response.json()["error"]["code"] == "idempotency_in_progress"
    with api.database.reader() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 1


@pytest.mark.timeout(60)
def test_status_codes_over_http(api: Api, server: HttpServer) -> None:
    auth = {"Authorization": f"Bearer {api.agent_token}"}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/v1/templates").status_code == 401
        first = client.post("/v1/messages", json=ORDER, headers={**auth, "Idempotency-Key": "h-1"})
        assert first.status_code == 202
        again = client.post("/v1/messages", json=ORDER, headers={**auth, "Idempotency-Key": "h-1"})
        assert again.headers["Idempotent-Replayed"] == "true" and again.content == first.content
        other = client.post(
            "/v1/messages", json={**ORDER, "purpose": "x"}, headers={**auth, "Idempotency-Key": "h-1"}
        )
        assert other.status_code == 422
        big = client.post(
            "/v1/messages",
            content=b"{" + b" " * (1024 * 1024 + 1) + b"}",
            headers={**auth, "Idempotency-Key": "h-2", "Content-Type": "application/json"},
        )
        assert big.status_code == 413
        supervisor_only = client.get("/v1/supervisor/queue", headers=auth)
        assert supervisor_only.status_code == 403
        assert client.get("/metrics").text.startswith("# HELP")


@pytest.mark.timeout(60)
def test_concurrent_refused_requests_release_their_key_without_errors(api: Api, server: HttpServer) -> None:
    from tests.integration.web.conftest import add_inbound

    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.old", at=api.clock.now, window_hours=0)
    barrier = threading.Barrier(CLIENTS)
    statuses: list[tuple[int, str]] = []
    lock = threading.Lock()

    def post() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            barrier.wait()
            for _ in range(5):
                response = client.post(
                    f"/v1/conversations/{conversation}/reply",
                    json={"text": "too late"},
                    headers={"Authorization": f"Bearer {api.agent_token}", "Idempotency-Key": "closed"},
                )
                with lock:
                    statuses.append((response.status_code, response.json()["error"]["code"]))

    threads = [threading.Thread(target=post) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {status for status, _ in statuses} == {409}
    assert {code for _, code in statuses} <= {"window_closed", "idempotency_in_progress"}
    assert any(code == "window_closed" for _, code in statuses)


@pytest.mark.timeout(60)
def test_stop_answers_waiting_long_polls_and_ends_within_its_timeout(api: Api) -> None:
    server = HttpServer(api.app, "127.0.0.1", 0).start()
    answers: list[httpx.Response] = []
    started = threading.Barrier(5)

    def long_poll() -> None:
        with httpx.Client(base_url=server.url, timeout=40) as client:
            started.wait()
            answers.append(
                client.get(
                    "/v1/events",
                    params={"after": 10**9, "wait": 30},
                    headers={"Authorization": f"Bearer {api.agent_token}"},
                )
            )

    pollers = [threading.Thread(target=long_poll) for _ in range(4)]
    for poller in pollers:
        poller.start()
    started.wait()
    # Let every long-poll reach its wait.
    deadline = time.monotonic() + 5
    while server.long_polls_waiting() < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.long_polls_waiting() == 4

    began = time.monotonic()
    server.stop(timeout=5)
    took = time.monotonic() - began
    for poller in pollers:
        poller.join(5)

    # Each waiting desk got its (empty) page instead of a broken connection, well before 30 s.
    assert [answer.status_code for answer in answers] == [200] * 4
    assert all(answer.json() == {"events": [], "next": 10**9} for answer in answers)
    assert took < 3
