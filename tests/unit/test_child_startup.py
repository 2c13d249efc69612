"""A server child's start-up objects are frozen out of later garbage collections."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from app.processes import freeze_startup_objects


class _Node:
    """An object that can refer to itself, so only the cycle collector frees it."""

    partner: _Node | None = None


@pytest.fixture
def unfrozen_afterwards() -> Iterator[None]:
    """Give the frozen objects back to the collector, so other tests see the usual generations."""
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("unfrozen_afterwards")
def test_start_up_garbage_is_collected_and_the_live_objects_are_left_out_of_later_collections() -> None:
    garbage = _Node()
    garbage.partner = garbage
    freed = weakref.ref(garbage)
    del garbage
    kept = _Node()
    kept.partner = kept

    freeze_startup_objects()

    assert freed() is None, "a cycle left over from start-up must not be frozen for good"
    assert gc.get_freeze_count() > 0
    assert not any(tracked is kept for tracked in gc.get_objects()), "live objects are walked no more"
    gc.collect()
    assert kept.partner is kept
