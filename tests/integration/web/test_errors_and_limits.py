"""Input that cannot be stored (NUL, half a surrogate pair, times out of range) is a 400, never a 500."""

from __future__ import annotations

from tests.integration.web.conftest import Api


def test_a_nul_in_a_query_parameter_is_refused(api: Api) -> None:
    answer = api.client().get("/v1/conversations?q=a%00b", headers=api.headers())
    assert answer.status_code == 400
    assert answer.get_json()["error"]["code"] == "invalid_parameter"


def test_a_nul_in_a_path_is_refused(api: Api) -> None:
    answer = api.client().get("/v1/messages/key%00with-nul", headers=api.headers())
    assert answer.status_code == 400


def test_a_nul_in_body_text_is_refused_and_stores_nothing(api: Api) -> None:
    body = {"to": "+16505551234", "purpose": "support", "text": "hi", "trigger_ref": "orders/1\u0000"}
    answer = api.send("nul-1", body)
    assert answer.status_code == 400
    assert answer.get_json()["error"]["code"] == "invalid_json"
    corrected = api.send("nul-1", {**body, "trigger_ref": "orders/1"})
    assert corrected.status_code == 202  # the refused request did not burn the key


def test_half_a_surrogate_pair_in_body_text_is_refused_and_stores_nothing(api: Api) -> None:
    # JSON may spell a lone "\ud83d"; it decodes to a str that no encoder accepts, so it is not text.
    raw = b'{"to": "+16505551234", "purpose": "support", "text": "broken \\ud83d emoji"}'
    answer = api.client().post(
        "/v1/messages",
        data=raw,
        headers={**api.headers(), "Idempotency-Key": "surrogate-1", "Content-Type": "application/json"},
    )
    assert answer.status_code == 400
    assert answer.get_json()["error"]["code"] == "invalid_json"
    corrected = api.send(
        "surrogate-1", {"to": "+16505551234", "purpose": "support", "text": "fixed \U0001f600"}
    )
    assert corrected.status_code == 202


def test_a_time_past_the_last_utc_moment_is_refused(api: Api) -> None:
    body = {
        "to": "+16505551234",
        "purpose": "support",
        "text": "hi",
        "not_before": "9999-12-31T23:59:59-01:00",
    }
    answer = api.send("overflow-1", body)
    assert answer.status_code == 400
    assert answer.get_json()["error"]["code"] == "invalid_message"
