"""Templates from Meta: every page synced, the status webhook applied at once, non-approved sends refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import select

from backend.database.models import MessageTemplate
from backend.outbox.account_sync import AccountSync, AccountSyncError, GraphAccountClient, sync_templates
from backend.outbox.template_store import sync_requests
from backend.sandbox.server import Sandbox, SandboxConfig
from backend.webhooks.processor import WebhookProcessor
from tests.integration.web.conftest import deliver_webhook
from tests.integration.webhooks.support import CONFORMANCE, encode, status, statuses

from .conftest import Api

WABA = "102290129340398"
GRAPH = "http://graph.test/v23.0"
UTILITY = {"name": "order_shipped", "language": "en", "parameters": ["44812"]}


def _meta_templates() -> list[dict[str, Any]]:
    def item(name: str, status: str, category: str, body: str, number: int) -> dict[str, Any]:
        return {
            "name": name,
            "language": "en",
            "status": status,
            "category": category,
            "components": [
                {"type": "HEADER", "format": "TEXT", "text": "Hi"},
                {"type": "BODY", "text": body},
            ],
            "id": str(1000 + number),
        }

    return [
        item("order_shipped", "APPROVED", "UTILITY", "Your order {{1}} has shipped.", 1),
        item("appointment_reminder", "APPROVED", "UTILITY", "See you on {{1}} at {{2}}.", 2),
        item("we_miss_you", "APPROVED", "MARKETING", "Hi {{1}}, we miss you!", 3),
        item("black_friday", "PAUSED", "MARKETING", "{{1}}% off today only", 4),
        item("old_receipt", "REJECTED", "UTILITY", "Receipt {{1}}", 5),
    ]


class MetaTemplates:
    """Meta's message_templates edge: pages of two, `paging.next` carrying the `after` cursor."""

    def __init__(self, templates: list[dict[str, Any]]) -> None:
        self.templates = templates
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.headers.get("authorization") != "Bearer test-token":
            return httpx.Response(401, json={"error": {"message": "Invalid OAuth access token", "code": 190}})
        if request.url.path != f"/v23.0/{WABA}/message_templates":
            return httpx.Response(400, json={"error": {"message": "Unsupported get request", "code": 100}})
        query = parse_qs(urlsplit(str(request.url)).query)
        start = int(query.get("after", ["0"])[0])
        page = self.templates[start : start + 2]
        body: dict[str, Any] = {
            "data": page,
            "paging": {"cursors": {"before": str(start), "after": str(start + 2)}},
        }
        if start + 2 < len(self.templates):
            body["paging"]["next"] = f"{GRAPH}/{WABA}/message_templates?fields=name&limit=2&after={start + 2}"
        return httpx.Response(200, json=body)


@pytest.fixture
def meta_api(make_api: Callable[..., Api]) -> Api:
    """The app with templates from Meta (a business account id set), and a token for the Graph API."""
    return make_api(whatsapp_business_account_id=WABA, whatsapp_token="test-token", graph_url=GRAPH)


def _sync(api: Api, graph: MetaTemplates) -> int:
    with httpx.Client(transport=httpx.MockTransport(graph)) as http:
        return sync_templates(api.database, GraphAccountClient(api.settings, http), api.clock.now)


def _listed(api: Api) -> dict[str, dict[str, Any]]:
    answer = api.client().get("/v1/templates", headers=api.headers()).get_json()
    return {item["name"]: item for item in answer["templates"]}


def test_a_sync_reads_every_page_and_lists_status_and_category(meta_api: Api) -> None:
    graph = MetaTemplates(_meta_templates())
    assert _sync(meta_api, graph) == 5
    assert len(graph.requests) == 3
    assert "after" not in str(graph.requests[0].url) and "after=4" in str(graph.requests[2].url)
    listed = _listed(meta_api)
    assert set(listed) == {
        "order_shipped",
        "appointment_reminder",
        "we_miss_you",
        "black_friday",
        "old_receipt",
    }
    assert (listed["black_friday"]["status"], listed["black_friday"]["category"]) == ("PAUSED", "MARKETING")
    assert listed["old_receipt"]["status"] == "REJECTED"
    assert listed["appointment_reminder"]["parameter_count"] == 2
    assert listed["order_shipped"]["body"] == "Your order {{1}} has shipped."


