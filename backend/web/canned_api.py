"""Canned replies: everyone reads them (filled for a conversation on request), supervisors change them."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request

from backend.inbox.canned import (
    CannedReplyError,
    canned_resource,
    contact_of,
    create_canned,
    delete_canned,
    fill,
    list_canned,
    update_canned,
)
from backend.web.common import json_object, now, query_int, require_supervisor, require_token
from backend.web.context import web_context
from backend.web.errors import ApiError

blueprint = Blueprint("canned_replies", __name__, url_prefix="/v1")
blueprint.before_request(require_token)

# Conversation ids are 32-bit INTEGER columns on PostgreSQL.
_MAX_CONVERSATION_ID = 2**31 - 1
_STATUS_OF = {"not_found": 404, "shortcut_taken": 409, "invalid_canned_reply": 400}


def _api_error(error: CannedReplyError) -> ApiError:
    return ApiError(_STATUS_OF.get(error.code, 400), error.code, error.message)


@blueprint.get("/canned-replies")
def list_replies() -> Response:
    """Every canned reply by shortcut; with conversation_id, each also filled for that contact."""
    conversation_id = None
    if request.args.get("conversation_id"):
        conversation_id = query_int("conversation_id", 0, 1, _MAX_CONVERSATION_ID)
    with web_context().database.reader() as session:
        rows = list_canned(session)
        items = [canned_resource(row) for row in rows]
        if conversation_id is not None:
            contact = contact_of(session, conversation_id)
            if contact is None:
                raise ApiError(404, "not_found", "There is no conversation with this id.")
            for item, row in zip(items, rows, strict=True):
                item["filled"] = fill(row.text, contact)
    return jsonify({"canned_replies": items})


@blueprint.post("/canned-replies")
def create_reply() -> tuple[Response, int]:
    """Add a canned reply (supervisors only)."""
    user = require_supervisor()
    body = json_object()
    try:
        with web_context().database.transaction() as session:
            answer = canned_resource(create_canned(session, body, user_id=user.id, now=now()))
    except CannedReplyError as error:
        raise _api_error(error) from None
    return jsonify(answer), 201


# One rule for both methods: with a rule each, an id the converter refuses got 405 from one of them
# instead of 404. The path names it `id`, as the OpenAPI document does.
@blueprint.route("/canned-replies/<id:id>", methods=["PUT", "DELETE"])
def change_reply(id: int) -> Response:
    """Change a canned reply's shortcut, title or text (PUT), or remove it (DELETE); supervisors only."""
    require_supervisor()
    try:
        if request.method == "DELETE":
            with web_context().database.transaction() as session:
                delete_canned(session, id, now=now())
            return Response(status=204)
        body = json_object()
        with web_context().database.transaction() as session:
            answer = canned_resource(update_canned(session, id, body, now=now()))
    except CannedReplyError as error:
        raise _api_error(error) from None
    return jsonify(answer)


def register(app: Flask) -> None:
    """Add the canned-reply routes."""
    app.register_blueprint(blueprint)
