"""What one send attempt came to, decided from Graph's answer or from how the call failed."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from backend.domain.error_codes import Action, lookup, parse_graph_error
from backend.domain.send_errors import (
    ACCEPTED_WITHOUT_MESSAGE_ID_TITLE,
    NO_ANSWER_AFTER_SEND_TITLE,
    REQUEST_NOT_SENT_TITLE,
)


class OutcomeKind(StrEnum):
    """The classes of outcome; each maps to one state change of the row."""

    ACCEPTED = "accepted"  # 2xx with a wamid
    RETRY = "retry"  # Meta did not take it: queued again with backoff
    RETRY_CUSTOMER = "retry_customer"  # pair limit: this customer waits, others go on
    UNKNOWN = "unknown"  # the request may have reached Meta: never resent automatically
    HOLD_WINDOW = "hold_window"  # 24 h window closed
    FAIL = "fail"  # permanent


@dataclass(frozen=True)
class SendOutcome:
    """The outcome of one attempt, with whatever Meta told us."""

    kind: OutcomeKind
    wamid: str | None = None
    code: int | None = None
    title: str = ""
    details: str = ""
    minimum_delay_seconds: float = 0.0


_ACTION_TO_KIND = {
    Action.RETRY: OutcomeKind.RETRY,
    Action.RETRY_CUSTOMER: OutcomeKind.RETRY_CUSTOMER,
    Action.HOLD_WINDOW: OutcomeKind.HOLD_WINDOW,
    Action.FAIL: OutcomeKind.FAIL,
}


def outcome_of_answer(status_code: int, body: Any) -> SendOutcome:
    """Classify an HTTP answer from the Graph send endpoint."""
    if 200 <= status_code < 300:
        wamid = _wamid_of(body)
        if wamid is None:
            # Success without an id: Meta may have the message, and we cannot follow it.
            return SendOutcome(
                OutcomeKind.UNKNOWN, title=ACCEPTED_WITHOUT_MESSAGE_ID_TITLE, details=str(body)[:500]
            )
        return SendOutcome(OutcomeKind.ACCEPTED, wamid=wamid)
    error = parse_graph_error(body)
    known = lookup(error.code if error else None)
    if error is not None and known is not None:
        return SendOutcome(
            _ACTION_TO_KIND[known.action],
            code=error.code,
            title=error.title or known.title,
            details=error.details,
            minimum_delay_seconds=known.minimum_delay_seconds,
        )
    code = error.code if error else None
    title = (error.title if error else "") or f"HTTP {status_code}"
    details = error.details if error else ""
    if status_code == 429:
        return SendOutcome(OutcomeKind.RETRY, code=code, title=title, details=details)
    if status_code >= 500 or status_code == 408:
        # A server error without a code we know says nothing about whether the message went out.
        return SendOutcome(OutcomeKind.UNKNOWN, code=code, title=title, details=details)
    return SendOutcome(OutcomeKind.FAIL, code=code, title=title, details=details)


def not_sent(reason: str) -> SendOutcome:
    """The request never left (connect error or timeout, no free connection): safe to retry."""
    return SendOutcome(OutcomeKind.RETRY, title=REQUEST_NOT_SENT_TITLE, details=reason)


def unknown(reason: str) -> SendOutcome:
    """The request may have reached Meta but no answer came (read timeout, dropped connection)."""
    return SendOutcome(OutcomeKind.UNKNOWN, title=NO_ANSWER_AFTER_SEND_TITLE, details=reason)


def _wamid_of(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not isinstance(messages[0], dict):
        return None
    wamid = messages[0].get("id")
    return wamid if isinstance(wamid, str) and wamid else None
