"""The OpenAPI 3.1 document of the HTTP API, served at /v1/openapi.json and checked against the routes."""

from __future__ import annotations

from typing import Any

from backend.domain.opt_out import REASONS as OPT_OUT_REASONS
from backend.domain.outgoing_webhooks import ALL_EVENTS, EVENT_TYPES
from backend.domain.send_errors import ErrorReason
from backend.domain.states import ALL_STATES
from backend.inbox.canned import MAX_TEXT_LENGTH as MAX_CANNED_TEXT_LENGTH
from backend.inbox.canned import MAX_TITLE_LENGTH as MAX_CANNED_TITLE_LENGTH
from backend.inbox.search import MAX_QUERY_LENGTH

Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


_TIME = {"type": "string", "format": "date-time"}
_NULLABLE_TIME = _nullable(_TIME)
_STRING = {"type": "string"}
_NULLABLE_STRING = _nullable(_STRING)
_INTEGER = {"type": "integer"}
_BOOLEAN = {"type": "boolean"}
_STRINGS = {"type": "array", "items": _STRING}
_DURATION = {
    **_nullable({"type": "number", "minimum": 0}),
    "description": "How long a voice note, audio file or video lasts, in seconds, read from the file once "
    "it is kept; null for other files, while it is downloading, and when its length cannot be read "
    "(AMR, a broken file).",
}
_STATUSES = ["open", "pending", "resolved", "snoozed"]
_PLACEMENTS = ["reply", "work_queue", "conversation", "linked", "new_topic"]


def _object(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _list(plural: str, item: Schema) -> Schema:
    return _object(
        {plural: {"type": "array", "items": item}, "next_cursor": _NULLABLE_STRING}, [plural, "next_cursor"]
    )


_REASON_TEXT = (
    "Why the message carries an error: meta_error (Meta answered with the error in `code`); "
    "no_answer_after_send (the request left but no answer came: Meta may or may not have the "
    "message); lease_expired (the sender stopped while the message was going out); "
    "request_not_sent (the request never left; it is tried again); accepted_without_message_id "
    "(Meta accepted it without an id to follow it by); payload_unsendable (the stored message "
    "cannot be sent as it is); restored_from_backup (queued, sending or unknown when the backup that "
    "was restored was taken: it may have gone out after, so it waits for its purpose's rule or a "
    "supervisor); other (anything else, e.g. an HTTP error without a Meta code)."
    "cannot be sent as it is); recipient_opted_out (a marketing message cancelled before it went: "
    "the customer opted out); other (anything else, e.g. an HTTP error without a Meta code)."
)

_ERROR_TEXT = {
    400: "The request is malformed or refused by validation",
    401: "Missing or wrong bearer token",
    403: "The caller's role may not do this",
    404: "Not found",
    409: "Conflicts with the current state",
    413: "The request body is larger than 1 MB",
    422: "The Idempotency-Key was used for a different request",
    503: "The database does not answer",
}


def _responses(success: dict[int, tuple[str, Schema]], errors: list[int], *, json: bool = True) -> Schema:
    answers: Schema = {}
    for status, (description, schema) in success.items():
        media = "application/json" if json else "text/plain"
        answers[str(status)] = {"description": description, "content": {media: {"schema": schema}}}
    # Any request may be refused as malformed (400), e.g. a NUL character in its path or query.
    for status in sorted({400, *errors}):
        answers[str(status)] = {
            "description": _ERROR_TEXT[status],
            "content": {"application/json": {"schema": _ref("Error")}},
        }
    return answers


def _query(name: str, schema: Schema, description: str) -> Schema:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def _path(name: str, schema: Schema) -> Schema:
    return {"name": name, "in": "path", "required": True, "schema": schema}


_IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": True,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "Becomes the message's dedupe key; the first answer is replayed for the same body.",
}
_LIMIT = _query("limit", {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}, "Page size.")
_CURSOR = _query("cursor", _STRING, "The next_cursor of the previous page.")
_PAGED = [_LIMIT, _CURSOR]


