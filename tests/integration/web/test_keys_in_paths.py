"""Keys and wamids holding any character, percent-encoded in the path, reach exactly their own row.

Run through the Flask test client and through the real server (app/http_server.py), on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from sqlalchemy import select

from app.http_server import HttpServer
from backend.database.models import InboundMessage, OutboxMessage
from backend.web.paths import KEPT_ENCODED, keep_encoded_slashes, path_value
from tests.integration.web.conftest import Api, add_inbound

REAL = "order-1:shipped"
# Resolved first: were any of them read as REAL (or as one another), REAL would be decided too.
DECOYS = ["order-1:shipped/resolve", "order-1:shipped/resolve#", "order-1:shipped/resolve/resolve"]
ODD_KEYS = [
    "a/resolve",
    "a",
    "/leading",
    "trailing/",
    "a//b",
    "50% off",
    "%2F",
    "%252F",
    "q?x=1&y=2",
    "plus+sign",
    "space here",
    "hash#tag",
    "naïve ✓ 注文",
    "..",
    ".",
    "resolve",
    "batch",
    "%",
    "\\back\\slash",
]
ALL_KEYS = [*DECOYS, REAL, *ODD_KEYS]


def segment(value: str) -> str:
    """One path segment as every client must build it: all reserved characters and dot segments encoded."""
    encoded = quote(value, safe="")
    return {".": "%2E", "..": "%2E%2E"}.get(encoded, encoded)


class Http:
    """The app behind the Flask test client or behind the real server, one interface."""

    def __init__(self, api: Api, base_url: str | None) -> None:
        self.api = api
        self.base_url = base_url

    def request(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
        """Status and JSON answer of one request sent with the raw path as given."""
        headers = {"Authorization": f"Bearer {token}"}
        if self.base_url is None:
            answer = self.api.client().open(path, method=method, json=body, headers=headers)
            return answer.status_code, answer.get_json()
        with httpx.Client(base_url=self.base_url, timeout=10) as client:
            response = client.request(method, path, json=body, headers=headers)
        return response.status_code, response.json()


@pytest.fixture(params=["test_client", "real_server"])
def http(request: pytest.FixtureRequest, api: Api) -> Iterator[Http]:
    if request.param == "test_client":
        yield Http(api, None)
        return
    server = HttpServer(api.app, "127.0.0.1", 0, threads=4, long_poll_slots=2).start()
    try:
        yield Http(api, server.url)
    finally:
        server.stop()


def _unknown_row(api: Api, key: str) -> None:
    now = api.clock.now
    with api.database.transaction() as session:
        session.add(
            OutboxMessage(
                dedupe_key=key,
                to_number="+16505551234",
                purpose="order_shipped",
                kind="text",
                payload={"text": f"about {key}"},
                state="unknown",
                not_before=now - timedelta(minutes=10),
                created_at=now - timedelta(minutes=10),
                updated_at=now - timedelta(minutes=5),
            )
        )


def _states(api: Api) -> dict[str, str]:
    with api.database.reader() as session:
        return {row.dedupe_key: row.state for row in session.scalars(select(OutboxMessage))}


@pytest.mark.timeout(120)
def test_every_key_is_read_and_resolved_by_its_encoded_path_and_only_it(api: Api, http: Http) -> None:
    for key in ALL_KEYS:
        _unknown_row(api, key)
    for key in ALL_KEYS:
        status, body = http.request("GET", f"/v1/messages/{segment(key)}", api.agent_token)
        assert (status, body["key"]) == (200, key)
    decided: set[str] = set()
    for key in ALL_KEYS:
        status, body = http.request(
            "POST", f"/v1/messages/{segment(key)}/resolve", api.supervisor_token, {"action": "cancel"}
        )
        assert status == 200, (key, body)
        assert (body["key"], body["state"]) == (key, "cancelled")
        decided.add(key)
        states = _states(api)
        assert {name for name, state in states.items() if state == "cancelled"} == decided


@pytest.mark.timeout(60)
def test_a_decoy_key_never_reaches_the_real_message(api: Api, http: Http) -> None:
    for key in (REAL, *DECOYS):
        _unknown_row(api, key)
    decoy = segment("order-1:shipped/resolve")
    # The decoy's own path without /resolve is no decision on anything.
    status, body = http.request("POST", f"/v1/messages/{decoy}", api.supervisor_token, {"action": "cancel"})
    assert status == 405, body
    assert body["error"]["code"] == "method_not_allowed"
    status, body = http.request("GET", f"/v1/messages/{decoy}", api.agent_token)
    assert (status, body["key"]) == (200, "order-1:shipped/resolve")
    for key in DECOYS:
        status, body = http.request(
            "POST", f"/v1/messages/{segment(key)}/resolve", api.supervisor_token, {"action": "cancel"}
        )
        assert (status, body["key"]) == (200, key)
    assert _states(api)[REAL] == "unknown"
    # A key with "/" sent without encoding finds no message rather than another one.
    status, body = http.request("GET", "/v1/messages/order-1:shipped/resolve", api.agent_token)
    assert status in {404, 405}, body
    status, body = http.request("GET", "/v1/messages//leading", api.agent_token)
    assert status == 404, body
    assert _states(api)[REAL] == "unknown"


WAMIDS = ["wamid.HBgL+/x==", "wamid.a/attribute", "wamid.a", "wamid. ü?#%&", "wamid.%2F"]


@pytest.mark.timeout(60)
def test_a_wamid_holding_any_character_is_attributed_by_its_encoded_path(api: Api, http: Http) -> None:
    for index, wamid in enumerate(WAMIDS):
        add_inbound(api.database, f"+1650555123{index}", wamid, at=api.clock.now)
    filed: set[str] = set()
    for wamid in WAMIDS:
        status, body = http.request(
            "POST", f"/v1/inbound/{segment(wamid)}/attribute", api.agent_token, {"new_topic": True}
        )
        assert (status, body["wamid"]) == (200, wamid), body
        filed.add(wamid)
        with api.database.reader() as session:
            attributed = {
                row.wamid for row in session.scalars(select(InboundMessage)) if row.placement != "work_queue"
            }
        assert attributed == filed


def test_without_the_raw_target_the_decoded_path_is_left_to_the_server() -> None:
    environ: dict[str, Any] = {"SCRIPT_NAME": "", "PATH_INFO": "/v1/messages/a/b"}
    keep_encoded_slashes(environ)
    assert environ["PATH_INFO"] == "/v1/messages/a/b"
    assert path_value("a%2Fb", environ) == "a%2Fb"


def test_a_raw_target_the_server_rewrote_is_not_trusted() -> None:
    # Waitress merges leading slashes; the raw target then no longer decodes to PATH_INFO.
    environ: dict[str, Any] = {
        "SCRIPT_NAME": "",
        "PATH_INFO": "/v1/messages/a",
        "REQUEST_URI": "//v1/messages/a",
    }
    keep_encoded_slashes(environ)
    assert environ["PATH_INFO"] == "/v1/messages/a"
    assert KEPT_ENCODED not in environ


def test_the_raw_target_keeps_slashes_and_percents_encoded() -> None:
    environ: dict[str, Any] = {
        "SCRIPT_NAME": "",
        "PATH_INFO": "/v1/messages/a/%2F ✓".encode().decode("latin-1"),
        "REQUEST_URI": "/v1/messages/a%2F%252F%20%E2%9C%93?x=%2F",
    }
    keep_encoded_slashes(environ)
    assert environ["PATH_INFO"] == "/v1/messages/a%2F%252F ✓".encode().decode("latin-1")
    assert path_value("a%2F%252F ✓", environ) == "a/%2F ✓"


def test_an_absolute_form_target_is_read_by_its_path() -> None:
    environ: dict[str, Any] = {
        "SCRIPT_NAME": "",
        "PATH_INFO": "/v1/messages/a/resolve",
        "REQUEST_URI": "http://127.0.0.1:8080/v1/messages/a%2Fresolve?x=1",
    }
    keep_encoded_slashes(environ)
    assert environ["PATH_INFO"] == "/v1/messages/a%2Fresolve"
