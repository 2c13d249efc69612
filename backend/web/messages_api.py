"""/v1/messages, /v1/messages/batch and /v1/batches: sends under an Idempotency-Key or a client_ref."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Batch, MediaFile, OutboxMessage
from backend.database.upsert import insert_ignoring_conflicts
from backend.domain import media as media_rules
from backend.domain.messages import (
    MAX_TRIGGER_REF_LENGTH,
    MEDIA_SEND_KINDS,
    Button,
    ButtonsRequest,
    MediaRequest,
    MessageError,
    TemplateRequest,
)
from backend.domain.origins import ORIGIN_API
from backend.idempotency import MAX_KEY_LENGTH
from backend.inbox.queries import batch_progress, message_by_key, message_resource
from backend.outbox.enqueue import MessageRequest, Placed, check_request, enqueue, enqueue_many
from backend.web import idempotency
from backend.web.common import caller, json_object, now, parse_time, require_token, templates
from backend.web.context import web_context
from backend.web.errors import ApiError
from backend.web.paths import path_value

MAX_BATCH_MESSAGES = 1000
MAX_CLIENT_REF_LENGTH = 255
MAX_PRIORITY = 1_000_000
MAX_REPLY_TO_LENGTH = 255

blueprint = Blueprint("messages", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


def _invalid(message: str) -> ApiError:
    return ApiError(400, "invalid_message", message)


def _optional_string(body: dict[str, Any], name: str, max_length: int) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > max_length:
        raise _invalid(f"{name} must be a string of 1 to {max_length} characters.")
    return value


def _template(raw: object) -> TemplateRequest:
    if not isinstance(raw, dict):
        raise _invalid("template must be an object with name, language and parameters.")
    name, language, parameters = raw.get("name"), raw.get("language"), raw.get("parameters", [])
    if not isinstance(name, str) or not isinstance(language, str):
        raise ApiError(400, "invalid_template", "template.name and template.language must be strings.")
    if not isinstance(parameters, list) or not all(isinstance(p, str) for p in parameters):
        raise ApiError(400, "invalid_template", "template.parameters must be a list of strings.")
    return TemplateRequest(name=name, language=language, parameters=tuple(parameters))


def _buttons(raw: object) -> ButtonsRequest:
    if not isinstance(raw, dict) or not isinstance(raw.get("body"), str):
        raise _invalid("buttons must be an object with a body and a list of buttons.")
    listed = raw.get("buttons")
    if not isinstance(listed, list):
        raise _invalid("buttons.buttons must be a list of {id, title}.")
    buttons = []
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise _invalid("each button needs a string id and title.")
        if not isinstance(item.get("title"), str):
            raise _invalid("each button needs a string id and title.")
        buttons.append(Button(id=item["id"], title=item["title"]))
    return ButtonsRequest(body=raw["body"], buttons=tuple(buttons))


def _media(body: dict[str, Any]) -> MediaRequest | None:
    given = [kind for kind in MEDIA_SEND_KINDS if body.get(kind) is not None]
    if not given:
        return None
    if len(given) > 1:
        raise _invalid("give exactly one of image, audio, video or document.")
    kind = given[0]
    raw = body[kind]
    if not isinstance(raw, dict) or not isinstance(raw.get("media"), str):
        raise _invalid(f'{kind} must be {{"media": "<id from POST /v1/media>", "caption"?, "filename"?}}.')
    caption, filename = raw.get("caption"), raw.get("filename")
    if caption is not None and not isinstance(caption, str):
        raise _invalid(f"{kind}.caption must be a string.")
    if filename is not None and not isinstance(filename, str):
        raise _invalid(f"{kind}.filename must be a string.")
    return MediaRequest(kind=kind, media_id=raw["media"], caption=caption, filename=filename)


def message_request(
    body: dict[str, Any],
    *,
    key: str,
    created_by: int,
    batch_id: int | None = None,
    default_purpose: str | None = None,
    to: str | None = None,
    origin: str = ORIGIN_API,
) -> MessageRequest:
    """A MessageRequest from a JSON body, checked without the database (400 on any mistake)."""
    recipient = to if to is not None else body.get("to")
    if not isinstance(recipient, str):
        raise ApiError(400, "invalid_recipient", "to must be a phone number in international format.")
    purpose = body.get("purpose", default_purpose)
    if not isinstance(purpose, str):
        raise _invalid("purpose must be 1 to 64 letters, digits, '_', '.' or '-'.")
    text = body.get("text")
    if text is not None and not isinstance(text, str):
        raise _invalid("text must be a string.")
    template = _template(body["template"]) if body.get("template") is not None else None
    buttons = _buttons(body["buttons"]) if body.get("buttons") is not None else None
    media = _media(body)
    priority = body.get("priority", 0)
    if priority is None:
        priority = 0
    if not isinstance(priority, int) or isinstance(priority, bool) or abs(priority) > MAX_PRIORITY:
        raise _invalid(f"priority must be a whole number between -{MAX_PRIORITY} and {MAX_PRIORITY}.")
    not_before = body.get("not_before")
    request_ = MessageRequest(
        dedupe_key=key,
        to=recipient,
        purpose=purpose,
        text=text,
        template=template,
        buttons=buttons,
        media=media,
        reply_to=_optional_string(body, "reply_to", MAX_REPLY_TO_LENGTH),
        trigger_ref=_optional_string(body, "trigger_ref", MAX_TRIGGER_REF_LENGTH),
        not_before=parse_time("not_before", not_before) if not_before is not None else None,
        priority=priority,
        created_by=created_by,
        batch_id=batch_id,
        origin=origin,
    )
    try:
        check_request(request_, templates())
    except MessageError as error:
        raise ApiError(error.status, error.code, error.message) from None
    return request_


def _same_message(row: OutboxMessage, request_: MessageRequest) -> bool:
    """Whether an existing row is this very message (same recipient, purpose and content).

    Two clients naming one business event with one key (a shop and its CRM, say) get the one
    message: the customer must never receive it twice, whoever asked.
    """
    checked = check_request(request_, templates())
    return (
        row.to_number == checked.to_number
        and row.purpose == request_.purpose
        and row.kind == checked.kind
        and row.payload == checked.payload
    )


def enqueue_answer(session: Session, request_: MessageRequest) -> idempotency.Answer:
    """Enqueue under the request's key: 202 with the message; a known key is a replay or a conflict."""
    context = web_context()
    if request_.media is not None:
        _check_uploaded(session, request_.media)
    result = enqueue(session, request_, templates=templates(), settings=context.settings, now=now())
    if result.created:
        return idempotency.Answer(202, message_resource(result.message))
    if not _same_message(result.message, request_):
        raise ApiError(
            422,
            "idempotency_conflict",
            "This key already names a different message; use a new Idempotency-Key.",
        )
    return idempotency.Answer(202, message_resource(result.message), replayed=True)


