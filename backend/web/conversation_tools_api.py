"""What agents do to a conversation besides replying: status, presence, notes and labels."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, jsonify
from sqlalchemy.orm import Session

from backend.database.models import Conversation
from backend.inbox import queries
from backend.inbox.labels import LabelError, change_labels, check_label_change, labels_in_use
from backend.inbox.lifecycle import StatusError, check_status_change, parse_until, set_status
from backend.inbox.notes import NoteError, add_note, check_note_text
from backend.inbox.presence import update_presence
from backend.web.common import caller, json_object, now, require_token, templates
from backend.web.context import web_context
from backend.web.errors import ApiError

blueprint = Blueprint("conversation_tools", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


def _locked_conversation(session: Session, conversation_id: int) -> Conversation:
    """The conversation, locked for this change (changes of one conversation take turns), or 404."""
    conversation = session.get(Conversation, conversation_id, with_for_update=True)
    if conversation is None:
        raise ApiError(404, "not_found", "There is no conversation with this id.")
    return conversation


def _resource(session: Session, conversation_id: int) -> dict[str, Any]:
    detail = queries.conversation_detail(session, conversation_id, now(), templates())
    assert detail is not None  # locked in this transaction
    return detail


@blueprint.post("/conversations/<id:conversation_id>/status")
def change_status(conversation_id: int) -> Response:
    """Set the status: open, pending, resolved, or snoozed until a time."""
    user = caller()
    body = json_object()
    moment = now()
    try:
        until = parse_until(body.get("until"))
        status = check_status_change(body.get("status"), until, moment)
    except StatusError as error:
        raise ApiError(400, "invalid_status", str(error)) from None
    with web_context().database.transaction() as session:
        conversation = _locked_conversation(session, conversation_id)
        set_status(session, conversation, status, until, by=user.name, now=moment, user_id=user.id)
        return jsonify(_resource(session, conversation_id))


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise ApiError(400, "invalid_presence", f"{name} must be true or false.")
    return value


@blueprint.post("/conversations/<id:conversation_id>/presence")
def presence(conversation_id: int) -> Response:
    """Say the caller is viewing (and maybe typing in) the conversation for 30 s, or has left it."""
    user = caller()
    body = json_object()
    typing, viewing = _flag(body, "typing", False), _flag(body, "viewing", True)
    with web_context().database.transaction() as session:
        _locked_conversation(session, conversation_id)
        viewers = update_presence(
            session, conversation_id, user.id, viewing=viewing, typing=typing and viewing, now=now()
        )
    return jsonify({"viewers": viewers})


@blueprint.post("/conversations/<id:conversation_id>/notes")
def post_note(conversation_id: int) -> tuple[Response, int]:
    """Add an internal note; @name mentions an enabled user. Notes never reach WhatsApp."""
    user = caller()
    body = json_object()
    try:
        text = check_note_text(body.get("text"))
    except NoteError as error:
        raise ApiError(400, "invalid_note", str(error)) from None
    with web_context().database.transaction() as session:
        _locked_conversation(session, conversation_id)
        note = add_note(session, conversation_id, author_id=user.id, author=user.name, text=text, now=now())
    return jsonify(note), 201


@blueprint.post("/conversations/<id:conversation_id>/labels")
def post_labels(conversation_id: int) -> Response:
    """Add and remove labels; answers the conversation."""
    user = caller()
    body = json_object()
    try:
        change = check_label_change(body)
        with web_context().database.transaction() as session:
            _locked_conversation(session, conversation_id)
            change_labels(session, conversation_id, change, user_id=user.id, by=user.name, now=now())
            return jsonify(_resource(session, conversation_id))
    except LabelError as error:
        raise ApiError(400, error.code, error.message) from None


@blueprint.get("/labels")
def get_labels() -> Response:
    """The labels in use, with how many conversations carry each (for the list's filter)."""
    with web_context().database.reader() as session:
        return jsonify({"labels": labels_in_use(session)})


def register(app: Flask) -> None:
    """Add the status, presence, note and label routes."""
    app.register_blueprint(blueprint)
