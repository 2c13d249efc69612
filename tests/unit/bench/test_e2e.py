"""The arithmetic bench/e2e.py judges its targets with: rate, busiest second, the product's processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from bench.e2e import (
    busiest_second,
    busiest_window_start,
    cpu_between,
    longest_gap,
    machine_ticks,
    per_second,
    process_tree,
    rate_over,
    sample_tree,
    stolen_share,
)

SLEEPER = "import time; time.sleep(30)"
# A process that starts a child of its own: the tree must reach the grandchild.
PARENT = f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {SLEEPER!r}]); {SLEEPER}"


def test_rate_is_n_minus_one_over_the_span() -> None:
    assert rate_over([10.0, 10.5, 11.0]) == pytest.approx(2.0)
    assert rate_over([5.0]) is None
    assert rate_over([5.0, 5.0]) is None


def test_the_busiest_second_is_a_sliding_window_not_a_calendar_second() -> None:
    # 600 in the second half of one calendar second and 600 in the first half of the next.
    times = [0.5 + index / 1200 for index in range(600)] + [1.0 + index / 1200 for index in range(600)]
    assert max(Counter(int(moment) for moment in times).values()) == 600
    assert busiest_second(times) == 1200


def test_an_event_exactly_one_second_later_starts_the_next_window() -> None:
    assert busiest_second([0.0, 0.5, 1.0]) == 2
    assert busiest_second([2.0, 0.0, 0.999]) == 2
    assert busiest_second([]) == 0


def test_a_stall_shows_as_a_pause_and_the_busiest_second_starting_at_its_bunch() -> None:
    # Evenly 1/1024 s apart (exact in binary), but 80 of them held back and stamped at once.
    steady = [index / 1024 for index in range(3 * 1024)]
    released = 1 + 80 / 1024
    stamped = [released if 1 <= moment < released else moment for moment in steady]
    assert busiest_second(steady) == 1024
    assert busiest_second(stamped) == 1024 + 80
    assert busiest_window_start(stamped) == released
    assert longest_gap(stamped) == (released - 1023 / 1024, released)
    assert busiest_window_start([]) is None and longest_gap([1.0]) is None


def test_the_stolen_share_is_steal_over_all_time_between_two_samples() -> None:
    assert stolen_share((10_000, 100), (12_000, 400)) == pytest.approx(0.15)
    assert stolen_share((10_000, 100), (10_000, 100)) is None
    assert stolen_share(None, (12_000, 400)) is None
    sample = machine_ticks()
    if sys.platform == "linux":
        assert sample is not None and 0 <= sample[1] <= sample[0]


def test_per_second_counts_from_the_first_event() -> None:
    assert per_second([3.2, 3.9, 4.1, 6.3]) == [3, 0, 0, 1]
    assert per_second([]) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_process_tree_holds_children_of_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", PARENT])
    try:
        deadline = time.monotonic() + 10
        while len(process_tree(child.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        tree = process_tree(child.pid)
        assert tree[0] == child.pid
        assert len(tree) == 2
        assert os.getpid() not in tree
        before = sample_tree(child.pid)
        assert set(before) == set(tree)
        assert all(seconds >= 0 for seconds in cpu_between(before, sample_tree(child.pid)).values())
    finally:
        for pid in reversed(process_tree(child.pid)):
            os.kill(pid, signal.SIGKILL)
        child.wait()
