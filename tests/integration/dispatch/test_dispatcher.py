"""The webhook dispatcher against receivers: signatures, retries, order, isolation, disabling, redelivery."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from backend.database.models import Conversation
from backend.dispatch.dispatcher import WebhookDispatcher
from backend.journal import journal, sequence_pending
from tests.integration.web.conftest import Api, deliver_webhook
from tests.integration.webhooks.support import text_message


def reference_verify(secret: str, headers: httpx.Headers, body: bytes, now: float) -> bool:
    """Standard Webhooks verification, written from the specification alone.

    The key is the base64-decoded part of the secret after "whsec_"; the signed content is
    "{webhook-id}.{webhook-timestamp}.{body}"; webhook-signature holds space-separated
    "v1,<base64 HMAC-SHA256>" entries, one of which must match; timestamps older or newer than
    five minutes are refused, against replays.
    """
    if not secret.startswith("whsec_"):
        return False
    key = base64.b64decode(secret[len("whsec_") :])
    message_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not message_id or not timestamp or not signatures or not timestamp.isdigit():
        return False
    if abs(now - int(timestamp)) > 5 * 60:
        return False
    content = message_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest())
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode(), expected):
            return True
    return False


@dataclass
class Receiver:
    """An endpoint's requests, and the status it answers with (or a callable deciding)."""

    answer: int | Callable[[httpx.Request], int] = 204
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status = self.answer(request) if callable(self.answer) else self.answer
        return httpx.Response(status)

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(request.content) for request in self.requests]


class Endpoints:
    """Receivers by host, behind one MockTransport."""

    def __init__(self) -> None:
        self.by_host: dict[str, Receiver] = {}

    def add(self, host: str, receiver: Receiver | None = None) -> Receiver:
        self.by_host[host] = receiver or Receiver()
        return self.by_host[host]

    def handle(self, request: httpx.Request) -> httpx.Response:
        receiver = self.by_host.get(request.url.host)
        if receiver is None:
            raise httpx.ConnectError("connection refused", request=request)
        return receiver(request)


@pytest.fixture
def endpoints() -> Endpoints:
    return Endpoints()


@pytest.fixture
def dispatcher(api: Api, endpoints: Endpoints) -> Iterator[WebhookDispatcher]:
    client = httpx.Client(transport=httpx.MockTransport(endpoints.handle), follow_redirects=False, timeout=10)
    worker = WebhookDispatcher(api.parts, client=client)
    yield worker
    worker.close()
    client.close()


def subscribe(api: Api, url: str, events: list[str] | None = None) -> dict[str, Any]:
    answer = api.client().post(
        "/v1/webhook-subscriptions",
        json={"url": url, "events": events or ["*"]},
        headers=api.headers(api.supervisor_token),
    )
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.get_json())


def emit(api: Api, count: int = 1, event_type: str = "conversation.status_changed") -> None:
    """Journal events as the product's writers do, numbered as readers see them."""
    for number in range(count):
        with api.database.transaction() as session:
            journal(session, event_type, {"conversation_id": number + 1, "status": "open"}, api.clock())
    sequence_pending(api.database, wait=True)


def deliveries(api: Api, subscription_id: int) -> list[dict[str, Any]]:
    answer = api.client().get(
        f"/v1/webhook-subscriptions/{subscription_id}/deliveries", headers=api.headers(api.supervisor_token)
    )
    assert answer.status_code == 200
    return list(answer.get_json()["deliveries"])


