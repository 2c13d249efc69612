"""One home for the outbox's states: from which state to which, which fields change, what is journaled.

Every writer of an outbox row's state picks a transition here (through the decision functions at the
bottom) and lets `backend.outbox.state_writes` turn it into SQL, or applies it with `apply` when it
already holds the row's values. Nothing else decides which fields a state change touches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any, Final

from backend.domain import states
from backend.domain.opt_out import OPTED_OUT_DETAILS, OPTED_OUT_TITLE
from backend.domain.outcomes import OutcomeKind
from backend.domain.send_errors import LEASE_EXPIRED_TITLE, RESTORED_FROM_BACKUP_TITLE


class Effect(Enum):
    """What a transition does to one field."""

    CLEAR = "clear"  # NULL
    NOW = "now"  # the writer's now
    FILL_NOW = "fill_now"  # now, only while still NULL: a milestone is filled once
    GIVEN = "given"  # a value the writer passes (wamid, not_before, lease, errors)
    FILL_GIVEN = "fill_given"  # the given value, only while still NULL (wamid from evidence, status times)
    MAYBE = "maybe"  # the given value when the writer has one, else unchanged (a status's errors)
    INCREMENT = "increment"
    DECREMENT = "decrement"


@dataclass(frozen=True)
class Fixed:
    """A constant the table itself names (a hold reason, the lease-expired texts)."""

    value: Any


FieldEffect = Effect | Fixed


class Actor(StrEnum):
    """Who takes a transition."""

    CLAIM = "claim"
    SENDER = "sender"
    SWEEPER = "sweeper"
    RULE = "rule"
    OPT_OUT = "opt_out"
    SUPERVISOR = "supervisor"
    WEBHOOK = "webhook"
    RESTORE = "restore"


ERRORS: Final = ("last_error_code", "last_error_title", "last_error_details")
# Moments that record what happened to the message; once filled they never change.
MILESTONES: Final = ("accepted_at", "sent_at", "delivered_at", "read_at", "failed_at")
# Marks of the row's life cycle, set again on each pass (a new claim, a new stay in `unknown`).
LIFECYCLE_MARKS: Final = ("unknown_since", "last_attempt_at")
LEASE_EXPIRED_DETAILS: Final = "the worker sending this row stopped before recording an answer"
RESTORED_FROM_BACKUP_DETAILS: Final = (
    "queued, sending or unknown when the backup was taken: it may have gone out after that"
)
# Effects whose value the writer passes.
GIVEN_EFFECTS: Final = frozenset({Effect.GIVEN, Effect.FILL_GIVEN, Effect.MAYBE})


@dataclass(frozen=True, eq=False)
class Transition:
    """One allowed state change (or a field-only change when `target` is None); each is one object."""

    name: str
    sources: frozenset[str]
    target: str | None
    effects: Mapping[str, FieldEffect]
    journaled: bool
    actor: Actor
    # What the writer checks besides the source state, for the reader of the table.
    guards: frozenset[str] = frozenset()
    given_fields: frozenset[str] = field(init=False)
    required_fields: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        given = frozenset(name for name, effect in self.effects.items() if effect in GIVEN_EFFECTS)
        required = frozenset(
            name for name, effect in self.effects.items() if effect in (Effect.GIVEN, Effect.FILL_GIVEN)
        )
        object.__setattr__(self, "given_fields", given)
        object.__setattr__(self, "required_fields", required)

    def __repr__(self) -> str:
        return f"Transition({self.name})"


class IllegalTransitionError(Exception):
    """A transition asked of a row in a state it does not start from."""


def _transition(
    name: str,
    sources: frozenset[str] | set[str],
    target: str | None,
    effects: Mapping[str, FieldEffect],
    *,
    actor: Actor,
    guards: frozenset[str] = frozenset(),
) -> Transition:
    every: dict[str, FieldEffect] = {**effects, "updated_at": Effect.NOW}
    return Transition(
        name=name,
        sources=frozenset(sources),
        target=target,
        effects=MappingProxyType(every),
        # Exactly the state changes are journaled; a field-only change is not news for the feed.
        journaled=target is not None,
        actor=actor,
        guards=guards,
    )


def _without(effects: Mapping[str, FieldEffect], name: str) -> dict[str, FieldEffect]:
    return {field_name: effect for field_name, effect in effects.items() if field_name != name}


def _errors(effect: FieldEffect) -> dict[str, FieldEffect]:
    return dict.fromkeys(ERRORS, effect)


# Leaving `sending` or `unknown` for good: no lease, no worker, no stay in `unknown`, no hold mark.
LEAVE: Final[Mapping[str, FieldEffect]] = MappingProxyType(
    {
        "lease_expires_at": Effect.CLEAR,
        "claimed_by": Effect.CLEAR,
        "unknown_since": Effect.CLEAR,
        "hold_reason": Effect.CLEAR,
    }
)

QUEUED, SENDING, UNKNOWN, HELD = states.QUEUED, states.SENDING, states.UNKNOWN, states.HELD
AT_META = states.AT_META_STATES
EVERY_STATE = frozenset(states.ALL_STATES)

# --- claim: the batch's due rows (set-based, one UPDATE each) ---
# A due row pushed later or held is nobody's: a reservation it still names has run out.
DEFER = _transition(
    "defer", {QUEUED}, None, {"not_before": Effect.GIVEN, "claimed_by": Effect.CLEAR}, actor=Actor.CLAIM
)
HOLD_CLOSED_WINDOW = _transition(
    "hold_closed_window",
    {QUEUED},
    HELD,
    {"hold_reason": Fixed(states.HOLD_WINDOW_CLOSED), "claimed_by": Effect.CLEAR},
    actor=Actor.CLAIM,
)
# The claim books a row's send moment and reserves it: the row stays `queued`, names the claim's token,
# and its not_before moves past the reservation, so other claims' due queries skip it until then. No
# call can have left for a reserved row, so a crash leaves it simply due again: never `unknown`.
RESERVE = _transition(
    "reserve",
    {QUEUED},
    None,
    {"claimed_by": Effect.GIVEN, "not_before": Effect.GIVEN, "last_attempt_at": Effect.NOW},
    actor=Actor.CLAIM,
    guards=frozenset({"due"}),
)

# --- sender: a reserved row's call about to leave, or its reservation given up ---
# Only the claim holding the reservation moves the row, so two workers never both start one row.
START = _transition(
    "start",
    {QUEUED},
    SENDING,
    {
        "attempts": Effect.INCREMENT,
        "lease_expires_at": Effect.GIVEN,
        # The claim's token, which the guard already requires the row to name.
        "claimed_by": Effect.GIVEN,
        "last_attempt_at": Effect.NOW,
    },
    actor=Actor.SENDER,
    guards=frozenset({"claim_token"}),
)
# A reservation given up (the sender stops, or its moment slipped by): due again at once.
RELEASE = _transition(
    "release",
    {QUEUED},
    None,
    {"claimed_by": Effect.CLEAR, "not_before": Effect.GIVEN},
    actor=Actor.SENDER,
    guards=frozenset({"claim_token"}),
)

# --- sender: the answer to one call ---
# The sender's own answer keeps `claimed_by` as the record of which worker sent it.
ACCEPTED = _transition(
    "accepted",
    {SENDING, UNKNOWN},
    states.ACCEPTED,
    {"wamid": Effect.GIVEN, "accepted_at": Effect.FILL_NOW, **_without(LEAVE, "claimed_by")},
    actor=Actor.SENDER,
)
WAMID_LEARNED = _transition("wamid_learned", AT_META, None, {"wamid": Effect.FILL_GIVEN}, actor=Actor.SENDER)
RETRY = _transition(
    "retry",
    {SENDING},
    QUEUED,
    {
        "not_before": Effect.GIVEN,
        "lease_expires_at": Effect.CLEAR,
        "claimed_by": Effect.CLEAR,
        **_errors(Effect.GIVEN),
    },
    actor=Actor.SENDER,
    guards=frozenset({"attempts"}),
)
OUTCOME_UNKNOWN = _transition(
    "outcome_unknown",
    {SENDING},
    UNKNOWN,
    {"unknown_since": Effect.NOW, "lease_expires_at": Effect.CLEAR, **_errors(Effect.GIVEN)},
    actor=Actor.SENDER,
    guards=frozenset({"attempts"}),
)
HOLD_WINDOW = _transition(
    "hold_window",
    {SENDING},
    HELD,
    {
        "hold_reason": Fixed(states.HOLD_WINDOW_CLOSED),
        "lease_expires_at": Effect.CLEAR,
        **_errors(Effect.GIVEN),
    },
    actor=Actor.SENDER,
    guards=frozenset({"attempts"}),
)
FAIL = _transition(
    "fail",
    {SENDING},
    states.FAILED,
    {"failed_at": Effect.FILL_NOW, "lease_expires_at": Effect.CLEAR, **_errors(Effect.GIVEN)},
    actor=Actor.SENDER,
    guards=frozenset({"attempts"}),
)
# A started row whose request never left goes back, due at once; that start did not try to send.
GIVE_BACK = _transition(
    "give_back",
    {SENDING},
    QUEUED,
    {
        "attempts": Effect.DECREMENT,
        "lease_expires_at": Effect.CLEAR,
        "claimed_by": Effect.CLEAR,
        # Its not_before still says when its reservation ended.
        "not_before": Effect.NOW,
    },
    actor=Actor.SENDER,
    guards=frozenset({"attempts"}),
)

# --- sweepers and the purpose's rule ---
LEASE_EXPIRED = _transition(
    "lease_expired",
    {SENDING},
    UNKNOWN,
    {
        "unknown_since": Effect.NOW,
        "lease_expires_at": Effect.CLEAR,
        "last_error_code": Effect.CLEAR,
        "last_error_title": Fixed(LEASE_EXPIRED_TITLE),
        "last_error_details": Fixed(LEASE_EXPIRED_DETAILS),
    },
    actor=Actor.SWEEPER,
    guards=frozenset({"lease_expired"}),
)
# A restore brings back rows as they were at the snapshot; any of these may have gone out after it, so
# none is sent again without its purpose's rule or a person deciding.
RESTORED_IN_FLIGHT = _transition(
    "restored_in_flight",
    {QUEUED, SENDING, UNKNOWN},
    UNKNOWN,
    {
        "unknown_since": Effect.NOW,
        "lease_expires_at": Effect.CLEAR,
        "claimed_by": Effect.CLEAR,
        "hold_reason": Effect.CLEAR,
        "last_error_code": Effect.CLEAR,
        "last_error_title": Fixed(RESTORED_FROM_BACKUP_TITLE),
        "last_error_details": Fixed(RESTORED_FROM_BACKUP_DETAILS),
    },
    actor=Actor.RESTORE,
)
EVIDENCE_ACCEPTED = _transition(
    "evidence_accepted",
    {UNKNOWN},
    states.ACCEPTED,
    {"wamid": Effect.FILL_GIVEN, "accepted_at": Effect.FILL_NOW, **LEAVE},
    actor=Actor.RULE,
)
RULE_RESEND = _transition(
    "rule_resend", {UNKNOWN}, QUEUED, {"not_before": Effect.NOW, **LEAVE}, actor=Actor.RULE
)
RULE_REVIEW = _transition(
    "rule_review",
    {UNKNOWN},
    None,
    {"hold_reason": Fixed(states.HOLD_REVIEW)},
    actor=Actor.RULE,
    guards=frozenset({"not_marked"}),
)

# --- a supervisor's decision ---
SUPERVISOR_MARK_SENT = _transition(
    "supervisor_mark_sent",
    {UNKNOWN, SENDING},
    states.SENT,
    {"sent_at": Effect.FILL_NOW, **LEAVE},
    actor=Actor.SUPERVISOR,
    guards=frozenset({"lease_expired"}),
)
SUPERVISOR_RESEND = _transition(
    "supervisor_resend",
    {UNKNOWN, SENDING, HELD},
    QUEUED,
    {"not_before": Effect.NOW, **LEAVE},
    actor=Actor.SUPERVISOR,
    guards=frozenset({"lease_expired"}),
)
SUPERVISOR_CANCEL = _transition(
    "supervisor_cancel",
    {QUEUED, UNKNOWN, SENDING, HELD},
    states.CANCELLED,
    dict(LEAVE),
    actor=Actor.SUPERVISOR,
    guards=frozenset({"lease_expired"}),
)

# --- an opt-out of marketing: a marketing row not yet at Meta is cancelled before any call ---
# A reserved row is `queued` too: its claim's `start` then matches nothing, so no call leaves for it.
OPT_OUT_CANCEL = _transition(
    "opt_out_cancel",
    {QUEUED, HELD},
    states.CANCELLED,
    {
        **LEAVE,
        "last_error_code": Effect.CLEAR,
        "last_error_title": Fixed(OPTED_OUT_TITLE),
        "last_error_details": Fixed(OPTED_OUT_DETAILS),
    },
    actor=Actor.OPT_OUT,
    guards=frozenset({"marketing", "recipient_opted_out"}),
)

# --- status webhooks ---
STATUS_TIMESTAMPS: Final[Mapping[str, str]] = MappingProxyType(
    {
        states.SENT: "sent_at",
        states.DELIVERED: "delivered_at",
        states.READ: "read_at",
        states.FAILED: "failed_at",
    }
)
# A status naming a row by its key (biz_opaque_callback_data) while the row has no wamid yet.
WAMID_BY_KEY = _transition(
    "wamid_by_key",
    {SENDING, UNKNOWN},
    None,
    {"wamid": Effect.FILL_GIVEN},
    actor=Actor.WEBHOOK,
    guards=frozenset({"no_wamid"}),
)


def _status_moves() -> dict[str, Transition]:
    moves = {}
    for status, timestamp in STATUS_TIMESTAMPS.items():
        sources = {state for state in states.ALL_STATES if states.state_after_status(state, status) == status}
        moves[status] = _transition(
            f"status_{status}",
            sources - {status},
            status,
            {timestamp: Effect.FILL_GIVEN, **_errors(Effect.MAYBE), **LEAVE},
            actor=Actor.WEBHOOK,
        )
    return moves


def _status_evidence() -> dict[str, Transition]:
    # A late, repeated or final-row status still records when it happened and what Meta said.
    evidence = {
        status: _transition(
            f"status_{status}_evidence",
            EVERY_STATE,
            None,
            {timestamp: Effect.FILL_GIVEN, **_errors(Effect.MAYBE)},
            actor=Actor.WEBHOOK,
        )
        for status, timestamp in STATUS_TIMESTAMPS.items()
    }
    evidence[""] = _transition("status_errors", EVERY_STATE, None, _errors(Effect.MAYBE), actor=Actor.WEBHOOK)
    return evidence


STATUS_MOVES: Final[Mapping[str, Transition]] = MappingProxyType(_status_moves())
STATUS_EVIDENCE: Final[Mapping[str, Transition]] = MappingProxyType(_status_evidence())

TRANSITIONS: Final[tuple[Transition, ...]] = (
    DEFER,
    HOLD_CLOSED_WINDOW,
    RESERVE,
    START,
    RELEASE,
    ACCEPTED,
    WAMID_LEARNED,
    RETRY,
    OUTCOME_UNKNOWN,
    HOLD_WINDOW,
    FAIL,
    GIVE_BACK,
    LEASE_EXPIRED,
    RESTORED_IN_FLIGHT,
    EVIDENCE_ACCEPTED,
    RULE_RESEND,
    RULE_REVIEW,
    SUPERVISOR_MARK_SENT,
    SUPERVISOR_RESEND,
    SUPERVISOR_CANCEL,
    OPT_OUT_CANCEL,
    WAMID_BY_KEY,
    *STATUS_MOVES.values(),
    *STATUS_EVIDENCE.values(),
)
BY_NAME: Final[Mapping[str, Transition]] = MappingProxyType({t.name: t for t in TRANSITIONS})


# --- the shape each state must have ---


@dataclass(frozen=True)
class Shape:
    """Fields a state requires (not NULL) and forbids (NULL), and the hold reasons it allows."""

    required: frozenset[str]
    forbidden: frozenset[str]
    hold_reasons: frozenset[str | None] = frozenset({None})

    def violations(self, row: Mapping[str, Any]) -> list[str]:
        """What in the row breaks this shape (empty when it holds)."""
        found = [f"{name} is NULL" for name in sorted(self.required) if row.get(name) is None]
        found += [f"{name} is set" for name in sorted(self.forbidden) if row.get(name) is not None]
        if "hold_reason" not in self.forbidden and row.get("hold_reason") not in self.hold_reasons:
            found.append(f"hold_reason is {row.get('hold_reason')!r}")
        return found


_AWAY = frozenset({"lease_expires_at", "unknown_since", "hold_reason"})
_DONE = _AWAY | {"claimed_by"}
STATE_SHAPES: Final[Mapping[str, Shape]] = MappingProxyType(
    {
        # A reserved row names its claim's token; every other mark of a pass is gone.
        QUEUED: Shape(frozenset(), _AWAY),
        SENDING: Shape(
            frozenset({"lease_expires_at", "claimed_by", "last_attempt_at"}),
            frozenset({"unknown_since", "hold_reason"}),
        ),
        UNKNOWN: Shape(
            frozenset({"unknown_since"}),
            frozenset({"lease_expires_at"}),
            frozenset({None, states.HOLD_REVIEW}),
        ),
        HELD: Shape(
            frozenset({"hold_reason"}),
            frozenset({"lease_expires_at", "unknown_since"}),
            frozenset({states.HOLD_WINDOW_CLOSED}),
        ),
        states.ACCEPTED: Shape(frozenset({"wamid", "accepted_at"}), _AWAY),
        states.SENT: Shape(frozenset({"sent_at"}), _DONE),
        states.DELIVERED: Shape(frozenset({"delivered_at"}), _DONE),
        states.READ: Shape(frozenset({"read_at"}), _DONE),
        states.FAILED: Shape(frozenset({"failed_at"}), _AWAY),
        states.CANCELLED: Shape(frozenset(), _AWAY),
    }
)


# --- applying a transition to values in hand ---


def apply(
    transition: Transition, row: Mapping[str, Any], now: datetime, given: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The new values of the fields `transition` touches in `row` (and `state`, when it moves)."""
    if row["state"] not in transition.sources:
        raise IllegalTransitionError(f"{transition.name} does not start from {row['state']}")
    given = given or {}
    _check_given(transition, given)
    values: dict[str, Any] = {}
    for name, effect in transition.effects.items():
        if isinstance(effect, Fixed):
            values[name] = effect.value
        elif effect is Effect.CLEAR:
            values[name] = None
        elif effect is Effect.NOW:
            values[name] = now
        elif effect is Effect.FILL_NOW:
            values[name] = now if row[name] is None else row[name]
        elif effect is Effect.GIVEN:
            values[name] = given[name]
        elif effect is Effect.FILL_GIVEN:
            values[name] = given[name] if row[name] is None else row[name]
        elif effect is Effect.MAYBE:
            if name in given:
                values[name] = given[name]
        elif effect is Effect.INCREMENT:
            values[name] = row[name] + 1
        else:
            values[name] = row[name] - 1
    if transition.target is not None:
        values["state"] = transition.target
    return values