def _body(schema: Schema) -> Schema:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _schemas() -> dict[str, Schema]:
    template = _object(
        {"name": _STRING, "language": _STRING, "parameters": {"type": "array", "items": _STRING}},
        ["name", "language"],
    )
    buttons = _object(
        {
            "body": _STRING,
            "buttons": {
                "type": "array",
                "items": _object({"id": _STRING, "title": _STRING}, ["id", "title"]),
                "minItems": 1,
                "maxItems": 3,
            },
        },
        ["body", "buttons"],
    )
    message_fields: dict[str, Schema] = {
        "to": {"type": "string", "description": "Phone number in international format."},
        "purpose": {"type": "string", "pattern": "^[A-Za-z0-9_.\\-]{1,64}$"},
        "trigger_ref": {"type": "string", "maxLength": 255},
        "text": {"type": "string", "maxLength": 4096},
        "template": template,
        "buttons": buttons,
        "reply_to": {"type": "string", "description": "wamid of the message this one answers."},
        "not_before": _TIME,
        "priority": _INTEGER,
    }
    message = _object(
        {
            "key": _STRING,
            "to": _STRING,
            "purpose": _STRING,
            "state": {"type": "string", "enum": list(ALL_STATES)},
            "wamid": _NULLABLE_STRING,
            "attempts": _INTEGER,
            "error": _nullable(_ref("SendError")),
            "created_at": _TIME,
            "sent_at": _NULLABLE_TIME,
            "delivered_at": _NULLABLE_TIME,
            "read_at": _NULLABLE_TIME,
            "failed_at": _NULLABLE_TIME,
            "conversation_id": _nullable(_INTEGER),
            "reply_to": _NULLABLE_STRING,
            "hold_reason": _NULLABLE_STRING,
            "trigger_ref": _NULLABLE_STRING,
            "marketing": {
                **_BOOLEAN,
                "description": "Its purpose is marketing or its template's category is MARKETING: "
                "never sent to a contact who opted out.",
            },
        },
        ["key", "to", "purpose", "state", "wamid", "attempts", "error", "created_at"],
    )
    inbound = _object(
        {
            "direction": {"const": "inbound"},
            "wamid": _STRING,
            "type": _STRING,
            "text": _NULLABLE_STRING,
            "choice": _NULLABLE_STRING,
            "choice_title": _NULLABLE_STRING,
            "context_id": _NULLABLE_STRING,
            "attributed": {
                **_BOOLEAN,
                "description": "False while the message waits in the work queue (placement work_queue).",
            },
            "placement": {
                "type": "string",
                "enum": _PLACEMENTS,
                "description": "reply: quotes one of our messages (nested under it); work_queue: nobody "
                "can tell which business message it answers; conversation: chat in time order; "
                "linked / new_topic: filed by an agent.",
            },
            "reaction": _NULLABLE_STRING,
            "received_at": _TIME,
            "media": {
                **_ref("Media"),
                "description": "Present on image, audio, video, document and sticker messages.",
            },
        },
        ["direction", "wamid", "type", "text", "choice", "context_id", "attributed", "received_at"],
    )
    media = _object(
        {
            "id": {**_STRING, "description": "Meta's media id: GET /v1/media/{media_id} gives the bytes."},
            "mime_type": _NULLABLE_STRING,
            "filename": _NULLABLE_STRING,
            "caption": _NULLABLE_STRING,
            "size": {**_nullable(_INTEGER), "description": "Bytes, once the file is kept."},
            "duration_seconds": _DURATION,
            "state": {
                "type": "string",
                "enum": ["pending", "stored", "failed"],
                "description": "pending: still being downloaded from WhatsApp; failed: after the last "
                "try (`error` says why; POST /v1/media/{media_id}/retry tries again).",
            },
            "error": _NULLABLE_STRING,
        },
        ["id", "mime_type", "filename", "caption", "size", "duration_seconds", "state", "error"],
    )
    outbound = {
        "allOf": [
            _ref("Message"),
            _object(
                {
                    "direction": {"const": "outbound"},
                    "kind": _STRING,
                    "body": _STRING,
                    "replies": {"type": "array", "items": _ref("InboundMessage")},
                },
                ["direction", "body", "replies"],
            ),
        ]
    }
    conversation = _object(
        {
            "id": _INTEGER,
            "contact": _object(
                {
                    "wa_id": _NULLABLE_STRING,
                    "number": _NULLABLE_STRING,
                    "name": _NULLABLE_STRING,
                    "opted_out": {**_BOOLEAN, "description": "Opted out of marketing."},
                    "opted_out_at": _NULLABLE_TIME,
                },
                ["wa_id", "number", "name", "opted_out", "opted_out_at"],
            ),
            "assignee": _NULLABLE_STRING,
            "last_message_at": _NULLABLE_TIME,
            "unread": _INTEGER,
            "window_closes_at": _NULLABLE_TIME,
            "window_open": _BOOLEAN,
            "last_message": _NULLABLE_STRING,
            "status": {"type": "string", "enum": _STATUSES},
            "snoozed_until": {**_NULLABLE_TIME, "description": "Set while the status is snoozed."},
            "labels": {**_STRINGS, "description": "Sorted."},
            "viewers": {"type": "array", "items": _ref("Viewer")},
        },
        [
            "id",
            "contact",
            "assignee",
            "last_message_at",
            "unread",
            "window_closes_at",
            "status",
            "snoozed_until",
            "labels",
            "viewers",
        ],
    )
    note = _object(
        {"id": _INTEGER, "author": _STRING, "text": _STRING, "created_at": _TIME},
        ["id", "author", "text", "created_at"],
    )
    canned_fields: dict[str, Schema] = {
        "shortcut": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,32}$"},
        "title": {"type": "string", "minLength": 1, "maxLength": MAX_CANNED_TITLE_LENGTH},
        "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_CANNED_TEXT_LENGTH,
            "description": "{{name}} and {{number}} are filled from the contact.",
        },
    }
    state_counts = _object({state: _INTEGER for state in ALL_STATES})
    return {
        "Error": _object(
            {"error": _object({"code": _STRING, "message": _STRING}, ["code", "message"])}, ["error"]
        ),
        "MessageRequest": _object(message_fields, ["to", "purpose"]),
        "BatchRequest": _object(
            {
                "client_ref": {"type": "string", "minLength": 1, "maxLength": 255},
                "messages": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 1000,
                    "items": _object(
                        {"key": {"type": "string", "maxLength": 255}, **message_fields}, ["key"]
                    ),
                },
            },
            ["client_ref", "messages"],
        ),
        "ReplyRequest": _object(
            {
                "text": message_fields["text"],
                "template": template,
                "buttons": buttons,
                "purpose": message_fields["purpose"],
                "reply_to": message_fields["reply_to"],
                "seen_up_to": {
                    **_TIME,
                    "description": "The time of the newest thread item the author had on screen: a "
                    "message another user sent in the conversation after it refuses the reply with 409 "
                    "conversation_changed.",
                },
                "force": {**_BOOLEAN, "description": "Send even if the conversation changed."},
            }
        ),
        "ConversationChanged": _object(
            {
                "error": _object(
                    {
                        "code": {"const": "conversation_changed"},
                        "message": _STRING,
                        "messages": {
                            "type": "array",
                            "items": {
                                "allOf": [
                                    _ref("Message"),
                                    _object(
                                        {"body": _STRING, "created_by": _NULLABLE_STRING},
                                        ["body", "created_by"],
                                    ),
                                ]
                            },
                            "description": "The other users' messages sent after seen_up_to.",
                        },
                    },
                    ["code", "message", "messages"],
                )
            },
            ["error"],
        ),
        "SendError": _object(
            {
                "code": {**_nullable(_INTEGER), "description": "Meta's error code, when Meta gave one."},
                "title": {**_NULLABLE_STRING, "description": "Free-form words; show `reason` instead."},
                "details": _NULLABLE_STRING,
                "reason": {
                    "type": "string",
                    "enum": [reason.value for reason in ErrorReason],
                    "description": _REASON_TEXT,
                },
            },
            ["code", "title", "details", "reason"],
        ),
        "Message": message,
        "InboundMessage": inbound,
        "Media": media,
        "OutboundMessage": outbound,
        "Conversation": conversation,
        "Viewer": _object({"user": _STRING, "typing": _BOOLEAN, "since": _TIME}, ["user", "typing", "since"]),
        "Note": note,
        "NoteItem": {"allOf": [note, _object({"direction": {"const": "note"}}, ["direction"])]},
        "StatusRequest": _object(
            {
                "status": {"type": "string", "enum": _STATUSES},
                "until": {
                    **_TIME,
                    "description": "Required with snoozed (a future time), refused otherwise.",
                },
            },
            ["status"],
        ),
        "Label": {"type": "string", "minLength": 1, "maxLength": 40},
        "CannedReplyRequest": _object(canned_fields, list(canned_fields)),
        "CannedReplyChange": {**_object(canned_fields), "minProperties": 1},
        "CannedReply": _object(
            {
                "id": _INTEGER,
                **canned_fields,
                "updated_at": _TIME,
                "filled": {
                    **_STRING,
                    "description": "The text filled for the contact of `conversation_id` (only with it).",
                },
            },
            ["id", "shortcut", "title", "text", "updated_at"],
        ),
        "SearchResult": _object(
            {
                "conversation_id": _INTEGER,
                "direction": {"type": "string", "enum": ["inbound", "outbound"]},
                "wamid": {**_STRING, "description": "Inbound results."},
                "key": {**_STRING, "description": "Outbound results."},
                "text": {**_STRING, "description": "The message as the thread shows it."},
                "at": {**_TIME, "description": "Received (inbound) or created (outbound)."},
                "contact": _object(
                    {"name": _NULLABLE_STRING, "number": _NULLABLE_STRING}, ["name", "number"]
                ),
            },
            ["conversation_id", "direction", "text", "at", "contact"],
        ),
        "Candidate": _object(
            {
                "key": _STRING,
                "wamid": _NULLABLE_STRING,
                "purpose": _STRING,
                "body": _STRING,
                "sent_at": _NULLABLE_TIME,
            },
            ["key", "wamid", "purpose", "body", "sent_at"],
        ),
        "Batch": _object(
            {
                "batch_id": _INTEGER,
                "client_ref": _STRING,
                "queued": _INTEGER,
                "duplicates": _INTEGER,
                "opted_out": {
                    **_STRINGS,
                    "description": "Keys not queued: marketing to a customer who opted out.",
                },
            },
            ["batch_id", "client_ref", "queued", "duplicates", "opted_out"],
        ),
        "BatchProgress": _object(
            {
                "batch_id": _INTEGER,
                "client_ref": _STRING,
                "created_at": _TIME,
                "queued": _INTEGER,
                "duplicates": _INTEGER,
                "total": _INTEGER,
                "states": state_counts,
            },
            ["batch_id", "client_ref", "states"],
        ),
        "Event": _object(
            {"seq": _INTEGER, "type": _STRING, "at": _TIME, "data": {"type": "object"}},
            ["seq", "type", "at", "data"],
        ),
        "WorkItem": _object(
            {
                "wamid": _STRING,
                "conversation_id": _INTEGER,
                "from": _NULLABLE_STRING,
                "name": _NULLABLE_STRING,
                "type": _STRING,
                "text": _NULLABLE_STRING,
                "context_id": _NULLABLE_STRING,
                "received_at": _TIME,
                "placement": {"const": "work_queue"},
                "candidates": {
                    "type": "array",
                    "items": _ref("Candidate"),
                    "description": "The business messages it may answer, newest first.",
                },
            },
            ["wamid", "conversation_id", "from", "text", "received_at", "placement", "candidates"],
        ),
        "SupervisorItem": {
            "allOf": [
                _ref("Message"),
                _object(
                    {
                        "reason": {
                            "type": "string",
                            "enum": ["unknown", "held", "sending_past_lease"],
                            "description": "Why the message needs a decision.",
                        },
                        "body": _STRING,
                        "name": _NULLABLE_STRING,
                        "age_seconds": {"type": "number"},
                        "unknown_since": _NULLABLE_TIME,
                        "lease_expires_at": _NULLABLE_TIME,
                        "last_error": {**_nullable(_ref("SendError")), "description": "The same as `error`."},
                        "evidence": {"type": "array", "items": {"type": "object"}},
                    },
                    ["reason", "age_seconds", "evidence"],
                ),
            ]
        },
        "Metrics": _object(
            {
                "sending_over_1m": _INTEGER,
                "dedupe_rejections": _INTEGER,
                "duplicate_webhooks": _INTEGER,
                "unattributed_inbound": _INTEGER,
                "sent_to_delivered_seconds": _object(
                    {"p50": _nullable({"type": "number"}), "p95": _nullable({"type": "number"})},
                    ["p50", "p95"],
                ),
                "queue_depth": state_counts,
                "webhook_parse_failures": _INTEGER,
                "cross_contact_quotes": _INTEGER,
                "foreign_number_events": _INTEGER,
                "webhook_subscriptions_disabled": _INTEGER,
                "outgoing_deliveries_pending": _INTEGER,
                "outgoing_deliveries_failed": _INTEGER,
                "last_backup_at": {
                    **_nullable({"type": "string", "format": "date-time"}),
                    "description": "When the newest backup archive of this database was taken (null: never).",
                },
                "data_folder_free_bytes": {
                    **_nullable(_INTEGER),
                    "description": "Free disk space where the server's data folder is (null: unknown).",
                },
                "messaging_tier": _object(
                    {
                        "tier": {**_NULLABLE_STRING, "description": "Meta's name (TIER_250, TIER_2K...)."},
                        "limit": {
                            **_nullable(_INTEGER),
                            "description": "Customers a day the pacer lets business-initiated sends "
                            "reach; null: no limit.",
                        },
                        "set_by_hand": {**_BOOLEAN, "description": "INBOX_MESSAGING_TIER wins over Meta."},
                    },
                    ["tier", "limit", "set_by_hand"],
                ),
                "quality_rating": _object(
                    {
                        "rating": {**_NULLABLE_STRING, "description": "GREEN, YELLOW, RED or UNKNOWN."},
                        "dropped": {**_BOOLEAN, "description": "The last change of the rating was a drop."},
                        "updated_at": _NULLABLE_TIME,
                    },
                    ["rating", "dropped", "updated_at"],
                ),
                "number_health_history": {
                    "type": "array",
                    "description": "The latest readings, newest first (webhooks and reads).",
                    "items": _object(
                        {
                            "recorded_at": _TIME,
                            "quality_rating": _NULLABLE_STRING,
                            "messaging_tier": _NULLABLE_STRING,
                            "source": {"type": "string", "enum": ["webhook", "read"]},
                            "event": _NULLABLE_STRING,
                        },
                        ["recorded_at", "quality_rating", "messaging_tier", "source", "event"],
                    ),
                },
            },
            [
                "sending_over_1m",
                "dedupe_rejections",
                "duplicate_webhooks",
                "unattributed_inbound",
                "sent_to_delivered_seconds",
                "queue_depth",
                "webhook_parse_failures",
                "cross_contact_quotes",
                "foreign_number_events",
                "webhook_subscriptions_disabled",
                "outgoing_deliveries_pending",
                "outgoing_deliveries_failed",
                "last_backup_at",
                "data_folder_free_bytes",
            ],
        ),
        **_report_and_webhook_schemas(),
        "Template": _object(
            {
                "name": _STRING,
                "language": _STRING,
                "body": _STRING,
                "parameters": {"type": "array", "items": _STRING},
                "parameter_count": _INTEGER,
                "buttons": {"type": "array", "items": _STRING},
                "status": {
                    **_STRING,
                    "description": "Meta's review: APPROVED (sendable), PAUSED, REJECTED, PENDING...",
                },
                "category": {"type": "string", "enum": ["MARKETING", "UTILITY", "AUTHENTICATION"]},
                "status_reason": {**_NULLABLE_STRING, "description": "Why Meta paused or rejected it."},
            },
            ["name", "language", "body", "parameters", "status", "category"],
        ),
        "Contact": _object(
            {
                "wa_id": _NULLABLE_STRING,
                "number": _NULLABLE_STRING,
                "name": _NULLABLE_STRING,
                "opted_out": {**_BOOLEAN, "description": "Opted out of marketing."},
                "opted_out_at": _NULLABLE_TIME,
                "opted_out_reason": {
                    **_nullable({"type": "string", "enum": sorted(OPT_OUT_REASONS)}),
                    "description": "keyword, button, user_preferences (Meta), meta_131050 or api.",
                },
                "opted_in_at": _NULLABLE_TIME,
                "opted_in_note": {**_NULLABLE_STRING, "description": "How consent was given."},
            },
            ["wa_id", "number", "name", "opted_out", "opted_out_at", "opted_out_reason"],
        ),
    }


