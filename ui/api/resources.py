"""Typed resources of the backend's HTTP API, parsed from its JSON bodies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# Outbox states as the API names them.
OUTBOUND_STATES = (
    "queued",
    "sending",
    "accepted",
    "sent",
    "delivered",
    "read",
    "unknown",
    "held",
    "failed",
    "cancelled",
)


def parse_time(value: object) -> datetime | None:
    """An aware datetime from an ISO 8601 string, or None."""
    if not isinstance(value, str) or not value:
        return None
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        # The API speaks UTC; a naive value is UTC without its suffix.
        from datetime import UTC

        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _text(value: object) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list and the cursor of the next (None at the end)."""

    items: list[T]
    next_cursor: str | None


@dataclass(frozen=True)
class Contact:
    """A customer as the API shows them."""

    wa_id: str | None
    number: str | None
    name: str | None

    @property
    def display_name(self) -> str:
        """The best name to show: profile name, else number, else WhatsApp id."""
        return self.name or self.number or (f"+{self.wa_id}" if self.wa_id else "unknown contact")

    @classmethod
    def from_json(cls, body: Mapping[str, Any] | None) -> Contact:
        """Parse a contact object."""
        body = body or {}
        return cls(
            wa_id=_text(body.get("wa_id")), number=_text(body.get("number")), name=_text(body.get("name"))
        )


@dataclass(frozen=True)
class Conversation:
    """One row of the conversation list."""

    id: int
    contact: Contact
    assignee: str | None
    last_message_at: datetime | None
    unread: int
    window_closes_at: datetime | None
    last_message: str | None = None

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Conversation:
        """Parse a conversation object."""
        last = body.get("last_message")
        if isinstance(last, Mapping):
            last = last.get("text") or last.get("body")
        return cls(
            id=int(body["id"]),
            contact=Contact.from_json(body.get("contact")),
            assignee=_text(body.get("assignee")),
            last_message_at=parse_time(body.get("last_message_at")),
            unread=int(body.get("unread") or 0),
            window_closes_at=parse_time(body.get("window_closes_at")),
            last_message=_text(last),
        )


@dataclass(frozen=True)
class SendError:
    """Why Meta refused or failed a message."""

    code: int | None
    title: str | None
    details: str | None

    @classmethod
    def from_json(cls, body: object) -> SendError | None:
        """Parse an error object, or None for null."""
        if not isinstance(body, Mapping):
            return None
        raw_code = body.get("code")
        try:
            code = int(raw_code) if raw_code is not None else None
        except (TypeError, ValueError):
            code = None
        return cls(code=code, title=_text(body.get("title")), details=_text(body.get("details")))


@dataclass(frozen=True)
class InboundMessage:
    """A message a customer sent."""

    wamid: str
    type: str
    text: str | None
    choice: str | None
    context_id: str | None
    attributed: bool
    received_at: datetime | None
    emoji: str | None = None

    @property
    def is_reaction(self) -> bool:
        """Whether this is a reaction to a message rather than a message of its own."""
        return self.type == "reaction"

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> InboundMessage:
        """Parse an inbound message object."""
        choice = body.get("choice_title") or body.get("choice")
        if isinstance(choice, Mapping):
            choice = choice.get("title") or choice.get("payload") or choice.get("id")
        emoji = body.get("emoji")
        reaction = body.get("reaction")
        if emoji is None and isinstance(reaction, Mapping):
            emoji = reaction.get("emoji")
        elif emoji is None and isinstance(reaction, str):
            emoji = reaction
        if emoji is None and body.get("type") == "reaction":
            emoji = body.get("text")
        return cls(
            wamid=str(body["wamid"]),
            type=str(body.get("type") or "text"),
            text=_text(body.get("text")),
            choice=_text(choice),
            context_id=_text(body.get("context_id")),
            attributed=bool(body.get("attributed")),
            received_at=parse_time(body.get("received_at")),
            emoji=_text(emoji),
        )


