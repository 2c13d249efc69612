"""Supervisor routes: the queue of rows needing a person, and their decisions (mark sent, resend, cancel)."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request

from backend.inbox import queries
from backend.outbox.resolution import ResolutionError, resolve_by_supervisor
from backend.web.common import (
    decode_cursor,
    encode_cursor,
    json_object,
    now,
    page_limit,
    require_supervisor,
    require_token,
    templates,
)
from backend.web.context import web_context
from backend.web.errors import ApiError
from backend.web.paths import path_value

ACTIONS = ("mark_sent", "resend", "cancel")

blueprint = Blueprint("supervisor", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


@blueprint.get("/supervisor/queue")
def get_queue() -> Response:
    """Unknown, held and stuck-sending messages with attempts, last error, age and evidence."""
    require_supervisor()
    position = decode_cursor(("o",))
    offset = 0 if position is None else int(position["o"])
    limit = page_limit()
    with web_context().database.reader() as session:
        page = queries.supervisor_queue(session, now=now(), limit=limit, offset=offset, catalog=templates())
    next_cursor = encode_cursor({"o": offset + len(page.items)}) if page.has_more else None
    return jsonify({"items": page.items, "next_cursor": next_cursor})


@blueprint.post("/messages/<key>/resolve")
def resolve(key: str) -> Response:
    """Record a supervisor's decision on a message that needs one (key encoded as for GET)."""
    user = require_supervisor()
    body = json_object()
    action = body.get("action")
    if action not in ACTIONS:
        raise ApiError(400, "invalid_action", f"action must be one of {', '.join(ACTIONS)}.")
    try:
        with web_context().database.transaction() as session:
            row = resolve_by_supervisor(session, path_value(key, request.environ), action, user.name, now())
            answer = queries.message_resource(row)
    except ResolutionError as error:
        status = 404 if error.code == "not_found" else 409
        raise ApiError(status, error.code, error.message) from None
    return jsonify(answer)


def register(app: Flask) -> None:
    """Add the supervisor routes."""
    app.register_blueprint(blueprint)
