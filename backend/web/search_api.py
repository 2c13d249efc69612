"""Search in what was said: inbound and outbound message text, newest first."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request

from backend.inbox.search import MAX_QUERY_LENGTH, SearchPosition, search_messages
from backend.web.common import decode_cursor, encode_cursor, page_limit, require_token, templates
from backend.web.context import web_context
from backend.web.errors import ApiError

blueprint = Blueprint("search", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


@blueprint.get("/search")
def search() -> Response:
    """Messages holding every word of q (any case, accents folded, the last word as a prefix)."""
    text = request.args.get("q", "")
    if not 1 <= len(text) <= MAX_QUERY_LENGTH:
        raise ApiError(400, "invalid_parameter", f"q must be 1 to {MAX_QUERY_LENGTH} characters.")
    limit = page_limit()
    cursor = decode_cursor(("i", "o"))
    after = SearchPosition.from_cursor(cursor) if cursor is not None else None
    with web_context().database.reader() as session:
        page = search_messages(session, text, limit=limit, after=after, catalog=templates())
    next_cursor = encode_cursor(page.next_position.as_cursor()) if page.next_position else None
    return jsonify({"results": page.results, "next_cursor": next_cursor})


def register(app: Flask) -> None:
    """Add the search route."""
    app.register_blueprint(blueprint)
