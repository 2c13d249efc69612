"""Supervisor decisions: which states each action applies to, and how each is recorded."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from backend.database import Database
from backend.database.models import OutboxMessage, SendDecision
from backend.outbox.resolution import ResolutionError, resolve_by_supervisor
from backend.settings import Settings
from tests.conftest import journal_entries
from tests.integration.outbox.conftest import START, enqueue_all, number, rows, template_request


def _row_in(database: Database, settings: Settings, state: str, **fields: object) -> str:
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    with database.transaction() as session:
        session.execute(update(OutboxMessage).values(state=state, **fields))
    return "k1"


def _resolve(database: Database, action: str, now_offset: float = 0.0) -> OutboxMessage:
    with database.transaction() as session:
        return resolve_by_supervisor(session, "k1", action, "sam", START + timedelta(seconds=now_offset))  # type: ignore[arg-type]


LEASE_PAST = {"lease_expires_at": START - timedelta(seconds=1)}
LEASE_AHEAD = {"lease_expires_at": START + timedelta(seconds=30)}


@pytest.mark.parametrize(
    "case",
    [
        ("unknown", {}, "mark_sent", "sent"),
        ("sending", LEASE_PAST, "mark_sent", "sent"),
        ("unknown", {}, "resend", "queued"),
        ("sending", LEASE_PAST, "resend", "queued"),
        ("held", {"hold_reason": "window_closed"}, "resend", "queued"),
        ("queued", {}, "cancel", "cancelled"),
        ("unknown", {}, "cancel", "cancelled"),
        ("held", {}, "cancel", "cancelled"),
        ("sending", LEASE_PAST, "cancel", "cancelled"),
    ],
)
def test_allowed_decisions(
    database: Database, settings_for: Callable[..., Settings], case: tuple[str, dict[str, object], str, str]
) -> None:
    state, fields, action, result = case
    _row_in(database, settings_for(), state, **fields)
    message = _resolve(database, action, 5)
    assert message.state == result
    row = rows(database)["k1"]
    assert row.state == result
    assert row.lease_expires_at is None
    if action == "resend":
        assert row.not_before == START + timedelta(seconds=5)
    with database.reader() as session:
        decision = session.scalars(select(SendDecision)).one()
        assert (decision.actor, decision.action) == ("sam", action)
        assert f"was {state}" in decision.reason
    entries = [(entry.type, entry.data) for entry in journal_entries(database)][-2:]
    assert entries[0] == (
        "message.state_changed",
        {
            "key": "k1",
            "conversation_id": row.conversation_id,
            "state": result,
            "previous_state": state,
            "wamid": None,
        },
    )
    assert entries[1] == (
        "supervisor.decision",
        {"key": "k1", "action": action, "actor": "sam", "reason": decision.reason},
    )


@pytest.mark.parametrize(
    ("state", "fields", "action"),
    [
        ("sending", LEASE_AHEAD, "mark_sent"),
        ("sending", LEASE_AHEAD, "resend"),
        ("sending", LEASE_AHEAD, "cancel"),
        ("accepted", {}, "resend"),
        ("delivered", {}, "cancel"),
        ("queued", {}, "mark_sent"),
        ("queued", {}, "resend"),
        ("held", {}, "mark_sent"),
        ("failed", {}, "mark_sent"),
        # `failed` and `cancelled` are final: a new attempt needs a new key.
        ("failed", {}, "resend"),
        ("failed", {}, "cancel"),
        ("cancelled", {}, "resend"),
        ("cancelled", {}, "cancel"),
    ],
)
def test_refused_decisions_change_nothing(
    database: Database,
    settings_for: Callable[..., Settings],
    state: str,
    fields: dict[str, object],
    action: str,
) -> None:
    _row_in(database, settings_for(), state, **fields)
    with pytest.raises(ResolutionError) as error:
        _resolve(database, action)
    assert error.value.code == "not_resolvable"
    assert rows(database)["k1"].state == state
    with database.reader() as session:
        assert session.scalars(select(SendDecision)).first() is None


def test_unknown_key(database: Database) -> None:
    with pytest.raises(ResolutionError) as error, database.transaction() as session:
        resolve_by_supervisor(session, "nope", "cancel", "sam", START)
    assert error.value.code == "not_found"
