"""GET /v1/events while many writers commit at once: a client resuming from its last seq misses nothing."""

from __future__ import annotations

import threading
import time
from collections import defaultdict

import pytest

from backend.journal import JournalSequencer, journal, journal_many
from tests.integration.web.conftest import Api

WRITERS = 8
TRANSACTIONS_EACH = 200


def _write(api: Api, writer: int, failures: list[BaseException]) -> None:
    try:
        for number in range(TRANSACTIONS_EACH):
            with api.database.transaction() as session:
                if number % 3 == 0:  # some transactions journal two entries at once
                    journal_many(
                        session,
                        [("test.burst", {"writer": writer, "n": number}), ("test.burst.more", {})],
                        api.clock.now,
                    )
                else:
                    journal(session, "test.burst", {"writer": writer, "n": number}, api.clock.now)
    except BaseException as error:  # reported by the test, not lost in the thread
        failures.append(error)


@pytest.mark.timeout(120)
def test_a_resuming_long_poll_sees_every_entry_of_a_burst_once_in_seq_order(api: Api) -> None:
    failures: list[BaseException] = []
    writers = [threading.Thread(target=_write, args=(api, writer, failures)) for writer in range(WRITERS)]
    # The background sequencer numbers entries too (PostgreSQL), racing the feed's own numbering.
    stop = threading.Event()
    sequencer = threading.Thread(
        target=JournalSequencer(api.database, interval_seconds=0.005, batch=50).run, args=(stop,)
    )
    sequencer.start()
    for thread in writers:
        thread.start()
    client = api.client()
    expected = WRITERS * TRANSACTIONS_EACH + WRITERS * len(range(0, TRANSACTIONS_EACH, 3))
    seen: list[dict[str, object]] = []
    after = 0
    deadline = time.monotonic() + 90
    try:
        while len(seen) < expected and time.monotonic() < deadline:
            page = client.get(f"/v1/events?after={after}&limit=37&wait=1", headers=api.headers()).get_json()
            seen += page["events"]
            after = page["next"]
    finally:
        for thread in writers:
            thread.join(60)
        stop.set()
        sequencer.join(10)
    assert failures == []
    # Nothing more turns up below or after what the reader saw.
    rest = client.get(f"/v1/events?after={after}", headers=api.headers()).get_json()["events"]
    assert rest == []
    sequence = [int(str(event["seq"])) for event in seen]
    assert sequence == sorted(set(sequence))
    burst = [event["data"] for event in seen if event["type"] == "test.burst"]
    assert len(seen) == expected
    by_writer: defaultdict[int, list[int]] = defaultdict(list)
    for data in burst:
        assert isinstance(data, dict)
        by_writer[data["writer"]].append(data["n"])
    # Every transaction once, and each writer's transactions in the order it committed them.
    assert dict(by_writer) == {writer: list(range(TRANSACTIONS_EACH)) for writer in range(WRITERS)}
