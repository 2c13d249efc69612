"""The backend's wire format, parsed strictly into typed resources: the only code that knows its JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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

# Journal entry types the client reacts to.
MESSAGE_STATE_CHANGED = "message.state_changed"
MESSAGE_QUEUED = "message.queued"
INBOUND_RECEIVED = "inbound.received"
INBOUND_ATTRIBUTED = "inbound.attributed"
CONVERSATION_ASSIGNED = "conversation.assigned"
WINDOW_CLOSING = "window.closing"
WINDOW_CLOSED = "window.closed"
SUPERVISOR_DECISION = "supervisor.decision"
CONVERSATION_STATUS_CHANGED = "conversation.status_changed"
PRESENCE_CHANGED = "presence.changed"
NOTE_ADDED = "note.added"
# A customer's file was downloaded and kept, or could not be: its thread shows the picture or the reason.
MEDIA_UPDATED = "media.updated"
CONVERSATION_LABELS_CHANGED = "conversation.labels_changed"
CANNED_REPLIES_CHANGED = "canned_replies.changed"
CONTACT_OPTED_OUT = "contact.opted_out"
CONTACT_OPTED_IN = "contact.opted_in"
NUMBER_HEALTH_CHANGED = "number.health_changed"
TEMPLATE_STATUS_CHANGED = "template.status_changed"
# The backend was restored from a backup: everything shown may have changed.
DATABASE_RESTORED = "database.restored"

# Meta's status of a template that may be sent.
APPROVED_TEMPLATE = "APPROVED"

# Conversation statuses as the API names them.
OPEN, PENDING, RESOLVED, SNOOZED = "open", "pending", "resolved", "snoozed"
CONVERSATION_STATUSES = (OPEN, PENDING, RESOLVED, SNOOZED)

# Where an inbound message sits, as the API names it; only WORK_QUEUE waits for a person to place it.
REPLY, WORK_QUEUE, IN_CONVERSATION = "reply", "work_queue", "conversation"
LINKED, NEW_TOPIC = "linked", "new_topic"

# The error code of a reply refused because a colleague wrote since the author last looked.
CONVERSATION_CHANGED = "conversation_changed"


class WireFormatError(ValueError):
    """A body from the backend does not have the shape this client reads."""


def _kind(value: object) -> str:
    """The JSON name of a value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_time(value: object, where: str = "time") -> datetime:
    """An aware datetime from the API's ISO 8601 text (always with a zone)."""
    if not isinstance(value, str):
        raise WireFormatError(f"{where} must be an ISO 8601 time, not {_kind(value)}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise WireFormatError(f"{where} is not an ISO 8601 time: {value!r}") from None
    if parsed.tzinfo is None:
        raise WireFormatError(f"{where} has no time zone: {value!r}")
    return parsed


class _Fields:
    """The fields of one JSON object; every read checks presence and type and names the field on error."""

    def __init__(self, body: object, where: str) -> None:
        if not isinstance(body, Mapping):
            raise WireFormatError(f"{where} must be an object, not {_kind(body)}")
        self._body: Mapping[str, Any] = body
        self.where = where

    def _name(self, name: str) -> str:
        return f"{self.where}.{name}"

    def _get(self, name: str) -> Any:
        if name not in self._body:
            raise WireFormatError(f"{self._name(name)} is missing")
        return self._body[name]

    def has(self, name: str) -> bool:
        """Whether the object carries this field (fields added later are absent from older backends)."""
        return name in self._body

    def _wrong(self, name: str, expected: str, value: object) -> WireFormatError:
        return WireFormatError(f"{self._name(name)} must be {expected}, not {_kind(value)}")

    def string(self, name: str) -> str:
        """A required string."""
        value = self._get(name)
        if not isinstance(value, str):
            raise self._wrong(name, "a string", value)
        return value

    def optional_string(self, name: str) -> str | None:
        """A string or null (the field itself must be there)."""
        value = self._get(name)
        if value is not None and not isinstance(value, str):
            raise self._wrong(name, "a string or null", value)
        return value

    def integer(self, name: str) -> int:
        """A required whole number."""
        value = self._get(name)
        if not _is_integer(value):
            raise self._wrong(name, "a whole number", value)
        return int(value)

    def optional_integer(self, name: str) -> int | None:
        """A whole number or null."""
        value = self._get(name)
        if value is not None and not _is_integer(value):
            raise self._wrong(name, "a whole number or null", value)
        return None if value is None else int(value)

    def optional_number(self, name: str) -> float | None:
        """A number or null."""
        value = self._get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(name, "a number or null", value)
        return float(value)

    def boolean(self, name: str) -> bool:
        """A required true or false."""
        value = self._get(name)
        if not isinstance(value, bool):
            raise self._wrong(name, "true or false", value)
        return value

    def time(self, name: str) -> datetime:
        """A required ISO 8601 time."""
        return parse_time(self._get(name), self._name(name))

    def optional_time(self, name: str) -> datetime | None:
        """An ISO 8601 time or null."""
        value = self._get(name)
        return None if value is None else parse_time(value, self._name(name))

    def array(self, name: str) -> list[Any]:
        """A required array."""
        value = self._get(name)
        if not isinstance(value, list):
            raise self._wrong(name, "an array", value)
        return value

    def strings(self, name: str) -> tuple[str, ...]:
        """A required array of strings."""
        values = self.array(name)
        for index, value in enumerate(values):
            if not isinstance(value, str):
                raise WireFormatError(f"{self._name(name)}[{index}] must be a string, not {_kind(value)}")
        return tuple(values)

    def nested(self, name: str) -> _Fields:
        """A required object."""
        return _Fields(self._get(name), self._name(name))

    def optional_nested(self, name: str) -> _Fields | None:
        """An object or null."""
        value = self._get(name)
        return None if value is None else _Fields(value, self._name(name))

    def nested_if_present(self, name: str) -> _Fields | None:
        """An object, or None when the field is absent or null (a field only some items carry)."""
        if name not in self._body or self._body[name] is None:
            return None
        return _Fields(self._body[name], self._name(name))

    def entries(self, name: str) -> list[_Fields]:
        """A required array of objects."""
        return [
            _Fields(entry, f"{self._name(name)}[{index}]") for index, entry in enumerate(self.array(name))
        ]

    def counts(self, name: str) -> dict[str, int]:
        """A required object of whole numbers."""
        counts = self.nested(name)
        return {key: counts.integer(key) for key in counts._body}


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list and the cursor of the next (None at the end)."""

    items: list[T]
    next_cursor: str | None


def _page(body: object, where: str, list_name: str, parse: Callable[[_Fields], T]) -> Page[T]:
    fields = _Fields(body, where)
    return Page([parse(entry) for entry in fields.entries(list_name)], fields.optional_string("next_cursor"))


@dataclass(frozen=True)
class Contact:
    """A customer as the API shows them."""

    wa_id: str | None
    number: str | None
    name: str | None
    # Opted out of marketing: marketing is refused, service replies still go.
    opted_out: bool = False
    opted_out_at: datetime | None = None

    @property
    def display_name(self) -> str:
        """The best name to show: profile name, else number, else WhatsApp id."""
        return self.name or self.number or (f"+{self.wa_id}" if self.wa_id else "unknown contact")

    @classmethod
    def parse(cls, fields: _Fields) -> Contact:
        """Read a contact object."""
        return cls(
            wa_id=fields.optional_string("wa_id"),
            number=fields.optional_string("number"),
            name=fields.optional_string("name"),
            # Absent from a backend older than opt-outs: nobody is marked.
            opted_out=fields.boolean("opted_out") if fields.has("opted_out") else False,
            opted_out_at=fields.optional_time("opted_out_at") if fields.has("opted_out_at") else None,
        )


@dataclass(frozen=True)
class Viewer:
    """A user who has a conversation on screen now, and whether they are typing in it."""

    user: str
    typing: bool
    since: datetime

    @classmethod
    def parse(cls, fields: _Fields) -> Viewer:
        """Read one presence entry."""
        return cls(user=fields.string("user"), typing=fields.boolean("typing"), since=fields.time("since"))


def _viewers(fields: _Fields) -> tuple[Viewer, ...]:
    return tuple(Viewer.parse(entry) for entry in fields.entries("viewers"))


def _status(fields: _Fields) -> str:
    status = fields.string("status")
    if status not in CONVERSATION_STATUSES:
        raise WireFormatError(f"{fields.where}.status must be one of {', '.join(CONVERSATION_STATUSES)}")
    return status


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
    status: str = OPEN
    snoozed_until: datetime | None = None
    labels: tuple[str, ...] = ()
    viewers: tuple[Viewer, ...] = ()

    @classmethod
    def parse(cls, fields: _Fields, *, listed: bool) -> Conversation:
        """Read a conversation; only list entries carry the preview of the last message."""
        return cls(
            id=fields.integer("id"),
            contact=Contact.parse(fields.nested("contact")),
            assignee=fields.optional_string("assignee"),
            last_message_at=fields.optional_time("last_message_at"),
            unread=fields.integer("unread"),
            window_closes_at=fields.optional_time("window_closes_at"),
            last_message=fields.optional_string("last_message") if listed else None,
            status=_status(fields),
            snoozed_until=fields.optional_time("snoozed_until"),
            labels=fields.strings("labels"),
            viewers=_viewers(fields),
        )

    @classmethod
    def from_json(cls, body: object) -> Conversation:
        """Parse one conversation as `GET /v1/conversations/{id}` answers it."""
        return cls.parse(_Fields(body, "conversation"), listed=False)


@dataclass(frozen=True)
class SendError:
    """Why a send failed or its outcome is unknown: Meta's code and words, and the backend's reason code."""

    code: int | None
    title: str | None
    details: str | None
    reason: str

    @classmethod
    def parse(cls, fields: _Fields) -> SendError:
        """Read an error object."""
        return cls(
            code=fields.optional_integer("code"),
            title=fields.optional_string("title"),
            details=fields.optional_string("details"),
            reason=fields.string("reason"),
        )


def _send_error(fields: _Fields) -> SendError | None:
    error = fields.optional_nested("error")
    return None if error is None else SendError.parse(error)


@dataclass(frozen=True)
class MediaInfo:
    """A photo, voice note, video, document or sticker a customer sent, and whether it is kept yet."""

    id: str
    mime_type: str | None
    filename: str | None
    caption: str | None
    size: int | None
    # pending (still being downloaded) | stored | failed (`error` says why)
    state: str
    error: str | None
    # How long a voice note, audio or video lasts; None when unknown (other files, AMR, older backends).
    duration_seconds: float | None = None

    @property
    def kind(self) -> str:
        """image, audio, video, sticker or document, from the MIME type."""
        base = (self.mime_type or "").split(";", 1)[0].strip().lower()
        if base == "image/webp":
            return "sticker"
        for kind in ("image", "audio", "video"):
            if base.startswith(kind + "/"):
                return kind
        return "document"

    @classmethod
    def parse(cls, fields: _Fields) -> MediaInfo:
        """Read the `media` field of an inbound message."""
        return cls(
            id=fields.string("id"),
            mime_type=fields.optional_string("mime_type"),
            filename=fields.optional_string("filename"),
            caption=fields.optional_string("caption"),
            size=fields.optional_integer("size"),
            state=fields.string("state"),
            error=fields.optional_string("error"),
            duration_seconds=(
                fields.optional_number("duration_seconds") if fields.has("duration_seconds") else None
            ),
        )


@dataclass(frozen=True)
class UploadedMedia:
    """A file uploaded to send: its id for a message, its type, size and SHA-256 (hex)."""

    id: str
    mime_type: str
    size: int
    sha256: str
    # How long an audio file or video lasts, when the backend could read it.
    duration_seconds: float | None = None

    @classmethod
    def from_json(cls, body: object) -> UploadedMedia:
        """Parse the answer of POST /v1/media."""
        fields = _Fields(body, "uploaded media")
        return cls(
            id=fields.string("id"),
            mime_type=fields.string("mime_type"),
            size=fields.integer("size"),
            sha256=fields.string("sha256"),
            duration_seconds=(
                fields.optional_number("duration_seconds") if fields.has("duration_seconds") else None
            ),
        )


@dataclass(frozen=True)
class InboundMessage:
    """A message a customer sent."""

    wamid: str
    type: str
    text: str | None
    choice: str | None
    context_id: str | None
    attributed: bool
    received_at: datetime
    emoji: str | None = None
    placement: str = REPLY
    media: MediaInfo | None = None

    @property
    def is_reaction(self) -> bool:
        """Whether this is a reaction to a message rather than a message of its own."""
        return self.type == "reaction"

    @property
    def needs_placing(self) -> bool:
        """Whether nobody can tell which of our messages it answers, so a person has to link it."""
        return self.placement == WORK_QUEUE

    @classmethod
    def parse(cls, fields: _Fields) -> InboundMessage:
        """Read an inbound message; a button or list answer shows its title, else its id."""
        choice_title = fields.optional_string("choice_title")
        choice_id = fields.optional_string("choice")
        return cls(
            wamid=fields.string("wamid"),
            type=fields.string("type"),
            text=fields.optional_string("text"),
            choice=choice_title if choice_title is not None else choice_id,
            context_id=fields.optional_string("context_id"),
            attributed=fields.boolean("attributed"),
            received_at=fields.time("received_at"),
            emoji=fields.optional_string("reaction"),
            placement=fields.string("placement"),
            media=MediaInfo.parse(media)
            if (media := fields.nested_if_present("media")) is not None
            else None,
        )

    @classmethod
    def from_json(cls, body: object) -> InboundMessage:
        """Parse one inbound message."""
        return cls.parse(_Fields(body, "inbound message"))


@dataclass(frozen=True)
class OutboundMessage:
    """A message the business sent (or is sending), with the replies that answer it."""

    key: str
    wamid: str | None
    state: str
    purpose: str
    body: str
    created_at: datetime
    trigger_ref: str | None = None
    error: SendError | None = None
    replies: tuple[InboundMessage, ...] = ()
    reactions: tuple[InboundMessage, ...] = ()

    @classmethod
    def parse(cls, fields: _Fields) -> OutboundMessage:
        """Read an outbound thread entry with its nested replies and reactions."""
        inbound = [InboundMessage.parse(reply) for reply in fields.entries("replies")]
        return cls(
            key=fields.string("key"),
            wamid=fields.optional_string("wamid"),
            state=fields.string("state"),
            purpose=fields.string("purpose"),
            body=fields.string("body"),
            created_at=fields.time("created_at"),
            trigger_ref=fields.optional_string("trigger_ref"),
            error=_send_error(fields),
            replies=tuple(message for message in inbound if not message.is_reaction),
            reactions=tuple(message for message in inbound if message.is_reaction),
        )


@dataclass(frozen=True)
class Note:
    """An internal note in a thread: seen by the team, never sent to the customer."""

    id: int
    author: str
    text: str
    created_at: datetime

    @classmethod
    def parse(cls, fields: _Fields) -> Note:
        """Read a note."""
        return cls(
            id=fields.integer("id"),
            author=fields.string("author"),
            text=fields.string("text"),
            created_at=fields.time("created_at"),
        )

    @classmethod
    def from_json(cls, body: object) -> Note:
        """Parse a note as `POST /v1/conversations/{id}/notes` answers it."""
        return cls.parse(_Fields(body, "note"))


ThreadItem = OutboundMessage | InboundMessage | Note


def _thread_item(fields: _Fields) -> ThreadItem:
    direction = fields.string("direction")
    if direction == "outbound":
        return OutboundMessage.parse(fields)
    if direction == "inbound":
        return InboundMessage.parse(fields)
    if direction == "note":
        return Note.parse(fields)
    raise WireFormatError(f"{fields.where}.direction must be inbound, outbound or note, not {direction!r}")


def item_time(item: ThreadItem) -> datetime:
    """When a thread entry was written: sent, received or noted."""
    if isinstance(item, OutboundMessage):
        return item.created_at
    if isinstance(item, InboundMessage):
        return item.received_at
    return item.created_at


@dataclass(frozen=True)
class ThreadPage(Page[ThreadItem]):
    """One page of a thread, with who has the conversation on screen now."""

    viewers: tuple[Viewer, ...] = ()


@dataclass(frozen=True)
class ColleagueMessage:
    """A message another user sent in a conversation after the author of a reply last looked."""

    key: str
    state: str
    body: str
    created_by: str | None
    created_at: datetime

    @classmethod
    def parse(cls, fields: _Fields) -> ColleagueMessage:
        """Read a message resource as a refused reply lists it."""
        return cls(
            key=fields.string("key"),
            state=fields.string("state"),
            body=fields.string("body"),
            created_by=fields.optional_string("created_by"),
            created_at=fields.time("created_at"),
        )


@dataclass(frozen=True)
class LabelCount:
    """A label in use, and on how many conversations."""

    name: str
    count: int

    @classmethod
    def parse(cls, fields: _Fields) -> LabelCount:
        """Read one entry of `GET /v1/labels`."""
        return cls(name=fields.string("name"), count=fields.integer("count"))


def parse_thread_item(body: object) -> ThreadItem:
    """An outbound or inbound top-level thread entry."""
    return _thread_item(_Fields(body, "thread entry"))


@dataclass(frozen=True)
class MessageStatus:
    """The state of one outbox message, as `GET /v1/messages/{key}` answers."""

    key: str
    to: str
    purpose: str
    state: str
    wamid: str | None
    attempts: int
    error: SendError | None

    @classmethod
    def parse(cls, fields: _Fields) -> MessageStatus:
        """Read a message resource."""
        return cls(
            key=fields.string("key"),
            to=fields.string("to"),
            purpose=fields.string("purpose"),
            state=fields.string("state"),
            wamid=fields.optional_string("wamid"),
            attempts=fields.integer("attempts"),
            error=_send_error(fields),
        )

    @classmethod
    def from_json(cls, body: object) -> MessageStatus:
        """Parse a message resource."""
        return cls.parse(_Fields(body, "message"))


@dataclass(frozen=True)
class Candidate:
    """A business message a work-queue item may answer."""

    key: str
    wamid: str | None
    purpose: str
    body: str
    sent_at: datetime | None

    @classmethod
    def parse(cls, fields: _Fields) -> Candidate:
        """Read one candidate."""
        return cls(
            key=fields.string("key"),
            wamid=fields.optional_string("wamid"),
            purpose=fields.string("purpose"),
            body=fields.string("body"),
            sent_at=fields.optional_time("sent_at"),
        )


@dataclass(frozen=True)
class WorkItem:
    """An unattributed reply waiting for a person to place it."""

    wamid: str
    conversation_id: int
    sender: str | None
    text: str | None
    received_at: datetime
    # The business messages it may answer, newest first.
    candidates: tuple[Candidate, ...] = ()

    @classmethod
    def parse(cls, fields: _Fields) -> WorkItem:
        """Read a work-queue item: the sender is the profile name, else the number or WhatsApp id."""
        name, sender = fields.optional_string("name"), fields.optional_string("from")
        return cls(
            wamid=fields.string("wamid"),
            conversation_id=fields.integer("conversation_id"),
            sender=name or sender,
            text=fields.optional_string("text"),
            received_at=fields.time("received_at"),
            candidates=tuple(Candidate.parse(entry) for entry in fields.entries("candidates")),
        )


@dataclass(frozen=True)
class StatusEvidence:
    """A status webhook WhatsApp sent about a send that needs a decision."""

    wamid: str
    status: str
    occurred_at: datetime

    @classmethod
    def parse(cls, fields: _Fields) -> StatusEvidence:
        """Read one evidence entry."""
        return cls(
            wamid=fields.string("wamid"),
            status=fields.string("status"),
            occurred_at=fields.time("occurred_at"),
        )


@dataclass(frozen=True)
class SupervisorItem:
    """A send that needs a supervisor's decision: unknown, stuck in sending, or held."""

    key: str
    to: str
    purpose: str
    state: str
    attempts: int
    error: SendError | None
    evidence: tuple[StatusEvidence, ...]
    reason: str
    created_at: datetime
    body: str
    hold_reason: str | None = None
    contact_name: str | None = None
    conversation_id: int | None = None

    def age(self, now: datetime) -> float:
        """Seconds since the send was created (ticking while it is shown)."""
        return max(0.0, (now - self.created_at).total_seconds())

    @classmethod
    def parse(cls, fields: _Fields) -> SupervisorItem:
        """Read a supervisor-queue item."""
        return cls(
            key=fields.string("key"),
            to=fields.string("to"),
            purpose=fields.string("purpose"),
            state=fields.string("state"),
            attempts=fields.integer("attempts"),
            error=_send_error(fields),
            evidence=tuple(StatusEvidence.parse(entry) for entry in fields.entries("evidence")),
            reason=fields.string("reason"),
            created_at=fields.time("created_at"),
            body=fields.string("body"),
            hold_reason=fields.optional_string("hold_reason"),
            contact_name=fields.optional_string("name"),
            conversation_id=fields.optional_integer("conversation_id"),
        )


@dataclass(frozen=True)
class TemplateInfo:
    """A message template the composer offers once the window is closed (only approved ones can go)."""

    name: str
    language: str
    body: str
    parameters: tuple[str, ...]
    buttons: tuple[str, ...] = ()
    status: str = APPROVED_TEMPLATE
    category: str = "UTILITY"
    status_reason: str | None = None

    @property
    def approved(self) -> bool:
        """Whether Meta lets the business send it now."""
        return self.status == APPROVED_TEMPLATE

    def render(self, values: list[str]) -> str:
        """The body with the given values in place of {{1}}, {{2}}…; blanks stay visible."""
        text = self.body
        for index, name in enumerate(self.parameters, start=1):
            value = values[index - 1] if index <= len(values) and values[index - 1] else f"[{name}]"
            text = text.replace(f"{{{{{index}}}}}", value)
        return text

    @classmethod
    def parse(cls, fields: _Fields) -> TemplateInfo:
        """Read a template object."""
        return cls(
            name=fields.string("name"),
            language=fields.string("language"),
            body=fields.string("body"),
            parameters=fields.strings("parameters"),
            buttons=fields.strings("buttons"),
            # A backend older than templates from Meta lists only approved templates of its file.
            status=fields.string("status") if fields.has("status") else APPROVED_TEMPLATE,
            category=fields.string("category") if fields.has("category") else "UTILITY",
            status_reason=fields.optional_string("status_reason") if fields.has("status_reason") else None,
        )


@dataclass(frozen=True)
class HealthReading:
    """One reading of the number's quality rating and messaging limit."""

    recorded_at: datetime
    quality_rating: str | None
    messaging_tier: str | None
    source: str
    event: str | None

    @classmethod
    def parse(cls, fields: _Fields) -> HealthReading:
        """Read one history entry."""
        return cls(
            recorded_at=fields.time("recorded_at"),
            quality_rating=fields.optional_string("quality_rating"),
            messaging_tier=fields.optional_string("messaging_tier"),
            source=fields.string("source"),
            event=fields.optional_string("event"),
        )


def _number_health(fields: _Fields) -> dict[str, Any]:
    """The tier and quality fields of the metrics; none from a backend older than them."""
    if not fields.has("messaging_tier"):
        return {}
    tier = fields.nested("messaging_tier")
    quality = fields.nested("quality_rating")
    return {
        "messaging_tier": tier.optional_string("tier"),
        "messaging_limit": tier.optional_integer("limit"),
        "tier_set_by_hand": tier.boolean("set_by_hand"),
        "quality_rating": quality.optional_string("rating"),
        "quality_dropped": quality.boolean("dropped"),
        "health_history": tuple(
            HealthReading.parse(entry) for entry in fields.entries("number_health_history")
        ),
    }


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
    # Outgoing webhooks: subscriptions disabled after 3 days of failures, deliveries still waiting.
    webhook_subscriptions_disabled: int = 0
    outgoing_deliveries_pending: int = 0
    # When the newest backup was taken (None: never) and the free disk where the data folder is.
    last_backup_at: datetime | None = None
    data_folder_free_bytes: int | None = None
    # The media store's files and bytes, and customers' files pending or failed (absent: all zero).
    media_files: int = 0
    media_bytes: int = 0
    media_pending: int = 0
    media_failed: int = 0
    # Meta's messaging limit (TIER_2K...) and the limit the pacer keeps (None: no limit).
    messaging_tier: str | None = None
    messaging_limit: int | None = None
    tier_set_by_hand: bool = False
    # GREEN, YELLOW, RED or UNKNOWN; `quality_dropped` when its last change was a drop.
    quality_rating: str | None = None
    quality_dropped: bool = False
    health_history: tuple[HealthReading, ...] = ()

    @classmethod
    def from_json(cls, body: object) -> Metrics:
        """Parse the metrics object."""
        fields = _Fields(body, "metrics")
        gap = fields.nested("sent_to_delivered_seconds")
        media = fields.nested_if_present("media")
        health = _number_health(fields)
        return cls(
            sending_over_1m=fields.integer("sending_over_1m"),
            dedupe_rejections=fields.integer("dedupe_rejections"),
            duplicate_webhooks=fields.integer("duplicate_webhooks"),
            unattributed_inbound=fields.integer("unattributed_inbound"),
            webhook_parse_failures=fields.integer("webhook_parse_failures"),
            sent_to_delivered_p50=gap.optional_number("p50"),
            sent_to_delivered_p95=gap.optional_number("p95"),
            queue_depth=fields.counts("queue_depth"),
            webhook_subscriptions_disabled=fields.integer("webhook_subscriptions_disabled"),
            outgoing_deliveries_pending=fields.integer("outgoing_deliveries_pending"),
            last_backup_at=fields.optional_time("last_backup_at"),
            data_folder_free_bytes=fields.optional_integer("data_folder_free_bytes"),
            media_files=media.integer("files") if media is not None else 0,
            media_bytes=media.integer("bytes") if media is not None else 0,
            media_pending=media.integer("pending") if media is not None else 0,
            media_failed=media.integer("failed") if media is not None else 0,
            **health,
        )


@dataclass(frozen=True)
class Event:
    """One journal entry from the live feed, with the facts the client reacts to read from its data."""

    seq: int
    type: str
    at: datetime
    conversation_id: int | None = None
    key: str | None = None
    state: str | None = None
    previous_state: str | None = None
    attributed: bool | None = None
    message_type: str | None = None
    assignee: str | None = None
    status: str | None = None
    snoozed_until: datetime | None = None
    # Who made the change: a user's name, or "system".
    by: str | None = None
    reason: str | None = None
    viewers: tuple[Viewer, ...] = ()
    labels: tuple[str, ...] = ()
    author: str | None = None
    mentions: tuple[str, ...] = ()
    # Whether the customer's latest message is newer than our latest answer (window.closing).
    unanswered: bool | None = None

    @classmethod
    def parse(cls, fields: _Fields) -> Event:
        """Read an event; the data of the types the client knows is checked, other types pass as they are."""
        seq, kind, at = fields.integer("seq"), fields.string("type"), fields.time("at")
        data = fields.nested("data")
        facts: dict[str, Any] = {}
        if kind == MESSAGE_STATE_CHANGED:
            facts = {
                "key": data.string("key"),
                "conversation_id": data.optional_integer("conversation_id"),
                "state": data.string("state"),
                "previous_state": data.string("previous_state"),
            }
        elif kind == MESSAGE_QUEUED:
            facts = {
                "key": data.string("key"),
                "conversation_id": data.integer("conversation_id"),
                "state": data.string("state"),
            }
        elif kind == INBOUND_RECEIVED:
            facts = {
                "conversation_id": data.integer("conversation_id"),
                "attributed": data.boolean("attributed"),
                "message_type": data.string("type"),
            }
        elif kind in (INBOUND_ATTRIBUTED, WINDOW_CLOSED):
            facts = {"conversation_id": data.integer("conversation_id")}
        elif kind == WINDOW_CLOSING:
            facts = {
                "conversation_id": data.integer("conversation_id"),
                "assignee": data.optional_string("assignee"),
                "unanswered": data.boolean("unanswered"),
            }
        elif kind == CONVERSATION_STATUS_CHANGED:
            facts = {
                "conversation_id": data.integer("conversation_id"),
                "status": _status(data),
                "snoozed_until": data.optional_time("snoozed_until"),
                "by": data.string("by"),
                "reason": data.string("reason"),
            }
        elif kind == PRESENCE_CHANGED:
            facts = {"conversation_id": data.integer("conversation_id"), "viewers": _viewers(data)}
        elif kind == NOTE_ADDED:
            facts = {
                "conversation_id": data.integer("conversation_id"),
                "author": data.string("author"),
                "mentions": data.strings("mentions"),
            }
        elif kind == CONVERSATION_LABELS_CHANGED:
            facts = {
                "conversation_id": data.integer("conversation_id"),
                "labels": data.strings("labels"),
                "by": data.string("by"),
            }
        elif kind == CONVERSATION_ASSIGNED:
            facts = {
                "conversation_id": data.integer("conversation_id"),
                "assignee": data.optional_string("assignee"),
            }
        elif kind == SUPERVISOR_DECISION:
            facts = {"key": data.string("key")}
        return cls(seq=seq, type=kind, at=at, **facts)


@dataclass(frozen=True)
class EventBatch:
    """Events after a seq, the seq to ask after next time, and how long to wait before asking."""

    events: list[Event]
    next: int
    # Seconds the server asked the client to wait (it had no free long-poll slot); 0 to ask again at once.
    retry_after: float = 0.0


@dataclass(frozen=True)
class Identity:
    """Who the token belongs to."""

    name: str
    role: str

    @property
    def is_supervisor(self) -> bool:
        """Whether the user may use the supervisor queue."""
        return self.role == "supervisor"


# -- whole answers, one function per route ------------------------------------------------------


def parse_media_state(body: object) -> str:
    """The state in an answer about one media file."""
    return _Fields(body, "media").string("state")


def parse_error_answer(body: object) -> tuple[str, str]:
    """The code and message of an error answer `{"error": {"code", "message"}}`."""
    error = _Fields(body, "error answer").nested("error")
    return error.string("code"), error.string("message")


def parse_colleague_messages(body: object) -> list[ColleagueMessage]:
    """The messages a `conversation_changed` refusal lists, oldest first."""
    error = _Fields(body, "error answer").nested("error")
    return [ColleagueMessage.parse(entry) for entry in error.entries("messages")]


def parse_health(body: object) -> bool:
    """`GET /healthz`: whether the backend says it is well."""
    return _Fields(body, "health").string("status") == "ok"


def parse_identity(body: object) -> Identity:
    """`GET /v1/me`."""
    fields = _Fields(body, "identity")
    return Identity(name=fields.string("name"), role=fields.string("role"))


def parse_conversation_page(body: object) -> Page[Conversation]:
    """`GET /v1/conversations`."""
    return _page(
        body, "conversation list", "conversations", lambda entry: Conversation.parse(entry, listed=True)
    )


def parse_thread_page(body: object) -> ThreadPage:
    """`GET /v1/conversations/{id}/thread`."""
    fields = _Fields(body, "thread")
    return ThreadPage(
        [_thread_item(entry) for entry in fields.entries("messages")],
        fields.optional_string("next_cursor"),
        viewers=_viewers(fields),
    )


def parse_viewers(body: object) -> tuple[Viewer, ...]:
    """`POST /v1/conversations/{id}/presence`."""
    return _viewers(_Fields(body, "presence"))


def parse_labels(body: object) -> list[LabelCount]:
    """`GET /v1/labels`."""
    return [LabelCount.parse(entry) for entry in _Fields(body, "label list").entries("labels")]


def parse_work_queue_page(body: object) -> Page[WorkItem]:
    """`GET /v1/work-queue`."""
    return _page(body, "work queue", "items", WorkItem.parse)


def parse_supervisor_page(body: object) -> Page[SupervisorItem]:
    """`GET /v1/supervisor/queue`."""
    return _page(body, "supervisor queue", "items", SupervisorItem.parse)


def parse_templates(body: object) -> list[TemplateInfo]:
    """`GET /v1/templates`."""
    return [TemplateInfo.parse(entry) for entry in _Fields(body, "template list").entries("templates")]


def parse_event_batch(body: object, retry_after: str | None = None) -> EventBatch:
    """`GET /v1/events`, with its Retry-After header (whole seconds) when the server sent one."""
    fields = _Fields(body, "event feed")
    if retry_after is not None and not (retry_after.isascii() and retry_after.isdigit()):
        raise WireFormatError(f"the Retry-After header must be whole seconds, not {retry_after!r}")
    return EventBatch(
        [Event.parse(entry) for entry in fields.entries("events")],
        fields.integer("next"),
        retry_after=float(retry_after) if retry_after is not None else 0.0,
    )
