"""One error shape for every route: {"error": {"code", "message"}} with a precise status."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException

from backend.domain.messages import MessageError


class ApiError(Exception):
    """An error a route raises to answer the client with a status, a code and a message."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def error_response(status: int, code: str, message: str, **extra: Any) -> Response:
    """A JSON error response."""
    body: dict[str, Any] = {"code": code, "message": message}
    body.update(extra)
    response = jsonify({"error": body})
    response.status_code = status
    return response


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "too_many_requests",
}


def install_error_handlers(app: Flask) -> None:
    """Map ApiError and every HTTP error to the JSON error shape."""

    @app.errorhandler(ApiError)
    def _api_error(error: ApiError) -> Response:
        return error_response(error.status, error.code, error.message, **error.extra)

    @app.errorhandler(MessageError)
    def _message_error(error: MessageError) -> Response:
        # Refusals found inside a transaction (an opted-out recipient, a template Meta paused).
        return error_response(error.status, error.code, error.message)

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Response:
        status = error.code or 500
        code = _HTTP_CODES.get(status, "http_error")
        message = error.description or (error.name or "error")
        return error_response(status, code, message)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        app.logger.exception("unexpected error while answering a request")
        return error_response(500, "internal_error", "Something went wrong on the server.")
