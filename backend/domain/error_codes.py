"""Graph API error codes as data: what each means and what the outbox does when a send gets it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class MetaAdvice(StrEnum):
    """What Meta's guidance says to do about a code."""

    TRANSIENT = "transient"  # retry the same request with backoff
    WAIT = "wait"  # wait a long time, then retry
    FIX = "fix"  # fix something (token, template, payload, billing), then a new request
    NEVER = "never"  # never retry this request to this user


class Action(StrEnum):
    """What the outbox does with a row whose send was answered with a code."""

    RETRY = "retry"  # Meta did not take the message: queued again with backoff
    RETRY_CUSTOMER = "retry_customer"  # pair limit: only this customer waits
    HOLD_WINDOW = "hold_window"  # the 24 h window is closed: held, a template must go instead
    FAIL = "fail"  # permanent: failed, with code, title and details kept


@dataclass(frozen=True)
class ErrorCode:
    """One row of the error table."""

    code: int
    title: str
    http_status: int | None
    advice: MetaAdvice
    action: Action
    # Some codes ask for a long wait before any retry (spam limits, per-user marketing limits).
    minimum_delay_seconds: float = 0.0


_T, _W, _F, _N = MetaAdvice.TRANSIENT, MetaAdvice.WAIT, MetaAdvice.FIX, MetaAdvice.NEVER
_RETRY, _CUSTOMER, _HOLD, _FAIL = Action.RETRY, Action.RETRY_CUSTOMER, Action.HOLD_WINDOW, Action.FAIL
_HOUR = 3600.0
_DAY = 24 * _HOUR

# Every code of the reference's error table. An error answer means Meta did not take the message,
# so retrying is never a duplicate; codes that need a person (tokens, templates, policy) fail at once
# so a supervisor sees them instead of the queue burning attempts.
ERROR_TABLE: tuple[ErrorCode, ...] = (
    ErrorCode(0, "AuthException", 401, _F, _FAIL),
    ErrorCode(1, "API Unknown", 400, _T, _RETRY),
    ErrorCode(2, "API Service", 503, _T, _RETRY),
    ErrorCode(3, "API Method", 500, _F, _FAIL),
    ErrorCode(4, "API Too Many Calls", 400, _W, _RETRY),
    ErrorCode(10, "Permission Denied", 403, _F, _FAIL),
    ErrorCode(17, "User request limit reached", 429, _W, _RETRY),
    ErrorCode(100, "Invalid parameter", 400, _F, _FAIL),
    ErrorCode(190, "Access token has expired", 401, _F, _FAIL),
    ErrorCode(341, "Application limit reached", 429, _W, _RETRY),
    ErrorCode(368, "Temporarily blocked for policies violations", 403, _N, _FAIL),
    ErrorCode(80007, "Rate limit issues", 400, _W, _RETRY),
    ErrorCode(130429, "Rate limit hit", 400, _T, _RETRY),
    ErrorCode(130472, "User's number is part of an experiment", 400, _N, _FAIL),
    ErrorCode(130497, "Business account is restricted from messaging users in this country", None, _N, _FAIL),
    ErrorCode(131000, "Something went wrong", 500, _T, _RETRY),
    ErrorCode(131005, "Access denied", 403, _F, _FAIL),
    ErrorCode(131008, "Required parameter is missing", 400, _F, _FAIL),
    ErrorCode(131009, "Parameter value is not valid", 400, _F, _FAIL),
    ErrorCode(131016, "Service unavailable", 500, _T, _RETRY),
    ErrorCode(131021, "Recipient cannot be sender", 400, _N, _FAIL),
    ErrorCode(131026, "Message undeliverable", 400, _N, _FAIL),
    ErrorCode(131030, "Recipient phone number not in allowed list", None, _F, _FAIL),
    ErrorCode(131031, "Account has been locked", 403, _N, _FAIL),
    ErrorCode(131037, "Display name not approved", None, _F, _FAIL),
    ErrorCode(131042, "Business eligibility payment issue", 400, _F, _FAIL),
    ErrorCode(131045, "Incorrect certificate", 500, _F, _FAIL),
    ErrorCode(131047, "Re-engagement message", 400, _N, _HOLD),
    ErrorCode(131048, "Spam rate limit hit", 400, _W, _RETRY, minimum_delay_seconds=_HOUR),
    ErrorCode(131049, "Not delivered to maintain healthy ecosystem engagement", None, _W, _RETRY, _DAY),
    ErrorCode(131050, "User stopped marketing messages", None, _N, _FAIL),
    ErrorCode(131051, "Unsupported message type", 400, _N, _FAIL),
    ErrorCode(131052, "Media download error", 400, _N, _FAIL),
    ErrorCode(131053, "Media upload error", 400, _F, _FAIL),
    ErrorCode(131056, "Pair rate limit hit", 400, _T, _CUSTOMER),
    ErrorCode(131057, "Account in maintenance mode", 500, _T, _RETRY),
    ErrorCode(131060, "Message currently unavailable", None, _N, _FAIL),
    ErrorCode(131064, "Messaging limit reached (template classification)", None, _W, _RETRY, _HOUR),
    ErrorCode(132000, "Template param count mismatch", 400, _F, _FAIL),
    ErrorCode(132001, "Template does not exist", 404, _F, _FAIL),
    ErrorCode(132005, "Template hydrated text too long", 400, _F, _FAIL),
    ErrorCode(132007, "Template format character policy violated", 400, _F, _FAIL),
    ErrorCode(132012, "Template parameter format mismatch", 400, _F, _FAIL),
    ErrorCode(132015, "Template is paused", 400, _W, _FAIL),
    ErrorCode(132016, "Template is disabled", 400, _N, _FAIL),
    ErrorCode(133010, "Phone number not registered", 400, _F, _FAIL),
    ErrorCode(133016, "Register/deregister rate limit exceeded", 400, _W, _RETRY, _HOUR),
    ErrorCode(135000, "Generic user error", 400, _F, _FAIL),
)

ERRORS_BY_CODE: dict[int, ErrorCode] = {entry.code: entry for entry in ERROR_TABLE}
RETRYABLE_CODES = frozenset(e.code for e in ERROR_TABLE if e.action in {_RETRY, _CUSTOMER})
PAIR_LIMIT_CODE = 131056
THROUGHPUT_LIMIT_CODE = 130429
WINDOW_CLOSED_CODE = 131047


def lookup(code: int | None) -> ErrorCode | None:
    """The table row of a code, or None for a code we do not know."""
    if code is None:
        return None
    return ERRORS_BY_CODE.get(code)


@dataclass(frozen=True)
class GraphError:
    """The parts of a Graph error answer we keep: code, title and details."""

    code: int | None
    title: str
    details: str


def parse_graph_error(body: Any) -> GraphError | None:
    """The error inside a Graph answer body (`{"error": {...}}`), or None if it has none."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if not isinstance(error, dict):
        return None
    code = error.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        try:
            code = int(str(code))
        except ValueError:
            code = None
    title = error.get("error_user_title") or error.get("title") or error.get("type") or ""
    data = error.get("error_data")
    details = ""
    if isinstance(data, dict) and data.get("details"):
        details = str(data["details"])
    if not details:
        details = str(error.get("message") or error.get("error_user_msg") or "")
    known = lookup(code)
    if known is not None and (not title or title == "OAuthException"):
        title = known.title
    return GraphError(code=code, title=str(title)[:255], details=details)
