"""Fuzzing the bodies of every API route that takes one: random JSON of any shape, wrong types, huge
strings, deep nesting and bytes that are not JSON at all → a precise 4xx (or success), never a 500.

The schema-driven fuzz in tests/integration/web/test_fuzz_api.py generates requests from the OpenAPI
document; this one sends what no schema describes.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.composition import build_parts
from backend.clock import utc_now
from backend.database import Database
from backend.settings import Settings
from backend.users import create_user
from backend.web import create_app

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.text(min_size=1000, max_size=5000),
    st.sampled_from(["+16505551234", "order_shipped", "en", "support", "mark_sent", "resend", "cancel"]),
    st.sampled_from(["snoozed", "resolved", "2099-01-01T00:00:00Z", "2000-01-01T00:00:00+01:00", "vip"]),
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["to", "purpose", "text", "template", "name", "language", "parameters", "buttons"]
            )
            | st.sampled_from(["action", "assignee", "message_key", "new_topic", "messages", "client_ref"])
            | st.sampled_from(
                ["status", "until", "typing", "viewing", "add", "remove", "seen_up_to", "force"]
            )
            | st.sampled_from(["shortcut", "title"])
            | st.text(max_size=10),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


def nested(depth: int) -> bytes:
    """A JSON object nested `depth` levels deep."""
    return ('{"to":' * depth + "1" + "}" * depth).encode()


raw_bodies = st.one_of(
    json_values.map(lambda value: json.dumps(value).encode()),
    st.binary(max_size=100),
    st.integers(1, 300_000).map(nested),
)


@pytest.fixture
def app_and_token(database: Database, database_url: str, tmp_path: Path) -> tuple[Flask, str]:
    """The product's app and a supervisor's token."""
    settings = Settings(data_dir=tmp_path, database_url=database_url)
    with database.transaction() as session:
        token = create_user(session, "fuzzer", "supervisor", utc_now())
    return create_app(build_parts(settings, database)), token


def body_routes(app: Flask) -> list[tuple[str, str]]:
    """(method, path) for every route that reads a body, with ids 1 and keys "k"."""
    routes = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) & {"POST", "PUT", "PATCH"}):
            path = rule.rule.replace("<id:", "<").replace("<int:", "<")
            for argument in rule.arguments:
                path = path.replace(f"<{argument}>", "1" if "id" in argument else "k")
            if not path.startswith("/webhooks/"):  # fuzzed with signatures in test_fuzz_webhooks.py
                routes.append((method, path))
    return sorted(routes)


@pytest.mark.timeout(300)
@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(route_index=st.integers(0, 1000), body=raw_bodies, key=st.text(max_size=20))
def test_no_body_gets_a_500(
    route_index: int, body: bytes, key: str, app_and_token: tuple[Flask, str]
) -> None:
    app, token = app_and_token
    routes = body_routes(app)
    assert ("POST", "/v1/messages") in routes
    method, path = routes[route_index % len(routes)]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    if key.isprintable() and key.isascii():
        headers["Idempotency-Key"] = key
    response = app.test_client().open(path, method=method, data=body, headers=headers)
    assert response.status_code < 500, (method, path, response.status_code, response.get_data()[:200])
    if response.status_code >= 400:
        error = response.get_json()["error"]
        assert error["code"] and error["message"]


def test_a_body_nested_past_the_decoder_s_depth_is_invalid_json(app_and_token: tuple[Flask, str]) -> None:
    app, token = app_and_token
    response = app.test_client().post(
        "/v1/messages",
        data=nested(100_000),
        headers={
            "Authorization": f"Bearer {token}",
            "Idempotency-Key": "deep",
            "Content-Type": "application/json",
        },
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_json"


def test_a_cursor_nested_past_the_decoder_s_depth_is_an_invalid_cursor(
    app_and_token: tuple[Flask, str],
) -> None:
    app, token = app_and_token
    cursor = base64.urlsafe_b64encode(b"[" * 20_000).decode().rstrip("=")
    response = app.test_client().get(
        "/v1/conversations", query_string={"cursor": cursor}, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_cursor"
