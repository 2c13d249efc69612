"""Registers the whole HTTP API on an app: /v1 routes, /metrics, the 1 MB body limit, OpenAPI."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request
from werkzeug.routing import IntegerConverter, Map, ValidationError

from backend.web import (
    canned_api,
    contacts_api,
    conversation_tools_api,
    conversations_api,
    events_api,
    media_api,
    messages_api,
    metrics_api,
    reports_api,
    search_api,
    supervisor_api,
    webhook_subscriptions_api,
)
from backend.web.common import require_token
from backend.web.context import MAX_REQUEST_BYTES, MAX_UPLOAD_BODY_BYTES, UPLOAD_PATH
from backend.web.errors import ApiError
from backend.web.openapi import openapi_document

# Only the webhook receiver accepts bodies above 1 MB (Meta batches up to 3 MB).
_LARGE_BODY_PREFIX = "/webhooks/"

openapi_blueprint = Blueprint("openapi", __name__, url_prefix="/v1")
openapi_blueprint.before_request(require_token)


@openapi_blueprint.get("/openapi.json")
def get_openapi() -> Response:
    """The OpenAPI 3.1 document of this API."""
    return jsonify(openapi_document())


# Conversation and batch ids are 32-bit INTEGER columns on PostgreSQL.
MAX_ID = 2**31 - 1


class IdConverter(IntegerConverter):
    """A database id in a path: a positive integer the database can hold, else the route does not match."""

    def __init__(self, url_map: Map) -> None:
        super().__init__(url_map, min=1)

    def to_python(self, value: str) -> int:
        """The id, or no match (404) when it is too large for the database."""
        number = int(super().to_python(value))
        if number > MAX_ID:
            raise ValidationError()
        return number


def _refuse_large_bodies() -> None:
    length = request.content_length
    if request.method == "POST" and request.path == UPLOAD_PATH:
        # A media upload may be as large as the largest file Meta takes; its route checks each kind.
        request.max_content_length = MAX_UPLOAD_BODY_BYTES
        if length is not None and length > MAX_UPLOAD_BODY_BYTES:
            raise ApiError(413, "media_too_large", "A file may be at most 100 MB (a document).")
        return
    if length is not None and length > MAX_REQUEST_BYTES and not request.path.startswith(_LARGE_BODY_PREFIX):
        raise ApiError(413, "payload_too_large", "Request bodies are limited to 1 MB.")


def _refuse_nul_characters() -> None:
    # PostgreSQL text cannot hold NUL: a path or query parameter with one would reach the database.
    if "\x00" in request.path or any("\x00" in value for value in request.args.values()):
        raise ApiError(400, "invalid_parameter", "The path and query must not contain NUL (%00) characters.")


def register_api(app: Flask) -> None:
    """Add every API route and the body-size limit."""
    app.url_map.converters["id"] = IdConverter
    app.before_request(_refuse_large_bodies)
    app.before_request(_refuse_nul_characters)
    for module in (messages_api, supervisor_api, events_api, conversations_api, metrics_api):
        module.register(app)
    conversation_tools_api.register(app)
    canned_api.register(app)
    contacts_api.register(app)
    search_api.register(app)
    reports_api.register(app)
    webhook_subscriptions_api.register(app)
    media_api.register(app)
    app.register_blueprint(openapi_blueprint)