def test_a_template_not_approved_is_refused_with_422_and_approved_ones_go(meta_api: Api) -> None:
    _sync(meta_api, MetaTemplates(_meta_templates()))
    to = "+16505551234"
    paused = meta_api.send(
        "bf-1",
        {
            "to": to,
            "purpose": "promo",
            "template": {"name": "black_friday", "language": "en", "parameters": ["30"]},
        },
    )
    assert paused.status_code == 422
    error = paused.get_json()["error"]
    assert error["code"] == "template_not_approved"
    assert "PAUSED" in error["message"]
    rejected = meta_api.send(
        "rc-1",
        {
            "to": to,
            "purpose": "receipt",
            "template": {"name": "old_receipt", "language": "en", "parameters": ["1"]},
        },
    )
    assert rejected.status_code == 422
    assert (
        meta_api.send("os-1", {"to": to, "purpose": "order_shipped", "template": UTILITY}).status_code == 202
    )
    unknown = meta_api.send(
        "x-1", {"to": to, "purpose": "x", "template": {"name": "nope", "language": "en", "parameters": []}}
    )
    assert unknown.status_code == 400


def test_a_later_sync_follows_meta_and_drops_deleted_templates(meta_api: Api) -> None:
    templates = _meta_templates()
    _sync(meta_api, MetaTemplates(templates))
    templates[3] = {**templates[3], "status": "APPROVED"}
    _sync(meta_api, MetaTemplates(templates[:4]))
    listed = _listed(meta_api)
    assert listed["black_friday"]["status"] == "APPROVED"
    assert "old_receipt" not in listed
    assert (
        meta_api.send(
            "bf-1",
            {
                "to": "+16505551234",
                "purpose": "promo",
                "template": {"name": "black_friday", "language": "en", "parameters": ["30"]},
            },
        ).status_code
        == 202
    )


def test_the_status_webhook_updates_one_template_at_once(meta_api: Api) -> None:
    _sync(meta_api, MetaTemplates(_meta_templates()))
    body = {
        "object": "whatsapp_business_account",
        "entry": [
            {
                "id": WABA,
                "time": 1751247548,
                "changes": [
                    {
                        "field": "message_template_status_update",
                        "value": {
                            "event": "PAUSED",
                            "message_template_id": 1001,
                            "message_template_name": "order_shipped",
                            "message_template_language": "en",
                            "reason": "NONE",
                            "message_template_category": "UTILITY",
                        },
                    }
                ],
            }
        ],
    }
    assert meta_api.parts.delivery_store.store(encode(body), None)
    assert WebhookProcessor(meta_api.parts).drain().failed_deliveries == 0
    assert _listed(meta_api)["order_shipped"]["status"] == "PAUSED"
    refused = meta_api.send("os-1", {"to": "+16505551234", "purpose": "order_shipped", "template": UTILITY})
    assert refused.status_code == 422


def test_recorded_status_webhooks_from_meta_are_applied(meta_api: Api) -> None:
    recorded = json.loads((CONFORMANCE / "template_status_update.json").read_text(encoding="utf-8"))
    for document in recorded.values():
        assert meta_api.parts.delivery_store.store(encode(document), None)
    assert WebhookProcessor(meta_api.parts).drain().failed_deliveries == 0
    with meta_api.database.reader() as session:
        rows = {(row.name, row.language): row for row in session.scalars(select(MessageTemplate))}
        # A template the sync has not seen yet is kept with its status, and a sync is asked for.
        assert rows[("abandoned_cart", "en")].status == "REJECTED"
        assert rows[("abandoned_cart", "en")].category == "MARKETING"
        assert rows[("abandoned_cart", "en")].status_reason is not None
        assert sync_requests(session) >= 1


