"""Status webhooks: forward only, failed wins but final states stay, each time kept, unknown rows resolved."""

from __future__ import annotations

from datetime import timedelta

from flask.testing import FlaskClient
from sqlalchemy import select, update

from backend import counters
from backend.database import Database
from backend.database.models import OutboxMessage, StatusEvent
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.webhooks.support import NOW, add_outbox_row, deliver, status, statuses

T1, T2, T3 = NOW + timedelta(seconds=1), NOW + timedelta(seconds=2), NOW + timedelta(seconds=3)


def _row(database: Database, row_id: int) -> OutboxMessage:
    with database.reader() as session:
        return session.get_one(OutboxMessage, row_id)


def test_a_late_status_fills_its_time_but_never_moves_the_state_back(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    row_id = add_outbox_row(database, key="k1", wamid="wamid.A")
    deliver(client, processor, statuses(status("wamid.A", "read", at=T3)))
    deliver(
        client, processor, statuses(status("wamid.A", "delivered", at=T2), status("wamid.A", "sent", at=T1))
    )
    row = _row(database, row_id)
    assert row.state == "read"
    assert (row.sent_at, row.delivered_at, row.read_at) == (T1, T2, T3)
    changes = journal_entries(database, "message.state_changed")
    assert [entry.data["state"] for entry in changes] == ["read"]
    assert changes[0].data == {
        "key": "k1",
        "conversation_id": row.conversation_id,
        "state": "read",
        "previous_state": "accepted",
        "wamid": "wamid.A",
    }


def test_played_counts_as_read_and_failed_always_wins(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    played = add_outbox_row(database, key="k-played", wamid="wamid.P")
    failed = add_outbox_row(database, key="k-failed", wamid="wamid.F")
    error = {
        "code": 131049,
        "title": "This message was not delivered to maintain healthy ecosystem engagement.",
        "error_data": {"details": "In order to maintain a healthy ecosystem engagement..."},
    }
    deliver(
        client,
        processor,
        statuses(status("wamid.P", "played", at=T2), status("wamid.F", "read", at=T1)),
        statuses(status("wamid.P", "delivered", at=T1), status("wamid.F", "failed", at=T2, errors=[error])),
    )
    assert _row(database, played).state == "read"
    assert _row(database, played).read_at == T2
    row = _row(database, failed)
    assert row.state == "failed"
    assert row.failed_at == T2
    assert (row.last_error_code, row.last_error_title) == (131049, error["title"])
    assert row.last_error_details == error["error_data"]["details"]


def test_a_status_naming_an_unknown_or_sending_row_by_key_resolves_it(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    unknown = add_outbox_row(database, key="order-1:shipped", wamid=None, state="unknown")
    sending = add_outbox_row(database, key="order-2:shipped", wamid=None, state="sending")
    queued = add_outbox_row(database, key="order-3:shipped", wamid=None, state="queued")
    deliver(
        client,
        processor,
        statuses(
            status("wamid.U", "delivered", callback_data="order-1:shipped"),
            status("wamid.S", "sent", callback_data="order-2:shipped"),
            status("wamid.Q", "sent", callback_data="order-3:shipped"),
        ),
    )
    assert (_row(database, unknown).state, _row(database, unknown).wamid) == ("delivered", "wamid.U")
    assert (_row(database, sending).state, _row(database, sending).wamid) == ("sent", "wamid.S")
    # A queued row was never handed to Meta by us: a status naming it is evidence, not a resolution.
    assert (_row(database, queued).state, _row(database, queued).wamid) == ("queued", None)
    # Later statuses find the resolved row by its wamid alone.
    deliver(client, processor, statuses(status("wamid.U", "read")))
    assert _row(database, unknown).state == "read"


def test_statuses_for_messages_we_never_sent_are_kept_and_counted(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    deliver(client, processor, statuses(status("wamid.STRANGER", "delivered"), status("wamid.OTHER", "sent")))
    with database.reader() as session:
        kept = session.scalars(select(StatusEvent).order_by(StatusEvent.id)).all()
        assert [(event.wamid, event.status, event.message_id) for event in kept] == [
            ("wamid.STRANGER", "delivered", None),
            ("wamid.OTHER", "sent", None),
        ]
        assert counters.read(session, counters.UNMATCHED_STATUSES) == 2


def test_the_same_status_twice_is_applied_once_and_counted(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    add_outbox_row(database, key="k1", wamid="wamid.D")
    deliver(
        client, processor, statuses(status("wamid.D", "delivered")), statuses(status("wamid.D", "delivered"))
    )
    with database.reader() as session:
        assert len(session.scalars(select(StatusEvent)).all()) == 1
        assert counters.read(session, counters.DUPLICATE_WEBHOOKS) == 1


def test_value_errors_without_messages_are_counted_and_the_body_is_done(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    error = {
        "code": 130429,
        "title": "Rate limit hit",
        "message": "Rate limit hit",
        "error_data": {"details": "Message failed to send because there were too many messages sent"},
    }
    deliver(client, processor, {"errors": [error]})
    with database.reader() as session:
        assert counters.read(session, "webhook_value_errors") == 1
        assert counters.read(session, counters.WEBHOOK_PARSE_FAILURES) == 0


def test_a_status_taking_a_row_out_of_sending_or_unknown_clears_its_lease_worker_and_review_mark(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    sending = add_outbox_row(database, key="order-1:shipped", wamid=None, state="sending")
    unknown = add_outbox_row(database, key="order-2:shipped", wamid=None, state="unknown")
    with database.transaction() as session:
        session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == sending)
            .values(lease_expires_at=NOW + timedelta(seconds=30), claimed_by="worker-1")
        )
        session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == unknown)
            .values(unknown_since=NOW, hold_reason="review", claimed_by="worker-1")
        )
    deliver(
        client,
        processor,
        statuses(
            status("wamid.S", "sent", callback_data="order-1:shipped"),
            status("wamid.U", "delivered", callback_data="order-2:shipped"),
        ),
    )
    for row_id, state in ((sending, "sent"), (unknown, "delivered")):
        row = _row(database, row_id)
        assert row.state == state
        assert (row.lease_expires_at, row.claimed_by, row.hold_reason, row.unknown_since) == (None,) * 4


def test_a_failed_status_for_a_cancelled_row_is_kept_as_evidence_and_the_row_stays_cancelled(
    database: Database, client: FlaskClient, processor: WebhookProcessor
) -> None:
    row_id = add_outbox_row(database, key="k-cancelled", wamid="wamid.C", state="cancelled")
    error = {"code": 131026, "title": "Message undeliverable", "error_data": {"details": "not on WhatsApp"}}
    deliver(client, processor, statuses(status("wamid.C", "failed", at=T1, errors=[error])))
    row = _row(database, row_id)
    assert row.state == "cancelled"
    assert row.failed_at == T1
    assert (row.last_error_code, row.last_error_details) == (131026, "not on WhatsApp")
    assert journal_entries(database, "message.state_changed") == []
