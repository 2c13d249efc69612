"""What the background's idle checks cost while a large backlog waits: media uploader and fetcher.

Run: .venv/bin/python -m bench.idle_workers [--backlog 5000,50000] [--checks 200]

Each worker asks several times a second, in a read-only transaction, whether it has work; with none,
that check is all it does. A fresh SQLite database gets a backlog of queued text messages (no files,
so neither worker has anything to do), and each check is timed there, against the same check on the
empty database (the baseline) in the same run. Printed: milliseconds per check and the share of one
core the check takes at the worker's own polling rate.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from app.composition import build_parts
from backend.database import Database, create_database, upgrade_database
from backend.media import fetcher
from backend.media.fetcher import MediaFetcher
from backend.outbox import media_uploads
from backend.outbox.enqueue import MessageRequest, enqueue_many
from backend.outbox.media_uploads import MediaUploader
from backend.settings import load_settings
from backend.templates import load_templates

BATCH = 1000
# Valid numbers for up to 60,000 customers: 10,000 in each area code's 555 exchange.
AREA_CODES = (650, 415, 212, 310, 617, 202)


def _enqueue_backlog(database: Database, directory: Path, start: int, count: int) -> None:
    settings = load_settings(environ={"INBOX_DATA_DIR": str(directory)})
    now = datetime.now(UTC)
    templates = load_templates()
    for offset in range(start, start + count, BATCH):
        requests = [
            MessageRequest(
                dedupe_key=f"idle-{i}",
                to=f"+1{AREA_CODES[i // 10000]}555{i % 10000:04d}",
                purpose="bench",
                text="Queued.",
            )
            for i in range(offset, min(offset + BATCH, start + count))
        ]
        with database.transaction() as session:
            enqueue_many(session, requests, templates=templates, settings=settings, now=now)


def _milliseconds_per_call(check: Callable[[], object], calls: int) -> float:
    check()  # the first call compiles and caches the statements
    began = time.perf_counter()
    for _ in range(calls):
        check()
    return (time.perf_counter() - began) / calls * 1000


def main() -> None:
    """Print each idle check's cost at each backlog size, next to the empty database's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backlog", default="5000,50000", help="queued rows, comma-separated, growing")
    parser.add_argument("--checks", type=int, default=200)
    args = parser.parse_args()
    sizes = [int(part) for part in args.backlog.split(",") if part.strip()]
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        database = create_database(f"sqlite:///{directory / 'idle.db'}")
        upgrade_database(database)
        parts = build_parts(load_settings(environ={"INBOX_DATA_DIR": str(directory)}), database)
        checks = {
            "media uploader": (MediaUploader(parts)._claim, media_uploads.IDLE_SECONDS),
            "media fetcher": (MediaFetcher(parts)._claim, fetcher.IDLE_SECONDS),
        }
        print(f"bench.idle_workers: SQLite, {args.checks} checks each, nothing to upload or fetch")
        print(f"  {'queued rows':>12}  " + "  ".join(f"{name:>30}" for name in checks))
        queued = 0
        for size in [0, *sizes]:
            _enqueue_backlog(database, directory, queued, size - queued)
            queued = size
            cells = []
            for check, every in checks.values():
                cost = _milliseconds_per_call(check, args.checks)
                cells.append(f"{cost:8.3f} ms, {cost / (every * 1000):6.1%} of a core")
            label = f"{size:,}" + (" (baseline)" if size == 0 else "")
            print(f"  {label:>12}  " + "  ".join(f"{cell:>30}" for cell in cells))
        database.dispose()


if __name__ == "__main__":
    main()
