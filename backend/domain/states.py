"""The states of an outbox row and the forward-only rank of delivery statuses."""

from __future__ import annotations

QUEUED = "queued"
SENDING = "sending"
ACCEPTED = "accepted"
SENT = "sent"
DELIVERED = "delivered"
READ = "read"
UNKNOWN = "unknown"
HELD = "held"
FAILED = "failed"
CANCELLED = "cancelled"

ALL_STATES = (QUEUED, SENDING, ACCEPTED, SENT, DELIVERED, READ, UNKNOWN, HELD, FAILED, CANCELLED)
TERMINAL_STATES = frozenset({FAILED, CANCELLED})
# States in which Meta has (or may have) the message: never send such a row again by itself.
AT_META_STATES = frozenset({ACCEPTED, SENT, DELIVERED, READ})

# Rank of what Meta told us; a status may only move a row to a higher rank. `played` is `read`.
_DELIVERY_RANK = {ACCEPTED: 1, SENT: 2, DELIVERED: 3, READ: 4, "played": 4}

HOLD_WINDOW_CLOSED = "window_closed"
# An `unknown` row its purpose's rule left for a supervisor; the rule does not decide it again.
HOLD_REVIEW = "review"


def delivery_rank(state: str) -> int:
    """The rank of a delivery state (0 for states before Meta accepted the message)."""
    return _DELIVERY_RANK.get(state, 0)


def normalise_status(status: str) -> str:
    """The outbox state a webhook status stands for (`played` counts as `read`)."""
    return READ if status == "played" else status


def state_after_status(current: str, status: str) -> str:
    """The row's state once a status webhook arrives: forward only, `failed` wins, final states stay."""
    status = normalise_status(status)
    if current in TERMINAL_STATES:
        return current
    if status == FAILED:
        return FAILED
    if status not in _DELIVERY_RANK:
        return current
    if delivery_rank(status) > delivery_rank(current):
        return status
    return current
