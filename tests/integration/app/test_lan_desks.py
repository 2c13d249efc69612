"""Thirty desks long-polling over TLS leave loopback quick and all see a new event within a second.

The HTTP process as `inbox serve` builds it: the production server on loopback and the LAN listener on
127.0.0.2, two apps over one set of parts (one journal signal), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.composition import build_parts
from app.http_server import HttpServer, bind_listener
from app.lan.certificate import LanCertificate, make_certificate
from app.lan.server import LanServer
from backend.database import Database
from backend.domain.webhook_signature import sign
from backend.journal import journal
from backend.users import create_user
from backend.web import create_app
from tests.integration.webhooks.support import APP_SECRET, NOW, encode, envelope, make_settings, text_message
from ui.api.pinning import PinnedContext

DESKS = 30
WAIT_SECONDS = 30
QUICK_SECONDS = 1.0


@dataclass
class Office:
    loopback: HttpServer
    lan: LanServer
    certificate: LanCertificate
    database: Database
    token: str

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def office(database: Database, database_url: str, tmp_path: Path) -> Iterator[Office]:
    with database.transaction() as session:
        token = create_user(session, "desk", "agent", NOW)
    parts = build_parts(make_settings(tmp_path, database_url), database)
    certificate = make_certificate(tmp_path, "127.0.0.2")
    loopback = HttpServer(create_app(parts), "127.0.0.1", 0).start()
    lan = LanServer(create_app(parts), bind_listener("127.0.0.2", 0), certificate).start()
    try:
        yield Office(loopback, lan, certificate, database, token)
    finally:
        lan.stop(timeout=2)
        loopback.stop(timeout=2)


def _timed(client: httpx.Client, method: str, path: str, **options: object) -> tuple[float, httpx.Response]:
    started = time.monotonic()
    response = client.request(method, path, **options)  # type: ignore[arg-type]
    return time.monotonic() - started, response


@pytest.mark.timeout(90)
def test_thirty_desks_over_tls_leave_loopback_quick_and_each_sees_a_new_event_within_a_second(
    office: Office,
) -> None:
    seen: list[tuple[float, list[str]]] = []
    lock = threading.Lock()

    def desk() -> None:
        with httpx.Client(
            base_url=office.lan.url,
            verify=PinnedContext(office.certificate.fingerprint),
            headers=office.headers(),
            timeout=WAIT_SECONDS + 10,
        ) as client:
            # An ordinary request first, as a desk opening its inbox does, then the long-poll.
            client.get("/v1/me").raise_for_status()
            page = client.get("/v1/events", params={"after": 0, "wait": WAIT_SECONDS}).json()
            with lock:
                seen.append((time.monotonic(), [event["type"] for event in page["events"]]))

    desks = [threading.Thread(target=desk, daemon=True) for _ in range(DESKS)]
    for thread in desks:
        thread.start()
    deadline = time.monotonic() + 30
    while office.lan.long_polls_waiting() < DESKS:
        assert time.monotonic() < deadline, f"only {office.lan.long_polls_waiting()} desks got to wait"
        time.sleep(0.05)

    body = encode(envelope(text_message("wamid.WHILE_DESKS_WAIT")))
    signed = {"X-Hub-Signature-256": sign(body, APP_SECRET), "Content-Type": "application/json"}
    with httpx.Client(base_url=office.loopback.url, timeout=10) as local:
        for method, path, options in (
            ("POST", "/webhooks/whatsapp", {"content": body, "headers": signed}),
            ("GET", "/healthz", {}),
            ("GET", "/v1/me", {"headers": office.headers()}),
            ("GET", "/v1/conversations", {"headers": office.headers()}),
        ):
            elapsed, response = _timed(local, method, path, **options)
            assert response.status_code == 200, (path, response.text)
            assert elapsed < QUICK_SECONDS, (path, elapsed)
    with httpx.Client(
        base_url=office.lan.url, verify=PinnedContext(office.certificate.fingerprint), timeout=10
    ) as another_desk:
        elapsed, response = _timed(another_desk, "GET", "/v1/me", headers=office.headers())
        assert response.status_code == 200 and elapsed < QUICK_SECONDS, elapsed
    assert office.lan.long_polls_waiting() == DESKS

    with office.database.transaction() as session:
        journal(session, "inbound.received", {"wamid": "wamid.NEW"}, NOW)
    committed = time.monotonic()
    for thread in desks:
        thread.join(WAIT_SECONDS + 10)
    assert len(seen) == DESKS
    for received, types in seen:
        assert types == ["inbound.received"]
        assert received - committed < QUICK_SECONDS, received - committed


@pytest.mark.timeout(60)
def test_connections_that_never_speak_tls_hold_back_no_desk(office: Office) -> None:
    host, port = office.lan.host, office.lan.port
    silent = [socket.create_connection((host, port), timeout=5) for _ in range(5)]
    try:
        with httpx.Client(
            base_url=office.lan.url, verify=PinnedContext(office.certificate.fingerprint), timeout=10
        ) as desk:
            elapsed, response = _timed(desk, "GET", "/v1/me", headers=office.headers())
        assert response.status_code == 200
        assert elapsed < QUICK_SECONDS, elapsed
    finally:
        for connection in silent:
            connection.close()
