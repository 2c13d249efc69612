"""GET /v1/reports/summary on a hand-built history: response times, resolutions, agents, purposes, CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.integration.web.conftest import Api, add_outbox_row, deliver_webhook
from tests.integration.webhooks.support import text_message

NIGHT_CUSTOMER = "16505551234"
DAY_CUSTOMER = "16505550000"


def _at(api: Api, moment: datetime) -> None:
    api.clock.now = moment


def _conversation_of(api: Api, wamid: str) -> int:
    from sqlalchemy import select

    from backend.database.models import InboundMessage

    with api.database.reader() as session:
        found = session.scalar(select(InboundMessage.conversation_id).where(InboundMessage.wamid == wamid))
    assert found is not None
    return int(found)


def _customer_writes(api: Api, moment: datetime, wamid: str, sender: str, **extra: Any) -> int:
    _at(api, moment)
    deliver_webhook(api, text_message(wamid, sender=sender, sent_at=moment, **extra))
    return _conversation_of(api, wamid)


def _reply(api: Api, moment: datetime, conversation: int, token: str, key: str) -> None:
    _at(api, moment)
    answer = api.client().post(
        f"/v1/conversations/{conversation}/reply",
        json={"text": "On it", "force": True},
        headers=api.headers(token, Idempotency_Key=key),
    )
    assert answer.status_code == 202, answer.get_json()


def _status(api: Api, moment: datetime, conversation: int, status: str, token: str) -> None:
    _at(api, moment)
    answer = api.client().post(
        f"/v1/conversations/{conversation}/status", json={"status": status}, headers=api.headers(token)
    )
    assert answer.status_code == 200, answer.get_json()


def _history(api: Api) -> None:
    """Two conversations over a night and a day, in UTC (Berlin is UTC+1 in November)."""
    night = _customer_writes(api, datetime(2026, 11, 28, 22, 30, tzinfo=UTC), "wamid.n1", NIGHT_CUSTOMER)
    # Still unanswered: the wait goes on counting from the first message (00:10 on the 29th in Berlin).
    _customer_writes(api, datetime(2026, 11, 28, 23, 10, tzinfo=UTC), "wamid.n2", NIGHT_CUSTOMER)
    _reply(api, datetime(2026, 11, 29, 7, 30, tzinfo=UTC), night, api.agent_token, "r1")  # 9 h later
    _reply(api, datetime(2026, 11, 29, 7, 35, tzinfo=UTC), night, api.agent_token, "r2")  # not a first one
    _status(api, datetime(2026, 11, 29, 8, 0, tzinfo=UTC), night, "resolved", api.agent_token)

    day = _customer_writes(api, datetime(2026, 11, 29, 10, 0, tzinfo=UTC), "wamid.d1", DAY_CUSTOMER)
    _reply(api, datetime(2026, 11, 29, 10, 5, tzinfo=UTC), day, api.other_agent_token, "r3")  # 300 s
    _status(api, datetime(2026, 11, 29, 10, 10, tzinfo=UTC), day, "resolved", api.supervisor_token)
    # The customer writes again: the conversation reopens, and a new wait starts.
    _customer_writes(api, datetime(2026, 11, 29, 12, 0, tzinfo=UTC), "wamid.d2", DAY_CUSTOMER)
    _reply(api, datetime(2026, 11, 29, 12, 20, tzinfo=UTC), day, api.other_agent_token, "r4")  # 1200 s
    _at(api, datetime(2026, 12, 2, 9, 0, tzinfo=UTC))


def _summary(api: Api, query: str, token: str | None = None) -> Any:
    return api.client().get(
        f"/v1/reports/summary?{query}", headers=api.headers(token or api.supervisor_token)
    )


BERLIN_RANGE = "from=2026-11-28&to=2026-12-01&tz=Europe/Berlin"


def test_response_times_resolutions_and_agents_on_local_days(api: Api) -> None:
    _history(api)
    answer = _summary(api, BERLIN_RANGE)
    assert answer.status_code == 200, answer.get_json()
    report = answer.get_json()
    assert [bucket["start"] for bucket in report["buckets"]] == [
        "2026-11-28T00:00:00+01:00",
        "2026-11-29T00:00:00+01:00",
        "2026-11-30T00:00:00+01:00",
    ]
    saturday, sunday, monday = report["buckets"]
    assert (saturday["inbound"], sunday["inbound"]) == (1, 3)
    assert (saturday["conversations_opened"], sunday["conversations_opened"]) == (1, 2)  # B new, B reopened
    assert sunday["outbound"] == 4
    assert sunday["conversations_resolved"] == 2
    # First responses 32,400 (across the night), 300 and 1,200 s; nearest-rank percentiles.
    assert sunday["first_response_seconds"] == {"p50": 1200, "p90": 32400}
    # Resolutions: 9.5 h from the first night message; 600 s for the day conversation.
    assert sunday["resolution_seconds"] == {"p50": 600, "p90": 34200}
    assert saturday["first_response_seconds"] == {"p50": None, "p90": None}
    # An empty day is present with zeros.
    assert monday == {
        "start": "2026-11-30T00:00:00+01:00",
        "inbound": 0,
        "outbound": 0,
        "conversations_opened": 0,
        "conversations_resolved": 0,
        "first_response_seconds": {"p50": None, "p90": None},
        "resolution_seconds": {"p50": None, "p90": None},
    }
    assert report["agents"] == [
        {
            "user": "alice",
            "replies": 2,
            "conversations_resolved": 1,
            "first_response_seconds": {"p50": 32400, "p90": 32400},
        },
        {
            "user": "bob",
            "replies": 2,
            "conversations_resolved": 0,
            "first_response_seconds": {"p50": 300, "p90": 1200},
        },
        {
            "user": "sam",
            "replies": 0,
            "conversations_resolved": 1,
            "first_response_seconds": {"p50": None, "p90": None},
        },
    ]


def test_the_same_history_in_utc_puts_the_late_message_on_the_earlier_day(api: Api) -> None:
    _history(api)
    report = _summary(api, "from=2026-11-28T00:00:00Z&to=2026-11-30T00:00:00Z").get_json()
    assert [bucket["start"] for bucket in report["buckets"]] == [
        "2026-11-28T00:00:00+00:00",
        "2026-11-29T00:00:00+00:00",
    ]
    assert [bucket["inbound"] for bucket in report["buckets"]] == [2, 2]


def test_hour_buckets_in_a_half_hour_zone(api: Api) -> None:
    _history(api)
    report = _summary(api, "from=2026-11-29T15:00&to=2026-11-29T18:00&bucket=hour&tz=Asia/Kolkata").get_json()
    # 10:00 UTC is 15:30 in India: the first local hour holds the day customer's first message.
    starts = [bucket["start"] for bucket in report["buckets"]]
    assert starts == ["2026-11-29T15:00:00+05:30", "2026-11-29T16:00:00+05:30", "2026-11-29T17:00:00+05:30"]
    assert [bucket["inbound"] for bucket in report["buckets"]] == [1, 0, 1]
    assert report["buckets"][0]["first_response_seconds"] == {"p50": 300, "p90": 300}


def test_purposes_count_outcomes_and_replies(api: Api) -> None:
    moment = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    api.clock.now = moment
    for key, state, purpose in [
        ("a", "read", "reminder"),
        ("b", "delivered", "reminder"),
        ("c", "failed", "reminder"),
        ("d", "unknown", "reminder"),
        ("e", "sent", "order_shipped"),
        ("f", "queued", "order_shipped"),
    ]:
        add_outbox_row(api, key, state, purpose=purpose, wamid=f"wamid.out.{key}")
    _customer_writes(api, moment + timedelta(minutes=5), "wamid.q", NIGHT_CUSTOMER, context_id="wamid.out.a")
    report = _summary(api, "from=2026-11-29&to=2026-11-30").get_json()
    assert report["purposes"] == [
        {
            "purpose": "order_shipped",
            "sent": 1,
            "delivered": 0,
            "read": 0,
            "failed": 0,
            "unknown": 0,
            "replied": 0,
        },
        {
            "purpose": "reminder",
            "sent": 2,
            "delivered": 2,
            "read": 1,
            "failed": 1,
            "unknown": 1,
            "replied": 1,
        },
    ]


def test_csv_sections_have_a_header_and_quote_what_needs_it(api: Api) -> None:
    _history(api)
    moment = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    api.clock.now = moment
    add_outbox_row(api, "q", "read", purpose='=cmd|"x, y"')
    buckets = _summary(api, BERLIN_RANGE + "&format=csv")
    assert buckets.status_code == 200
    assert buckets.content_type == "text/csv; charset=utf-8"
    assert "attachment" in buckets.headers["Content-Disposition"]
    text = buckets.data.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "start",
        "inbound",
        "outbound",
        "conversations_opened",
        "conversations_resolved",
        "first_response_p50_seconds",
        "first_response_p90_seconds",
        "resolution_p50_seconds",
        "resolution_p90_seconds",
    ]
    assert rows[2] == ["2026-11-29T00:00:00+01:00", "3", "5", "2", "2", "1200", "32400", "600", "34200"]
    assert rows[3][5:] == ["", "", "", ""]  # no measure: an empty cell, not "None"
    assert text.endswith("\r\n")
    agents = list(
        csv.reader(
            io.StringIO(_summary(api, BERLIN_RANGE + "&format=csv&section=agents").data.decode("utf-8-sig"))
        )
    )
    assert agents[0] == [
        "user",
        "replies",
        "conversations_resolved",
        "first_response_p50_seconds",
        "first_response_p90_seconds",
    ]
    assert agents[1] == ["alice", "2", "1", "32400", "32400"]
    raw = _summary(api, BERLIN_RANGE + "&format=csv&section=purposes").data.decode("utf-8-sig")
    # A comma and quotes are quoted; a leading = is kept as text rather than run as a formula.
    assert '"\'=cmd|""x, y"""' in raw
    purposes = list(csv.reader(io.StringIO(raw)))
    assert purposes[0] == ["purpose", "sent", "delivered", "read", "failed", "unknown", "replied"]
    assert ['\'=cmd|"x, y"', "1", "1", "1", "0", "0", "0"] in purposes


def test_agents_get_403_and_bad_ranges_get_precise_400s(api: Api) -> None:
    assert _summary(api, "", token=api.agent_token).status_code == 403
    for query, code in [
        ("from=2025-01-01T00:00:00Z&to=2026-03-01T00:00:00Z", "invalid_range"),
        ("from=2026-11-29T00:00:00Z&to=2026-11-28T00:00:00Z", "invalid_range"),
        ("from=yesterday", "invalid_parameter"),
        ("tz=Mars/Olympus", "invalid_parameter"),
        ("bucket=week", "invalid_parameter"),
        ("format=xlsx", "invalid_parameter"),
        ("format=csv&section=people", "invalid_parameter"),
    ]:
        answer = _summary(api, query)
        assert answer.status_code == 400, query
        assert answer.get_json()["error"]["code"] == code, query


@pytest.mark.parametrize("query", ["", "bucket=hour"])
def test_the_default_range_is_the_last_seven_days(api: Api, query: str) -> None:
    api.clock.now = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    report = _summary(api, query).get_json()
    count = len(report["buckets"])
    assert count == (8 if query == "" else 7 * 24)
    assert report["buckets"][0]["start"].startswith("2026-11-22T")