@dataclass(frozen=True)
class OutboundMessage:
    """A message the business sent (or is sending), with the replies that answer it."""

    key: str
    wamid: str | None
    state: str
    purpose: str | None
    body: str | None
    created_at: datetime | None
    trigger_ref: str | None = None
    error: SendError | None = None
    replies: tuple[InboundMessage, ...] = ()
    reactions: tuple[InboundMessage, ...] = ()

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> OutboundMessage:
        """Parse an outbound message object with its nested replies."""
        inbound = [InboundMessage.from_json(reply) for reply in body.get("replies") or []]
        inbound += [InboundMessage.from_json(reaction) for reaction in body.get("reactions") or []]
        text = body.get("body")
        if isinstance(text, Mapping):
            text = text.get("text") or text.get("body") or text.get("name")
        return cls(
            key=str(body["key"]),
            wamid=_text(body.get("wamid")),
            state=str(body.get("state") or "queued"),
            purpose=_text(body.get("purpose")),
            body=_text(text),
            created_at=parse_time(body.get("created_at")),
            trigger_ref=_text(body.get("trigger_ref")),
            error=SendError.from_json(body.get("error")),
            replies=tuple(message for message in inbound if not message.is_reaction),
            reactions=tuple(message for message in inbound if message.is_reaction),
        )


ThreadItem = OutboundMessage | InboundMessage


def parse_thread_item(body: Mapping[str, Any]) -> ThreadItem:
    """An outbound or inbound top-level thread entry."""
    if body.get("direction") == "outbound":
        return OutboundMessage.from_json(body)
    return InboundMessage.from_json(body)


@dataclass(frozen=True)
class MessageStatus:
    """The state of one outbox message, as `GET /v1/messages/{key}` answers."""

    key: str
    to: str | None
    purpose: str | None
    state: str
    wamid: str | None
    attempts: int
    error: SendError | None

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> MessageStatus:
        """Parse a message resource."""
        return cls(
            key=str(body["key"]),
            to=_text(body.get("to")),
            purpose=_text(body.get("purpose")),
            state=str(body.get("state") or "queued"),
            wamid=_text(body.get("wamid")),
            attempts=int(body.get("attempts") or 0),
            error=SendError.from_json(body.get("error")),
        )


@dataclass(frozen=True)
class WorkItem:
    """An unattributed reply waiting for a person to place it."""

    wamid: str
    conversation_id: int
    sender: str | None
    text: str | None
    received_at: datetime | None

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> WorkItem:
        """Parse a work-queue item."""
        sender = body.get("from")
        if isinstance(sender, Mapping):
            sender = Contact.from_json(sender).display_name
        return cls(
            wamid=str(body["wamid"]),
            conversation_id=int(body["conversation_id"]),
            sender=_text(body.get("name")) or _text(sender),
            text=_text(body.get("text")),
            received_at=parse_time(body.get("received_at")),
        )


@dataclass(frozen=True)
class SupervisorItem:
    """A send that needs a supervisor's decision: unknown, stuck in sending, or held."""

    key: str
    to: str | None
    purpose: str | None
    state: str
    attempts: int
    error: SendError | None
    age_seconds: float | None
    evidence: tuple[str, ...]
    hold_reason: str | None = None
    body: str | None = None
    contact_name: str | None = None
    conversation_id: int | None = None
    reason: str | None = None
    created_at: datetime | None = None

    def age(self, now: datetime) -> float | None:
        """Seconds since the send was created (ticking), else the age the API reported."""
        if self.created_at is not None:
            return max(0.0, (now - self.created_at).total_seconds())
        return self.age_seconds

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> SupervisorItem:
        """Parse a supervisor-queue item; evidence may be text, a list or objects."""
        raw_evidence = body.get("evidence")
        evidence: list[str] = []
        if isinstance(raw_evidence, str):
            evidence.append(raw_evidence)
        elif isinstance(raw_evidence, Mapping):
            evidence.extend(f"{name}: {value}" for name, value in raw_evidence.items() if value is not None)
        elif isinstance(raw_evidence, list):
            for entry in raw_evidence:
                if isinstance(entry, Mapping) and "status" in entry:
                    evidence.append(_status_evidence(entry))
                elif isinstance(entry, Mapping):
                    evidence.append(", ".join(f"{name} {value}" for name, value in entry.items()))
                else:
                    evidence.append(str(entry))
        error = body.get("last_error", body.get("error"))
        age = body.get("age_seconds", body.get("age"))
        contact = body.get("contact")
        text = body.get("body")
        if isinstance(text, Mapping):
            text = text.get("text") or text.get("body") or text.get("name")
        return cls(
            key=str(body["key"]),
            to=_text(body.get("to")),
            purpose=_text(body.get("purpose")),
            state=str(body.get("state") or "unknown"),
            attempts=int(body.get("attempts") or 0),
            error=SendError.from_json(error) if isinstance(error, Mapping) else None,
            age_seconds=float(age) if isinstance(age, int | float) else None,
            evidence=tuple(evidence),
            hold_reason=_text(body.get("hold_reason")),
            reason=_text(body.get("reason")),
            created_at=parse_time(body.get("created_at")),
            body=_text(text),
            contact_name=(
                Contact.from_json(contact).display_name
                if isinstance(contact, Mapping)
                else _text(body.get("name"))
            ),
            conversation_id=int(body["conversation_id"]) if body.get("conversation_id") is not None else None,
        )


