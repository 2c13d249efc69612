"""GET /v1/events: the journal as a long-poll feed; a client resuming from its last seq misses nothing."""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request

from backend.database.models import JournalEntry
from backend.journal import entries_after, sequence_pending
from backend.web.common import iso, page_limit, query_int, require_token
from backend.web.context import web_context
from backend.web.errors import ApiError
from backend.web.long_polls import LongPollSlots

MAX_WAIT_SECONDS = 30
# Workers on other machines (PostgreSQL) cannot wake us, so look at the journal this often too.
DATABASE_POLL_SECONDS = 0.5
# Another sequencer was numbering entries (PostgreSQL): look again this soon, as what it numbers may
# not include the commit that woke us.
SEQUENCER_BUSY_RETRY_SECONDS = 0.02
# A long-poll refused for want of a slot asks its client to come back after this long.
OVER_CAPACITY_RETRY_AFTER_SECONDS = 1

blueprint = Blueprint("events", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


def _entry(entry: JournalEntry) -> dict[str, Any]:
    return {"seq": entry.seq, "type": entry.type, "at": iso(entry.at), "data": entry.data}


@blueprint.get("/events")
def get_events() -> Response:
    """Journal entries after `after`; waits up to `wait` seconds while there are none.

    Past the server's long-poll slots a long-poll does not wait: it answers at once with what the
    journal holds now (an empty page with the same `next` when nothing is new) and Retry-After, so
    waiting desks never take the threads that webhooks and every other request need.
    """
    after = query_int("after", 0, 0, 2**62)
    wait = _wait_seconds()
    limit = page_limit()
    if wait <= 0:
        return jsonify(_page(after, limit, 0.0))
    slots = web_context().long_polls
    if not slots.try_take():
        response = jsonify(_page(after, limit, 0.0))
        response.headers["Retry-After"] = str(OVER_CAPACITY_RETRY_AFTER_SECONDS)
        return response
    try:
        return jsonify(_page(after, limit, wait, slots))
    finally:
        slots.give_back()


def _page(after: int, limit: int, wait: float, slots: LongPollSlots | None = None) -> dict[str, Any]:
    """Entries after `after`, waiting up to `wait` seconds for the first one (less if the server stops)."""
    parts = web_context().parts
    database, signal = parts.database, parts.journal_signal
    deadline = time.monotonic() + wait
    while True:
        generation = signal.generation()
        # Entries committed on PostgreSQL are seen once numbered: number them first (a no-op on SQLite).
        numbered = sequence_pending(database)
        # A short read transaction each time: nothing is held open while we wait.
        with database.reader() as session:
            entries = [_entry(entry) for entry in entries_after(session, after, limit)]
        remaining = deadline - time.monotonic()
        if entries or remaining <= 0 or (slots is not None and slots.closing):
            break
        poll = SEQUENCER_BUSY_RETRY_SECONDS if numbered is None else DATABASE_POLL_SECONDS
        signal.wait(generation, min(remaining, poll))
    next_seq = entries[-1]["seq"] if entries else after
    return {"events": entries, "next": next_seq}


def _wait_seconds() -> float:
    raw = request.args.get("wait")
    if raw is None or raw == "":
        return 0.0
    try:
        wait = float(raw)
    except ValueError:
        raise ApiError(400, "invalid_parameter", "wait must be a number of seconds from 0 to 30.") from None
    if not 0 <= wait <= MAX_WAIT_SECONDS:  # also refuses nan
        raise ApiError(400, "invalid_parameter", "wait must be a number of seconds from 0 to 30.")
    return wait


def register(app: Flask) -> None:
    """Add the event feed."""
    app.register_blueprint(blueprint)
