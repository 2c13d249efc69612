"""Parsing webhook bodies into events: every entry × change × item, tolerant of what we do not know."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from backend.domain.webhook_events import (
    WebhookParseError,
    describe_error,
    first_error,
    message_key,
    parse_body,
    parse_timestamp,
    status_key,
)


def _body(*changes: dict[str, Any], entries: int = 1) -> bytes:
    entry = {"id": "1", "changes": list(changes)}
    return json.dumps({"object": "whatsapp_business_account", "entry": [entry] * entries}).encode()


def _messages(*messages: dict[str, Any], **value: Any) -> dict[str, Any]:
    return {"field": "messages", "value": {"messages": list(messages), **value}}


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[]",
        b'"text"',
        b'{"object":"page","entry":[]}',
        b'{"object":"whatsapp_business_account"}',
    ],
)
def test_bodies_that_are_not_webhooks_are_parse_errors(body: bytes) -> None:
    with pytest.raises(WebhookParseError):
        parse_body(body)


def test_every_entry_change_and_item_becomes_an_event() -> None:
    change = _messages(
        {
            "id": "wamid.1",
            "from": "16505551234",
            "timestamp": "1749416383",
            "type": "text",
            "text": {"body": "a"},
        },
        {
            "id": "wamid.2",
            "from": "16505551234",
            "timestamp": "1749416384",
            "type": "text",
            "text": {"body": "b"},
        },
        statuses=[{"id": "wamid.9", "status": "read", "timestamp": "1749416385"}],
    )
    parsed = parse_body(_body(change, change, entries=2))
    assert [m.wamid for m in parsed.messages] == ["wamid.1", "wamid.2"] * 4
    assert [s.key for s in parsed.statuses] == ["status:wamid.9:read:"] * 4
    assert parsed.messages[0].sent_at == datetime(2025, 6, 8, 20, 59, 43, tzinfo=UTC)


def test_unknown_types_fields_and_missing_parts_are_tolerated() -> None:
    parsed = parse_body(
        _body(
            _messages(
                {"id": "wamid.X", "type": "hologram", "hologram": {"depth": 3}, "extra": True},
                {"type": "text", "text": {"body": "no id"}},
            ),
            {"field": "account_update", "value": {"event": "VERIFIED_ACCOUNT"}},
            {"field": "messages"},
        )
    )
    [message] = parsed.messages
    assert (message.type, message.from_wa_id, message.sent_at, message.text) == ("hologram", None, None, None)
    assert parsed.other_changes == 1
    assert parsed.problems == ["a message without an id", "a change without a value object"]


def test_value_errors_ride_with_the_messages_of_their_change() -> None:
    error = {
        "code": 131000,
        "title": "Something went wrong",
        "error_data": {"details": "Unsupported webhook payload"},
    }
    parsed = parse_body(_body(_messages({"id": "wamid.E", "type": "interactive"}, errors=[error])))
    assert parsed.messages[0].errors == [error]
    assert parsed.value_errors == [error]
    assert first_error(parsed.messages[0].errors) == (
        131000,
        "Something went wrong",
        "Unsupported webhook payload",
    )


def test_the_sender_comes_from_the_message_and_its_contact() -> None:
    contact = {"profile": {"name": "Ana"}, "wa_id": "16505551234", "user_id": "US.1"}
    parsed = parse_body(
        _body(
            _messages(
                {"id": "w", "from": "16505551234", "type": "text", "text": {"body": "x"}}, contacts=[contact]
            )
        )
    )
    message = parsed.messages[0]
    assert (message.from_wa_id, message.from_user_id, message.profile_name) == ("16505551234", "US.1", "Ana")


def test_keys_name_the_event() -> None:
    assert message_key("wamid.A") == "msg:wamid.A"
    assert status_key("wamid.A", "read", None) == "status:wamid.A:read:"
    assert status_key("wamid.A", "read", "16505551234") == "status:wamid.A:read:16505551234"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1749416383", datetime(2025, 6, 8, 20, 59, 43, tzinfo=UTC)),
        (1749416383, datetime(2025, 6, 8, 20, 59, 43, tzinfo=UTC)),
        (None, None),
        ("soon", None),
        (True, None),
        ("99999999999999999999", None),
    ],
)
def test_timestamps(raw: object, expected: datetime | None) -> None:
    assert parse_timestamp(raw) == expected


def test_errors_read_in_plain_language() -> None:
    assert "24 hours" in describe_error(131047, "Re-engagement message", None)
    assert describe_error(999, "Odd", "Something odd") == "Something odd (code 999)"
    assert describe_error(None, None, None) == "WhatsApp reported an error"


def test_only_changes_about_our_number_give_events_the_others_are_counted_by_number() -> None:
    def about(number: object, *wamids: str | None, **value: Any) -> dict[str, Any]:
        messages = [{"id": wamid, "type": "text", "text": {"body": "x"}} for wamid in wamids]
        metadata = {} if number is None else {"metadata": {"phone_number_id": number}}
        return _messages(*messages, **metadata, **value)

    error = {"code": 130429, "title": "Rate limit hit"}
    body = _body(
        about("106540352242922", "wamid.OURS", statuses=[{"id": "wamid.S", "status": "sent"}]),
        about("999", "wamid.F1", "wamid.F2", statuses=[{"id": "wamid.S", "status": "read"}], errors=[error]),
        # Another number's unreadable item is not our problem; a number written as a JSON number still counts.
        about(999, "wamid.F3", None),
        about(None, "wamid.NONE"),
    )
    parsed = parse_body(body, phone_number_id="106540352242922")
    assert [m.wamid for m in parsed.messages] == ["wamid.OURS"]
    assert [s.status for s in parsed.statuses] == ["sent"]
    assert (parsed.value_errors, parsed.problems) == ([], [])
    assert parsed.foreign_events == {"999": 5, None: 1}
    # Without a number of ours every change is ours.
    everything = parse_body(body)
    assert [m.wamid for m in everything.messages] == [
        "wamid.OURS",
        "wamid.F1",
        "wamid.F2",
        "wamid.F3",
        "wamid.NONE",
    ]
    assert (everything.problems, everything.foreign_events) == (["a message without an id"], {})
