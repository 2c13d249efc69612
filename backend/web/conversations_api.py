"""Conversations, threads, assignment, replies, and the work queue of unattributed inbound messages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage, User
from backend.domain.origins import ORIGIN_AGENT
from backend.inbox import queries, threads
from backend.inbox.attribution import AttributionError, attribute_inbound
from backend.inbox.collision import sent_by_others_since
from backend.inbox.labels import MAX_LABEL_LENGTH
from backend.inbox.lifecycle import StatusError, parse_status_filter
from backend.journal import journal
from backend.web import idempotency
from backend.web.common import (
    caller,
    decode_cursor,
    encode_cursor,
    json_object,
    now,
    page_limit,
    parse_time,
    query_choice,
    require_token,
    templates,
)
from backend.web.context import web_context
from backend.web.errors import ApiError
from backend.web.messages_api import enqueue_answer, message_request
from backend.web.paths import path_value

MAX_SEARCH_LENGTH = 200
REPLY_PURPOSE = "reply"

blueprint = Blueprint("conversations", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


def _page(name: str, page: queries.Page, offset: int) -> Response:
    next_cursor = encode_cursor({"o": offset + len(page.items)}) if page.has_more else None
    return jsonify({name: page.items, "next_cursor": next_cursor})


def _offset() -> int:
    position = decode_cursor(("o",))
    return 0 if position is None else int(position["o"])


@blueprint.get("/me")
def get_me() -> Response:
    """Who the token belongs to."""
    user = caller()
    return jsonify({"name": user.name, "role": user.role})


@blueprint.get("/conversations")
def list_conversations() -> Response:
    """Conversations by view, status (default open,pending), label, window and search text."""
    view = query_choice("view", queries.VIEWS, "all")
    window = query_choice("window", queries.WINDOWS, None)
    try:
        statuses = parse_status_filter(request.args.get("status"))
    except StatusError as error:
        raise ApiError(400, "invalid_parameter", str(error)) from None
    label = request.args.get("label") or None
    if label is not None:
        label = label.strip()
        if not 1 <= len(label) <= MAX_LABEL_LENGTH:
            raise ApiError(400, "invalid_parameter", f"label is 1 to {MAX_LABEL_LENGTH} characters.")
    search = request.args.get("q") or None
    if search is not None and len(search) > MAX_SEARCH_LENGTH:
        raise ApiError(400, "invalid_parameter", f"q is limited to {MAX_SEARCH_LENGTH} characters.")
    limit, offset = page_limit(), _offset()
    assert view is not None
    with web_context().database.reader() as session:
        page = queries.list_conversations(
            session,
            view=view,
            user_id=caller().id,
            window=window,
            search=search,
            now=now(),
            limit=limit,
            offset=offset,
            statuses=statuses,
            label=label,
            catalog=templates(),
        )
    return _page("conversations", page, offset)


def _conversation_or_404(conversation_id: int) -> dict[str, Any]:
    with web_context().database.reader() as session:
        detail = queries.conversation_detail(session, conversation_id, now(), templates())
    if detail is None:
        raise ApiError(404, "not_found", "There is no conversation with this id.")
    return detail


@blueprint.get("/conversations/<id:conversation_id>")
def get_conversation(conversation_id: int) -> Response:
    """One conversation: contact, assignee, window."""
    return jsonify(_conversation_or_404(conversation_id))


@blueprint.get("/conversations/<id:conversation_id>/thread")
def get_thread(conversation_id: int) -> Response:
    """The conversation's messages and notes in time order, replies nested, and who views it now."""
    limit, offset = page_limit(), _offset()
    with web_context().database.reader() as session:
        detail = queries.conversation_detail(session, conversation_id, now(), templates())
        if detail is None:
            raise ApiError(404, "not_found", "There is no conversation with this id.")
        page = threads.thread(session, conversation_id, limit=limit, offset=offset, catalog=templates())
    next_cursor = encode_cursor({"o": offset + len(page.items)}) if page.has_more else None
    return jsonify({"messages": page.items, "next_cursor": next_cursor, "viewers": detail["viewers"]})


@blueprint.post("/conversations/<id:conversation_id>/assign")
def assign(conversation_id: int) -> Response:
    """Assign the conversation to a user by name, or unassign it with null.

    Agents may take a conversation nobody has and give back their own; anything touching another
    user's assignment is a supervisor's decision.
    """
    user = caller()
    body = json_object()
    if "user" not in body:
        raise ApiError(400, "invalid_assignment", 'Give {"user": name} or {"user": null}.')
    name = body["user"]
    if name is not None and not isinstance(name, str):
        raise ApiError(400, "invalid_assignment", "user must be a user name or null.")
    if not user.is_supervisor and name is not None and name != user.name:
        raise ApiError(
            403, "forbidden", "Agents may assign a conversation only to themselves; ask a supervisor."
        )
    moment = now()
    with web_context().database.transaction() as session:
        conversation = session.get(Conversation, conversation_id, with_for_update=True)
        if conversation is None:
            raise ApiError(404, "not_found", "There is no conversation with this id.")
        if not user.is_supervisor and conversation.assignee_id not in (None, user.id):
            raise ApiError(
                403,
                "forbidden",
                "This conversation is assigned to someone else; only a supervisor may change that.",
            )
        assignee_id = None
        if name is not None:
            assignee_id = session.scalar(select(User.id).where(User.name == name, User.disabled.is_(False)))
            if assignee_id is None:
                raise ApiError(400, "unknown_user", f"There is no enabled user named {name!r}.")
        session.execute(
            update(Conversation).where(Conversation.id == conversation_id).values(assignee_id=assignee_id)
        )
        journal(
            session,
            "conversation.assigned",
            {"conversation_id": conversation_id, "assignee": name, "by": user.name},
            moment,
        )
    return jsonify(_conversation_or_404(conversation_id))


