"""The JSON body of a Graph `POST /{phone-number-id}/messages` call for a stored outbox row."""

from __future__ import annotations

from typing import Any

from backend.domain.messages import KIND_BUTTONS, KIND_MEDIA, KIND_TEMPLATE, KIND_TEXT


class UnsendablePayloadError(ValueError):
    """A stored payload that cannot be turned into a send body."""


def build_send_body(
    *,
    kind: str,
    payload: dict[str, Any],
    to_number: str,
    dedupe_key: str,
    reply_to: str | None,
    graph_media_id: str | None = None,
) -> dict[str, Any]:
    """The send body; `biz_opaque_callback_data` carries the dedupe key so status webhooks name the row.

    A file is sent by the id Meta gave its upload (`graph_media_id`), never by a public link.
    """
    body: dict[str, Any] = {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to_number,
        "biz_opaque_callback_data": dedupe_key,
    }
    if reply_to:
        body["context"] = {"message_id": reply_to}
    if kind == KIND_TEXT:
        body["type"] = "text"
        body["text"] = {"body": payload["text"], "preview_url": False}
    elif kind == KIND_TEMPLATE:
        spec = payload["template"]
        template: dict[str, Any] = {"name": spec["name"], "language": {"code": spec["language"]}}
        parameters = spec.get("parameters") or []
        if parameters:
            template["components"] = [
                {"type": "body", "parameters": [{"type": "text", "text": str(p)} for p in parameters]}
            ]
        body["type"] = "template"
        body["template"] = template
    elif kind == KIND_BUTTONS:
        spec = payload["buttons"]
        body["type"] = "interactive"
        body["interactive"] = {
            "type": "button",
            "body": {"text": spec["body"]},
            "action": {
                "buttons": [
                    {"type": "reply", "reply": {"id": b["id"], "title": b["title"]}} for b in spec["buttons"]
                ]
            },
        }
    elif kind == KIND_MEDIA:
        spec = payload["media"]
        if not graph_media_id:
            raise UnsendablePayloadError("the file has not been uploaded to WhatsApp")
        media: dict[str, Any] = {"id": graph_media_id}
        for name in ("caption", "filename"):
            if spec.get(name):
                media[name] = spec[name]
        body["type"] = spec["type"]
        body[spec["type"]] = media
    else:
        raise UnsendablePayloadError(f"cannot send a message of kind {kind!r}")
    return body
