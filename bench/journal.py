"""Journal benchmark on PostgreSQL: journaling transactions per second from concurrent writers.

Run: `.venv/bin/python -m bench.journal --database-url postgresql+psycopg://postgres@127.0.0.1/bench`
(or INBOX_BENCH_DATABASE_URL; the database is migrated, its journal emptied before and after).
Each writer thread runs the shape of the product's journaling transactions: an update of a row of
its own, one journal entry, commit; a second scenario keeps each transaction open 2 ms after its
entry, as a batch does while it writes the rest of its rows or a slower disk while it commits.
Two writers are measured in the same run, alternating:

* baseline: the writer the journal used to have, reproduced here: it takes one advisory lock before
  its entry and holds it to commit, so seq order equals commit order and every writer queues;
* sequenced: `backend.journal.journal` as it is, entries into `journal_pending` with no lock, while a
  `JournalSequencer` numbers them every second as in the background process.

Both print transactions/s; the sequenced run also checks that every entry was numbered once.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.orm import Session

from backend.database import Database, create_database, upgrade_database
from backend.database.models import Counter, JournalEntry, PendingJournalEntry
from backend.journal import JournalSequencer, journal, sequence_pending

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
# The lock the journal's writers used to share; any constant other than the sequencer's own works.
BASELINE_LOCK_ID = 0x1B0B

Writer = Callable[[Session, int, int], None]


def baseline_writer(session: Session, writer: int, number: int) -> None:
    """The old journal writer: one lock shared by every writer, held to commit, then a numbered entry."""
    session.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": BASELINE_LOCK_ID})
    session.add(JournalEntry(type="bench.write", at=NOW, data={"writer": writer, "n": number}))


def sequenced_writer(session: Session, writer: int, number: int) -> None:
    """The journal's writer as it is: an entry numbered after commit, no lock."""
    journal(session, "bench.write", {"writer": writer, "n": number}, NOW)


def reset(database: Database, writers: int) -> None:
    """Empty the journal and give each writer its own counter row."""
    with database.transaction() as session:
        session.execute(delete(JournalEntry))
        session.execute(delete(PendingJournalEntry))
        session.execute(delete(Counter).where(Counter.name.startswith("bench.writer.")))
        session.add_all(Counter(name=f"bench.writer.{writer}", value=0) for writer in range(writers))


def run(database: Database, write: Writer, writers: int, seconds: float, hold: float) -> tuple[float, int]:
    """Transactions per second over `seconds` from `writers` threads, and how many committed."""
    start_line = threading.Barrier(writers + 1)
    stop = threading.Event()
    counts = [0] * writers
    failures: list[BaseException] = []

    def work(writer: int) -> None:
        name = f"bench.writer.{writer}"
        start_line.wait()
        try:
            while not stop.is_set():
                with database.transaction() as session:
                    session.execute(
                        update(Counter).where(Counter.name == name).values(value=Counter.value + 1)
                    )
                    write(session, writer, counts[writer])
                    if hold:
                        session.flush()
                        time.sleep(hold)
                counts[writer] += 1
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=work, args=(writer,)) for writer in range(writers)]
    for thread in threads:
        thread.start()
    start_line.wait()
    started = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if failures:
        raise failures[0]
    return sum(counts) / elapsed, sum(counts)


def journal_count(database: Database) -> int:
    """Entries readers can see."""
    with database.reader() as session:
        return int(session.scalar(select(func.count()).select_from(JournalEntry)) or 0)


SCENARIOS = (("entry, then commit", 0.0), ("entry, 2 ms more work, then commit", 0.002))
WRITERS = (
    ("baseline", "one lock held to commit (the old writer)", baseline_writer),
    ("sequenced", "numbered after commit, sequencer every 1 s", sequenced_writer),
)


def measure(
    database: Database, write: Writer, writers: int, seconds: float, hold: float, *, sequencer: bool
) -> float:
    """One run of one writer; with `sequencer`, checks that every entry was numbered once."""
    reset(database, writers)
    stop = threading.Event()
    worker = threading.Thread(target=JournalSequencer(database).run, args=(stop,))
    if sequencer:
        worker.start()
    try:
        rate, count = run(database, write, writers, seconds, hold)
    finally:
        stop.set()
        if sequencer:
            worker.join()
    if sequencer:
        while sequence_pending(database, wait=True):
            pass
    if journal_count(database) != count:
        raise RuntimeError(f"{count} entries written, {journal_count(database)} readable")
    return rate


def main(argv: list[str] | None = None) -> int:
    """Measure both writers in each scenario and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=os.environ.get("INBOX_BENCH_DATABASE_URL"))
    arguments = parser.parse_args(argv)
    if not arguments.database_url or not arguments.database_url.startswith("postgresql"):
        parser.error("give a PostgreSQL database: --database-url or INBOX_BENCH_DATABASE_URL")
    database = create_database(arguments.database_url, pool_size=arguments.writers + 2)
    upgrade_database(database)
    figures: dict[tuple[str, str], list[float]] = {
        (scenario, name): [] for scenario, _hold in SCENARIOS for name, _label, _write in WRITERS
    }
    cpu_started = time.process_time()
    try:
        for _round in range(arguments.rounds):
            for scenario, hold in SCENARIOS:
                for name, _label, write in WRITERS:
                    rate = measure(
                        database,
                        write,
                        arguments.writers,
                        arguments.seconds,
                        hold,
                        sequencer=name == "sequenced",
                    )
                    figures[(scenario, name)].append(rate)
    finally:
        reset(database, 0)
        database.dispose()
    cpu = time.process_time() - cpu_started

    print(
        f"Journaling transactions/s, {arguments.writers} concurrent writer threads, PostgreSQL, median of "
        f"{arguments.rounds} runs of {arguments.seconds:g} s; load average {os.getloadavg()[0]:.2f}, "
        f"{os.cpu_count()} CPUs, this process used {cpu:.0f} CPU-s"
    )
    for scenario, _hold in SCENARIOS:
        print(f"  {scenario}:")
        for name, label, _write in WRITERS:
            rates = figures[(scenario, name)]
            runs = ", ".join(f"{rate:.0f}" for rate in rates)
            print(f"    {label:<45} {statistics.median(rates):6.0f} /s   runs: {runs}")
        ratio = statistics.median(figures[(scenario, "sequenced")]) / statistics.median(
            figures[(scenario, "baseline")]
        )
        print(f"    {'ratio sequenced / baseline':<45} {ratio:6.1f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