def _events_responses() -> Schema:
    answers = _responses(
        {
            200: (
                "Events",
                _object(
                    {"events": {"type": "array", "items": _ref("Event")}, "next": _INTEGER},
                    ["events", "next"],
                ),
            )
        },
        [400, 401],
    )
    answers["200"]["headers"] = {
        "Retry-After": {
            "description": "Seconds to wait before the next long-poll; sent only when the server "
            "had no free long-poll slot and answered at once.",
            "schema": {"type": "integer", "minimum": 1},
        }
    }
    return answers


def _reply_responses() -> Schema:
    answers = _responses({202: ("Queued", _ref("Message"))}, [400, 401, 404, 409, 413, 422])
    answers["409"] = {
        "description": "window_closed, no_recipient, or conversation_changed (with the messages)",
        "content": {"application/json": {"schema": {"anyOf": [_ref("Error"), _ref("ConversationChanged")]}}},
    }
    return answers


def _report_and_webhook_schemas() -> dict[str, Schema]:
    seconds = _object({"p50": _nullable(_INTEGER), "p90": _nullable(_INTEGER)}, ["p50", "p90"])
    bucket = _object(
        {
            "start": {**_TIME, "description": "The period's start in the report's time zone."},
            "inbound": _INTEGER,
            "outbound": _INTEGER,
            "conversations_opened": _INTEGER,
            "conversations_resolved": _INTEGER,
            "first_response_seconds": seconds,
            "resolution_seconds": seconds,
        },
        [
            "start",
            "inbound",
            "outbound",
            "conversations_opened",
            "conversations_resolved",
            "first_response_seconds",
            "resolution_seconds",
        ],
    )
    agent = _object(
        {
            "user": _STRING,
            "replies": _INTEGER,
            "conversations_resolved": _INTEGER,
            "first_response_seconds": seconds,
        },
        ["user", "replies", "conversations_resolved", "first_response_seconds"],
    )
    counts = ["sent", "delivered", "read", "failed", "unknown", "replied"]
    purpose = _object({"purpose": _STRING, **dict.fromkeys(counts, _INTEGER)}, ["purpose", *counts])
    events = {"type": "array", "items": {"type": "string", "enum": [*EVENT_TYPES, ALL_EVENTS]}, "minItems": 1}
    subscription: dict[str, Schema] = {
        "id": _INTEGER,
        "url": _STRING,
        "events": events,
        "description": _NULLABLE_STRING,
        "created_at": _TIME,
        "enabled": _BOOLEAN,
        "disabled_at": _NULLABLE_TIME,
        "disabled_reason": _NULLABLE_STRING,
    }
    required = ["id", "url", "events", "created_at", "enabled"]
    return {
        "ReportSummary": _object(
            {
                "buckets": {"type": "array", "items": bucket},
                "agents": {"type": "array", "items": agent},
                "purposes": {"type": "array", "items": purpose},
            },
            ["buckets", "agents", "purposes"],
        ),
        "WebhookSubscriptionRequest": _object(
            {
                "url": {**_STRING, "description": "http(s), without credentials."},
                "events": events,
                "description": {**_STRING, "maxLength": 500},
            },
            ["url", "events"],
        ),
        "WebhookSubscription": _object(subscription, required),
        "NewWebhookSubscription": _object(
            {**subscription, "secret": {**_STRING, "description": "whsec_ + base64; shown only here."}},
            [*required, "secret"],
        ),
        "OutgoingDelivery": _object(
            {
                "id": _INTEGER,
                "type": _STRING,
                "seq": _INTEGER,
                "webhook_id": _STRING,
                "attempts": _INTEGER,
                "state": {"type": "string", "enum": ["pending", "delivered", "failed"]},
                "last_status": _nullable(_INTEGER),
                "last_error": _NULLABLE_STRING,
                "next_attempt_at": _NULLABLE_TIME,
                "created_at": _TIME,
                "delivered_at": _NULLABLE_TIME,
            },
            ["id", "type", "attempts", "state", "last_status", "next_attempt_at"],
        ),
    }


