"""Every /v1 route needs a token, supervisor routes a supervisor; OpenAPI matches the routes."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from backend.database.models import User
from backend.users import hash_token
from backend.web.openapi import openapi_document
from tests.integration.web.conftest import Api

SUPERVISOR_ROUTES = {
    ("GET", "/v1/supervisor/queue"),
    ("POST", "/v1/messages/{key}/resolve"),
    ("GET", "/v1/reports/summary"),
    ("GET", "/v1/webhook-subscriptions"),
    ("POST", "/v1/webhook-subscriptions"),
    ("DELETE", "/v1/webhook-subscriptions/{id}"),
    ("GET", "/v1/webhook-subscriptions/{id}/deliveries"),
    ("POST", "/v1/webhook-subscriptions/{id}/deliveries/{delivery_id}/redeliver"),
}
# Documented for integrators but served by the webhook receiver, which may be registered separately.
OPTIONAL_DOCUMENTED = {("GET", "/webhooks/whatsapp"), ("POST", "/webhooks/whatsapp")}


def _routes(api: Api) -> set[tuple[str, str]]:
    """(method, OpenAPI-style path) of every route of the app."""
    routes = set()
    for rule in api.app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        path = path.replace("{batch_id}", "{id}").replace("{conversation_id}", "{id}")
        for method in rule.methods or ():
            if method not in {"HEAD", "OPTIONS"}:
                routes.add((method, path))
    return routes


def _documented() -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, operations in openapi_document()["paths"].items()
        for method in operations
    }


def _concrete(path: str) -> str:
    return (
        path.replace("{id}", "1")
        .replace("{delivery_id}", "1")
        .replace("{key}", "some-key")
        .replace("{wamid}", "wamid.X")
    )


def test_the_openapi_document_describes_exactly_the_apps_routes(api: Api) -> None:
    routes = _routes(api)
    documented = _documented()
    assert routes - documented == set()
    assert documented - routes <= OPTIONAL_DOCUMENTED
    response = api.client().get("/v1/openapi.json", headers=api.headers())
    assert response.status_code == 200
    assert response.get_json()["openapi"].startswith("3.1")


def test_every_v1_route_refuses_a_missing_or_wrong_token(api: Api) -> None:
    v1_routes = sorted(route for route in _routes(api) if route[1].startswith("/v1/"))
    assert len(v1_routes) >= 18
    for method, path in v1_routes:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": api.agent_token}):
            response = api.client().open(_concrete(path), method=method, headers=headers, json={})
            assert response.status_code == 401, (method, path, headers)
            assert response.get_json()["error"]["code"] == "unauthorized"


def test_supervisor_routes_refuse_agent_tokens(api: Api) -> None:
    for method, path in SUPERVISOR_ROUTES:
        response = api.client().open(
            _concrete(path), method=method, headers=api.headers(), json={"action": "cancel"}
        )
        assert response.status_code == 403, path
        assert response.get_json()["error"]["code"] == "forbidden"
    queue = api.client().get("/v1/supervisor/queue", headers=api.headers(api.supervisor_token))
    assert queue.status_code == 200


def test_a_disabled_users_token_is_refused(api: Api) -> None:
    with api.database.transaction() as session:
        session.scalars(select(User).where(User.name == "alice")).one().disabled = True
    assert api.client().get("/v1/templates", headers=api.headers()).status_code == 401


def test_tokens_are_stored_only_as_hashes(api: Api) -> None:
    with api.database.reader() as session:
        stored = {user.name: user.token_hash for user in session.scalars(select(User))}
    assert stored["alice"] == hash_token(api.agent_token)
    assert api.agent_token not in stored.values()


@pytest.mark.parametrize("path", ["/healthz", "/metrics"])
def test_health_and_prometheus_metrics_need_no_token(api: Api, path: str) -> None:
    assert api.client().get(path).status_code == 200


def test_unknown_routes_and_methods_answer_json_errors(api: Api) -> None:
    missing = api.client().get("/v1/nowhere", headers=api.headers())
    assert missing.status_code == 404
    assert missing.get_json()["error"]["code"] == "not_found"
    wrong_method = api.client().delete("/v1/templates", headers=api.headers())
    assert wrong_method.status_code == 405
    assert wrong_method.get_json()["error"]["code"] == "method_not_allowed"
