"""After a restore, sends in flight at the snapshot are `unknown` (restored_from_backup), API and queue."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from backend.database.models import OutboxMessage, SendDecision
from backend.domain import states
from backend.outbox.restored import mark_restored_in_flight
from backend.outbox.sweepers import resolve_unknown
from tests.conftest import journal_entries

from .conftest import Api, add_outbox_row


def test_queued_sending_and_unknown_rows_become_unknown_and_nothing_else_moves(api: Api) -> None:
    now = api.clock.now
    add_outbox_row(api, "was-queued", states.QUEUED, claimed_by="claim-1")
    add_outbox_row(
        api,
        "was-sending",
        states.SENDING,
        attempts=1,
        claimed_by="claim-2",
        lease_expires_at=now + timedelta(seconds=30),
        last_attempt_at=now,
    )
    add_outbox_row(api, "was-unknown", states.UNKNOWN, attempts=1, unknown_since=now, hold_reason="review")
    add_outbox_row(api, "was-read", states.READ, attempts=1, wamid="wamid.R", read_at=now)
    add_outbox_row(api, "was-failed", states.FAILED, attempts=1, failed_at=now)
    add_outbox_row(api, "was-held", states.HELD, attempts=1, hold_reason="window_closed")

    with api.database.transaction() as session:
        changed = mark_restored_in_flight(session, now)
    assert changed == ["was-queued", "was-sending", "was-unknown"]

    client = api.client()
    for key in changed:
        message = client.get(f"/v1/messages/{key}", headers=api.headers()).get_json()
        assert message["state"] == "unknown", message
        assert message["error"]["reason"] == "restored_from_backup"
    for key, state in (("was-read", "read"), ("was-failed", "failed"), ("was-held", "held")):
        assert client.get(f"/v1/messages/{key}", headers=api.headers()).get_json()["state"] == state
    with api.database.reader() as session:
        rows = {row.dedupe_key: row for row in session.scalars(select(OutboxMessage))}
    for key in changed:
        assert (rows[key].lease_expires_at, rows[key].claimed_by, rows[key].hold_reason) == (None, None, None)
        assert rows[key].unknown_since == now

    queue = client.get("/v1/supervisor/queue", headers=api.headers(api.supervisor_token)).get_json()
    shown = {item["key"]: item for item in queue["items"]}
    assert set(changed) <= set(shown)
    assert {shown[key]["error"]["reason"] for key in changed} == {"restored_from_backup"}
    # The two rows that changed state are journaled for the live clients; unknown stays unknown.
    entries = [entry.data for entry in journal_entries(api.database, "message.state_changed")]
    assert sorted((entry["key"], entry["previous_state"]) for entry in entries) == [
        ("was-queued", "queued"),
        ("was-sending", "sending"),
    ]


def test_a_restored_row_follows_its_purposes_rule_review_by_default(api: Api) -> None:
    add_outbox_row(api, "restored-1", states.QUEUED)
    with api.database.transaction() as session:
        mark_restored_in_flight(session, api.clock.now)
    api.clock.advance(api.settings.unknown_wait_seconds + 1)
    with api.database.transaction() as session:
        decisions = resolve_unknown(session, api.settings, api.clock.now)
    assert [(decision.key, decision.action) for decision in decisions] == [("restored-1", "review")]
    with api.database.reader() as session:
        row = session.scalars(select(OutboxMessage)).one()
        assert (row.state, row.hold_reason) == ("unknown", "review")
        assert session.scalars(select(SendDecision.action)).all() == ["review"]
