"""Input PostgreSQL text cannot hold (NUL characters) is refused with 400, never a database error."""

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
