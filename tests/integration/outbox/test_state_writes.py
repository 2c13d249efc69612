"""Each transition's set-based SQL does on the real database exactly what the pure table says."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update

from backend.database import Database
from backend.domain import states
from backend.domain import transitions as table
from backend.domain.transitions import (
    STATUS_MOVES,
    TRANSITIONS,
    Effect,
    IllegalTransitionError,
    Transition,
    apply,
    holds_reservation,
)
from backend.outbox.state_writes import OUTBOX, ROW_ID, held_by, transition_update, write_applied, write_each
from backend.settings import Settings
from tests.integration.outbox.conftest import START, enqueue_all, number, template_request

FIELDS = sorted({name for transition in TRANSITIONS for name in transition.effects} | {"state", "wamid"})
NOW = START + timedelta(minutes=5, microseconds=123_456)


def _moment(minutes: int) -> Any:
    return START - timedelta(minutes=minutes, microseconds=minutes * 1_001)


# A row with every field NULL that may be, and one with every field set: fills and clears both show.
BARE: dict[str, Any] = {**dict.fromkeys(FIELDS), "attempts": 2, "not_before": START, "updated_at": START}
FILLED: dict[str, Any] = {
    **{name: _moment(index + 1) for index, name in enumerate(FIELDS)},
    "attempts": 2,
    "wamid": "wamid.OLD",
    "claimed_by": "w0",
    "hold_reason": "review",
    "last_error_code": 130429,
    "last_error_title": "old title",
    "last_error_details": "old details",
}
EXAMPLES = {
    "wamid": "wamid.NEW",
    "claimed_by": "w1",
    "last_error_code": 131000,
    "last_error_title": "new title",
    "last_error_details": "new details",
}


def _given(transition: Transition, *, optional: bool) -> dict[str, Any]:
    names = transition.given_fields if optional else transition.required_fields
    return {name: EXAMPLES.get(name, NOW + timedelta(seconds=len(name))) for name in names}


def _one_row(database: Database, settings: Settings) -> int:
    enqueue_all(database, settings, [template_request("k1", number(1))], START)
    with database.reader() as session:
        return int(session.execute(select(OUTBOX.c.id)).scalar_one())


def _set(database: Database, row_id: int, values: Mapping[str, Any]) -> dict[str, Any]:
    with database.transaction() as session:
        session.execute(update(OUTBOX).where(OUTBOX.c.id == row_id).values(dict(values)))
    return _read(database, row_id)


def _read(database: Database, row_id: int) -> dict[str, Any]:
    with database.reader() as session:
        values = session.execute(
            select(*(OUTBOX.c[name] for name in FIELDS)).where(OUTBOX.c.id == row_id)
        ).one()
    return dict(zip(FIELDS, values, strict=True))


def _run(database: Database, row_id: int, transition: Transition, given: dict[str, Any], how: str) -> int:
    with database.transaction() as session:
        if how == "values":
            result = session.execute(transition_update(transition, NOW, given).where(OUTBOX.c.id == row_id))
            return int(result.rowcount)  # type: ignore[attr-defined]
        write_each(session, transition, NOW, [{ROW_ID: row_id, **given}])
        return -1


def test_every_transition_from_every_state_matches_the_table(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    row_id = _one_row(database, settings_for())
    mismatches: list[str] = []
    cases = 0
    for transition in TRANSITIONS:
        has_optional = transition.given_fields != transition.required_fields
        for state in states.ALL_STATES:
            for variant_name, variant in (("bare", BARE), ("filled", FILLED)):
                for how in ("values", "each row"):
                    for optional in (True, False) if has_optional else (True,):
                        given = _given(transition, optional=optional)
                        before = _set(database, row_id, {**variant, "state": state})
                        changed = _run(database, row_id, transition, given, how)
                        after = _read(database, row_id)
                        cases += 1
                        label = (
                            f"{transition.name} from {state} ({variant_name}, {how}, given {sorted(given)})"
                        )
                        if state not in transition.sources:
                            if after != before or changed > 0:
                                mismatches.append(f"{label}: changed a row outside its sources")
                            try:
                                apply(transition, before, NOW, given)
                                mismatches.append(f"{label}: apply accepted a row outside its sources")
                            except IllegalTransitionError:
                                pass
                            continue
                        expected = {**before, **apply(transition, before, NOW, given)}
                        if after != expected:
                            wrong = {
                                name: (after[name], expected[name])
                                for name in FIELDS
                                if after[name] != expected[name]
                            }
                            mismatches.append(f"{label}: (database, table) differ: {wrong}")
    assert mismatches == []
    assert cases > 500


def test_every_effect_kind_is_exercised() -> None:
    used = {effect for transition in TRANSITIONS for effect in transition.effects.values()}
    assert {effect for effect in used if isinstance(effect, Effect)} == set(Effect)


def test_values_a_writer_applied_in_hand_are_written_back_as_they_are(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    row_id = _one_row(database, settings_for())
    for variant in (BARE, FILLED):
        before = _set(database, row_id, {**variant, "state": states.UNKNOWN})
        transition = STATUS_MOVES[states.READ]
        after = {**before, **apply(transition, before, NOW, _given(transition, optional=True))}
        with database.transaction() as session:
            write_applied(session, FIELDS, [{**after, "id": row_id}])
        assert _read(database, row_id) == after


def test_start_and_release_move_a_row_only_for_the_claim_holding_its_reservation(
    database: Database, settings_for: Callable[..., Settings]
) -> None:
    row_id = _one_row(database, settings_for())
    token = "w1/1"
    steps = (
        (table.START, {"lease_expires_at": NOW + timedelta(seconds=30), "claimed_by": token}),
        (table.RELEASE, {"not_before": NOW}),
    )
    moved = 0
    for transition, given in steps:
        for state in states.ALL_STATES:
            for claimed_by in (token, "w2/7", None):
                before = _set(database, row_id, {**BARE, "state": state, "claimed_by": claimed_by})
                with database.transaction() as session:
                    result = session.execute(
                        transition_update(transition, NOW, given).where(OUTBOX.c.id == row_id, held_by(token))
                    )
                changed = int(result.rowcount)  # type: ignore[attr-defined]
                after = _read(database, row_id)
                label = f"{transition.name} from {state} held by {claimed_by}"
                if holds_reservation(state=state, claimed_by=claimed_by, token=token):
                    moved += 1
                    assert (changed, after) == (1, {**before, **apply(transition, before, NOW, given)}), label
                else:
                    assert (changed, after) == (0, before), label
    assert moved == 2