def _check_given(transition: Transition, given: Mapping[str, Any]) -> None:
    missing = transition.required_fields - given.keys()
    unexpected = given.keys() - transition.given_fields
    if missing or unexpected:
        raise ValueError(f"{transition.name}: missing {sorted(missing)}, unexpected {sorted(unexpected)}")


def journal_data(
    transition: Transition, *, key: str, conversation_id: int | None, previous_state: str, wamid: str | None
) -> dict[str, Any] | None:
    """The data of the `message.state_changed` entry this transition makes, or None when it makes none."""
    if not transition.journaled or transition.target == previous_state:
        return None
    return {
        "key": key,
        "conversation_id": conversation_id,
        "state": transition.target,
        "previous_state": previous_state,
        "wamid": wamid,
    }


# --- the decisions writers take; each returns the transition to apply, or None to leave the row be ---


def after_outcome(
    *,
    state: str,
    attempts: int,
    wamid: str | None,
    claimed_attempts: int,
    kind: OutcomeKind,
    max_attempts: int,
) -> Transition | None:
    """The transition one call's answer calls for, given the row as it is now."""
    if kind is OutcomeKind.ACCEPTED:
        # Evidence of acceptance counts even if the lease ran out and the row is `unknown`.
        if state in ACCEPTED.sources:
            return ACCEPTED
        if state in WAMID_LEARNED.sources and wamid is None:
            return WAMID_LEARNED
        return None
    if state != states.SENDING or attempts != claimed_attempts:
        return None  # the row moved on (lease expired, a supervisor, a webhook): leave it be
    if kind in (OutcomeKind.RETRY, OutcomeKind.RETRY_CUSTOMER):
        return FAIL if claimed_attempts >= max_attempts else RETRY
    if kind is OutcomeKind.UNKNOWN:
        return OUTCOME_UNKNOWN
    if kind is OutcomeKind.HOLD_WINDOW:
        return HOLD_WINDOW
    return FAIL


