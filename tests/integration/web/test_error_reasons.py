"""Every message's `error` carries a machine-readable `reason`, wherever the API shows a message."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.composition import build_parts
from backend.database.models import OutboxMessage
from backend.domain.outcomes import not_sent, outcome_of_answer, unknown
from backend.domain.send_errors import ErrorReason, error_reason
from backend.outbox.sender import OutboxSender
from backend.outbox.sweepers import expire_leases
from tests.integration.web.conftest import Api, add_inbound, add_outbox_row


def _error(api: Api, key: str) -> Any:
    response = api.client().get(f"/v1/messages/{key}", headers=api.headers())
    assert response.status_code == 200
    return response.get_json()["error"]


# (code, title as the product's code writes it) → reason.
RECORDED = [
    ("meta", 131026, "Message undeliverable", "meta_error"),
    ("meta-titled-like-ours", 131000, unknown("x").title, "meta_error"),
    ("no-answer", None, unknown("read timeout").title, "no_answer_after_send"),
    ("not-sent", None, not_sent("connect error").title, "request_not_sent"),
    ("no-id", None, outcome_of_answer(200, {"messages": []}).title, "accepted_without_message_id"),
    ("http-error", None, outcome_of_answer(503, "Service Unavailable").title, "other"),
    ("code-only", 131000, None, "meta_error"),
]


@pytest.mark.parametrize(("key", "code", "title", "reason"), RECORDED, ids=[row[0] for row in RECORDED])
def test_the_error_of_a_message_names_its_reason(
    api: Api, key: str, code: int | None, title: str | None, reason: str
) -> None:
    add_outbox_row(api, key, last_error_code=code, last_error_title=title, last_error_details="seen")
    assert _error(api, key) == {"code": code, "title": title, "details": "seen", "reason": reason}


def test_a_message_without_an_error_has_none(api: Api) -> None:
    add_outbox_row(api, "clean", state="queued")
    assert _error(api, "clean") is None


def test_an_expired_lease_is_reported_as_lease_expired(api: Api) -> None:
    add_outbox_row(api, "stuck", state="sending", lease_expires_at=api.clock.now - timedelta(seconds=1))
    with api.database.transaction() as session:
        assert expire_leases(session, api.clock.now) == 1
    error = _error(api, "stuck")
    assert (error["title"], error["reason"]) == ("lease expired", "lease_expired")


def test_a_stored_payload_that_cannot_be_sent_is_reported_as_payload_unsendable(api: Api) -> None:
    add_outbox_row(api, "broken", state="queued", kind="template", payload={"unexpected": True})
    never_called = httpx.MockTransport(lambda request: httpx.Response(500))
    sender = OutboxSender(
        build_parts(api.settings, api.database, clock=lambda: api.clock.now), transport=never_called
    )
    assert sender.run_once() == 1
    with api.database.reader() as session:
        state = session.scalars(select(OutboxMessage.state).where(OutboxMessage.dedupe_key == "broken")).one()
    assert state == "failed"
    error = _error(api, "broken")
    assert (error["title"], error["reason"]) == ("stored payload cannot be sent", "payload_unsendable")


def test_the_supervisor_queue_and_the_thread_carry_the_reason(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.in", at=api.clock.now)
    add_outbox_row(
        api,
        "unknown-1",
        conversation_id=conversation,
        last_error_title=unknown("read timeout").title,
        last_error_details="ReadTimeout",
    )
    expected = {
        "code": None,
        "title": "outcome unknown",
        "details": "ReadTimeout",
        "reason": "no_answer_after_send",
    }
    queue = api.client().get("/v1/supervisor/queue", headers=api.headers(api.supervisor_token)).get_json()
    (item,) = queue["items"]
    assert item["error"] == expected
    assert item["last_error"] == expected
    assert item["reason"] == "unknown"
    thread = api.client().get(f"/v1/conversations/{conversation}/thread", headers=api.headers()).get_json()
    outbound = [message for message in thread["messages"] if message["direction"] == "outbound"]
    assert [message["error"] for message in outbound] == [expected]
    resolved = api.client().post(
        "/v1/messages/unknown-1/resolve", json={"action": "cancel"}, headers=api.headers(api.supervisor_token)
    )
    assert resolved.get_json()["error"] == expected


def test_every_reason_is_documented_in_the_openapi_document(api: Api) -> None:
    document = api.client().get("/v1/openapi.json", headers=api.headers()).get_json()
    reason = document["components"]["schemas"]["SendError"]["properties"]["reason"]
    assert reason["enum"] == [member.value for member in ErrorReason]
    for member in ErrorReason:
        assert member.value in reason["description"]


@pytest.mark.parametrize(
    ("code", "title", "reason"),
    [
        (None, "outcome unknown", ErrorReason.NO_ANSWER_AFTER_SEND),
        (None, "lease expired", ErrorReason.LEASE_EXPIRED),
        (None, "request not sent", ErrorReason.REQUEST_NOT_SENT),
        (None, "accepted without a message id", ErrorReason.ACCEPTED_WITHOUT_MESSAGE_ID),
        (None, "stored payload cannot be sent", ErrorReason.PAYLOAD_UNSENDABLE),
        (None, "HTTP 502", ErrorReason.OTHER),
        (None, None, ErrorReason.OTHER),
        (131047, "lease expired", ErrorReason.META_ERROR),
    ],
)
def test_the_reason_of_a_code_and_title(code: int | None, title: str | None, reason: ErrorReason) -> None:
    assert error_reason(code, title) is reason
