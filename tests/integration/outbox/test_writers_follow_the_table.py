"""Writers leave a state as the table says: the old state's marks cleared, milestones filled once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import update

from backend.database import Database
from backend.database.models import OutboxMessage, StatusEvent
from backend.domain.outcomes import OutcomeKind, SendOutcome
from backend.outbox.claim import ClaimedMessage
from backend.outbox.outcomes import record_outcomes
from backend.outbox.sweepers import resolve_unknown
from backend.settings import Settings
from tests.conftest import journal_entries
from tests.integration.outbox.conftest import START, enqueue_all, number, rows, template_request

EARLIER = START - timedelta(hours=1)


def _unknown_row(database: Database, settings: Settings, **fields: object) -> OutboxMessage:
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    with database.transaction() as session:
        session.execute(
            update(OutboxMessage).values(
                state="unknown", attempts=1, unknown_since=START, claimed_by="w1", **fields
            )
        )
    return rows(database)["k1"]


def test_acceptance_on_evidence_ends_the_stay_in_unknown(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(unknown_wait_seconds=10.0)
    _unknown_row(database, settings, accepted_at=EARLIER)
    with database.transaction() as session:
        session.add(
            StatusEvent(
                wamid="wamid.EVIDENCE",
                status="sent",
                occurred_at=START,
                callback_data="k1",
                received_at=START,
            )
        )
    with database.transaction() as session:
        decisions = resolve_unknown(session, settings, START + timedelta(seconds=11))
    assert [decision.action for decision in decisions] == ["accepted"]
    row = rows(database)["k1"]
    assert (row.state, row.wamid) == ("accepted", "wamid.EVIDENCE")
    assert row.unknown_since is None
    assert row.claimed_by is None
    assert row.accepted_at == EARLIER  # a milestone is filled once, never moved


def test_a_late_acceptance_keeps_the_first_acceptance_time(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for()
    row = _unknown_row(database, settings, accepted_at=EARLIER)
    claimed = ClaimedMessage(
        id=row.id,
        dedupe_key="k1",
        to_number=row.to_number,
        purpose=row.purpose,
        kind=row.kind,
        payload=row.payload,
        reply_to=None,
        conversation_id=row.conversation_id,
        attempts=1,
        dispatch_at=START,
        token="w1/1",
        lease_expires_at=START,
    )
    with database.transaction() as session:
        summary = record_outcomes(
            session,
            [(claimed, SendOutcome(OutcomeKind.ACCEPTED, wamid="wamid.LATE"))],
            settings=settings,
            now=START + timedelta(minutes=3),
            jitter=lambda: 0.0,
        )
    assert summary.by_state == {"accepted": 1}
    after = rows(database)["k1"]
    assert (after.state, after.wamid, after.accepted_at) == ("accepted", "wamid.LATE", EARLIER)
    assert after.unknown_since is None
    entry = journal_entries(database)[-1]
    assert entry.data == {
        "key": "k1",
        "conversation_id": row.conversation_id,
        "state": "accepted",
        "previous_state": "unknown",
        "wamid": "wamid.LATE",
    }
