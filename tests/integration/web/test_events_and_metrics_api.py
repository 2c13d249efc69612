"""The long-poll event feed, metrics (JSON and Prometheus) and templates."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import insert

from backend import counters
from backend.database.models import BackupRecord, JournalEntry, OutboxMessage, PendingJournalEntry
from tests.integration.web.conftest import Api, add_inbound

TEXT = {"to": "+16505551234", "purpose": "support", "text": "hello"}


def _events(api: Api, query: str):  # type: ignore[no-untyped-def]
    return api.client().get(f"/v1/events?{query}", headers=api.headers())


def test_a_client_resuming_from_its_last_seq_misses_nothing(api: Api) -> None:
    for index in range(5):
        assert api.send(f"e-{index}", TEXT).status_code == 202
    seen: list[int] = []
    after = 0
    for _ in range(4):
        page = _events(api, f"after={after}&limit=2").get_json()
        seen += [event["seq"] for event in page["events"]]
        after = page["next"]
    assert len(seen) == 5 and seen == sorted(seen)
    first = _events(api, "after=0&limit=1").get_json()["events"][0]
    assert first["type"] == "message.queued"
    assert first["data"]["key"] == "e-0"
    assert first["at"] == "2026-11-29T09:00:00Z"
    empty = _events(api, f"after={after}").get_json()
    assert empty == {"events": [], "next": after}


@pytest.mark.timeout(30)
def test_a_long_poll_wakes_as_soon_as_this_process_journals(api: Api) -> None:
    def send_later() -> None:
        time.sleep(0.3)
        api.send("late", TEXT)

    threading.Thread(target=send_later).start()
    started = time.monotonic()
    page = _events(api, "after=0&wait=10").get_json()
    assert [event["data"]["key"] for event in page["events"]] == ["late"]
    assert time.monotonic() - started < 3


@pytest.mark.timeout(30)
def test_a_long_poll_sees_entries_written_by_another_process(api: Api) -> None:
    def write_behind_our_back() -> None:
        time.sleep(0.3)
        # A plain connection fires no session events, like a worker in another process; on
        # PostgreSQL its entry waits in the pending table, as every writer's does, to be numbered.
        table = JournalEntry if api.database.is_sqlite else PendingJournalEntry
        with api.database.engine.begin() as connection:
            connection.execute(
                insert(table).values(type="window.closed", at=api.clock.now, data={"conversation_id": 1})
            )

    threading.Thread(target=write_behind_our_back).start()
    started = time.monotonic()
    page = _events(api, "after=0&wait=10").get_json()
    assert [event["type"] for event in page["events"]] == ["window.closed"]
    assert time.monotonic() - started < 3


@pytest.mark.timeout(30)
def test_a_long_poll_with_nothing_new_returns_after_the_wait(api: Api) -> None:
    started = time.monotonic()
    page = _events(api, "after=0&wait=0.6").get_json()
    assert page == {"events": [], "next": 0}
    assert 0.5 < time.monotonic() - started < 3


@pytest.mark.parametrize(
    "query", ["wait=31", "wait=-1", "wait=abc", "wait=nan", "after=-1", "after=x", "limit=0"]
)
def test_bad_event_parameters_are_400(api: Api, query: str) -> None:
    response = _events(api, query)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_parameter"


def test_metrics_report_the_five_measures_and_the_queue(api: Api) -> None:
    now = api.clock.now
    api.send("m-1", TEXT)
    api.send("m-1", {**TEXT, "text": "other"})  # refused by the key, not counted as a dedupe
    add_inbound(api.database, "+447911123456", "wamid.in", at=now)
    with api.database.transaction() as session:
        counters.bump(session, counters.DUPLICATE_WEBHOOKS, 3)
        counters.bump(session, counters.WEBHOOK_PARSE_FAILURES)
        counters.bump(session, counters.DEDUPE_REJECTIONS, 2)
        base = {
            "to_number": "+16505551234",
            "purpose": "p",
            "kind": "text",
            "payload": {"text": "x"},
            "not_before": now,
            "created_at": now,
        }
        for index, gap in enumerate((1.0, 2.0, 3.0, 4.0)):
            session.add(
                OutboxMessage(
                    dedupe_key=f"d-{index}",
                    state="delivered",
                    sent_at=now - timedelta(minutes=10),
                    delivered_at=now - timedelta(minutes=10) + timedelta(seconds=gap),
                    updated_at=now,
                    **base,
                )
            )
        session.add(
            OutboxMessage(
                dedupe_key="old",
                state="delivered",
                sent_at=now - timedelta(hours=3),
                delivered_at=now - timedelta(hours=2),
                updated_at=now,
                **base,
            )
        )
        session.add(
            OutboxMessage(dedupe_key="stuck", state="sending", updated_at=now - timedelta(minutes=2), **base)
        )
        session.add(OutboxMessage(dedupe_key="fresh", state="sending", updated_at=now, **base))
    response = api.client().get("/v1/metrics", headers=api.headers())
    assert response.status_code == 200
    measures = response.get_json()
    assert measures == {
        "sending_over_1m": 1,
        "dedupe_rejections": 2,
        "duplicate_webhooks": 3,
        "unattributed_inbound": 1,
        "sent_to_delivered_seconds": {"p50": 2.0, "p95": 4.0},
        "queue_depth": {**measures["queue_depth"], "queued": 1, "sending": 2, "delivered": 5},
        "webhook_parse_failures": 1,
        "cross_contact_quotes": 0,
        "foreign_number_events": 0,
        "webhook_subscriptions_disabled": 0,
        "outgoing_deliveries_pending": 0,
        "outgoing_deliveries_failed": 0,
        "last_backup_at": None,
        "data_folder_free_bytes": measures["data_folder_free_bytes"],
        "media": {"files": 0, "bytes": 0, "pending": 0, "failed": 0},
        # No reading from Meta yet and no tier set by hand: no limit.
        "messaging_tier": {"tier": None, "limit": None, "set_by_hand": False},
        "quality_rating": {"rating": None, "dropped": False, "updated_at": None},
        "number_health_history": [],
    }
    assert measures["data_folder_free_bytes"] > 0
    assert set(measures["queue_depth"]) >= {"queued", "unknown", "held", "failed"}
    text = api.client().get("/metrics").get_data(as_text=True)
    assert "\nduplicate_webhooks 3\n" in text
    assert 'sent_to_delivered_seconds{quantile="0.95"} 4.0' in text
    assert 'queue_depth{state="sending"} 2' in text
    assert "# TYPE dedupe_rejections counter" in text


def test_metrics_name_the_newest_backup(api: Api) -> None:
    with api.database.transaction() as session:
        for hours, reason in ((30, "daily"), (2, "manual"), (50, "pre_upgrade")):
            session.add(
                BackupRecord(
                    taken_at=api.clock.now - timedelta(hours=hours),
                    reason=reason,
                    archive=f"/backups/{reason}.tar.gz",
                    size_bytes=10,
                )
            )
    measures = api.client().get("/v1/metrics", headers=api.headers()).get_json()
    newest = api.clock.now - timedelta(hours=2)
    assert measures["last_backup_at"] == newest.isoformat().replace("+00:00", "Z")
    assert "\ndata_folder_free_bytes " in api.client().get("/metrics").get_data(as_text=True)


def test_templates_are_listed_from_the_templates_file(api: Api) -> None:
    response = api.client().get("/v1/templates", headers=api.headers())
    assert response.status_code == 200
    listed = {(t["name"], t["language"]): t for t in response.get_json()["templates"]}
    assert listed[("order_shipped", "en")]["parameter_count"] == 1
    assert response.get_json()["next_cursor"] is None


def test_a_commit_that_journals_signals_waiting_polls_and_a_rollback_does_not(api: Api) -> None:
    from backend.journal import journal

    signal = api.parts.journal_signal
    before = signal.generation()
    with api.database.transaction() as session:
        session.execute(insert(JournalEntry).values(type="x", at=api.clock.now, data={}))  # no ORM object
    assert signal.generation() == before
    with pytest.raises(RuntimeError), api.database.transaction() as session:
        journal(session, "window.closed", {"conversation_id": 1}, api.clock.now)
        session.flush()
        raise RuntimeError("rolled back")
    assert signal.generation() == before
    with api.database.transaction() as session:
        journal(session, "window.closed", {"conversation_id": 1}, api.clock.now)
    assert signal.generation() == before + 1
