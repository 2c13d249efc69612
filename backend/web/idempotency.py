"""Idempotency-Key handling for routes: check the header, run once, replay the stored answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Response
from sqlalchemy.orm import Session

from backend.database import Database
from backend.idempotency import (
    MAX_KEY_LENGTH,
    IdempotencyError,
    StoredAnswer,
    begin,
    fingerprint,
    finish,
    release,
)
from backend.web.errors import ApiError

REPLAYED_HEADER = "Idempotent-Replayed"


@dataclass(frozen=True)
class Answer:
    """What a request under a key answers: its status, JSON payload and whether it is a replay."""

    status: int
    payload: dict[str, Any]
    replayed: bool = False


def check_key(raw: str | None) -> str:
    """The Idempotency-Key header value, or 400 idempotency_key_invalid."""
    if raw is None or not raw.strip() or len(raw) > MAX_KEY_LENGTH:
        raise ApiError(
            400,
            "idempotency_key_invalid",
            f"Send an Idempotency-Key header of 1 to {MAX_KEY_LENGTH} characters.",
        )
    return raw


def encode(payload: dict[str, Any]) -> str:
    """The exact JSON text of an answer (stored, and replayed byte for byte)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n"


def json_response(status: int, body: str, *, replayed: bool) -> Response:
    """A JSON response with this exact body."""
    response = Response(body, status=status, mimetype="application/json")
    if replayed:
        response.headers[REPLAYED_HEADER] = "true"
    return response


def run_once(
    database: Database,
    *,
    user_id: int,
    key: str,
    method: str,
    path: str,
    body: Any,
    now: datetime,
    action: Callable[[Session], Answer],
) -> Response:
    """Run `action` once per (user, key): store its answer with its effects, or replay the stored one."""
    print_ = fingerprint(method, path, body)
    try:
        with database.transaction() as session:
            claim = begin(session, user_id=user_id, key=key, method=method, path=path, print_=print_, now=now)
    except IdempotencyError as error:
        raise ApiError(error.status, error.code, error.message) from None
    if isinstance(claim, StoredAnswer):
        return json_response(claim.status, claim.body, replayed=True)
    try:
        with database.transaction() as session:
            answer = action(session)
            text = encode(answer.payload)
            finish(session, claim, answer.status, text)
    except BaseException:
        # A refused or failed request does not burn the key.
        with database.transaction() as session:
            release(session, claim)
        raise
    return json_response(answer.status, text, replayed=answer.replayed)