def holds_reservation(*, state: str, claimed_by: str | None, token: str) -> bool:
    """Whether the row is still `queued` under this claim's token: the guard of `start` and `release`.

    Once a reservation runs out another claim may reserve the row under its own token; from then on
    only that claim can start it, and the first claim's start matches nothing.
    """
    return state == QUEUED and claimed_by == token


def after_give_back(*, state: str, attempts: int, claimed_attempts: int) -> Transition | None:
    """Give back a started row whose request never left, if it is still that start's row."""
    if state in GIVE_BACK.sources and attempts == claimed_attempts:
        return GIVE_BACK
    return None


def unknown_decision(
    *, evidence_status: str | None, rule: str, attempts: int, max_attempts: int
) -> Transition:
    """An `unknown` row past its wait: accepted on a status naming it, else its purpose's rule."""
    if evidence_status is not None and evidence_status != states.FAILED:
        return EVIDENCE_ACCEPTED
    if rule == "resend" and attempts < max_attempts:
        return RULE_RESEND
    return RULE_REVIEW


SUPERVISOR_ACTIONS: Final[Mapping[str, Transition]] = MappingProxyType(
    {"mark_sent": SUPERVISOR_MARK_SENT, "resend": SUPERVISOR_RESEND, "cancel": SUPERVISOR_CANCEL}
)


