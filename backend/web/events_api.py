"""GET /v1/events: the journal as a long-poll feed; a client resuming from its last seq misses nothing."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request
from sqlalchemy import event
from sqlalchemy.orm import Session

from backend.database.models import JournalEntry
from backend.journal import entries_after
from backend.web.common import iso, page_limit, query_int, require_token
from backend.web.errors import ApiError
from backend.web.factory import web_context
from backend.web.long_polls import LongPollSlots

MAX_WAIT_SECONDS = 30
# Other processes (workers on PostgreSQL) cannot wake us, so look at the journal this often too.
DATABASE_POLL_SECONDS = 0.5
# A long-poll refused for want of a slot asks its client to come back after this long.
OVER_CAPACITY_RETRY_AFTER_SECONDS = 1

blueprint = Blueprint("events", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


class JournalSignal:
    """Wakes long-polls in this process when a transaction that wrote the journal commits."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._generation = 0

    def notify(self) -> None:
        """Tell every waiter that something new may be in the journal."""
        with self._condition:
            self._generation += 1
            self._condition.notify_all()

    def generation(self) -> int:
        """A number that changes whenever `notify` runs."""
        with self._condition:
            return self._generation

    def wait(self, since: int, timeout: float) -> None:
        """Wait until notified after generation `since`, or `timeout` seconds."""
        with self._condition:
            self._condition.wait_for(lambda: self._generation != since, timeout=max(timeout, 0.0))


signal = JournalSignal()
_JOURNAL_FLAG = "inbox_journal_written"


def _note_journal_writes(session: Session, _context: Any, _instances: Any) -> None:
    if any(isinstance(instance, JournalEntry) for instance in session.new):
        session.info[_JOURNAL_FLAG] = True


def _wake_after_commit(session: Session) -> None:
    if session.info.pop(_JOURNAL_FLAG, False):
        signal.notify()


def _forget_after_rollback(session: Session) -> None:
    session.info.pop(_JOURNAL_FLAG, None)


def install_listeners() -> None:
    """Hook session events once so commits that journal wake long-polls at once."""
    if not event.contains(Session, "before_flush", _note_journal_writes):
        event.listen(Session, "before_flush", _note_journal_writes)
        event.listen(Session, "after_commit", _wake_after_commit)
        event.listen(Session, "after_rollback", _forget_after_rollback)


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
    database = web_context().database
    deadline = time.monotonic() + wait
    while True:
        generation = signal.generation()
        # A short read transaction each time: nothing is held open while we wait.
        with database.reader() as session:
            entries = [_entry(entry) for entry in entries_after(session, after, limit)]
        remaining = deadline - time.monotonic()
        if entries or remaining <= 0 or (slots is not None and slots.closing):
            break
        signal.wait(generation, min(remaining, DATABASE_POLL_SECONDS))
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
    install_listeners()
    app.register_blueprint(blueprint)