def test_failures_that_mean_the_templates_changed_ask_for_a_sync(meta_api: Api) -> None:

    for code in (132001, 132007, 132015, 132016):
        failed = status(
            f"wamid.{code}", "failed", at=meta_api.clock.now, errors=[{"code": code, "title": "x"}]
        )
        deliver_webhook(meta_api, statuses(failed))
    with meta_api.database.reader() as session:
        assert sync_requests(session) == 4
    graph = MetaTemplates(_meta_templates())
    worker = AccountSync(
        meta_api.database,
        meta_api.settings,
        meta_api.clock,
        lambda: httpx.Client(transport=httpx.MockTransport(graph)),
    )
    assert "templates" in worker.run_once()
    assert worker.run_once() == []  # synced: not due for an hour, nothing asked
    deliver_webhook(
        meta_api,
        statuses(
            status(
                "wamid.again", "failed", at=meta_api.clock.now, errors=[{"code": 132015, "title": "Paused"}]
            )
        ),
    )
    assert worker.run_once() == ["templates"]
    meta_api.clock.advance(3600)
    assert worker.run_once() == ["templates"]


def test_a_failed_read_is_a_clear_error_and_the_worker_tries_again_later(meta_api: Api) -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with (
        httpx.Client(transport=httpx.MockTransport(down)) as http,
        pytest.raises(AccountSyncError, match="no answer"),
    ):
        GraphAccountClient(meta_api.settings, http).list_templates()
    loops = MetaTemplates(_meta_templates())
    loops.templates = loops.templates[:4]

    def looping(request: httpx.Request) -> httpx.Response:
        answer = loops(request)
        body = answer.json()
        body["paging"]["next"] = f"{GRAPH}/{WABA}/message_templates?after=0"
        return httpx.Response(200, json=body)

    with (
        httpx.Client(transport=httpx.MockTransport(looping)) as http,
        pytest.raises(AccountSyncError, match="already read"),
    ):
        GraphAccountClient(meta_api.settings, http).list_templates()
    worker = AccountSync(
        meta_api.database,
        meta_api.settings,
        meta_api.clock,
        lambda: httpx.Client(transport=httpx.MockTransport(down)),
    )
    assert worker.run_once() == ["templates"]
    assert worker.run_once() == []
    meta_api.clock.advance(61)
    assert worker.run_once() == ["templates"]


def test_without_a_business_account_the_file_stays_the_source(api: Api) -> None:
    listed = _listed(api)
    assert set(listed) == {"order_shipped", "appointment_reminder", "we_miss_you"}
    assert {item["status"] for item in listed.values()} == {"APPROVED"}
    assert listed["we_miss_you"]["category"] == "MARKETING"
    worker = AccountSync(
        api.database,
        api.settings,
        api.clock,
        lambda: httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(500))),
    )
    assert worker.run_once() == []


def test_the_sync_reads_the_sandbox_page_by_page(make_api: Callable[..., Api]) -> None:
    sandbox = Sandbox(SandboxConfig(token="test-token", seed=1)).start()
    try:
        api = make_api(
            whatsapp_business_account_id=sandbox.config.business_account_id,
            whatsapp_token="test-token",
            graph_url=sandbox.graph_url,
        )
        with httpx.Client() as http:
            client = GraphAccountClient(api.settings, http, page_size=1)
            assert sync_templates(api.database, client, api.clock.now) == 3
        with httpx.Client(base_url=sandbox.url) as control:
            control.post(
                "/_sandbox/templates", json={"name": "we_miss_you", "language": "en", "status": "PAUSED"}
            )
        with httpx.Client() as http:
            sync_templates(api.database, GraphAccountClient(api.settings, http, page_size=2), api.clock.now)
        listed = _listed(api)
        assert {name: item["status"] for name, item in listed.items()} == {
            "order_shipped": "APPROVED",
            "appointment_reminder": "APPROVED",
            "we_miss_you": "PAUSED",
        }
    finally:
        sandbox.stop()
