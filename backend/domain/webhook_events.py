"""Turns a stored webhook body into events: every entry × change × message / status / error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from backend.domain.account_events import (
    ACCOUNT_FIELDS,
    USER_PREFERENCES_FIELD,
    AccountEvent,
    parse_account_change,
)

WHATSAPP_OBJECT = "whatsapp_business_account"
MESSAGES_FIELD = "messages"

# Column sizes of the tables the events land in; longer values are cut rather than refused.
MAX_WAMID = 255
MAX_WA_ID = 32
MAX_USER_ID = 128
MAX_PROFILE_NAME = 256
MAX_TYPE = 40
MAX_CHOICE = 256
MAX_EMOJI = 32
MAX_MIME_TYPE = 100
MAX_SHA256 = 100
MAX_FILENAME = 255
MAX_STATUS = 20
MAX_RECIPIENT = 64
MAX_CALLBACK_DATA = 512
MAX_PHONE_NUMBER_ID = 64

MEDIA_TYPES = frozenset({"image", "video", "audio", "document", "sticker"})

# How a customer's choice was made: a template quick-reply button, an interactive reply button, a list row.
CHOICE_TEMPLATE_BUTTON = "button"
CHOICE_REPLY_BUTTON = "button_reply"
CHOICE_LIST_ROW = "list_reply"


class WebhookParseError(ValueError):
    """A body that is not JSON or not a webhook shape we know."""


@dataclass(frozen=True)
class InboundMessageEvent:
    """One message a customer sent, as the webhook describes it."""

    key: str
    wamid: str
    type: str
    from_wa_id: str | None
    from_user_id: str | None
    profile_name: str | None
    sent_at: datetime | None
    text: str | None
    context_id: str | None
    choice_kind: str | None
    choice_id: str | None
    choice_title: str | None
    reaction_target: str | None
    reaction_emoji: str | None
    media_id: str | None
    media_mime_type: str | None
    caption: str | None
    errors: list[Any] | None
    raw: dict[str, Any]
    # Meta's base64 SHA-256 of the media and a document's file name, checked and kept by the fetcher.
    media_sha256: str | None = None
    media_filename: str | None = None

    @property
    def opens_window(self) -> bool:
        """Whether this message is the customer writing (system notices are not)."""
        return self.type != "system"


@dataclass(frozen=True)
class StatusEvent:
    """One delivery status of a message we sent (or one we never sent)."""

    key: str
    wamid: str
    status: str
    occurred_at: datetime | None
    recipient_id: str | None
    recipient_participant_id: str | None
    callback_data: str | None
    errors: list[Any] | None
    raw: dict[str, Any]


@dataclass
class ParsedBody:
    """Everything one body holds, in the order it holds it."""

    messages: list[InboundMessageEvent] = field(default_factory=list)
    statuses: list[StatusEvent] = field(default_factory=list)
    # Marketing preferences, template reviews, the number's quality and limit.
    account_events: list[AccountEvent] = field(default_factory=list)
    value_errors: list[Any] = field(default_factory=list)
    # Changes of fields we do not act on (account_update, templates, calls...): stored, not processed.
    other_changes: int = 0
    # Items we could not read (e.g. a message without an id); the rest of the body is still used.
    problems: list[str] = field(default_factory=list)
    # Messages and statuses of changes about another business number, by its phone_number_id (None
    # when the change names none): kept in the stored body, never turned into events.
    foreign_events: dict[str | None, int] = field(default_factory=dict)

    @property
    def events(self) -> list[InboundMessageEvent | StatusEvent | AccountEvent]:
        """Every event the processor applies, messages first, then statuses, then account events."""
        return [*self.messages, *self.statuses, *self.account_events]

    @property
    def event_count(self) -> int:
        """How many events `events` holds."""
        return len(self.messages) + len(self.statuses) + len(self.account_events)


def message_key(wamid: str) -> str:
    """The processed-event key of an inbound message."""
    return f"msg:{wamid}"


def status_key(wamid: str, status: str, recipient_participant_id: str | None) -> str:
    """The processed-event key of a status: one per message, status and group participant."""
    return f"status:{wamid}:{status}:{recipient_participant_id or ''}"


def parse_timestamp(raw: Any) -> datetime | None:
    """Meta's unix-seconds string as an aware UTC datetime, or None when absent or unreadable."""
    if raw is None or isinstance(raw, bool):
        return None
    try:
        seconds = int(str(raw).strip())
    except ValueError:
        return None
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def parse_body(body: bytes, *, phone_number_id: str | None = None) -> ParsedBody:
    """Events of a body (given phone_number_id, of its changes only); WebhookParseError if not a webhook."""
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        # RecursionError: nesting deeper than the decoder goes (a 3 MB body can hold a million levels).
        raise WebhookParseError(f"the body is not JSON: {error}") from None
    if not isinstance(document, dict):
        raise WebhookParseError("the body is not a JSON object")
    if document.get("object") != WHATSAPP_OBJECT:
        raise WebhookParseError(f"object is {document.get('object')!r}, not {WHATSAPP_OBJECT!r}")
    entries = document.get("entry")
    if not isinstance(entries, list):
        raise WebhookParseError("entry is missing or not a list")
    parsed = ParsedBody()
    for entry in entries:
        changes = entry.get("changes") if isinstance(entry, dict) else None
        if not isinstance(changes, list):
            parsed.problems.append("an entry without a changes list")
            continue
        for change in changes:
            _parse_change(change, parsed, phone_number_id, entry.get("time"))
    return parsed


