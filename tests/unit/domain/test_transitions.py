"""The outbox's transition table: its rows, its decisions, and random histories that keep its invariants."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from backend.domain import states
from backend.domain import transitions as table
from backend.domain.outcomes import OutcomeKind
from backend.domain.transitions import (
    LIFECYCLE_MARKS,
    MILESTONES,
    STATE_SHAPES,
    TRANSITIONS,
    Effect,
    Fixed,
    IllegalTransitionError,
    Transition,
    after_give_back,
    after_outcome,
    after_status,
    apply,
    holds_reservation,
    journal_data,
    supervisor_decision,
    unknown_decision,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
FINAL = states.TERMINAL_STATES
# Every field a transition may touch, as an outbox row holds it.
FIELDS = sorted({name for transition in TRANSITIONS for name in transition.effects} | {"state", "wamid"})


def _row(state: str, **fields: Any) -> dict[str, Any]:
    """A row in `state` with its shape's required fields set and nothing else."""
    row: dict[str, Any] = dict.fromkeys(FIELDS)
    row.update(state=state, attempts=1, not_before=NOW, updated_at=NOW)
    shape = STATE_SHAPES[state]
    for name in shape.required:
        row[name] = {"wamid": "wamid.OLD", "claimed_by": "w0", "attempts": 1}.get(
            name, NOW - timedelta(hours=1)
        )
    allowed = [reason for reason in shape.hold_reasons if reason is not None]
    if "hold_reason" in shape.required:
        row["hold_reason"] = allowed[0]
    row.update(fields)
    return row


def _given(transition: Transition) -> dict[str, Any]:
    """Values a writer might pass for every field the transition takes from its writer."""
    examples = {
        "wamid": "wamid.NEW",
        "claimed_by": "w1",
        "last_error_code": 131000,
        "last_error_title": "title",
        "last_error_details": "details",
    }
    return {name: examples.get(name, NOW + timedelta(seconds=7)) for name in transition.given_fields}