@blueprint.post("/conversations/<id:conversation_id>/read")
def mark_read(conversation_id: int) -> Response:
    """Mark the conversation as read (unread back to 0)."""
    with web_context().database.transaction() as session:
        result = session.execute(
            update(Conversation).where(Conversation.id == conversation_id).values(unread_count=0)
        )
        if result.rowcount == 0:  # type: ignore[attr-defined]
            raise ApiError(404, "not_found", "There is no conversation with this id.")
    return jsonify(_conversation_or_404(conversation_id))


def _collision_check(body: dict[str, Any]) -> datetime | None:
    """The reply's `seen_up_to`, or None when it is not given or `force` is true."""
    force = body.get("force", False)
    if not isinstance(force, bool):
        raise ApiError(400, "invalid_message", "force must be true or false.")
    seen_up_to = body.get("seen_up_to")
    if seen_up_to is None:
        return None
    try:
        moment = parse_time("seen_up_to", seen_up_to)
    except OverflowError:  # a time near year 1 or 9999 that has no UTC form
        raise ApiError(400, "invalid_message", "seen_up_to is out of range.") from None
    return None if force else moment


@blueprint.post("/conversations/<id:conversation_id>/reply")
def reply(conversation_id: int) -> Response:
    """Reply in the conversation: text while the window is open, a template at any time."""
    user = caller()
    key = idempotency.check_key(request.headers.get("Idempotency-Key"))
    body = json_object()
    seen_up_to = _collision_check(body)
    moment = now()

    def answer(session: Session) -> idempotency.Answer:
        # Checked under the key, so a retry of an accepted reply replays it even after the window
        # closed; a refusal here releases the key.
        found = session.execute(
            select(Conversation, Contact)
            .join(Contact, Contact.id == Conversation.contact_id)
            .where(Conversation.id == conversation_id)
        ).first()
        if found is None:
            raise ApiError(404, "not_found", "There is no conversation with this id.")
        contact = found[1]
        if not contact.number:
            raise ApiError(409, "no_recipient", "This contact has no phone number to reply to.")
        # Collision control: a reply written before someone else's newer message is stopped (409
        # conversation_changed) unless forced. Checked under the key, and never for a reply already
        # queued under it, so a retry of an accepted reply replays whatever was sent since.
        if (
            seen_up_to is not None
            and session.scalar(select(OutboxMessage.id).where(OutboxMessage.dedupe_key == key)) is None
        ):
            changed = sent_by_others_since(
                session, conversation_id, user_id=user.id, seen_up_to=seen_up_to, catalog=templates()
            )
            if changed:
                raise ApiError(
                    409,
                    "conversation_changed",
                    "Someone else replied in this conversation since you last looked; "
                    'read their messages, then send again (or with "force": true).',
                    messages=changed,
                )
        window_open = contact.window_closes_at is not None and contact.window_closes_at > moment
        body_for_request = dict(body)
        # A reply answers the customer's latest message while the window is open; after it closes,
        # a template starts a new business-initiated conversation unless the client names a message.
        if body_for_request.get("reply_to") is None and window_open:
            body_for_request["reply_to"] = session.scalar(
                select(InboundMessage.wamid)
                .where(InboundMessage.conversation_id == conversation_id)
                .order_by(InboundMessage.received_at.desc(), InboundMessage.id.desc())
                .limit(1)
            )
        request_ = message_request(
            body_for_request,
            key=key,
            created_by=user.id,
            default_purpose=REPLY_PURPOSE,
            to=contact.number,
            origin=ORIGIN_AGENT,
        )
        # Text and buttons need the customer service window; only a template may reopen a conversation.
        if request_.template is None and not window_open:
            raise ApiError(
                409,
                "window_closed",
                "The 24-hour customer service window is closed: send an approved template instead.",
            )
        return enqueue_answer(session, request_)

    return idempotency.run_once(
        web_context().database,
        user_id=user.id,
        key=key,
        method="POST",
        path=request.path,
        body=body,
        now=moment,
        action=answer,
    )


@blueprint.get("/work-queue")
def get_work_queue() -> Response:
    """Inbound messages not yet attributed to a message or a new topic, oldest first."""
    limit, offset = page_limit(), _offset()
    with web_context().database.reader() as session:
        page = threads.work_queue(session, limit=limit, offset=offset, catalog=templates())
    return _page("items", page, offset)


@blueprint.post("/inbound/<wamid>/attribute")
def attribute(wamid: str) -> Response:
    """File an inbound message under one of our messages, or as a new topic."""
    user = caller()
    body = json_object()
    message_key = body.get("message_key")
    new_topic = body.get("new_topic", False)
    if message_key is not None and not isinstance(message_key, str):
        raise ApiError(400, "invalid_attribution", "message_key must be a string.")
    if not isinstance(new_topic, bool):
        raise ApiError(400, "invalid_attribution", "new_topic must be true or false.")
    if (message_key is None) == (not new_topic):
        raise ApiError(400, "invalid_attribution", "Give exactly one of message_key or new_topic: true.")
    try:
        with web_context().database.transaction() as session:
            inbound = attribute_inbound(
                session,
                path_value(wamid, request.environ),
                message_key=message_key,
                new_topic=new_topic,
                user_id=user.id,
                now=now(),
            )
            answer = threads.inbound_resource(inbound, threads.media_for(session, [inbound]))
    except AttributionError as error:
        status = 404 if error.code == "not_found" else 400
        raise ApiError(status, error.code, error.message) from None
    return jsonify(answer)


def register(app: Flask) -> None:
    """Add the conversation and work-queue routes."""
    app.register_blueprint(blueprint)