def supervisor_decision(action: str, *, state: str, lease_expired: bool) -> Transition | None:
    """The transition a supervisor's action takes from `state`, or None when it cannot apply.

    A row in `sending` within its lease is in a worker's hands and is never touched.
    """
    transition = SUPERVISOR_ACTIONS.get(action)
    if transition is None or state not in transition.sources:
        return None
    if state == states.SENDING and not lease_expired:
        return None
    return transition


@dataclass(frozen=True)
class Step:
    """A transition with the values its writer passes."""

    transition: Transition
    given: Mapping[str, Any]


def after_status(
    *, state: str, status: str, occurred_at: datetime, errors: tuple[Any, Any, Any] | None
) -> Step | None:
    """What one status webhook does to its row: move it forward (or to `failed`), or record evidence."""
    status = states.normalise_status(status)
    given: dict[str, Any] = {}
    timestamp = STATUS_TIMESTAMPS.get(status)
    if timestamp is not None:
        given[timestamp] = occurred_at
    if errors is not None:
        given.update(zip(ERRORS, errors, strict=True))
    move = STATUS_MOVES.get(status)
    if move is not None and state in move.sources:
        return Step(move, given)
    if not given:
        return None
    return Step(STATUS_EVIDENCE[status if timestamp is not None else ""], given)