def _check_uploaded(session: Session, media: MediaRequest) -> None:
    """400 unless the id names a file uploaded through POST /v1/media of a type this kind takes."""
    row = session.scalars(select(MediaFile).where(MediaFile.media_id == media.media_id)).one_or_none()
    if row is None or row.direction != media_rules.OUTBOUND or row.state != media_rules.STORED:
        raise ApiError(
            400, "unknown_media", f"{media.media_id!r} is not a file uploaded with POST /v1/media."
        )
    limit = media_rules.limit_for(row.mime_type or "")
    if limit is None or limit.kind != media.kind:
        raise ApiError(
            400,
            "media_kind_mismatch",
            f"the file is {row.mime_type}: send it as {limit.kind if limit else 'another kind'}.",
        )


@blueprint.post("/messages")
def post_message() -> Response:
    """Queue one message under its Idempotency-Key."""
    user = caller()
    key = idempotency.check_key(request.headers.get("Idempotency-Key"))
    body = json_object()
    request_ = message_request(body, key=key, created_by=user.id)
    return idempotency.run_once(
        web_context().database,
        user_id=user.id,
        key=key,
        method="POST",
        path=request.path,
        body=body,
        now=now(),
        action=lambda session: enqueue_answer(session, request_),
    )


@blueprint.get("/messages/<key>")
def get_message(key: str) -> Response:
    """One message by its key (percent-encoded in the path, "/" as %2F)."""
    with web_context().database.reader() as session:
        row = message_by_key(session, path_value(key, request.environ))
        if row is None:
            raise ApiError(404, "not_found", "There is no message with this key.")
        return jsonify(message_resource(row))


