"""Opt-outs: how a customer says stop, what is then refused or cancelled, and what still goes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from backend.database.models import Contact, OutboxMessage
from backend.outbox.claim import claim_batch, pacing_rules, start_reserved
from backend.outbox.opt_outs import record_opt_out
from backend.outbox.sender import OutboxSender
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.compliance.conftest import NEWSLETTER
from tests.integration.web.conftest import Api, deliver_webhook
from tests.integration.webhooks.support import (
    CUSTOMER,
    encode,
    envelope,
    inbound,
    status,
    statuses,
    text_message,
    unix,
)

WA_ID = CUSTOMER
NUMBER = "+" + CUSTOMER
MARKETING_TEMPLATE = {"name": "we_miss_you", "language": "en", "parameters": ["Sheena"]}
UTILITY_TEMPLATE = {"name": "order_shipped", "language": "en", "parameters": ["44812"]}


def _marketing(to: str = NUMBER) -> dict[str, Any]:
    return {"to": to, "purpose": "win_back", "template": MARKETING_TEMPLATE}


def _contact(api: Api) -> Contact:
    with api.database.reader() as session:
        return session.scalars(select(Contact).where(Contact.wa_id == WA_ID)).one()


def _rows(api: Api) -> dict[str, OutboxMessage]:
    with api.database.reader() as session:
        return {row.dedupe_key: row for row in session.scalars(select(OutboxMessage))}


def _customer_writes(api: Api, wamid: str, text: str) -> None:
    deliver_webhook(api, text_message(wamid, body=text, sent_at=api.clock.now))


def _button(wamid: str, payload: str, at: Any) -> dict[str, Any]:
    return inbound(
        {
            "from": CUSTOMER,
            "id": wamid,
            "timestamp": unix(at),
            "type": "button",
            "button": {"payload": payload, "text": "Stop promotions"},
        }
    )


@pytest.mark.parametrize("word", ["STOP", "stop.", "Baja", "ARRÊT", "Stopp", "parar!", " Cancelar "])
def test_a_keyword_alone_opts_the_customer_out_and_confirms_once(api: Api, word: str) -> None:
    _customer_writes(api, "wamid.stop1", word)
    contact = _contact(api)
    assert contact.opted_out_at == api.clock.now
    assert contact.opted_out_reason == "keyword"
    answer = api.client().get(f"/v1/contacts/{WA_ID}", headers=api.headers()).get_json()
    assert answer["opted_out"] is True
    assert answer["opted_out_at"] is not None
    confirmations = [row for row in _rows(api).values() if row.purpose == "opt_out_confirmation"]
    assert len(confirmations) == 1
    assert confirmations[0].payload == {"text": api.settings.opt_out_confirmation_text}
    # Saying it again changes nothing and sends no second confirmation.
    api.clock.advance(60)
    _customer_writes(api, "wamid.stop2", word)
    assert _contact(api).opted_out_at == contact.opted_out_at
    assert len([row for row in _rows(api).values() if row.purpose == "opt_out_confirmation"]) == 1


@pytest.mark.parametrize(
    "text", ["stop sending me the wrong size", "please stop", "Cancelar mi pedido", "bajar", "STOPPED"]
)
def test_a_keyword_in_a_sentence_is_conversation_not_an_opt_out(api: Api, text: str) -> None:
    _customer_writes(api, "wamid.talk", text)
    assert _contact(api).opted_out_at is None
    assert api.send("after-talk", _marketing()).status_code == 202


def test_the_confirmation_can_be_switched_off(make_api: Any) -> None:
    api = make_api(opt_out_confirmation_text=None)
    _customer_writes(api, "wamid.stop", "STOP")
    assert _contact(api).opted_out_at is not None
    assert [row.purpose for row in _rows(api).values()] == []


def test_the_opt_out_button_opts_out(api: Api) -> None:
    deliver_webhook(api, _button("wamid.button", "OPT_OUT", api.clock.now))
    assert _contact(api).opted_out_reason == "button"
    # Any other button is an answer, not an opt-out.
    other = "16505550000"
    value = _button("wamid.confirm", "Confirm", api.clock.now)
    value["contacts"][0]["wa_id"] = other
    value["messages"][0]["from"] = other
    deliver_webhook(api, value)
    with api.database.reader() as session:
        assert session.scalars(select(Contact.opted_out_at).where(Contact.wa_id == other)).one() is None


def test_marketing_to_an_opted_out_customer_is_refused_and_service_messages_still_go(api: Api) -> None:
    _customer_writes(api, "wamid.stop", "STOP")
    refused = api.send("win-back-1", _marketing())
    assert refused.status_code == 409
    assert refused.get_json()["error"]["code"] == "recipient_opted_out"
    by_purpose = api.send("news-1", {"to": NUMBER, "purpose": NEWSLETTER, "template": UTILITY_TEMPLATE})
    assert by_purpose.status_code == 409
    assert by_purpose.get_json()["error"]["code"] == "recipient_opted_out"
    utility = api.send("shipped-1", {"to": NUMBER, "purpose": "order_shipped", "template": UTILITY_TEMPLATE})
    assert utility.status_code == 202
    assert utility.get_json()["marketing"] is False
    conversation_id = _rows(api)["shipped-1"].conversation_id
    reply = api.client().post(
        f"/v1/conversations/{conversation_id}/reply",
        json={"text": "Your refund is on its way."},
        headers=api.headers(Idempotency_Key="reply-1"),
    )
    assert reply.status_code == 202, reply.get_json()
    assert "win-back-1" not in _rows(api)


def test_queued_marketing_is_cancelled_with_its_reason_before_any_call(api: Api) -> None:
    assert api.send("win-back-1", _marketing()).status_code == 202
    assert api.send("news-1", {"to": NUMBER, "purpose": NEWSLETTER, "text": "Sale!"}).status_code == 202
    assert (
        api.send(
            "shipped-1", {"to": NUMBER, "purpose": "order_shipped", "template": UTILITY_TEMPLATE}
        ).status_code
        == 202
    )
    assert api.send("other-1", _marketing("+16505550000")).status_code == 202
    # A claim reserved one of them before the customer wrote; its start must then match nothing.
    with api.database.transaction() as session:
        claimed = claim_batch(
            session,
            rules=pacing_rules(api.settings),
            lease_seconds=30,
            now=api.clock.now,
            limit=1,
            worker_id="test",
            start_lead_seconds=-1,
        )
    assert [message.dedupe_key for message in claimed] == ["win-back-1"]
    _customer_writes(api, "wamid.stop", "STOP")
    rows = _rows(api)
    assert {
        key: rows[key].state for key in rows if key != next(k for k in rows if k.startswith("opt-out"))
    } == {
        "win-back-1": "cancelled",
        "news-1": "cancelled",
        "shipped-1": "queued",
        "other-1": "queued",
    }
    message = api.client().get("/v1/messages/win-back-1", headers=api.headers()).get_json()
    assert message["state"] == "cancelled"
    assert message["error"]["reason"] == "recipient_opted_out"
    with api.database.transaction() as session:
        assert start_reserved(session, claimed, now=api.clock.now, lease_seconds=30) == []
    changes = [e.data for e in journal_entries(api.database, "message.state_changed")]
    assert {"key": "win-back-1", "state": "cancelled", "previous_state": "queued"}.items() <= next(
        c for c in changes if c["key"] == "win-back-1"
    ).items()
    opted_out = journal_entries(api.database, "contact.opted_out")
    assert sorted(opted_out[0].data["cancelled"]) == ["news-1", "win-back-1"]


def test_the_claim_cancels_marketing_of_a_contact_opted_out_after_it_was_queued(api: Api) -> None:
    assert api.send("win-back-1", _marketing()).status_code == 202
    assert (
        api.send(
            "shipped-1", {"to": NUMBER, "purpose": "order_shipped", "template": UTILITY_TEMPLATE}
        ).status_code
        == 202
    )
    # An opt-out written without the cancellation (another process's enqueue raced it).
    with api.database.transaction() as session:
        contact = session.scalars(select(Contact).where(Contact.wa_id == WA_ID)).one()
        contact.opted_out_at = api.clock.now
        contact.opted_out_reason = "keyword"
    sent: list[str] = []

    def graph(request: httpx.Request) -> httpx.Response:
        sent.append(request.content.decode())
        return httpx.Response(200, json={"messages": [{"id": f"wamid.{len(sent)}"}]})

    sender = OutboxSender(api.parts, transport=httpx.MockTransport(graph), jitter=lambda: 0.5)
    sender.run_once()
    rows = _rows(api)
    assert rows["win-back-1"].state == "cancelled"
    assert rows["win-back-1"].last_error_title == "recipient opted out"
    assert rows["shipped-1"].state == "accepted"
    assert len(sent) == 1 and "order_shipped" in sent[0]


def test_a_batch_queues_the_others_and_lists_the_opted_out(api: Api) -> None:
    _customer_writes(api, "wamid.stop", "STOP")
    batch = {
        "client_ref": "win-back-december",
        "messages": [
            {"key": "wb:1", **_marketing()},
            {"key": "wb:2", **_marketing("+16505550000")},
            {"key": "wb:3", **_marketing("+16505550001")},
        ],
    }
    first = api.client().post("/v1/messages/batch", json=batch, headers=api.headers())
    assert first.status_code == 202
    answer = first.get_json()
    assert (answer["queued"], answer["duplicates"], answer["opted_out"]) == (2, 0, ["wb:1"])
    again = api.client().post("/v1/messages/batch", json=batch, headers=api.headers())
    assert again.get_json() == answer
    assert set(_rows(api)) >= {"wb:2", "wb:3"}
    assert "wb:1" not in _rows(api)


def test_meta_preference_webhook_stops_and_resumes_marketing(api: Api) -> None:
    stop = {
        "contacts": [{"profile": {"name": "Sheena"}, "wa_id": WA_ID}],
        "user_preferences": [
            {
                "wa_id": WA_ID,
                "detail": "User requested to stop marketing messages",
                "category": "marketing_messages",
                "value": "stop",
                "timestamp": 1731705721,
            }
        ],
    }
    _deliver_field(api, stop, "user_preferences")
    contact = _contact(api)
    assert contact.opted_out_reason == "user_preferences"
    # Meta already told the customer; no confirmation from us.
    assert [row.purpose for row in _rows(api).values()] == []
    assert api.send("win-back-1", _marketing()).status_code == 409
    resume = {
        **stop,
        "user_preferences": [{**stop["user_preferences"][0], "value": "resume", "timestamp": 1731705800}],
    }
    _deliver_field(api, resume, "user_preferences")
    assert _contact(api).opted_out_at is None
    assert api.send("win-back-2", _marketing()).status_code == 202


def test_meta_resume_does_not_undo_a_stop_the_customer_wrote_to_us(api: Api) -> None:
    _customer_writes(api, "wamid.stop", "STOP")
    resume = {
        "user_preferences": [
            {"wa_id": WA_ID, "category": "marketing_messages", "value": "resume", "timestamp": 1731705800}
        ]
    }
    _deliver_field(api, resume, "user_preferences")
    assert _contact(api).opted_out_at is not None


def test_a_131050_failure_opts_the_customer_out(api: Api) -> None:
    assert api.send("win-back-1", _marketing()).status_code == 202
    failed = status(
        "wamid.gone",
        "failed",
        at=api.clock.now,
        errors=[{"code": 131050, "title": "User stopped marketing messages"}],
    )
    deliver_webhook(api, statuses(failed))
    assert _contact(api).opted_out_reason == "meta_131050"
    assert _rows(api)["win-back-1"].state == "cancelled"


def test_a_131050_answer_to_a_send_opts_the_customer_out(api: Api) -> None:
    assert api.send("win-back-1", _marketing()).status_code == 202
    assert api.send("win-back-2", _marketing()).status_code == 202

    def graph(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400,
            json={
                "error": {
                    "message": "(#131050) stopped",
                    "type": "OAuthException",
                    "code": 131050,
                    "error_data": {"details": "User stopped marketing messages"},
                }
            },
        )

    sender = OutboxSender(api.parts, transport=httpx.MockTransport(graph), jitter=lambda: 0.5)
    sender.run_once()
    contact = _contact(api)
    assert contact.opted_out_reason == "meta_131050"
    rows = _rows(api)
    assert rows["win-back-1"].state == "failed"
    # The second was paced behind the first (one message per customer every 6 s): cancelled, never sent.
    assert rows["win-back-2"].state == "cancelled"


def test_opt_out_and_opt_in_through_the_api(api: Api) -> None:
    _customer_writes(api, "wamid.hi", "hello")
    client = api.client()
    assert client.get("/v1/contacts/100", headers=api.headers()).status_code == 404
    assert client.get("/v1/contacts/not-digits", headers=api.headers()).status_code == 400
    out = client.post(f"/v1/contacts/{WA_ID}/opt-out", headers=api.headers())
    assert out.status_code == 200
    assert out.get_json()["opted_out"] is True
    assert out.get_json()["opted_out_reason"] == "api"
    assert api.send("win-back-1", _marketing()).status_code == 409
    note = {"note": "Signed the loyalty form in the shop on 2 December"}
    agent = client.post(f"/v1/contacts/{WA_ID}/opt-in", json=note, headers=api.headers())
    assert agent.status_code == 403
    for bad in ({}, {"note": ""}, {"note": "   "}, {"note": 5}, {"note": "x" * 1001}):
        answer = client.post(
            f"/v1/contacts/{WA_ID}/opt-in", json=bad, headers=api.headers(api.supervisor_token)
        )
        assert answer.status_code == 400, bad
        assert answer.get_json()["error"]["code"] == "invalid_note"
    opted_in = client.post(
        f"/v1/contacts/{WA_ID}/opt-in", json=note, headers=api.headers(api.supervisor_token)
    )
    assert opted_in.status_code == 200
    body = opted_in.get_json()
    assert (body["opted_out"], body["opted_out_at"], body["opted_in_note"]) == (False, None, note["note"])
    assert api.send("win-back-2", _marketing()).status_code == 202
    conversations = client.get(
        "/v1/conversations?view=all", headers=api.headers(api.supervisor_token)
    ).get_json()
    assert conversations["conversations"][0]["contact"]["opted_out"] is False


def test_an_opt_out_is_kept_on_the_contact_and_listed_with_the_conversation(api: Api) -> None:
    _customer_writes(api, "wamid.stop", "stop")
    listed = (
        api.client().get("/v1/conversations?view=all", headers=api.headers(api.supervisor_token)).get_json()
    )
    contact = listed["conversations"][0]["contact"]
    assert contact["opted_out"] is True
    assert contact["opted_out_at"] is not None


def test_record_opt_out_is_once(api: Api) -> None:
    _customer_writes(api, "wamid.hi", "hello")
    with api.database.transaction() as session:
        contact = session.scalars(select(Contact).where(Contact.wa_id == WA_ID)).one()
        kwargs = {"now": api.clock.now, "settings": api.settings, "templates": api.parts.templates}
        assert record_opt_out(session, contact, reason="api", **kwargs) is True
        assert record_opt_out(session, contact, reason="keyword", **kwargs) is False
        assert contact.opted_out_reason == "api"
    assert api.clock.now - _contact(api).opted_out_at < timedelta(seconds=1)


def _deliver_field(api: Api, value: dict[str, Any], field: str) -> None:
    body = envelope(value)
    body["entry"][0]["changes"][0]["field"] = field
    assert api.parts.delivery_store.store(encode(body), None)
    assert WebhookProcessor(api.parts).drain().failed_deliveries == 0
