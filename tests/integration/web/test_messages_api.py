"""POST /v1/messages with Idempotency-Key semantics, GET /v1/messages/{key}, batches."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from backend.database.models import IdempotencyRecord, OutboxMessage
from backend.idempotency import fingerprint
from tests.integration.web.conftest import Api

ORDER = {
    "to": "+16505551234",
    "purpose": "order_shipped",
    "template": {"name": "order_shipped", "language": "en", "parameters": ["44812"]},
}


def _outbox_count(api: Api) -> int:
    with api.database.reader() as session:
        return int(session.scalar(select(func.count()).select_from(OutboxMessage)) or 0)


def test_a_new_key_is_queued_with_202_and_the_message_resource(api: Api) -> None:
    response = api.send("order-1:shipped", ORDER)
    assert response.status_code == 202
    assert "Idempotent-Replayed" not in response.headers
    body = response.get_json()
    assert body["key"] == "order-1:shipped"
    assert body["to"] == "+16505551234"
    assert body["state"] == "queued"
    assert body["attempts"] == 0
    assert body["error"] is None
    assert body["created_at"] == "2026-11-29T09:00:00Z"
    for name in ("wamid", "sent_at", "delivered_at", "read_at", "failed_at"):
        assert body[name] is None
    fetched = api.client().get("/v1/messages/order-1:shipped", headers=api.headers())
    assert fetched.status_code == 200
    assert fetched.get_json()["key"] == "order-1:shipped"


def test_the_same_key_and_body_replays_the_first_answer_byte_for_byte(api: Api) -> None:
    first = api.send("k-1", ORDER)
    api.clock.advance(3600)
    # Same JSON with keys in another order is the same request.
    second = api.send("k-1", dict(reversed(list(ORDER.items()))))
    assert second.status_code == first.status_code == 202
    assert second.data == first.data
    assert second.headers["Idempotent-Replayed"] == "true"
    assert _outbox_count(api) == 1


def test_the_same_key_with_another_body_is_an_idempotency_conflict(api: Api) -> None:
    api.send("k-2", ORDER)
    response = api.send("k-2", {**ORDER, "purpose": "other"})
    assert response.status_code == 422
    assert response.get_json()["error"]["code"] == "idempotency_conflict"
    assert _outbox_count(api) == 1


def test_keys_are_scoped_per_user_but_one_key_is_one_message_for_everyone(api: Api) -> None:
    first = api.send("shared-key", ORDER)
    # Bob's key record is his own, but the outbox key already names this message: he gets it, and
    # the customer still gets one message.
    same = api.send("shared-key", ORDER, token=api.other_agent_token)
    assert same.status_code == 202
    assert same.headers["Idempotent-Replayed"] == "true"
    assert same.get_json()["key"] == first.get_json()["key"]
    different = api.send("other-key", ORDER, token=api.other_agent_token)
    assert different.status_code == 202
    conflict = api.send("shared-key", {**ORDER, "purpose": "other"}, token=api.supervisor_token)
    assert conflict.status_code == 422
    assert conflict.get_json()["error"]["code"] == "idempotency_conflict"
    assert _outbox_count(api) == 2


def test_one_key_on_two_routes_is_a_conflict(api: Api) -> None:
    from tests.integration.web.conftest import add_inbound

    conversation, _ = add_inbound(api.database, "+16505551234", "wamid.A", at=api.clock.now)
    assert api.send("k-routes", ORDER).status_code == 202
    reply = api.client().post(
        f"/v1/conversations/{conversation}/reply",
        json={"template": ORDER["template"]},
        headers=api.headers(Idempotency_Key="k-routes"),
    )
    assert reply.status_code == 422


def test_an_internal_error_releases_the_key_and_a_retry_succeeds(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from backend.web import messages_api

    real_enqueue = messages_api.enqueue
    calls = []

    def failing_once(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the database went away")
        return real_enqueue(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(messages_api, "enqueue", failing_once)
    failed = api.send("k-error", ORDER)
    assert failed.status_code == 500
    assert failed.get_json()["error"]["code"] == "internal_error"
    assert _outbox_count(api) == 0
    retried = api.send("k-error", ORDER)
    assert retried.status_code == 202
    assert "Idempotent-Replayed" not in retried.headers
    assert _outbox_count(api) == 1


def _hold_key(api: Api, key: str, body: dict[str, object], *, locked_for: float) -> None:
    with api.database.transaction() as session:
        session.add(
            IdempotencyRecord(
                user_id=1,
                key=key,
                method="POST",
                path="/v1/messages",
                fingerprint=fingerprint("POST", "/v1/messages", body),
                state="in_progress",
                locked_until=api.clock.now + timedelta(seconds=locked_for),
                created_at=api.clock.now,
            )
        )


def test_a_key_still_in_flight_answers_409_and_is_released_after_its_lock(api: Api) -> None:
    _hold_key(api, "k-3", ORDER, locked_for=30)
    response = api.send("k-3", ORDER)
    assert response.status_code == 409
    assert response.get_json()["error"]["code"] == "idempotency_in_progress"
    assert _outbox_count(api) == 0
    # The process holding it died: within 30 s the record is free again and the request runs once.
    api.clock.advance(30)
    taken_over = api.send("k-3", ORDER)
    assert taken_over.status_code == 202
    assert "Idempotent-Replayed" not in taken_over.headers
    assert api.send("k-3", ORDER).headers["Idempotent-Replayed"] == "true"
    assert _outbox_count(api) == 1


@pytest.mark.parametrize("key", [None, "", " ", "x" * 256])
def test_a_missing_empty_or_too_long_key_is_refused(api: Api, key: str | None) -> None:
    response = api.send(key, ORDER)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "idempotency_key_invalid"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"to": "123"}, "invalid_recipient"),
        ({"to": 16505551234}, "invalid_recipient"),
        ({"template": {"name": "nope", "language": "en", "parameters": []}}, "invalid_template"),
        ({"template": {"name": "order_shipped", "language": "en", "parameters": []}}, "invalid_template"),
        ({"template": None, "text": "x" * 4097}, "invalid_message"),
        ({"purpose": "has space"}, "invalid_message"),
        ({"purpose": "p" * 65}, "invalid_message"),
        ({"text": "also text"}, "invalid_message"),
        ({"not_before": "tomorrow"}, "invalid_message"),
        ({"priority": "high"}, "invalid_message"),
    ],
)
def test_validation_failures_answer_400_and_do_not_burn_the_key(
    api: Api, change: dict[str, object], code: str
) -> None:
    response = api.send("k-4", {**ORDER, **change})
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == code
    assert api.send("k-4", ORDER).status_code == 202


def test_a_text_message_of_4096_characters_is_accepted(api: Api) -> None:
    body = {"to": "+447911123456", "purpose": "support", "text": "x" * 4096}
    assert api.send("k-5", body).status_code == 202


def test_bodies_that_are_not_json_objects_are_refused(api: Api) -> None:
    headers = api.headers(Idempotency_Key="k-6", Content_Type="application/json")
    for data in (b"{", b"[]", b"", b"\xff"):
        response = api.client().post("/v1/messages", data=data, headers=headers)
        assert response.status_code == 400
        assert response.get_json()["error"]["code"] == "invalid_json"


def test_bodies_over_one_megabyte_are_refused_with_413_on_every_route(api: Api) -> None:
    big = b"{" + b" " * (1024 * 1024) + b"}"
    for path in ("/v1/messages", "/v1/messages/batch", "/v1/conversations/1/assign", "/v1/nowhere"):
        response = api.client().post(path, data=big, headers=api.headers(Idempotency_Key="k-7"))
        assert response.status_code == 413, path
        assert response.get_json()["error"]["code"] == "payload_too_large"


def test_an_unknown_key_is_404(api: Api) -> None:
    response = api.client().get("/v1/messages/no-such-key", headers=api.headers())
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


@pytest.mark.timeout(60)
def test_concurrent_duplicates_through_the_test_client_execute_once(api: Api) -> None:
    results: list[tuple[int, bytes, str | None]] = []
    barrier = threading.Barrier(8)

    def post() -> None:
        barrier.wait()
        response = api.send("race-key", ORDER)
        results.append((response.status_code, response.data, response.headers.get("Idempotent-Replayed")))

    threads = [threading.Thread(target=post) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first_answers = [r for r in results if r[0] == 202 and r[2] is None]
    assert len(first_answers) == 1
    for status, data, replayed in results:
        assert status in (202, 409)
        if status == 202 and replayed:
            assert data == first_answers[0][1]
    assert _outbox_count(api) == 1


BATCH = {
    "client_ref": "import-2026-11-29",
    "messages": [
        {"key": "b-1", "to": "+16505551234", "purpose": "promo", "text": "one"},
        {"key": "b-2", "to": "+447911123456", "purpose": "promo", "text": "two"},
        {"key": "b-1", "to": "+16505551234", "purpose": "promo", "text": "one"},
    ],
}


def test_a_batch_is_queued_once_and_replayed_by_client_ref(api: Api) -> None:
    first = api.client().post("/v1/messages/batch", json=BATCH, headers=api.headers())
    assert first.status_code == 202
    answer = first.get_json()
    assert answer["client_ref"] == BATCH["client_ref"]
    assert (answer["queued"], answer["duplicates"]) == (2, 1)
    assert "Idempotent-Replayed" not in first.headers
    again = api.client().post("/v1/messages/batch", json=BATCH, headers=api.headers())
    assert again.status_code == 202
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == answer
    assert _outbox_count(api) == 2
    progress = api.client().get(f"/v1/batches/{answer['batch_id']}", headers=api.headers())
    assert progress.status_code == 200
    assert progress.get_json()["states"]["queued"] == 2
    assert progress.get_json()["total"] == 2
    assert api.client().get("/v1/batches/999", headers=api.headers()).status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"messages": BATCH["messages"]},
        {"client_ref": "x", "messages": []},
        {"client_ref": "x", "messages": [{"to": "+16505551234", "purpose": "p", "text": "no key"}] * 1001},
        {"client_ref": "x", "messages": [{"key": "k", "to": "1", "purpose": "p", "text": "bad number"}]},
        {"client_ref": "x", "messages": ["not an object"]},
    ],
)
def test_a_bad_batch_is_refused_whole(api: Api, body: dict[str, object]) -> None:
    response = api.client().post("/v1/messages/batch", json=body, headers=api.headers())
    assert response.status_code == 400
    assert _outbox_count(api) == 0


def test_keys_are_kept_a_day_and_the_outbox_still_recognises_them_after_purging(api: Api) -> None:
    from backend.idempotency import purge

    first = api.send("k-old", ORDER)
    api.clock.advance(23 * 3600)
    with api.database.transaction() as session:
        assert purge(session, api.clock.now, retention=timedelta(hours=1)) == 0  # never under 24 h
    assert api.send("k-old", ORDER).data == first.data
    api.clock.advance(2 * 3600)
    with api.database.transaction() as session:
        assert purge(session, api.clock.now) == 1
    # The stored answer is gone, but the outbox key is not: still one message, marked as a replay.
    late = api.send("k-old", ORDER)
    assert late.status_code == 202
    assert late.headers["Idempotent-Replayed"] == "true"
    assert late.get_json()["key"] == "k-old"
    assert api.send("k-old", {**ORDER, "purpose": "other"}).status_code == 422
    assert _outbox_count(api) == 1
