"""Shared pieces of the /v1 API: the caller, JSON bodies, limits, cursors and time formatting."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import g, request

from backend.domain.templates import TemplateCatalog
from backend.users import user_for_token
from backend.web.context import MAX_REQUEST_BYTES, web_context
from backend.web.errors import ApiError

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
MAX_CURSOR_VALUE = 2**53


@dataclass(frozen=True)
class Caller:
    """The authenticated user of the current request."""

    id: int
    name: str
    role: str

    @property
    def is_supervisor(self) -> bool:
        """Whether this user may use the supervisor routes."""
        return self.role == "supervisor"


def authenticate() -> Caller:
    """The caller named by the bearer token, or 401."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "unauthorized", "Send Authorization: Bearer <token> (see `inbox user add`).")
    with web_context().database.reader() as session:
        user = user_for_token(session, token)
        if user is None:
            raise ApiError(401, "unauthorized", "The token is unknown or its user is disabled.")
        caller = Caller(id=user.id, name=user.name, role=user.role)
    g.caller = caller
    return caller


def require_token() -> None:
    """A before_request hook: 401 unless the request carries a valid bearer token."""
    authenticate()


def caller() -> Caller:
    """The caller authenticated for this request."""
    found = g.get("caller")
    if not isinstance(found, Caller):
        raise ApiError(401, "unauthorized", "Send Authorization: Bearer <token>.")
    return found


def require_supervisor() -> Caller:
    """The caller if they are a supervisor, else 403."""
    current = caller()
    if not current.is_supervisor:
        raise ApiError(403, "forbidden", "Only a supervisor may do this.")
    return current


def now() -> datetime:
    """The current time from the app's clock."""
    return web_context().parts.clock()


def templates() -> TemplateCatalog:
    """The template catalog the app was built with."""
    return web_context().parts.templates


def raw_body() -> bytes:
    """The request body, refusing more than 1 MB with 413."""
    length = request.content_length
    if length is not None and length > MAX_REQUEST_BYTES:
        raise ApiError(413, "payload_too_large", "Request bodies are limited to 1 MB.")
    data = request.get_data(cache=True)
    if len(data) > MAX_REQUEST_BYTES:
        raise ApiError(413, "payload_too_large", "Request bodies are limited to 1 MB.")
    return data


def json_object() -> dict[str, Any]:
    """The request body as a JSON object, or 400 invalid_json."""
    data = raw_body()
    try:
        body = json.loads(data) if data else None
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested past the decoder
        raise ApiError(400, "invalid_json", "The body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", "The body must be a JSON object.")
    problem = unstorable_text(body)
    if problem is not None:
        raise ApiError(400, "invalid_json", problem)
    return body


def unstorable_text(value: object) -> str | None:
    """Why some string in a parsed JSON value (keys included) cannot be stored, or None."""
    # PostgreSQL text cannot hold NUL, and half of a UTF-16 pair ("\ud800" alone) is not text at all:
    # neither can be encoded or stored, so refusing them here keeps them a 400 instead of a 500.
    # Iterative, because a body may be nested as deep as the decoder allows.
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "Text in the body must not contain NUL (\\u0000) characters."
            if not item.isascii() and _has_lone_surrogate(item):
                return "Text in the body must not contain half of a UTF-16 surrogate pair."
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def query_int(name: str, default: int, low: int, high: int) -> int:
    """An integer query parameter within [low, high], or 400 invalid_parameter."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, "invalid_parameter", f"{name} must be a whole number.") from None
    if not low <= value <= high:
        raise ApiError(400, "invalid_parameter", f"{name} must be between {low} and {high}.")
    return value


def query_choice(name: str, choices: tuple[str, ...], default: str | None) -> str | None:
    """A query parameter that must be one of `choices`, or 400 invalid_parameter."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    if raw not in choices:
        raise ApiError(400, "invalid_parameter", f"{name} must be one of {', '.join(choices)}.")
    return raw


def page_limit() -> int:
    """The `limit` query parameter: default 50, at most 1,000."""
    return query_int("limit", DEFAULT_LIMIT, 1, MAX_LIMIT)


def encode_cursor(position: dict[str, Any]) -> str:
    """An opaque cursor for a list position."""
    return base64.urlsafe_b64encode(json.dumps(position, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The position in the `cursor` query parameter (None when absent), or 400 invalid_cursor."""
    raw = request.args.get("cursor")
    if raw is None or raw == "":
        return None
    try:
        position = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        raise ApiError(400, "invalid_cursor", "The cursor is not one this API gave out.") from None
    if not isinstance(position, dict) or set(position) != set(keys):
        raise ApiError(400, "invalid_cursor", "The cursor is not one this API gave out.")
    for value in position.values():
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_CURSOR_VALUE:
            raise ApiError(400, "invalid_cursor", "The cursor is not one this API gave out.")
    return position


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, or None."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse_time(name: str, raw: object) -> datetime:
    """An ISO 8601 time with a zone, or 400 invalid_message."""
    if not isinstance(raw, str):
        raise ApiError(400, "invalid_message", f"{name} must be an ISO 8601 time.")
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00") if raw.endswith("Z") else raw)
    except ValueError:
        raise ApiError(400, "invalid_message", f"{name} must be an ISO 8601 time.") from None
    if moment.tzinfo is None:
        raise ApiError(400, "invalid_message", f"{name} must carry a time zone (use ...Z for UTC).")
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-01:00 lies past the last representable UTC moment
        raise ApiError(400, "invalid_message", f"{name} is out of range.") from None