def _parse_change(change: Any, parsed: ParsedBody, phone_number_id: str | None, entry_time: Any) -> None:
    if not isinstance(change, dict) or not isinstance(change.get("value"), dict):
        parsed.problems.append("a change without a value object")
        return
    value = change["value"]
    field_name = change.get("field")
    if isinstance(field_name, str) and field_name in ACCOUNT_FIELDS:
        number = _text(_object(value.get("metadata")).get("phone_number_id"))
        if field_name == USER_PREFERENCES_FIELD and phone_number_id is not None and number != phone_number_id:
            parsed.foreign_events[number] = parsed.foreign_events.get(number, 0) + 1
            return
        parsed.account_events.extend(parse_account_change(field_name, value, entry_time))
        return
    if field_name != MESSAGES_FIELD:
        parsed.other_changes += 1
        return
    if phone_number_id is not None:
        number = _text(_object(value.get("metadata")).get("phone_number_id"))
        if number != phone_number_id:
            # Another business number's traffic (same app, same secret): its value errors and items
            # are not ours to act on, nor to report as problems.
            items = _list_of_objects(value.get("messages")) + _list_of_objects(value.get("statuses"))
            named = number[:MAX_PHONE_NUMBER_ID] if number is not None else None
            parsed.foreign_events[named] = parsed.foreign_events.get(named, 0) + len(items)
            return
    contacts = _contacts_by_wa_id(value.get("contacts"))
    only_contact = next(iter(contacts.values())) if len(contacts) == 1 else None
    value_errors = _list_of_objects(value.get("errors"))
    parsed.value_errors.extend(value_errors)
    for message in _list_of_objects(value.get("messages")):
        event = _parse_message(message, contacts, only_contact, value_errors)
        if event is None:
            parsed.problems.append("a message without an id")
        else:
            parsed.messages.append(event)
    for status in _list_of_objects(value.get("statuses")):
        status_event = _parse_status(status)
        if status_event is None:
            parsed.problems.append("a status without an id or status")
        else:
            parsed.statuses.append(status_event)