def _states_of(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The row itself and, for `unknown`, its variant marked for review."""
    if row["state"] == states.UNKNOWN:
        return [row, {**row, "hold_reason": states.HOLD_REVIEW}]
    return [row]


# --- the table itself ---


def test_every_transition_names_real_states_and_is_journaled_exactly_when_it_moves() -> None:
    assert len({transition.name for transition in TRANSITIONS}) == len(TRANSITIONS)
    for transition in TRANSITIONS:
        assert transition.sources <= set(states.ALL_STATES), transition
        assert transition.target is None or transition.target in states.ALL_STATES, transition
        assert transition.journaled == (transition.target is not None), transition
        assert transition.effects["updated_at"] is Effect.NOW, transition
        assert "state" not in transition.effects, transition


def test_failed_and_cancelled_are_left_by_no_transition() -> None:
    for transition in TRANSITIONS:
        if transition.sources & FINAL:
            assert transition.target is None, transition
            assert not set(transition.effects) & {"attempts", "not_before", "claimed_by", "lease_expires_at"}


def test_milestones_are_only_ever_filled() -> None:
    for transition in TRANSITIONS:
        for name in MILESTONES:
            assert transition.effects.get(name, Effect.FILL_NOW) in (Effect.FILL_NOW, Effect.FILL_GIVEN), (
                transition,
                name,
            )
    # The marks of a row's life cycle are set again on each pass, and the table says so.
    assert table.RESERVE.effects["last_attempt_at"] is Effect.NOW
    assert table.START.effects["last_attempt_at"] is Effect.NOW
    assert table.OUTCOME_UNKNOWN.effects["unknown_since"] is Effect.NOW
    assert set(LIFECYCLE_MARKS).isdisjoint(MILESTONES)


def test_only_a_start_begins_a_send_and_only_decisions_or_disproof_requeue() -> None:
    assert [t.name for t in TRANSITIONS if t.target == states.SENDING] == ["start"]
    assert {t.name for t in TRANSITIONS if t.target == states.QUEUED} == {
        "retry",  # Meta answered that it did not take the message
        "give_back",  # the request never started
        "rule_resend",
        "supervisor_resend",
    }


@pytest.mark.parametrize("transition", TRANSITIONS, ids=lambda transition: transition.name)
def test_each_transition_takes_each_source_shape_to_its_target_shape(transition: Transition) -> None:
    for source in sorted(transition.sources):
        for row in _states_of(_row(source)):
            if transition is table.RULE_REVIEW and row["hold_reason"] is not None:
                continue  # the rule never decides a row already marked
            after = {**row, **apply(transition, row, NOW, _given(transition))}
            assert after["state"] == (transition.target or source)
            assert STATE_SHAPES[after["state"]].violations(after) == [], (transition, row)
            assert after["updated_at"] == NOW


@pytest.mark.parametrize("transition", TRANSITIONS, ids=lambda transition: transition.name)
def test_a_transition_refuses_a_row_outside_its_sources(transition: Transition) -> None:
    for state in sorted(set(states.ALL_STATES) - transition.sources):
        with pytest.raises(IllegalTransitionError):
            apply(transition, _row(state), NOW, _given(transition))


def test_apply_needs_exactly_the_values_the_table_takes_from_the_writer() -> None:
    with pytest.raises(ValueError, match="missing"):
        apply(table.START, _row(states.QUEUED), NOW, {"claimed_by": "w1"})
    with pytest.raises(ValueError, match="unexpected"):
        apply(table.GIVE_BACK, _row(states.SENDING), NOW, {"wamid": "wamid.X"})


def test_effects_as_applied() -> None:
    row = _row(states.SENDING, attempts=3, lease_expires_at=NOW, accepted_at=NOW - timedelta(days=1))
    accepted = apply(table.ACCEPTED, row, NOW + timedelta(seconds=1), {"wamid": "wamid.A"})
    assert accepted["accepted_at"] == NOW - timedelta(days=1)  # filled once, never overwritten
    assert accepted["lease_expires_at"] is None
    assert "claimed_by" not in accepted  # the sender's own answer keeps which worker sent it
    assert apply(table.GIVE_BACK, row, NOW)["attempts"] == 2
    assert apply(table.START, _row(states.QUEUED, attempts=3), NOW, _given(table.START))["attempts"] == 4
    expired = apply(table.LEASE_EXPIRED, row, NOW)
    assert (expired["last_error_code"], expired["last_error_title"]) == (None, "lease expired")
    evidence = apply(
        table.STATUS_EVIDENCE[states.SENT], _row(states.READ, sent_at=None), NOW, {"sent_at": NOW}
    )
    assert "last_error_code" not in evidence  # a status without errors leaves the last error alone
    assert isinstance(table.HOLD_WINDOW.effects["hold_reason"], Fixed)


def test_a_reservation_keeps_the_row_queued_and_unjournaled_until_it_starts() -> None:
    reserved_until = NOW + timedelta(seconds=3)
    queued = _row(states.QUEUED, attempts=1)
    reserved = {
        **queued,
        **apply(table.RESERVE, queued, NOW, {"claimed_by": "w1/1", "not_before": reserved_until}),
    }
    # Still `queued`, so nothing for the feed; due again only once the reservation ends.
    assert (reserved["state"], reserved["claimed_by"], reserved["not_before"]) == (
        "queued",
        "w1/1",
        reserved_until,
    )
    assert (reserved["attempts"], reserved["last_attempt_at"]) == (1, NOW)
    assert not table.RESERVE.journaled and not table.RELEASE.journaled
    assert STATE_SHAPES[states.QUEUED].violations(reserved) == []
    started = {**reserved, **apply(table.START, reserved, NOW, _given(table.START) | {"claimed_by": "w1/1"})}
    assert (started["state"], started["attempts"], started["claimed_by"]) == ("sending", 2, "w1/1")
    assert table.START.journaled
    # A started row whose request never left is due again at once, not when its reservation would end.
    later = NOW + timedelta(seconds=1)
    given_back = apply(table.GIVE_BACK, started, later)
    assert (given_back["state"], given_back["attempts"], given_back["not_before"]) == ("queued", 1, later)
    released = apply(table.RELEASE, reserved, NOW, {"not_before": NOW})
    assert (released["claimed_by"], released["not_before"], "attempts" in released) == (None, NOW, False)


@pytest.mark.parametrize(
    ("state", "claimed_by", "expected"),
    [
        ("queued", "w1/1", True),
        ("queued", "w2/7", False),  # another claim reserved it after this reservation ran out
        ("queued", None, False),  # released, or given back and due again
        ("sending", "w1/1", False),  # already started: a second start would be a second send
        ("cancelled", None, False),
    ],
)
def test_only_the_claim_holding_a_reservation_starts_or_releases_it(
    state: str, claimed_by: str | None, expected: bool
) -> None:
    assert holds_reservation(state=state, claimed_by=claimed_by, token="w1/1") is expected


def test_journal_data_names_the_previous_state_and_only_for_a_change() -> None:
    data = journal_data(table.RETRY, key="k", conversation_id=4, previous_state="sending", wamid=None)
    assert data == {
        "key": "k",
        "conversation_id": 4,
        "state": "queued",
        "previous_state": "sending",
        "wamid": None,
    }
    assert journal_data(table.DEFER, key="k", conversation_id=4, previous_state="queued", wamid=None) is None


# --- the decisions ---

K = OutcomeKind


@pytest.mark.parametrize(
    ("state", "attempts", "wamid", "kind", "expected"),
    [
        ("sending", 2, None, K.ACCEPTED, "accepted"),
        ("unknown", 5, None, K.ACCEPTED, "accepted"),  # evidence counts after the lease ran out
        ("sent", 2, None, K.ACCEPTED, "wamid_learned"),  # a status by key got there first
        ("sent", 2, "wamid.S", K.ACCEPTED, None),
        ("cancelled", 2, None, K.ACCEPTED, None),
        ("sending", 2, None, K.RETRY, "retry"),
        ("sending", 2, None, K.RETRY_CUSTOMER, "retry"),
        ("sending", 2, None, K.UNKNOWN, "outcome_unknown"),
        ("sending", 2, None, K.HOLD_WINDOW, "hold_window"),
        ("sending", 2, None, K.FAIL, "fail"),
        ("sending", 3, None, K.RETRY, None),  # another claim's row now
        ("unknown", 2, None, K.RETRY, None),  # the lease ran out first
        ("queued", 2, None, K.FAIL, None),
    ],
)
def test_after_outcome(
    state: str, attempts: int, wamid: str | None, kind: OutcomeKind, expected: str | None
) -> None:
    transition = after_outcome(
        state=state, attempts=attempts, wamid=wamid, claimed_attempts=2, kind=kind, max_attempts=10
    )
    assert (transition.name if transition else None) == expected


def test_a_retry_at_the_attempt_limit_fails() -> None:
    for kind in (K.RETRY, K.RETRY_CUSTOMER):
        transition = after_outcome(
            state="sending", attempts=3, wamid=None, claimed_attempts=3, kind=kind, max_attempts=3
        )
        assert transition is table.FAIL


def test_give_back_only_the_claims_own_row() -> None:
    assert after_give_back(state="sending", attempts=2, claimed_attempts=2) is table.GIVE_BACK
    assert after_give_back(state="sending", attempts=3, claimed_attempts=2) is None
    assert after_give_back(state="unknown", attempts=2, claimed_attempts=2) is None


@pytest.mark.parametrize(
    ("evidence", "rule", "attempts", "expected"),
    [
        ("delivered", "review", 1, "evidence_accepted"),
        ("failed", "resend", 1, "rule_resend"),  # a failed status is no evidence the customer got it
        (None, "resend", 1, "rule_resend"),
        (None, "resend", 3, "rule_review"),
        (None, "review", 1, "rule_review"),
    ],
)
def test_unknown_decision(evidence: str | None, rule: str, attempts: int, expected: str) -> None:
    decided = unknown_decision(evidence_status=evidence, rule=rule, attempts=attempts, max_attempts=3)
    assert decided.name == expected


SUPERVISOR_TABLE = {
    # state: (mark_sent, resend, cancel) targets, None where refused
    "queued": (None, None, "cancelled"),
    "sending_expired": ("sent", "queued", "cancelled"),
    "sending": (None, None, None),
    "unknown": ("sent", "queued", "cancelled"),
    "held": (None, "queued", "cancelled"),
    "accepted": (None, None, None),
    "sent": (None, None, None),
    "delivered": (None, None, None),
    "read": (None, None, None),
    "failed": (None, None, None),
    "cancelled": (None, None, None),
}


@pytest.mark.parametrize(("situation", "expected"), sorted(SUPERVISOR_TABLE.items()))
def test_supervisor_decision(situation: str, expected: tuple[str | None, ...]) -> None:
    state = "sending" if situation.startswith("sending") else situation
    for action, target in zip(("mark_sent", "resend", "cancel"), expected, strict=True):
        transition = supervisor_decision(action, state=state, lease_expired=situation == "sending_expired")
        assert (transition.target if transition else None) == target, action
    assert supervisor_decision("archive", state="unknown", lease_expired=False) is None


@pytest.mark.parametrize(
    ("state", "status", "expected"),
    [
        ("accepted", "sent", "status_sent"),
        ("unknown", "delivered", "status_delivered"),
        ("sending", "read", "status_read"),
        ("delivered", "played", "status_read"),
        ("read", "delivered", "status_delivered_evidence"),  # late: its time is kept, the state stays
        ("read", "failed", "status_failed"),  # failed wins over delivery
        ("cancelled", "failed", "status_failed_evidence"),  # but never over a final state
        ("failed", "read", "status_read_evidence"),
        ("accepted", "deleted", None),
    ],
)
def test_after_status(state: str, status: str, expected: str | None) -> None:
    step = after_status(state=state, status=status, occurred_at=NOW, errors=None)
    assert (step.transition.name if step else None) == expected


def test_a_status_with_errors_records_them_even_when_nothing_else_changes() -> None:
    step = after_status(state="accepted", status="deleted", occurred_at=NOW, errors=(131000, "t", "d"))
    assert step is not None
    assert step.transition.name == "status_errors"
    assert dict(step.given) == {"last_error_code": 131000, "last_error_title": "t", "last_error_details": "d"}


# --- random histories ---

# Rows never meet except through wamids (unique per call), so one row is worked on at a time and the
# next one comes once it has settled: each history goes deep instead of being spread thin.
SETTLED = states.AT_META_STATES | states.TERMINAL_STATES
MAX_ROWS = 6
WORKERS = ("w1", "w2")
LEASE = timedelta(seconds=30)
RESERVATION = timedelta(seconds=3)
UNKNOWN_WAIT = timedelta(seconds=60)
MAX_ATTEMPTS = 3
STATUSES = ("sent", "delivered", "read", "played", "failed", "deleted")
# The journal entry names the row's wamid after the change (the default) or what the writer passes.
ROW_WAMID = object()


@dataclass
class Call:
    """One request to Meta for a key, as the model knows its truth."""

    key: str
    worker: str
    attempts: int
    wamid: str
    answered: bool = False
    # True until something proves Meta never took it (a refusal, or the request never left).
    maybe_at_meta: bool = True
    # Meta has it and may send statuses about it.
    at_meta: bool = False
    # A resend decision came after this call, so a new call is the decision's, not a blind resend.
    superseded: bool = False


class OutboxHistory(RuleBasedStateMachine):
    """Outcomes, sweeps, rule and supervisor decisions and status webhooks, through the writers' decisions."""

    def __init__(self) -> None:
        super().__init__()
        self.now = NOW
        self.rows: dict[str, dict[str, Any]] = {}
        self.calls: list[Call] = []
        self.evidence: dict[str, list[tuple[str, str]]] = {}
        self.key = ""
        self.journal: list[dict[str, Any]] = []
        self.changes: list[tuple[str, str, str]] = []
        # What each worker's claims believe they hold: key → (claim token, the row's pass when reserved).
        # A belief may be stale.
        self.reservations: dict[str, dict[str, tuple[str, int]]] = {worker: {} for worker in WORKERS}
        self.claims = 0
        # Per key: the newest reservation, and how often the row was queued again or released (a new
        # pass, with a new not_before that a reservation from an older pass knows nothing of).
        self.newest_reservation: dict[str, str] = {}
        self.passes: dict[str, int] = {}
        self.enqueue()

    # The writer's side: apply one decided transition and check what must hold of every change.
    def write(
        self,
        key: str,
        transition: Transition | None,
        given: dict[str, Any] | None = None,
        wamid: object = ROW_WAMID,
    ) -> None:
        if transition is None:
            return
        row = self.rows[key]
        if row["state"] not in transition.sources:
            return  # the writer's `state IN (sources)` guard matches nothing
        before = dict(row)
        row.update(apply(transition, row, self.now, given))
        if before["state"] in FINAL:
            assert row["state"] == before["state"], f"{transition.name} left final {before['state']}"
        for name in MILESTONES:
            if before[name] is not None:
                assert row[name] == before[name], f"{transition.name} refilled {name}"
        data = journal_data(
            transition,
            key=key,
            conversation_id=None,
            previous_state=before["state"],
            wamid=row["wamid"] if wamid is ROW_WAMID else wamid,  # type: ignore[arg-type]
        )
        if data is not None:
            self.journal.append(data)
        if row["state"] != before["state"]:
            self.changes.append((key, before["state"], row["state"]))
        if transition.target == states.QUEUED or transition is table.RELEASE:
            self.passes[key] = self.passes.get(key, 0) + 1

    def open_calls(self) -> list[Call]:
        return [call for call in self.calls if not call.answered]

    def calls_at_meta(self) -> list[Call]:
        return [call for call in self.calls if call.at_meta]

    def enqueue(self) -> None:
        self.key = f"k{len(self.rows)}"
        self.rows[self.key] = {
            **dict.fromkeys(FIELDS),
            "state": "queued",
            "attempts": 0,
            "not_before": self.now,
        }
        self.rows[self.key]["updated_at"] = self.now
        self.evidence[self.key] = []

    @precondition(lambda self: self.rows[self.key]["state"] in SETTLED and len(self.rows) < MAX_ROWS)
    @rule()
    def next_message(self) -> None:
        self.enqueue()

    def reservable(self) -> bool:
        # The claim's query: a queued row, unreserved (due once its not_before comes) or whose
        # reservation ran out.
        row = self.rows[self.key]
        return row["state"] in table.RESERVE.sources and (
            row["claimed_by"] is None or row["not_before"] <= self.now
        )

    @precondition(lambda self: self.reservable())
    @rule(worker=st.sampled_from(WORKERS))
    def reserve(self, worker: str) -> None:
        key = self.key
        row = self.rows[key]
        if not self.reservable():
            return  # the claim's query does not pick it (pinned histories skip preconditions)
        if row["claimed_by"] is None:
            self.now = max(self.now, row["not_before"])  # a claim comes once the row is due
        self.claims += 1
        token = f"{worker}/{self.claims}"
        self.write(key, table.RESERVE, {"claimed_by": token, "not_before": self.now + RESERVATION})
        self.reservations[worker][key] = (token, self.passes.get(key, 0))
        self.newest_reservation[key] = token

    def held(self, worker: str, pick: int) -> tuple[str, str, int] | None:
        held = self.reservations[worker]
        if not held:
            return None
        key = sorted(held)[pick % len(held)]
        token, reserved_in = held.pop(key)
        return key, token, reserved_in

    @precondition(lambda self: any(self.reservations.values()))
    @rule(worker=st.sampled_from(WORKERS), pick=st.integers(0, 99))
    def start(self, worker: str, pick: int) -> None:
        held = self.held(worker, pick)
        if held is None:
            return
        key, token, reserved_in = held
        row = self.rows[key]
        if not holds_reservation(state=row["state"], claimed_by=row["claimed_by"], token=token):
            return  # the start's guard matches nothing: the row is not this claim's any more
        # Only the newest reservation of the row's current pass starts it, at the moment it booked:
        # never a claim whose reservation ran out and was taken, nor one from before a retry's backoff.
        assert token == self.newest_reservation[key], f"{token} started {key}, reserved since by another"
        assert reserved_in == self.passes.get(key, 0), f"{token} started {key} from an earlier pass"
        blind = [c for c in self.calls if c.key == key and c.maybe_at_meta and not c.superseded]
        assert not blind, f"a second send of {key} while an earlier call may be at Meta"
        self.write(key, table.START, {"lease_expires_at": self.now + LEASE, "claimed_by": token}, None)
        self.calls.append(Call(key, worker, row["attempts"], wamid=f"wamid.{len(self.calls)}"))

    @precondition(lambda self: any(self.reservations.values()))
    @rule(worker=st.sampled_from(WORKERS), pick=st.integers(0, 99))
    def release(self, worker: str, pick: int) -> None:
        # The sender stops, or the row's moment slipped by before it started.
        held = self.held(worker, pick)
        if held is None:
            return
        key, token, _reserved_in = held
        row = self.rows[key]
        if holds_reservation(state=row["state"], claimed_by=row["claimed_by"], token=token):
            self.write(key, table.RELEASE, {"not_before": self.now})

    @rule()
    def reservations_run_out(self) -> None:
        # A claim that stalled: its reservations end and another claim may reserve the rows.
        self.now += RESERVATION + timedelta(seconds=1)

    def claim(self, worker: str) -> None:
        """Reserve the row in work and start it at once: a claim whose first moment is now."""
        self.reserve(worker)
        self.start(worker, 0)

    def pick_call(self, pick: int) -> Call:
        # Half the time the oldest open call: late answers of earlier calls are where the danger is.
        calls = self.open_calls()
        return calls[0] if pick < 50 else calls[pick % len(calls)]

    @precondition(lambda self: self.open_calls())
    @rule(pick=st.integers(0, 99), kind=st.sampled_from(OutcomeKind), reached=st.booleans())
    def answer(self, pick: int, kind: OutcomeKind, reached: bool) -> None:
        call = self.pick_call(pick)
        call.answered = True
        if kind in (K.RETRY, K.RETRY_CUSTOMER, K.HOLD_WINDOW, K.FAIL):
            call.maybe_at_meta = False  # Meta refused it
        else:
            call.at_meta = kind is K.ACCEPTED or reached
        row = self.rows[call.key]
        transition = after_outcome(
            state=row["state"],
            attempts=row["attempts"],
            wamid=row["wamid"],
            claimed_attempts=call.attempts,
            kind=kind,
            max_attempts=MAX_ATTEMPTS,
        )
        if transition in (table.ACCEPTED, table.WAMID_LEARNED):
            journaled = call.wamid if transition is table.ACCEPTED else None
            self.write(call.key, transition, {"wamid": call.wamid}, journaled)
            return
        given: dict[str, Any] = {
            "last_error_code": 1,
            "last_error_title": kind.value,
            "last_error_details": None,
        }
        if transition is table.RETRY:
            given["not_before"] = self.now + timedelta(seconds=5)
        self.write(call.key, transition, given if transition else None, None)

    @precondition(lambda self: self.open_calls())
    @rule(pick=st.integers(0, 99), ending=st.sampled_from(("never_left", "lost", "lost_after_meta_took_it")))
    def call_ends_without_answer(self, pick: int, ending: str) -> None:
        call = self.pick_call(pick)
        call.answered = True
        if ending == "never_left":
            # The sender gives back a claimed row whose request never started.
            call.maybe_at_meta = False
            row = self.rows[call.key]
            transition = after_give_back(
                state=row["state"], attempts=row["attempts"], claimed_attempts=call.attempts
            )
            self.write(call.key, transition, None, None)
        else:
            # The worker died: no answer will ever come, and Meta may or may not have the message.
            call.at_meta = ending == "lost_after_meta_took_it"

    @rule()
    def leases_run_out(self) -> None:
        # Nothing else moves the clock, so the only time that matters is a lease's length.
        self.now += LEASE + timedelta(seconds=1)
        for key, row in self.rows.items():
            if row["state"] == states.SENDING and row["lease_expires_at"] < self.now:
                self.write(key, table.LEASE_EXPIRED)

    @precondition(
        lambda self: (
            self.rows[self.key]["state"] == states.UNKNOWN and self.rows[self.key]["hold_reason"] is None
        )
    )
    @rule(purpose_rule=st.sampled_from(("resend", "review")))
    def unknown_rule_decides(self, purpose_rule: str) -> None:
        key = self.key
        row = self.rows[key]
        if row["state"] != states.UNKNOWN or row["hold_reason"] is not None:
            return  # the sweeper's query does not pick it
        self.now = max(self.now, row["unknown_since"] + UNKNOWN_WAIT)  # the sweeper's query picks it then
        evidence = self.evidence[key][0] if self.evidence[key] else None
        transition = unknown_decision(
            evidence_status=evidence[1] if evidence else None,
            rule=purpose_rule,
            attempts=row["attempts"],
            max_attempts=MAX_ATTEMPTS,
        )
        if transition is table.RULE_RESEND:
            self.supersede(key)
        self.write(
            key,
            transition,
            {"wamid": evidence[0]} if transition is table.EVIDENCE_ACCEPTED and evidence else None,
        )

    @rule(pick=st.integers(0, 99), action=st.sampled_from(("mark_sent", "resend", "cancel")))
    def supervisor_decides(self, pick: int, action: str) -> None:
        # Mostly the row in work; sometimes an older one, settled or not.
        keys = sorted(self.rows)
        key = self.key if pick < 80 else keys[pick % len(keys)]
        row = self.rows[key]
        lease = row["lease_expires_at"]
        transition = supervisor_decision(
            action, state=row["state"], lease_expired=lease is not None and lease < self.now
        )
        if transition is table.SUPERVISOR_RESEND:
            self.supersede(key)
        self.write(key, transition)

    @precondition(lambda self: self.calls_at_meta())
    @rule(
        pick=st.integers(0, 99),
        status=st.sampled_from(STATUSES),
        with_key=st.booleans(),
        errors=st.booleans(),
        late=st.integers(0, 120),
    )
    def status_webhook(self, pick: int, status: str, with_key: bool, errors: bool, late: int) -> None:
        calls = self.calls_at_meta()
        call = calls[pick % len(calls)]
        matched = [key for key, row in self.rows.items() if row["wamid"] == call.wamid]
        key = matched[0] if matched else None
        if key is None and with_key:
            row = self.rows[call.key]
            if row["wamid"] is None and row["state"] in table.WAMID_BY_KEY.sources:
                self.write(call.key, table.WAMID_BY_KEY, {"wamid": call.wamid})
                key = call.key
        if with_key or key is not None:
            self.evidence[call.key].append((call.wamid, status))
        if key is None:
            return
        step = after_status(
            state=self.rows[key]["state"],
            status=status,
            occurred_at=self.now - timedelta(seconds=late),  # out of order: an older moment may come later
            errors=(131000, "t", "d") if errors else None,
        )
        if step is not None:
            self.write(key, step.transition, dict(step.given))

    def meta_took_the_last_call(self) -> None:
        # Meta has the open call and says so before the worker hears back.
        self.calls[-1].at_meta = True

    def supersede(self, key: str) -> None:
        for call in self.calls:
            if call.key == key:
                call.superseded = True

    @invariant()
    def every_row_has_its_states_shape(self) -> None:
        for key, row in self.rows.items():
            assert STATE_SHAPES[row["state"]].violations(row) == [], (key, row)

    @invariant()
    def a_row_in_sending_names_the_claim_that_started_it(self) -> None:
        for key, row in self.rows.items():
            if row["state"] == states.SENDING:
                last = [call for call in self.calls if call.key == key][-1]
                assert row["claimed_by"].startswith(last.worker + "/"), (key, row["claimed_by"], last)

    @invariant()
    def one_journal_entry_per_state_change(self) -> None:
        assert [
            (entry["key"], entry["previous_state"], entry["state"]) for entry in self.journal
        ] == self.changes


OutboxHistory.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestOutboxHistory = OutboxHistory.TestCase


# Interleavings a random search takes long to reach, pinned: each is a list of the machine's own steps.
PINNED = {
    "a late retry of a call a resend replaced": [
        ("claim", "w1"),
        ("leases_run_out",),
        ("supervisor_decides", 0, "resend"),
        ("claim", "w2"),
        ("answer", 0, K.RETRY, False),
        ("claim", "w1"),
    ],
    "a stale give-back after the rule resent": [
        ("claim", "w1"),
        ("leases_run_out",),
        ("unknown_rule_decides", "resend"),
        ("claim", "w2"),
        ("call_ends_without_answer", 0, "never_left"),
        ("claim", "w1"),
    ],
    "a late acceptance while the resend is at Meta": [
        ("claim", "w1"),
        ("leases_run_out",),
        ("supervisor_decides", 0, "resend"),
        ("claim", "w2"),
        ("answer", 0, K.ACCEPTED, True),
        ("answer", 0, K.ACCEPTED, True),
        ("status_webhook", 0, "read", True, False, 0),
    ],
    "a failed status for a cancelled row": [
        ("claim", "w1"),
        ("call_ends_without_answer", 0, "lost_after_meta_took_it"),
        ("leases_run_out",),
        ("supervisor_decides", 0, "cancel"),
        ("status_webhook", 0, "failed", True, True, 0),
    ],
    "two workers race for a reserved row after its reservation ran out": [
        ("reserve", "w1"),
        ("reservations_run_out",),
        ("reserve", "w2"),
        ("start", "w1", 0),
        ("start", "w2", 0),
    ],
    "the first claim starts late but before another claim reserved the row": [
        ("reserve", "w1"),
        ("reservations_run_out",),
        ("start", "w1", 0),
        ("reserve", "w2"),
        ("start", "w2", 0),
    ],
    "a stale release after another claim took the row": [
        ("reserve", "w1"),
        ("reservations_run_out",),
        ("reserve", "w2"),
        ("release", "w1", 0),
        ("start", "w2", 0),
        ("answer", 0, K.RETRY, False),
        ("claim", "w1"),
    ],
    "a stopped claim releases the row and another claim sends it": [
        ("reserve", "w1"),
        ("release", "w1", 0),
        ("reserve", "w2"),
        ("start", "w1", 0),
        ("start", "w2", 0),
    ],
    "a cancelled reservation never starts": [
        ("reserve", "w1"),
        ("supervisor_decides", 0, "cancel"),
        ("start", "w1", 0),
    ],
    "a status by key after the lease ran out, then the late answer": [
        ("claim", "w1"),
        ("leases_run_out",),
        ("meta_took_the_last_call",),
        ("status_webhook", 0, "delivered", True, False, 0),
        ("answer", 0, K.UNKNOWN, True),
    ],
}


@pytest.mark.parametrize("steps", PINNED.values(), ids=list(PINNED))
def test_pinned_histories_keep_the_invariants(steps: list[tuple[Any, ...]]) -> None:
    machine = OutboxHistory()
    for name, *arguments in steps:
        getattr(machine, name)(*arguments)
        machine.every_row_has_its_states_shape()
        machine.one_journal_entry_per_state_change()
    machine.teardown()


def test_of_two_workers_racing_for_an_expired_reservation_only_the_newer_claim_starts_the_row() -> None:
    machine = OutboxHistory()
    machine.reserve("w1")
    machine.reservations_run_out()
    machine.reserve("w2")
    machine.start("w1", 0)
    machine.start("w2", 0)
    assert [call.worker for call in machine.calls] == ["w2"]
    assert (machine.rows["k0"]["state"], machine.rows["k0"]["claimed_by"]) == ("sending", "w2/2")
    assert [entry["state"] for entry in machine.journal] == ["sending"]


def test_a_late_start_before_anyone_else_reserved_the_row_is_the_only_send() -> None:
    machine = OutboxHistory()
    machine.reserve("w1")
    machine.reservations_run_out()
    machine.start("w1", 0)
    machine.reserve("w2")  # the row is `sending`: no claim's query picks it
    machine.start("w2", 0)
    assert [call.worker for call in machine.calls] == ["w1"]
    assert machine.reservations == {"w1": {}, "w2": {}}