def _report_and_webhook_paths() -> dict[str, Schema]:
    report_parameters = [
        _query(
            "from", _STRING, "ISO 8601 date or time (default: 7 days before `to`); without a zone, in `tz`."
        ),
        _query("to", _STRING, "ISO 8601 date or time (default: now). At most 400 days after `from`."),
        _query("bucket", {"type": "string", "enum": ["day", "hour"]}, "Period of each bucket (default day)."),
        _query("tz", _STRING, "IANA time zone of the periods, e.g. Europe/Berlin (default UTC)."),
        _query("format", {"type": "string", "enum": ["json", "csv"]}, "json (default) or csv."),
        _query(
            "section",
            {"type": "string", "enum": ["buckets", "agents", "purposes"]},
            "With format=csv: the section in the file (default buckets).",
        ),
    ]
    report_answer = _responses({200: ("The report", _ref("ReportSummary"))}, [400, 401, 403])
    report_answer["200"]["content"]["text/csv"] = {"schema": _STRING}
    return {
        "/v1/reports/summary": {
            "get": _operation(
                "Volume, response times, agents and purposes over a range (supervisors only)",
                report_answer,
                description=(
                    "First response: from a customer message nobody had answered yet to the next reply by "
                    "a person, in the period of the reply. Resolution: from the first customer message "
                    "since the previous resolution to the resolution. The range is widened to whole "
                    "periods; empty ones are present with zeros. 400 invalid_range past 400 days."
                ),
                parameters=report_parameters,
            )
        },
        "/v1/webhook-subscriptions": {
            "get": _operation(
                "Outgoing webhook subscriptions, without secrets (supervisors only)",
                _responses(
                    {
                        200: (
                            "Subscriptions",
                            _object(
                                {
                                    "webhook_subscriptions": {
                                        "type": "array",
                                        "items": _ref("WebhookSubscription"),
                                    }
                                },
                                ["webhook_subscriptions"],
                            ),
                        )
                    },
                    [401, 403],
                ),
            ),
            "post": _operation(
                "Subscribe an endpoint to events (supervisors only)",
                _responses(
                    {201: ("The subscription and its secret", _ref("NewWebhookSubscription"))},
                    [400, 401, 403, 413],
                ),
                description=(
                    "Each event is POSTed as {type, timestamp, seq, data} with the Standard Webhooks "
                    "headers webhook-id, webhook-timestamp and webhook-signature (v1, HMAC-SHA256 over "
                    '"{id}.{timestamp}.{body}" keyed by the secret\'s base64-decoded part). 2xx is success; '
                    "anything else or no answer in 10 s is retried for 3 days, then the subscription is "
                    "disabled. 400 invalid_subscription."
                ),
                requestBody=_body(_ref("WebhookSubscriptionRequest")),
            ),
        },
        "/v1/webhook-subscriptions/{id}": {
            "delete": _operation(
                "Remove a subscription and its deliveries (supervisors only)",
                {"204": {"description": "Removed"}, **_responses({}, [401, 403, 404])},
                parameters=[_ID],
            )
        },
        "/v1/webhook-subscriptions/{id}/deliveries": {
            "get": _operation(
                "A subscription's deliveries, newest first (supervisors only)",
                _responses(
                    {200: ("Deliveries", _list("deliveries", _ref("OutgoingDelivery")))}, [400, 401, 403, 404]
                ),
                parameters=[_ID, *_PAGED],
            )
        },
        "/v1/webhook-subscriptions/{id}/deliveries/{delivery_id}/redeliver": {
            "post": _operation(
                "Send a delivery again with the same webhook-id (supervisors only)",
                _responses({202: ("The delivery, pending again", _ref("OutgoingDelivery"))}, [401, 403, 404]),
                description=(
                    "It goes in seq order with the other pending ones; "
                    "a disabled subscription is enabled again."
                ),
                parameters=[_ID, _path("delivery_id", {"type": "integer", "minimum": 1})],
            )
        },
    }


