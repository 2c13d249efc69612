"""Conversations, threads, assignment, replies and the work queue."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from backend.database.models import InboundMessage, OutboxMessage
from tests.conftest import journal_entries
from tests.integration.web.conftest import Api, add_inbound

TEMPLATE_REPLY = {"template": {"name": "we_miss_you", "language": "en", "parameters": ["Dana"]}}


def _get(api: Api, path: str, token: str | None = None):  # type: ignore[no-untyped-def]
    return api.client().get(path, headers=api.headers(token))


def test_conversation_lists_filter_by_view_window_and_search(api: Api) -> None:
    now = api.clock.now
    first, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=now - timedelta(hours=30), name="Dana")
    second, _ = add_inbound(
        api.database, "+447911123456", "wamid.B", at=now - timedelta(minutes=5), name="Eli"
    )
    assign = api.client().post(
        f"/v1/conversations/{first}/assign", json={"user": "alice"}, headers=api.headers()
    )
    assert assign.status_code == 200
    assert assign.get_json()["assignee"] == "alice"

    def ids(query: str) -> list[int]:
        response = _get(api, f"/v1/conversations{query}")
        assert response.status_code == 200
        return [c["id"] for c in response.get_json()["conversations"]]

    assert ids("") == [second, first]  # most recent first
    assert ids("?view=mine") == [first]
    assert ids("?view=unassigned") == [second]
    assert ids("?window=open") == [second]
    assert ids("?window=closed") == [first]
    assert ids("?q=dan") == [first]
    assert ids("?q=7911") == [second]
    assert ids("?q=%2B1%20650") == [first]
    assert ids("?q=nobody") == []
    listed = _get(api, "/v1/conversations").get_json()["conversations"][0]
    assert listed["contact"] == {
        "wa_id": "447911123456",
        "number": "+447911123456",
        "name": "Eli",
        "opted_out": False,
        "opted_out_at": None,
    }
    assert listed["unread"] == 1
    assert listed["last_message"] == "hello"
    assert listed["window_closes_at"] == "2026-11-30T08:55:00Z"
    assert _get(api, "/v1/conversations?view=theirs").status_code == 400


def test_lists_page_with_opaque_cursors(api: Api) -> None:
    for index in range(5):
        add_inbound(api.database, f"+1650555123{index}", f"wamid.{index}", at=api.clock.now)
    seen: list[int] = []
    cursor = ""
    while True:
        page = _get(api, f"/v1/conversations?limit=2{cursor}").get_json()
        seen += [c["id"] for c in page["conversations"]]
        if page["next_cursor"] is None:
            break
        cursor = f"&cursor={page['next_cursor']}"
    assert sorted(seen) == sorted(set(seen)) and len(seen) == 5
    for bad in ("limit=0", "limit=1001", "limit=x", "cursor=!!", "cursor=eyJvIjotMX0"):
        response = _get(api, f"/v1/conversations?{bad}")
        assert response.status_code == 400, bad


def test_the_thread_nests_replies_under_their_message_and_keeps_the_rest_on_top(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.first", at=api.clock.now)
    api.clock.advance(60)
    reply = api.client().post(
        f"/v1/conversations/{conversation}/reply",
        json={"text": "How can we help?"},
        headers=api.headers(Idempotency_Key="reply-1"),
    )
    assert reply.status_code == 202
    assert reply.get_json()["reply_to"] == "wamid.first"
    with api.database.reader() as session:
        outbound = session.scalars(select(OutboxMessage)).one()
        assert outbound.conversation_id == conversation
    add_inbound(
        api.database,
        "+16505551234",
        "wamid.answer",
        at=api.clock.now + timedelta(minutes=2),
        placement="reply",
        reply_to_message_id=outbound.id,
        context_id="wamid.out",
    )
    add_inbound(api.database, "+16505551234", "wamid.later", at=api.clock.now + timedelta(minutes=3))
    response = _get(api, f"/v1/conversations/{conversation}/thread")
    assert response.status_code == 200
    messages = response.get_json()["messages"]
    assert [m["direction"] for m in messages] == ["inbound", "outbound", "inbound"]
    assert messages[0]["wamid"] == "wamid.first"
    assert messages[1]["body"] == "How can we help?"
    assert [r["wamid"] for r in messages[1]["replies"]] == ["wamid.answer"]
    assert messages[1]["replies"][0]["attributed"] is True
    assert messages[2]["attributed"] is False
    assert _get(api, "/v1/conversations/999/thread").status_code == 404
    assert _get(api, "/v1/conversations/999").status_code == 404


def test_text_replies_need_an_open_window_but_templates_always_go(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.old", at=api.clock.now)
    api.clock.advance(24 * 3600 + 1)
    path = f"/v1/conversations/{conversation}/reply"
    closed = api.client().post(path, json={"text": "hi"}, headers=api.headers(Idempotency_Key="r-1"))
    assert closed.status_code == 409
    error = closed.get_json()["error"]
    assert error["code"] == "window_closed"
    assert "template" in error["message"]
    sent = api.client().post(path, json=TEMPLATE_REPLY, headers=api.headers(Idempotency_Key="r-1"))
    assert sent.status_code == 202
    replayed = api.client().post(path, json=TEMPLATE_REPLY, headers=api.headers(Idempotency_Key="r-1"))
    assert replayed.data == sent.data and replayed.headers["Idempotent-Replayed"] == "true"
    missing_key = api.client().post(path, json=TEMPLATE_REPLY, headers=api.headers())
    assert missing_key.status_code == 400
    assert missing_key.get_json()["error"]["code"] == "idempotency_key_invalid"
    nowhere = api.client().post(
        "/v1/conversations/999/reply", json=TEMPLATE_REPLY, headers=api.headers(Idempotency_Key="r-2")
    )
    assert nowhere.status_code == 404


def test_assignment_is_journaled_and_refuses_unknown_users(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    path = f"/v1/conversations/{conversation}/assign"
    supervisor = api.headers(api.supervisor_token)
    unknown = api.client().post(path, json={"user": "nobody"}, headers=supervisor)
    assert unknown.status_code == 400
    assert unknown.get_json()["error"]["code"] == "unknown_user"
    assert api.client().post(path, json={}, headers=api.headers()).status_code == 400
    assert api.client().post(path, json={"user": None}, headers=api.headers()).status_code == 200
    assert (
        api.client()
        .post("/v1/conversations/999/assign", json={"user": None}, headers=api.headers())
        .status_code
        == 404
    )
    [entry] = journal_entries(api.database, "conversation.assigned")
    assert entry.data == {"conversation_id": conversation, "assignee": None, "by": "alice"}


def test_marking_read_clears_unread(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    response = api.client().post(f"/v1/conversations/{conversation}/read", headers=api.headers())
    assert response.status_code == 200
    assert response.get_json()["unread"] == 0


def test_the_work_queue_lists_unattributed_inbound_oldest_first(api: Api) -> None:
    add_inbound(
        api.database, "+447911123456", "wamid.2", at=api.clock.now + timedelta(seconds=5), text="second"
    )
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.1", at=api.clock.now, text="first")
    add_inbound(api.database, "+16505551234", "wamid.3", at=api.clock.now, placement="reply")
    response = _get(api, "/v1/work-queue")
    assert response.status_code == 200
    items = response.get_json()["items"]
    assert [i["wamid"] for i in items] == ["wamid.1", "wamid.2"]
    assert items[0] == {
        **items[0],
        "conversation_id": conversation,
        "from": "+16505551234",
        "text": "first",
        "received_at": "2026-11-29T09:00:00Z",
    }
    assert response.get_json()["next_cursor"] is None


def test_attribution_input_is_checked_before_anything_is_filed(api: Api) -> None:
    add_inbound(api.database, "+16505551234", "wamid.1", at=api.clock.now)
    for body in ({}, {"message_key": "k", "new_topic": True}, {"new_topic": "yes"}, {"message_key": 5}):
        response = api.client().post("/v1/inbound/wamid.1/attribute", json=body, headers=api.headers())
        assert response.status_code == 400, body
        assert response.get_json()["error"]["code"] == "invalid_attribution"
    with api.database.reader() as session:
        assert session.scalars(select(InboundMessage)).one().placement == "work_queue"


def test_a_retried_text_reply_replays_even_after_the_window_closed(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    path = f"/v1/conversations/{conversation}/reply"
    headers = api.headers(Idempotency_Key="r-late")
    first = api.client().post(path, json={"text": "On it"}, headers=headers)
    assert first.status_code == 202
    api.clock.advance(25 * 3600)
    again = api.client().post(path, json={"text": "On it"}, headers=headers)
    assert again.status_code == 202
    assert again.data == first.data and again.headers["Idempotent-Replayed"] == "true"
    refused = api.client().post(path, json={"text": "Hello?"}, headers=api.headers(Idempotency_Key="r-new"))
    assert refused.status_code == 409
    # The refusal did not burn its key: a template under the same key goes.
    template = api.client().post(path, json=TEMPLATE_REPLY, headers=api.headers(Idempotency_Key="r-new"))
    assert template.status_code == 202
    assert template.get_json()["reply_to"] is None


def test_me_names_the_caller_and_their_role(api: Api) -> None:
    assert _get(api, "/v1/me").get_json() == {"name": "alice", "role": "agent"}
    assert _get(api, "/v1/me", api.supervisor_token).get_json() == {"name": "sam", "role": "supervisor"}


def test_the_list_shows_the_latest_message_in_either_direction(api: Api) -> None:
    conversation, _ = add_inbound(
        api.database, "+16505551234", "wamid.A", at=api.clock.now, text="where is it?"
    )
    api.clock.advance(30)
    api.client().post(
        f"/v1/conversations/{conversation}/reply",
        json={"text": "On its way"},
        headers=api.headers(Idempotency_Key="r-latest"),
    )
    listed = _get(api, "/v1/conversations").get_json()["conversations"]
    assert listed[0]["last_message"] == "On its way"


def test_an_agent_files_a_work_queue_reply_under_a_message_or_as_a_new_topic(api: Api) -> None:
    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.q1", at=api.clock.now)
    add_inbound(api.database, "+16505551234", "wamid.q2", at=api.clock.now)
    add_inbound(api.database, "+447911123456", "wamid.other", at=api.clock.now)
    sent = api.send("order-9", {"to": "+16505551234", "purpose": "order", "text": "Shipped!"})
    assert sent.status_code == 202

    linked = api.client().post(
        "/v1/inbound/wamid.q1/attribute", json={"message_key": "order-9"}, headers=api.headers()
    )
    assert linked.status_code == 200
    assert linked.get_json()["attributed"] is True
    topic = api.client().post(
        "/v1/inbound/wamid.q2/attribute", json={"new_topic": True}, headers=api.headers()
    )
    assert topic.status_code == 200
    assert [item["wamid"] for item in _get(api, "/v1/work-queue").get_json()["items"]] == ["wamid.other"]
    thread = _get(api, f"/v1/conversations/{conversation}/thread").get_json()["messages"]
    outbound = next(item for item in thread if item["direction"] == "outbound")
    assert [reply["wamid"] for reply in outbound["replies"]] == ["wamid.q1"]

    wrong_contact = api.client().post(
        "/v1/inbound/wamid.other/attribute", json={"message_key": "order-9"}, headers=api.headers()
    )
    assert wrong_contact.status_code == 400
    assert wrong_contact.get_json()["error"]["code"] == "invalid_attribution"
    for wamid, body in (("wamid.none", {"new_topic": True}), ("wamid.other", {"message_key": "no-such"})):
        missing = api.client().post(f"/v1/inbound/{wamid}/attribute", json=body, headers=api.headers())
        assert missing.status_code == 404
        assert missing.get_json()["error"]["code"] == "not_found"


def test_q_also_finds_words_said_in_the_conversation(api: Api) -> None:
    parcel, _ = add_inbound(
        api.database, "+16505551234", "wamid.A", at=api.clock.now, text="Where is my parcel?", name="Dana"
    )
    refund, _ = add_inbound(api.database, "+447911123456", "wamid.B", at=api.clock.now, name="Eli")
    api.clock.advance(30)
    reply = api.client().post(
        f"/v1/conversations/{refund}/reply",
        json={"text": "Your refund is on its way"},
        headers=api.headers(Idempotency_Key="r-refund"),
    )
    assert reply.status_code == 202

    def ids(query: str) -> list[int]:
        return [c["id"] for c in _get(api, f"/v1/conversations?q={query}").get_json()["conversations"]]

    assert ids("parcel") == [parcel]
    assert ids("refund") == [refund]
    assert ids("eli") == [refund]  # the contact still matches
    assert ids("nothing-said") == []
    too_long = _get(api, f"/v1/conversations?q={'x' * 201}")
    assert too_long.status_code == 400
    assert too_long.get_json()["error"]["code"] == "invalid_parameter"
