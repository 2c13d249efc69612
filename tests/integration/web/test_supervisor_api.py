"""The supervisor queue with evidence, and supervisor decisions."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from backend.database.models import SendDecision, StatusEvent
from tests.integration.web.conftest import Api, add_inbound, add_outbox_row


def _supervisor(api: Api) -> dict[str, str]:
    return api.headers(api.supervisor_token)


def test_the_queue_lists_unknown_held_and_stuck_sending_with_evidence(api: Api) -> None:
    now = api.clock.now
    add_outbox_row(
        api,
        "unknown-1",
        "unknown",
        attempts=2,
        last_error_code=131000,
        last_error_title="Timeout",
        unknown_since=now - timedelta(minutes=4),
    )
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.in", at=now, name="Dana")
    add_outbox_row(api, "held-1", "held", hold_reason="window_closed", conversation_id=conversation)
    add_outbox_row(api, "stuck-1", "sending", lease_expires_at=now - timedelta(seconds=1), attempts=1)
    add_outbox_row(api, "working-1", "sending", lease_expires_at=now + timedelta(seconds=20))
    add_outbox_row(api, "queued-1", "queued")
    with api.database.transaction() as session:
        session.add(
            StatusEvent(
                wamid="wamid.seen",
                status="delivered",
                occurred_at=now - timedelta(minutes=3),
                callback_data="unknown-1",
                received_at=now - timedelta(minutes=3),
            )
        )
    response = api.client().get("/v1/supervisor/queue", headers=_supervisor(api))
    assert response.status_code == 200
    items = {item["key"]: item for item in response.get_json()["items"]}
    assert set(items) == {"unknown-1", "held-1", "stuck-1"}
    unknown = items["unknown-1"]
    assert unknown["attempts"] == 2
    assert unknown["last_error"] == {
        "code": 131000,
        "title": "Timeout",
        "details": None,
        "reason": "meta_error",
    }
    assert unknown["error"] == unknown["last_error"]
    assert unknown["age_seconds"] == 600
    assert [e["wamid"] for e in unknown["evidence"]] == ["wamid.seen"]
    assert unknown["evidence"][0]["callback_data"] == "unknown-1"
    assert items["stuck-1"]["reason"] == "sending_past_lease"
    assert items["held-1"]["hold_reason"] == "window_closed"
    assert items["held-1"]["body"] == "x"
    assert items["held-1"]["name"] == "Dana"
    assert response.get_json()["next_cursor"] is None


def test_a_decision_is_applied_and_recorded_with_its_actor(api: Api) -> None:
    add_outbox_row(api, "unknown-2", "unknown")
    response = api.client().post(
        "/v1/messages/unknown-2/resolve", json={"action": "mark_sent"}, headers=_supervisor(api)
    )
    assert response.status_code == 200
    assert response.get_json()["state"] == "sent"
    with api.database.reader() as session:
        decision = session.scalars(select(SendDecision)).one()
        assert decision.actor == "sam"
        assert decision.decided_at == api.clock.now


def test_decisions_that_cannot_apply_are_refused_precisely(api: Api) -> None:
    add_outbox_row(api, "sent-1", "sent")
    path = "/v1/messages/{}/resolve"
    not_resolvable = api.client().post(
        path.format("sent-1"), json={"action": "cancel"}, headers=_supervisor(api)
    )
    assert not_resolvable.status_code == 409
    assert not_resolvable.get_json()["error"]["code"] == "not_resolvable"
    missing = api.client().post(path.format("nope"), json={"action": "cancel"}, headers=_supervisor(api))
    assert missing.status_code == 404
    bad = api.client().post(path.format("sent-1"), json={"action": "shred"}, headers=_supervisor(api))
    assert bad.status_code == 400
    assert bad.get_json()["error"]["code"] == "invalid_action"
    agent = api.client().post(path.format("sent-1"), json={"action": "cancel"}, headers=api.headers())
    assert agent.status_code == 403