def _operation(summary: str, responses: Schema, **extra: Any) -> Schema:
    operation: Schema = {"summary": summary, "responses": responses}
    operation.update(extra)
    return operation


_KEY = {
    **_path("key", {"type": "string", "minLength": 1, "maxLength": 255}),
    "description": "The message's key, percent-encoded as one path segment: / is %2F, % is %25.",
}
_WAMID = {
    **_path("wamid", {"type": "string", "minLength": 1}),
    "description": "The inbound message's wamid, percent-encoded as one path segment.",
}
_ID = _path("id", {"type": "integer", "minimum": 1})
_WA_ID = {
    **_path("wa_id", {"type": "string", "pattern": "^[0-9]{1,32}$"}),
    "description": "The contact's WhatsApp id: the number's digits.",
}


def _paths() -> dict[str, Schema]:
    conversation_list = _list("conversations", _ref("Conversation"))
    thread = _object(
        {
            "messages": {
                "type": "array",
                "items": {"anyOf": [_ref("OutboundMessage"), _ref("InboundMessage"), _ref("NoteItem")]},
            },
            "next_cursor": _NULLABLE_STRING,
            "viewers": {"type": "array", "items": _ref("Viewer")},
        },
        ["messages", "next_cursor", "viewers"],
    )
    viewers = _object({"viewers": {"type": "array", "items": _ref("Viewer")}}, ["viewers"])
    labels_in_use = _object(
        {
            "labels": {
                "type": "array",
                "items": _object({"name": _STRING, "count": _INTEGER}, ["name", "count"]),
            }
        },
        ["labels"],
    )
    public: Schema = {"security": []}
    return {
        "/healthz": {
            "get": _operation(
                "200 when the database answers",
                _responses({200: ("Healthy", _object({"status": _STRING}))}, [503]),
                **public,
            )
        },
        "/metrics": {
            "get": _operation(
                "The metrics in Prometheus text format (no token)",
                _responses({200: ("Prometheus text", _STRING)}, [], json=False),
                **public,
            )
        },
        "/webhooks/whatsapp": {
            "get": _operation(
                "Meta's subscription check (hub.mode, hub.verify_token, hub.challenge)",
                {"200": {"description": "The challenge"}, "403": {"description": "Wrong verify token"}},
                **public,
            ),
            "post": _operation(
                "Signed webhook deliveries from Meta, stored raw before the 200",
                {"200": {"description": "Stored"}, "401": {"description": "Bad signature"}},
                **public,
            ),
        },
        "/v1/messages": {
            "post": _operation(
                "Queue a message under an Idempotency-Key",
                _responses(
                    {202: ("Queued (or the first answer replayed)", _ref("Message"))},
                    [400, 401, 409, 413, 422],
                ),
                description="409 recipient_opted_out: marketing (by its purpose or its template's "
                "category) to a customer who opted out. 422 template_not_approved: Meta has paused, "
                "rejected or not yet approved the template.",
                parameters=[_IDEMPOTENCY_KEY],
                requestBody=_body(_ref("MessageRequest")),
            )
        },
        "/v1/messages/{key}": {
            "get": _operation(
                "One message by key",
                _responses({200: ("The message", _ref("Message"))}, [401, 404]),
                parameters=[_KEY],
            )
        },
        "/v1/messages/{key}/resolve": {
            "post": _operation(
                "A supervisor's decision on an unknown, held or stuck message",
                _responses(
                    {200: ("The message after the decision", _ref("Message"))},
                    [400, 401, 403, 404, 409, 413],
                ),
                description="The key is percent-encoded as for GET: /v1/messages/a%2Fresolve/resolve "
                "decides on the message `a/resolve`.",
                parameters=[_KEY],
                requestBody=_body(
                    _object(
                        {"action": {"type": "string", "enum": ["mark_sent", "resend", "cancel"]}}, ["action"]
                    )
                ),
            )
        },
        "/v1/messages/batch": {
            "post": _operation(
                "Queue up to 1,000 messages under one client_ref",
                _responses(
                    {202: ("The batch (or the existing one, replayed)", _ref("Batch"))},
                    [400, 401, 413, 422],
                ),
                description="A template Meta has not approved is 422 template_not_approved for the whole "
                "batch; marketing to a customer who opted out is listed in `opted_out`, the rest queued.",
                requestBody=_body(_ref("BatchRequest")),
            )
        },
        "/v1/batches/{id}": {
            "get": _operation(
                "A batch's messages counted by state",
                _responses({200: ("Progress", _ref("BatchProgress"))}, [401, 404]),
                parameters=[_ID],
            )
        },
        "/v1/events": {
            "get": _operation(
                "Journal entries after a seq; long-polls up to `wait` seconds",
                _events_responses(),
                description=(
                    "Waits up to `wait` seconds while nothing is new. When the server already holds as "
                    "many long-polls as it keeps slots for, it answers at once with what is there (an "
                    "empty page with the same `next` when nothing is new) and a Retry-After header: "
                    "wait that many seconds before polling again. Entries for the inbox's day: "
                    "conversation.status_changed, presence.changed, note.added, "
                    "conversation.labels_changed, canned_replies.changed ({}: reload them), and "
                    "window.closing, whose data carries `assignee` (name or null) and `unanswered` (the "
                    "customer's latest message is newer than our latest)."
                ),
                parameters=[
                    _query("after", {"type": "integer", "minimum": 0}, "The last seq seen."),
                    _query("wait", {"type": "number", "minimum": 0, "maximum": 30}, "Seconds to wait."),
                    _LIMIT,
                ],
            )
        },
        "/v1/me": {
            "get": _operation(
                "Who the token belongs to",
                _responses(
                    {200: ("The caller", _object({"name": _STRING, "role": _STRING}, ["name", "role"]))},
                    [401],
                ),
            )
        },
        "/v1/conversations": {
            "get": _operation(
                "Conversations, most recent first",
                _responses({200: ("Conversations", conversation_list)}, [400, 401]),
                parameters=[
                    _query("view", {"type": "string", "enum": ["mine", "unassigned", "all"]}, "Whose."),
                    _query(
                        "status",
                        {"type": "string", "default": "open,pending"},
                        "Comma-separated statuses (open, pending, resolved, snoozed) or `all`.",
                    ),
                    _query(
                        "label", {"type": "string", "maxLength": 40}, "Only conversations with this label."
                    ),
                    _query(
                        "window",
                        {"type": "string", "enum": ["open", "closed", "closing"]},
                        "Service window; closing: still open, closes within the hour.",
                    ),
                    _query(
                        "q",
                        {"type": "string", "maxLength": 200},
                        "Matches name, number and wa_id, and the words of messages (as /v1/search).",
                    ),
                    *_PAGED,
                ],
            )
        },
        "/v1/conversations/{id}": {
            "get": _operation(
                "One conversation",
                _responses({200: ("The conversation", _ref("Conversation"))}, [401, 404]),
                parameters=[_ID],
            )
        },
        "/v1/conversations/{id}/thread": {
            "get": _operation(
                "Messages and notes in time order, replies nested under the message they answer",
                _responses({200: ("The thread and who views it now", thread)}, [400, 401, 404]),
                parameters=[_ID, *_PAGED],
            )
        },
        "/v1/conversations/{id}/status": {
            "post": _operation(
                "Set the status: open, pending, resolved, or snoozed until a time",
                _responses({200: ("The conversation", _ref("Conversation"))}, [400, 401, 404, 413]),
                description=(
                    "Any signed-in user may change it. 400 invalid_status for an unknown status, a "
                    "missing, invalid or past `until` with snoozed, or `until` with another status. A new "
                    "inbound message reopens resolved, pending and snoozed conversations; a snooze ends by "
                    "itself. Journal: conversation.status_changed {conversation_id, status, snoozed_until, "
                    "by, reason: user | customer_wrote | snooze_ended}."
                ),
                parameters=[_ID],
                requestBody=_body(_ref("StatusRequest")),
            )
        },
        "/v1/conversations/{id}/presence": {
            "post": _operation(
                "The caller views (and maybe types in) the conversation for 30 s, or leaves it",
                _responses({200: ("Who views it now", viewers)}, [400, 401, 404, 413]),
                description=(
                    "Refresh about every 10 s while the conversation is on screen; `viewing: false` "
                    "removes the caller. Journal: presence.changed {conversation_id, viewers} when the "
                    "viewers or someone's typing change, or rows expire."
                ),
                parameters=[_ID],
                requestBody=_body(
                    _object(
                        {"typing": {**_BOOLEAN, "default": False}, "viewing": {**_BOOLEAN, "default": True}}
                    )
                ),
            )
        },
        "/v1/conversations/{id}/notes": {
            "post": _operation(
                "Add an internal note (never sent to WhatsApp)",
                _responses({201: ("The note", _ref("Note"))}, [400, 401, 404, 413]),
                description=(
                    "Text 1 to 4,000 characters after trimming (400 invalid_note). `@name` of an enabled "
                    "user mentions them. Journal: note.added {conversation_id, id, author, mentions}."
                ),
                parameters=[_ID],
                requestBody=_body(
                    _object({"text": {"type": "string", "minLength": 1, "maxLength": 4000}}, ["text"])
                ),
            )
        },
        "/v1/conversations/{id}/labels": {
            "post": _operation(
                "Add and remove labels",
                _responses({200: ("The conversation", _ref("Conversation"))}, [400, 401, 404, 413]),
                description=(
                    "A label is 1 to 40 characters after trimming, without control characters (400 "
                    "invalid_label); at most 20 per conversation (400 too_many_labels). Journal: "
                    "conversation.labels_changed {conversation_id, labels, by}."
                ),
                parameters=[_ID],
                requestBody=_body(
                    _object(
                        {
                            "add": {"type": "array", "items": _ref("Label")},
                            "remove": {"type": "array", "items": _ref("Label")},
                        }
                    )
                ),
            )
        },
        "/v1/labels": {
            "get": _operation(
                "The labels in use and how many conversations carry each",
                _responses({200: ("Labels", labels_in_use)}, [401]),
            )
        },
        "/v1/conversations/{id}/assign": {
            "post": _operation(
                "Assign to a user by name, or null to unassign",
                _responses({200: ("The conversation", _ref("Conversation"))}, [400, 401, 403, 404, 413]),
                description=(
                    "Agents may assign an unassigned conversation to themselves and unassign their own; "
                    "anything else needs a supervisor (403 forbidden). The journal event "
                    "conversation.assigned records the assignee and, in `by`, who assigned."
                ),
                parameters=[_ID],
                requestBody=_body(_object({"user": _NULLABLE_STRING}, ["user"])),
            )
        },
        "/v1/conversations/{id}/read": {
            "post": _operation(
                "Mark the conversation read",
                _responses({200: ("The conversation", _ref("Conversation"))}, [401, 404]),
                parameters=[_ID],
            )
        },
        "/v1/conversations/{id}/reply": {
            "post": _operation(
                "Reply: text while the window is open (else 409 window_closed), a template always",
                _reply_responses(),
                description=(
                    "With `seen_up_to`, a reply is refused with 409 conversation_changed (listing the "
                    "messages) when another user sent a message in the conversation after that time, "
                    'unless it carries "force": true. A refused reply releases its Idempotency-Key.'
                ),
                parameters=[_ID, _IDEMPOTENCY_KEY],
                requestBody=_body(_ref("ReplyRequest")),
            )
        },
        "/v1/work-queue": {
            "get": _operation(
                "Inbound messages nobody can tell which business message they answer, with candidates",
                _responses({200: ("Items", _list("items", _ref("WorkItem")))}, [400, 401]),
                parameters=_PAGED,
            )
        },
        "/v1/inbound/{wamid}/attribute": {
            "post": _operation(
                "File an inbound message under one of our messages or as a new topic",
                _responses({200: ("The inbound message", _ref("InboundMessage"))}, [400, 401, 404, 413]),
                parameters=[_WAMID],
                requestBody=_body(_object({"message_key": _STRING, "new_topic": {"type": "boolean"}})),
            )
        },
        "/v1/search": {
            "get": _operation(
                "Messages holding every word of q, newest first",
                _responses(
                    {
                        200: (
                            "Results",
                            _list("results", _ref("SearchResult")),
                        )
                    },
                    [400, 401],
                ),
                description=(
                    "Inbound text and captions, and outbound text, buttons and templates as the customer "
                    "saw them. Words match in any case with accents folded; the last word also matches as "
                    "a prefix. Quotes, *, -, :, ^, parentheses, %, _ and backslashes are plain text."
                ),
                parameters=[
                    {
                        **_query(
                            "q",
                            {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_LENGTH},
                            "The words to find.",
                        ),
                        "required": True,
                    },
                    *_PAGED,
                ],
            )
        },
        "/v1/media": {
            "post": _operation(
                "Upload a file to send (multipart/form-data, field `file`)",
                _responses(
                    {
                        201: (
                            "The file, kept; its id goes in a message's image, audio, video or document",
                            _object(
                                {
                                    "id": _STRING,
                                    "mime_type": _STRING,
                                    "size": {"type": "integer"},
                                    "sha256": {"type": "string", "description": "hex SHA-256 of the bytes"},
                                    "duration_seconds": _DURATION,
                                },
                                ["id", "mime_type", "size", "sha256", "duration_seconds"],
                            ),
                        )
                    },
                    [400, 401, 413],
                ),
                description=(
                    "Meta's limits: image (jpeg, png) 5 MB, audio (aac, amr, mpeg, mp4, ogg) 16 MB, "
                    "video (mp4, 3gpp) 16 MB, document 100 MB, sticker (webp) 500 KB. "
                    "400 unsupported_media_type for another type, 413 media_too_large past the limit, "
                    "400 invalid_media without `file`."
                ),
                requestBody={
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": _object({"file": {"type": "string", "format": "binary"}}, ["file"])
                        }
                    },
                },
            ),
        },
        "/v1/media/{media_id}": {
            "get": _operation(
                "A file's bytes: a customer's (by Meta's media id) or an upload",
                {
                    "200": {
                        "description": "The bytes, their Content-Type and a Content-Disposition filename",
                        "content": {
                            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
                        },
                    },
                    **_responses({}, [401, 404, 409]),
                },
                description="409 media_not_ready while it is downloading from WhatsApp or after it failed.",
                parameters=[_path("media_id", _STRING)],
            ),
        },
        "/v1/media/{media_id}/retry": {
            "post": _operation(
                "Download a customer's file that failed once more",
                _responses(
                    {202: ("Pending again", _object({"id": _STRING, "state": _STRING}, ["id", "state"]))},
                    [401, 404, 409],
                ),
                description="409 media_not_failed unless its download failed. Also: `inbox media retry`.",
                parameters=[_path("media_id", _STRING)],
            ),
        },
        "/v1/canned-replies": {
            "get": _operation(
                "Canned replies by shortcut",
                _responses(
                    {
                        200: (
                            "Canned replies",
                            _object(
                                {"canned_replies": {"type": "array", "items": _ref("CannedReply")}},
                                ["canned_replies"],
                            ),
                        )
                    },
                    [400, 401, 404],
                ),
                parameters=[
                    _query(
                        "conversation_id",
                        {"type": "integer", "minimum": 1},
                        "Also give each reply `filled` for this conversation's contact (404 if unknown).",
                    )
                ],
            ),
            "post": _operation(
                "Add a canned reply (supervisors only)",
                _responses({201: ("The canned reply", _ref("CannedReply"))}, [400, 401, 403, 409, 413]),
                description=(
                    "400 invalid_canned_reply (shortcut 1 to 32 letters, digits, _ or -; title 1 to 100 "
                    "characters; text 1 to 4,096), 409 shortcut_taken. Journal: canned_replies.changed."
                ),
                requestBody=_body(_ref("CannedReplyRequest")),
            ),
        },
        "/v1/canned-replies/{id}": {
            "put": _operation(
                "Change a canned reply's shortcut, title or text (supervisors only)",
                _responses({200: ("The canned reply", _ref("CannedReply"))}, [400, 401, 403, 404, 409, 413]),
                description="Fields left out keep their value. Journal: canned_replies.changed.",
                parameters=[_ID],
                requestBody=_body(_ref("CannedReplyChange")),
            ),
            "delete": _operation(
                "Remove a canned reply (supervisors only)",
                {"204": {"description": "Removed"}, **_responses({}, [401, 403, 404])},
                description="Journal: canned_replies.changed.",
                parameters=[_ID],
            ),
        },
        "/v1/supervisor/queue": {
            "get": _operation(
                "Unknown, held and stuck-sending messages with evidence (supervisors only)",
                _responses({200: ("Items", _list("items", _ref("SupervisorItem")))}, [400, 401, 403]),
                parameters=_PAGED,
            )
        },
        "/v1/contacts/{wa_id}": {
            "get": _operation(
                "A contact, with its opt-out of marketing",
                _responses({200: ("The contact", _ref("Contact"))}, [400, 401, 404]),
                parameters=[_WA_ID],
            )
        },
        "/v1/contacts/{wa_id}/opt-out": {
            "post": _operation(
                "Opt the contact out of marketing; its queued marketing is cancelled",
                _responses({200: ("The contact", _ref("Contact"))}, [400, 401, 404]),
                description="Journal: contact.opted_out (with the cancelled keys) and message.state_changed.",
                parameters=[_WA_ID],
            )
        },
        "/v1/contacts/{wa_id}/opt-in": {
            "post": _operation(
                "Opt the contact back in to marketing (supervisors only)",
                _responses({200: ("The contact", _ref("Contact"))}, [400, 401, 403, 404, 413]),
                description="Journal: contact.opted_in.",
                parameters=[_WA_ID],
                requestBody=_body(
                    _object(
                        {
                            "note": {
                                "type": "string",
                                "minLength": 1,
                                "maxLength": 1000,
                                "description": "How consent was given.",
                            }
                        },
                        ["note"],
                    )
                ),
            )
        },
        "/v1/templates": {
            "get": _operation(
                "The templates the business may send",
                _responses({200: ("Templates", _list("templates", _ref("Template")))}, [401]),
            )
        },
        "/v1/metrics": {
            "get": _operation(
                "Delivery and queue measures", _responses({200: ("Metrics", _ref("Metrics"))}, [401])
            )
        },
        **_report_and_webhook_paths(),
        "/v1/openapi.json": {
            "get": _operation("This document", _responses({200: ("OpenAPI 3.1", {"type": "object"})}, [401]))
        },
    }


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "WhatsApp shared inbox API",
            "version": "1",
            "description": "Sends each message once, never loses a reply. Errors are "
            '{"error": {"code", "message"}}; times are ISO 8601 in UTC.',
        },
        "servers": [{"url": "http://127.0.0.1:8080"}],
        "security": [{"bearer": []}],
        "paths": _paths(),
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": _schemas(),
        },
    }
