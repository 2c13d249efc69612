"""Send bodies match Meta's documented request shapes and carry the dedupe key."""

from __future__ import annotations

import pytest

from backend.domain.graph_body import UnsendablePayloadError, build_send_body


def test_text_reply_with_context() -> None:
    body = build_send_body(
        kind="text", payload={"text": "hi"}, to_number="+16505551234", dedupe_key="k1", reply_to="wamid.A"
    )
    assert body == {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "+16505551234",
        "biz_opaque_callback_data": "k1",
        "context": {"message_id": "wamid.A"},
        "type": "text",
        "text": {"body": "hi", "preview_url": False},
    }


def test_template_with_body_parameters() -> None:
    payload = {"template": {"name": "order_shipped", "language": "en", "parameters": ["44812"]}}
    body = build_send_body(kind="template", payload=payload, to_number="+1", dedupe_key="k", reply_to=None)
    assert "context" not in body
    assert body["type"] == "template"
    assert body["template"] == {
        "name": "order_shipped",
        "language": {"code": "en"},
        "components": [{"type": "body", "parameters": [{"type": "text", "text": "44812"}]}],
    }


def test_template_without_parameters_has_no_components() -> None:
    payload = {"template": {"name": "hello", "language": "en", "parameters": []}}
    body = build_send_body(kind="template", payload=payload, to_number="+1", dedupe_key="k", reply_to=None)
    assert body["template"] == {"name": "hello", "language": {"code": "en"}}


def test_reply_buttons() -> None:
    payload = {
        "buttons": {"body": "Pick", "buttons": [{"id": "yes", "title": "Yes"}, {"id": "no", "title": "No"}]}
    }
    body = build_send_body(kind="buttons", payload=payload, to_number="+1", dedupe_key="k", reply_to=None)
    assert body["type"] == "interactive"
    assert body["interactive"] == {
        "type": "button",
        "body": {"text": "Pick"},
        "action": {
            "buttons": [
                {"type": "reply", "reply": {"id": "yes", "title": "Yes"}},
                {"type": "reply", "reply": {"id": "no", "title": "No"}},
            ]
        },
    }
    assert body["biz_opaque_callback_data"] == "k"


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(UnsendablePayloadError):
        build_send_body(kind="sticker", payload={}, to_number="+1", dedupe_key="k", reply_to=None)