def _batch_answer(batch: Batch) -> dict[str, Any]:
    return {
        "batch_id": batch.id,
        "client_ref": batch.client_ref,
        "queued": batch.message_count,
        "duplicates": batch.duplicate_count,
        "opted_out": list(batch.opted_out_keys or []),
    }


@blueprint.post("/messages/batch")
def post_batch() -> Response:
    """Queue up to 1,000 messages under one client_ref; the same client_ref again is a replay."""
    user = caller()
    body = json_object()
    client_ref = body.get("client_ref")
    if not isinstance(client_ref, str) or not client_ref.strip() or len(client_ref) > MAX_CLIENT_REF_LENGTH:
        raise ApiError(400, "invalid_batch", f"client_ref must be 1 to {MAX_CLIENT_REF_LENGTH} characters.")
    listed = body.get("messages")
    if not isinstance(listed, list) or not 1 <= len(listed) <= MAX_BATCH_MESSAGES:
        raise ApiError(
            400, "invalid_batch", f"messages must be a list of 1 to {MAX_BATCH_MESSAGES} messages."
        )
    requests: list[MessageRequest] = []
    for index, item in enumerate(listed):
        try:
            if not isinstance(item, dict):
                raise _invalid("each message must be an object.")
            key = item.get("key")
            if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
                raise _invalid(f"key must be 1 to {MAX_KEY_LENGTH} characters.")
            checked_request = message_request(item, key=key, created_by=user.id)
            if checked_request.media is not None:
                # A batch is for templates and text to many; a file goes one message at a time.
                raise _invalid("a batch cannot hold files; send each with POST /v1/messages.")
            requests.append(checked_request)
        except ApiError as error:
            raise ApiError(
                error.status, error.code, f"messages[{index}]: {error.message}", index=index
            ) from None
    moment = now()
    context = web_context()
    with context.database.transaction() as session:
        batch_id = session.execute(
            insert_ignoring_conflicts(
                session,
                Batch,
                ["created_by", "client_ref"],
                client_ref=client_ref,
                created_by=user.id,
                created_at=moment,
                message_count=0,
                duplicate_count=0,
            ).returning(Batch.id)
        ).scalar_one_or_none()
        if batch_id is None:
            existing = session.scalars(
                select(Batch).where(Batch.created_by == user.id, Batch.client_ref == client_ref)
            ).one()
            response = jsonify(_batch_answer(existing))
            response.status_code = 202
            response.headers[idempotency.REPLAYED_HEADER] = "true"
            return response
        placed = enqueue_many(
            session,
            [MessageRequest(**{**item.__dict__, "batch_id": batch_id}) for item in requests],
            templates=templates(),
            settings=context.settings,
            now=moment,
        )
        # One customer's opt-out does not fail the others: listed in the answer instead.
        opted_out = [
            item.dedupe_key
            for item, outcome in zip(requests, placed, strict=True)
            if isinstance(outcome, MessageError)
        ]
        queued = sum(1 for outcome in placed if isinstance(outcome, Placed) and outcome.created)
        duplicates = len(placed) - queued - len(opted_out)
        batch = session.get_one(Batch, batch_id)
        batch.message_count = queued
        batch.duplicate_count = duplicates
        batch.opted_out_keys = opted_out
        session.flush()
        answer = _batch_answer(batch)
    response = jsonify(answer)
    response.status_code = 202
    return response


@blueprint.get("/batches/<id:batch_id>")
def get_batch(batch_id: int) -> Response:
    """A batch's messages counted by state, for progress bars."""
    with web_context().database.reader() as session:
        progress = batch_progress(session, batch_id)
    if progress is None:
        raise ApiError(404, "not_found", "There is no batch with this id.")
    return jsonify(progress)


def register(app: Flask) -> None:
    """Add the message routes."""
    app.register_blueprint(blueprint)