def test_each_event_is_posted_signed_as_the_specification_says(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    shop = endpoints.add("shop.example")
    created = subscribe(api, "https://shop.example/hooks")
    emit(api, 2)
    result = dispatcher.run_once()
    assert (result.fanned_out, result.delivered) == (2, 2)
    for request in shop.requests:
        assert request.method == "POST"
        assert request.headers["content-type"] == "application/json"
        assert reference_verify(created["secret"], request.headers, request.content, api.clock().timestamp())
        assert request.headers["webhook-timestamp"] == str(int(api.clock().timestamp()))
        # Nothing in a delivery carries a token.
        assert "authorization" not in request.headers
        for token in (api.agent_token, api.supervisor_token, api.other_agent_token):
            assert token.encode() not in request.content
    # A changed body, another secret or an old timestamp fail the reference check: it can fail.
    first, moment = shop.requests[0], api.clock().timestamp()
    assert not reference_verify(created["secret"], first.headers, first.content + b" ", moment)
    other_secret = "whsec_" + base64.b64encode(b"x" * 32).decode()
    assert not reference_verify(other_secret, first.headers, first.content, moment)
    assert not reference_verify(created["secret"], first.headers, first.content, moment + 600)
    bodies = shop.bodies()
    assert [body["type"] for body in bodies] == ["conversation.status_changed"] * 2
    assert bodies[0]["data"] == {"conversation_id": 1, "status": "open"}
    assert bodies[0]["seq"] < bodies[1]["seq"]
    assert bodies[0]["timestamp"].endswith("Z")
    assert len({request.headers["webhook-id"] for request in shop.requests}) == 2
    assert [item["state"] for item in deliveries(api, created["id"])] == ["delivered", "delivered"]


def test_a_subscription_gets_only_the_events_it_asked_for(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    shop = endpoints.add("shop.example")
    subscribe(api, "https://shop.example/hooks", ["inbound.received"])
    emit(api, 1, "conversation.status_changed")
    emit(api, 1, "inbound.received")
    dispatcher.run_once()
    assert [body["type"] for body in shop.bodies()] == ["inbound.received"]


def test_a_failed_attempt_is_retried_with_the_same_webhook_id_and_body_and_later_ones_wait(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    shop = endpoints.add("shop.example", Receiver(answer=503))
    created = subscribe(api, "https://shop.example/hooks")
    emit(api, 3)
    result = dispatcher.run_once()
    assert (result.delivered, result.failed_attempts) == (0, 1)
    # The first retry comes within 10 s; before it nothing is sent, and nothing overtakes it.
    api.clock.advance(4)
    dispatcher.run_once()
    assert len(shop.requests) == 1
    [waiting] = [item for item in deliveries(api, created["id"]) if item["attempts"] == 1]
    assert (waiting["state"], waiting["last_status"]) == ("pending", 503)
    shop.answer = 200
    api.clock.advance(6)
    result = dispatcher.run_once()
    assert result.delivered == 3
    first, retried, *_ = shop.requests
    assert retried.headers["webhook-id"] == first.headers["webhook-id"]
    assert retried.content == first.content
    assert retried.headers["webhook-timestamp"] != first.headers["webhook-timestamp"]  # signed afresh
    assert reference_verify(created["secret"], retried.headers, retried.content, api.clock().timestamp())
    seqs = [body["seq"] for body in shop.bodies()]
    assert seqs == [seqs[0], seqs[0], *sorted(seqs[2:])] and seqs[0] < seqs[2]


def test_a_redirect_or_a_silent_endpoint_is_a_failure_not_followed(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    def redirect(request: httpx.Request) -> int:
        return 307

    moved = endpoints.add("moved.example", Receiver(answer=redirect))
    endpoints.add("elsewhere.example")
    created = subscribe(api, "https://moved.example/hooks")
    gone = subscribe(api, "https://nobody.example/hooks")
    emit(api, 1)
    dispatcher.run_once()
    assert len(moved.requests) == 1
    assert endpoints.by_host["elsewhere.example"].requests == []
    assert deliveries(api, created["id"])[0]["last_status"] == 307
    [refused] = deliveries(api, gone["id"])
    assert (refused["state"], refused["last_status"]) == ("pending", None)
    assert refused["next_attempt_at"] is not None


def test_order_is_kept_per_subscription(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    answers = iter([500, 200, 500, 500, 200, 200, 200, 200, 200, 200])

    def flaky(request: httpx.Request) -> int:
        return next(answers)

    shop = endpoints.add("shop.example", Receiver(answer=flaky))
    subscribe(api, "https://shop.example/hooks")
    emit(api, 5)
    for _ in range(6):
        dispatcher.run_once()
        api.clock.advance(60)
    delivered = [body["seq"] for body in shop.bodies()]
    # Each seq is sent until it succeeds, and never after a later one.
    firsts = list(dict.fromkeys(delivered))
    assert firsts == sorted(firsts) and len(firsts) == 5
    assert all(delivered[i] <= delivered[i + 1] for i in range(len(delivered) - 1))


def test_a_dead_endpoint_does_not_slow_another_subscription(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    release = threading.Event()

    def hang(request: httpx.Request) -> int:
        # As a silent endpoint would until the 10 s timeout; let go by the test.
        release.wait(10)
        raise httpx.ReadTimeout("no answer", request=request)

    endpoints.add("dead.example", Receiver(answer=hang))
    shop = endpoints.add("shop.example")
    subscribe(api, "https://dead.example/hooks")
    subscribe(api, "https://shop.example/hooks")
    emit(api, 20)
    stop = threading.Event()
    runner = threading.Thread(target=dispatcher.run, args=(stop,))
    started = time.monotonic()
    runner.start()
    try:
        deadline = started + 5
        while len(shop.requests) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        elapsed = time.monotonic() - started
        assert len(shop.requests) == 20
        assert elapsed < 3, elapsed
        assert not release.is_set()  # the dead endpoint was still holding its first call
    finally:
        release.set()
        stop.set()
        runner.join(10)
    assert not runner.is_alive()


def test_three_days_of_failures_disable_the_subscription_and_metrics_say_so(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    shop = endpoints.add("shop.example", Receiver(answer=500))
    created = subscribe(api, "https://shop.example/hooks")
    emit(api, 2)
    attempts = 0
    while True:
        result = dispatcher.run_once()
        attempts += result.failed_attempts
        if result.disabled:
            break
        [head] = [item for item in deliveries(api, created["id"]) if item["attempts"]]
        assert head["next_attempt_at"] is not None
        api.clock.advance(3600 * 8)
        assert attempts < 40
    # Attempts back off from seconds to hours: 3 days take a few tens of them, not thousands.
    assert 10 <= attempts <= 30
    headers = api.headers(api.supervisor_token)
    listed = api.client().get("/v1/webhook-subscriptions", headers=headers).get_json()
    [subscription] = listed["webhook_subscriptions"]
    assert subscription["enabled"] is False and subscription["disabled_reason"]
    assert "secret" not in subscription
    states = sorted(item["state"] for item in deliveries(api, created["id"]))
    assert states == ["failed", "pending"]
    metrics = api.client().get("/v1/metrics", headers=api.headers()).get_json()
    assert metrics["webhook_subscriptions_disabled"] == 1
    assert metrics["outgoing_deliveries_failed"] == 1
    assert "webhook_subscriptions_disabled 1" in api.client().get("/metrics").get_data(as_text=True)
    # A disabled subscription is sent nothing more, even as time passes and events come.
    sent = len(shop.requests)
    emit(api, 1)
    api.clock.advance(3600)
    dispatcher.run_once()
    assert len(shop.requests) == sent


def test_redelivery_sends_the_same_message_again_and_enables_the_subscription(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    shop = endpoints.add("shop.example", Receiver(answer=500))
    created = subscribe(api, "https://shop.example/hooks")
    emit(api, 1)
    while not dispatcher.run_once().disabled:
        api.clock.advance(3600 * 8)
    [failed] = deliveries(api, created["id"])
    assert failed["state"] == "failed"
    emit(api, 1)  # while disabled: delivered after the redelivered one once enabled again
    shop.answer = 200
    path = f"/v1/webhook-subscriptions/{created['id']}/deliveries/{failed['id']}/redeliver"
    answer = api.client().post(path, headers=api.headers(api.supervisor_token))
    assert answer.status_code == 202
    assert answer.get_json()["state"] == "pending"
    dispatcher.run_once()
    last_two = shop.requests[-2:]
    assert last_two[0].headers["webhook-id"] == failed["webhook_id"]
    assert [json.loads(request.content)["seq"] for request in last_two] == sorted(
        json.loads(request.content)["seq"] for request in last_two
    )
    assert [item["state"] for item in deliveries(api, created["id"])] == ["delivered", "delivered"]
    # Delivered ones can be redelivered too (the shop lost it); same id again.
    answer = api.client().post(path, headers=api.headers(api.supervisor_token))
    assert answer.status_code == 202
    dispatcher.run_once()
    assert shop.requests[-1].headers["webhook-id"] == failed["webhook_id"]


def test_a_deleted_subscription_is_sent_nothing_more(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    shop = endpoints.add("shop.example")
    created = subscribe(api, "https://shop.example/hooks")
    answer = api.client().delete(
        f"/v1/webhook-subscriptions/{created['id']}", headers=api.headers(api.supervisor_token)
    )
    assert answer.status_code == 204
    emit(api, 1)
    dispatcher.run_once()
    assert shop.requests == []


def test_a_real_status_change_reaches_the_shop(
    api: Api, endpoints: Endpoints, dispatcher: WebhookDispatcher
) -> None:
    shop = endpoints.add("shop.example")
    subscribe(api, "http://shop.example/hooks", ["conversation.status_changed", "inbound.received"])
    deliver_webhook(api, text_message("wamid.one", sent_at=api.clock.now))
    with api.database.reader() as session:
        conversation = session.scalar(select(Conversation.id))
    answer = api.client().post(
        f"/v1/conversations/{conversation}/status", json={"status": "resolved"}, headers=api.headers()
    )
    assert answer.status_code == 200
    sequence_pending(api.database, wait=True)
    api.clock.advance(1)
    dispatcher.run_once()
    types = [body["type"] for body in shop.bodies()]
    assert types == ["inbound.received", "conversation.status_changed"]
    assert shop.bodies()[1]["data"]["status"] == "resolved"
