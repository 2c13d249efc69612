"""The sandbox answers recorded Graph API requests with the recorded statuses and shapes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from backend.sandbox.server import Sandbox

from .conftest import TOKEN

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
CASSETTES = sorted((CONFORMANCE / "ruby_whatsapp_sdk").glob("*.yml"))
OPENAPI_REQUESTS = sorted((CONFORMANCE / "facebook-openapi" / "send_message_requests").glob("*.json"))
OPENAPI_RESPONSES = CONFORMANCE / "facebook-openapi" / "send_message_responses"
RECORDED_PHONE_NUMBER_ID = "107878721936019"
RECORDED_CUSTOMER = "+13437772910"
OPENAPI_CUSTOMER = "+16505551234"

# The templates the recordings send, as they would be approved in WhatsApp Manager.
RECORDED_TEMPLATES = """
[[templates]]
name = "sample_shipping_confirmation"
language = "en_US"
body = "Your package has shipped. It will be delivered in {{1}} business days."
parameters = ["days"]

[[templates]]
name = "template-name"
language = "language-and-locale-code"
body = "Hi {{1}}, you owe {{2}} since {{3}}."
parameters = ["name", "amount", "date"]

[[templates]]
name = "intro_catalog_offer"
language = "en_US"
body = "Get {{1}} off orders above {{2}}, for {{3}} days."
parameters = ["discount", "minimum", "days"]

[[templates]]
name = "<TEMPLATE_NAME>"
language = "en_US"
body = "Open the form."

[[templates]]
name = "hello_world"
language = "en_US"
body = "Hello World"

[[templates]]
name = "sample_issue_resolution"
language = "en_US"
body = "Hi {{1}}, were we able to solve the issue you faced?"
parameters = ["name"]
buttons = ["Yes", "No"]
"""


def shape(value: Any) -> Any:
    """The structure of a JSON value: keys and types, not contents."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


def _recorded_sandbox(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path, phone_number_id: str = RECORDED_PHONE_NUMBER_ID
) -> Sandbox:
    templates = tmp_path / "templates.toml"
    templates.write_text(RECORDED_TEMPLATES, encoding="utf-8")
    sandbox = start_sandbox(phone_number_id=phone_number_id, templates_file=templates)
    sandbox.inbound(RECORDED_CUSTOMER, "hi")
    sandbox.inbound(OPENAPI_CUSTOMER, "hi")
    return sandbox


@pytest.fixture
def recorded_sandbox(start_sandbox: Callable[..., Sandbox], tmp_path: Path) -> Sandbox:
    """A sandbox that knows the recorded account, templates and customers (whose windows are open)."""
    return _recorded_sandbox(start_sandbox, tmp_path)


def test_the_recordings_are_there() -> None:
    assert len(CASSETTES) == 23
    assert len(OPENAPI_REQUESTS) == 50


@pytest.mark.timeout(30)
@pytest.mark.parametrize("cassette", CASSETTES, ids=[path.stem for path in CASSETTES])
def test_recorded_interaction_gets_the_recorded_answer(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path, cassette: Path
) -> None:
    document = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    for interaction in document["http_interactions"]:
        recorded_request = interaction["request"]
        recorded_response = interaction["response"]
        path = httpx.URL(recorded_request["uri"]).path
        # The account had several numbers; the one Graph did not know answered GraphMethodException.
        unknown_number = "GraphMethodException" in recorded_response["body"]["string"]
        phone_number_id = RECORDED_PHONE_NUMBER_ID if unknown_number else path.split("/")[2]
        recorded_sandbox = _recorded_sandbox(start_sandbox, tmp_path, phone_number_id)
        response = httpx.post(
            f"{recorded_sandbox.url}{path}",
            content=recorded_request["body"]["string"].encode("utf-8"),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        expected = json.loads(recorded_response["body"]["string"])
        assert response.status_code == recorded_response["status"]["code"]
        assert response.headers["content-type"] == "application/json; charset=UTF-8"
        answer = response.json()
        assert shape(answer) == shape(expected)
        if "error" in expected:
            for key in ("message", "type", "code", "error_subcode", "error_data"):
                assert answer["error"].get(key) == expected["error"].get(key)
        elif "contacts" in expected:
            assert answer["contacts"] == expected["contacts"]
            assert answer["messages"][0]["id"].startswith("wamid.HBgL")
            assert answer["messages"][0].get("message_status") == expected["messages"][0].get(
                "message_status"
            )
        else:
            assert answer == expected


def _fill_placeholders(request: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(request)
    text = re.sub(r'"\{\{Recipient-[A-Za-z-]+\}\}"', json.dumps(OPENAPI_CUSTOMER), text)
    # Meta's example leaves the header type as a placeholder; a text header is what its text implies.
    text = text.replace('"<HEADER_TYPE>"', '"text"')
    return dict(json.loads(text))


@pytest.mark.timeout(30)
@pytest.mark.parametrize("request_file", OPENAPI_REQUESTS, ids=[path.stem for path in OPENAPI_REQUESTS])
def test_meta_documented_request_is_accepted_with_the_documented_shape(
    recorded_sandbox: Sandbox, request_file: Path
) -> None:
    request = _fill_placeholders(json.loads(request_file.read_text(encoding="utf-8")))
    response = httpx.post(
        f"{recorded_sandbox.graph_url}/{RECORDED_PHONE_NUMBER_ID}/messages",
        json=request,
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    documented_file = OPENAPI_RESPONSES / request_file.name
    if "status" in request:
        assert answer == {"success": True}
        return
    assert answer["contacts"] == [{"input": request["to"], "wa_id": request["to"].lstrip("+")}]
    assert answer["messages"][0]["id"].startswith("wamid.")
    if request.get("type") == "template":
        assert answer["messages"][0]["message_status"] == "accepted"
    else:
        assert "message_status" not in answer["messages"][0]
    if documented_file.exists():
        documented = json.loads(documented_file.read_text(encoding="utf-8"))
        for message in answer["messages"]:
            message.pop("message_status", None)
        assert shape(answer) == shape(documented)