def _list_of_objects(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        return []
    return [item for item in raw if isinstance(item, dict)]


def _text(raw: Any, limit: int | None = None) -> str | None:
    if raw is None or isinstance(raw, dict | list):
        return None
    # NUL carries no meaning in a message and PostgreSQL text cannot hold it: one would fail the
    # whole delivery's transaction, so every text read from a webhook drops it here.
    text = str(raw).replace("\x00", "")
    return text[:limit] if limit is not None else text


def _object(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _contacts_by_wa_id(raw: Any) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for index, contact in enumerate(_list_of_objects(raw)):
        key = _text(contact.get("wa_id")) or _text(contact.get("user_id")) or f"#{index}"
        found[key] = contact
    return found


def _parse_message(
    message: dict[str, Any],
    contacts: dict[str, dict[str, Any]],
    only_contact: dict[str, Any] | None,
    value_errors: list[Any],
) -> InboundMessageEvent | None:
    wamid = _text(message.get("id"), MAX_WAMID)
    if not wamid:
        return None
    message_type = _text(message.get("type"), MAX_TYPE) or "unknown"
    from_wa_id = _text(message.get("from"), MAX_WA_ID)
    contact = contacts.get(from_wa_id or "") or only_contact or {}
    from_user_id = _text(message.get("from_user_id"), MAX_USER_ID) or _text(
        contact.get("user_id"), MAX_USER_ID
    )
    profile_name = _text(_object(contact.get("profile")).get("name"), MAX_PROFILE_NAME)
    context = _object(message.get("context"))
    content = _object(message.get(message_type))

    text: str | None = None
    choice_kind = choice_id = choice_title = None
    reaction_target = reaction_emoji = None
    media_id = media_mime_type = caption = media_sha256 = media_filename = None

    if message_type == "text":
        text = _text(content.get("body"))
    elif message_type == "button":
        choice_kind = CHOICE_TEMPLATE_BUTTON
        choice_id = _text(content.get("payload"), MAX_CHOICE)
        choice_title = _text(content.get("text"), MAX_CHOICE)
        text = _text(content.get("text"))
    elif message_type == "interactive":
        choice_kind, choice_id, choice_title, text = _interactive(content)
    elif message_type == "reaction":
        reaction_target = _text(content.get("message_id"), MAX_WAMID)
        # A removed reaction arrives with an empty emoji or none at all.
        reaction_emoji = _text(content.get("emoji"), MAX_EMOJI) or None
    elif message_type in MEDIA_TYPES:
        media_id = _text(content.get("id"), MAX_WAMID)
        media_mime_type = _text(content.get("mime_type"), MAX_MIME_TYPE)
        caption = _text(content.get("caption"))
        media_sha256 = _text(content.get("sha256"), MAX_SHA256)
        media_filename = _text(content.get("filename"), MAX_FILENAME)
        text = caption or media_filename
    else:
        text = _preview(message_type, message, content)

    errors = _list_of_objects(message.get("errors")) + list(value_errors)
    return InboundMessageEvent(
        key=message_key(wamid),
        wamid=wamid,
        type=message_type,
        from_wa_id=from_wa_id,
        from_user_id=from_user_id,
        profile_name=profile_name,
        sent_at=parse_timestamp(message.get("timestamp")),
        text=text,
        context_id=_text(context.get("id"), MAX_WAMID),
        choice_kind=choice_kind,
        choice_id=choice_id,
        choice_title=choice_title,
        reaction_target=reaction_target,
        reaction_emoji=reaction_emoji,
        media_id=media_id,
        media_mime_type=media_mime_type,
        caption=caption,
        errors=errors or None,
        raw=message,
        media_sha256=media_sha256,
        media_filename=media_filename,
    )


def _interactive(content: dict[str, Any]) -> tuple[str | None, str | None, str | None, str | None]:
    kind = content.get("type")
    if kind == CHOICE_REPLY_BUTTON:
        reply = _object(content.get(CHOICE_REPLY_BUTTON))
        title = _text(reply.get("title"), MAX_CHOICE)
        return CHOICE_REPLY_BUTTON, _text(reply.get("id"), MAX_CHOICE), title, title
    if kind == CHOICE_LIST_ROW:
        row = _object(content.get(CHOICE_LIST_ROW))
        title = _text(row.get("title"), MAX_CHOICE)
        return CHOICE_LIST_ROW, _text(row.get("id"), MAX_CHOICE), title, title
    if kind == "nfm_reply":
        reply = _object(content.get("nfm_reply"))
        return None, None, None, _text(reply.get("body")) or _text(reply.get("response_json"))
    return None, None, None, None


def _preview(message_type: str, message: dict[str, Any], content: dict[str, Any]) -> str | None:
    """A readable line for types that carry no text of their own."""
    if message_type == "location":
        parts = [_text(content.get("name")), _text(content.get("address"))]
        place = ", ".join(part for part in parts if part)
        where = f"{content.get('latitude')}, {content.get('longitude')}"
        return f"{place} ({where})" if place else where
    if message_type == "contacts":
        names = [
            _text(_object(card.get("name")).get("formatted_name"))
            for card in _list_of_objects(message.get("contacts"))
        ]
        return ", ".join(name for name in names if name) or None
    if message_type in {"order", "system"}:
        return _text(content.get("text")) or _text(content.get("body"))
    return None


def _parse_status(status: dict[str, Any]) -> StatusEvent | None:
    wamid = _text(status.get("id"), MAX_WAMID)
    name = _text(status.get("status"), MAX_STATUS)
    if not wamid or not name:
        return None
    participant = _text(status.get("recipient_participant_id"), MAX_RECIPIENT)
    errors = _list_of_objects(status.get("errors"))
    return StatusEvent(
        key=status_key(wamid, name, participant),
        wamid=wamid,
        status=name,
        occurred_at=parse_timestamp(status.get("timestamp")),
        recipient_id=_text(status.get("recipient_id") or status.get("recipient_user_id"), MAX_RECIPIENT),
        recipient_participant_id=participant,
        callback_data=_text(status.get("biz_opaque_callback_data"), MAX_CALLBACK_DATA),
        errors=errors or None,
        raw=status,
    )


def first_error(errors: list[Any] | None) -> tuple[int | None, str | None, str | None]:
    """(code, title, details) of the first error in a webhook errors list."""
    if not errors:
        return None, None, None
    error = errors[0] if isinstance(errors[0], dict) else {}
    code = error.get("code")
    title = _text(error.get("title") or error.get("message"), 255)
    details = _text(_object(error.get("error_data")).get("details"))
    return (code if isinstance(code, int) and not isinstance(code, bool) else None), title, details


_PLAIN_LANGUAGE = {
    130429: "Too many messages were sent from the business number in a short time; they will be retried.",
    131000: "WhatsApp could not send the message because of an unknown error.",
    131026: "The message could not be delivered: the number may not use WhatsApp or must update the app.",
    131047: "More than 24 hours have passed since the customer last wrote; only a template can be sent.",
    131049: "WhatsApp did not deliver this marketing message to keep engagement healthy; wait a day.",
    131050: "The customer has stopped marketing messages from this business.",
    131051: "The customer sent a kind of message WhatsApp does not support here.",
    131052: "The media the customer sent could not be downloaded.",
    131053: "The media in the message could not be uploaded; check its type and size.",
    131056: "Too many messages to this customer in a short time; wait before sending again.",
    130472: "The customer's number is part of a WhatsApp experiment; the message was not sent.",
}


def describe_error(code: int | None, title: str | None, details: str | None) -> str:
    """A sentence an agent can read for a WhatsApp error code, with Meta's own words as a fallback."""
    if code in _PLAIN_LANGUAGE:
        return _PLAIN_LANGUAGE[code]
    words = details or title or "WhatsApp reported an error"
    return f"{words} (code {code})" if code is not None else words