def _status_evidence(entry: Mapping[str, Any]) -> str:
    """A status webhook seen for a send, as one line of evidence."""
    moment = parse_time(entry.get("occurred_at") or entry.get("received_at"))
    when = f" at {moment.astimezone().strftime('%H:%M:%S')}" if moment else ""
    wamid = f" for {entry['wamid']}" if entry.get("wamid") else ""
    return f"WhatsApp reported '{entry['status']}'{when}{wamid}"


@dataclass(frozen=True)
class TemplateInfo:
    """An approved message template the composer offers once the window is closed."""

    name: str
    language: str
    body: str
    parameters: tuple[str, ...]
    buttons: tuple[str, ...] = ()

    def render(self, values: list[str]) -> str:
        """The body with the given values in place of {{1}}, {{2}}…; blanks stay visible."""
        text = self.body
        for index, name in enumerate(self.parameters, start=1):
            value = values[index - 1] if index <= len(values) and values[index - 1] else f"[{name}]"
            text = text.replace(f"{{{{{index}}}}}", value)
        return text

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> TemplateInfo:
        """Parse a template object."""
        parameters = body.get("parameters") or []
        if isinstance(parameters, int):
            parameters = [f"parameter {number}" for number in range(1, parameters + 1)]
        return cls(
            name=str(body["name"]),
            language=str(body.get("language") or "en"),
            body=str(body.get("body") or ""),
            parameters=tuple(str(name) for name in parameters),
            buttons=tuple(str(title) for title in body.get("buttons") or []),
        )


@dataclass(frozen=True)
class Metrics:
    """The five measures and the queue depth by state."""

    sending_over_1m: int
    dedupe_rejections: int
    duplicate_webhooks: int
    unattributed_inbound: int
    webhook_parse_failures: int
    sent_to_delivered_p50: float | None
    sent_to_delivered_p95: float | None
    queue_depth: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Metrics:
        """Parse the metrics object."""
        gap = body.get("sent_to_delivered_seconds") or {}

        def number(value: object) -> float | None:
            return float(value) if isinstance(value, int | float) else None

        return cls(
            sending_over_1m=int(body.get("sending_over_1m") or 0),
            dedupe_rejections=int(body.get("dedupe_rejections") or 0),
            duplicate_webhooks=int(body.get("duplicate_webhooks") or 0),
            unattributed_inbound=int(body.get("unattributed_inbound") or 0),
            webhook_parse_failures=int(body.get("webhook_parse_failures") or 0),
            sent_to_delivered_p50=number(gap.get("p50")),
            sent_to_delivered_p95=number(gap.get("p95")),
            queue_depth={str(state): int(count) for state, count in (body.get("queue_depth") or {}).items()},
        )


@dataclass(frozen=True)
class Event:
    """One journal entry from the live feed."""

    seq: int
    type: str
    at: datetime | None
    data: dict[str, Any]

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Event:
        """Parse an event."""
        return cls(
            seq=int(body["seq"]),
            type=str(body["type"]),
            at=parse_time(body.get("at")),
            data=dict(body.get("data") or {}),
        )


@dataclass(frozen=True)
class EventBatch:
    """Events after a seq and the seq to ask after next time."""

    events: list[Event]
    next: int


@dataclass(frozen=True)
class Identity:
    """Who the token belongs to."""

    name: str | None
    role: str | None

    @property
    def is_supervisor(self) -> bool:
        """Whether the user may use the supervisor queue."""
        return self.role == "supervisor"
