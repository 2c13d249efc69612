"""Backup bench: how long `inbox db backup` takes on a database of 200,000 messages, and what it costs
the webhook intake meanwhile (p99 with the backup running against p99 without it, in the same run).

    .venv/bin/python -m bench.backup [--messages 200000] [--database-url postgresql+psycopg://...]

The intake is the product's own (its server, signature check, raw body stored) in this process; the
webhooks come from a second process over 16 connections; the backup is `inbox db backup` run as a
person would, in its own process, while the server keeps storing webhooks.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from app.composition import build_parts
from app.http_server import HttpServer
from backend.clock import utc_now
from backend.database import create_database
from backend.operations.archive import take_backup
from backend.settings import Settings
from backend.web import create_app
from bench.chaos import fresh_database_url
from bench.search import fill
from bench.webhooks import APP_SECRET, _load_from_second_process

CONNECTIONS = 16


def _backup_process(settings: Settings, folder: Path) -> subprocess.Popen[str]:
    """`inbox db backup --to FOLDER` against the bench's database, as its own process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INBOX_", "WHATSAPP_"))}
    env.update({"INBOX_DATA_DIR": str(settings.data_dir), "INBOX_DATABASE_URL": settings.database_url})
    return subprocess.Popen(
        [sys.executable, "-m", "app", "db", "backup", "--to", str(folder)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _line(label: str, result: dict[str, Any]) -> str:
    return (
        f"  {label:<34} {result['rate']:7.0f} webhooks/s   median {result['median_ms']:6.2f} ms   "
        f"p99 {result['p99_ms']:7.2f} ms   answers {result['codes']}"
    )


def main() -> None:
    """Fill, time the backup alone, then the intake without and with a backup running."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument(
        "--database-url", help="a PostgreSQL server URL; SQLite in a temporary file if absent"
    )
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="bench-backup-") as folder,
        fresh_database_url(args.database_url, Path(folder)) as url,
    ):
        workdir = Path(folder)
        database = create_database(url)
        started = time.perf_counter()
        fill(database, args.conversations, args.messages, seed=13)
        filled = time.perf_counter() - started
        settings = Settings(
            data_dir=workdir,
            database_url=url,
            whatsapp_app_secret=APP_SECRET,
            whatsapp_verify_token="bench",
        )
        started = time.perf_counter()
        alone = take_backup(settings, database, workdir / "alone", reason="manual", now=utc_now())
        backup_seconds = time.perf_counter() - started

        server = HttpServer(create_app(build_parts(settings, database)), "127.0.0.1", 0).start()
        port = int(server.url.rsplit(":", 1)[1])
        try:
            _load_from_second_process(port, 1_000, CONNECTIONS, "/webhooks/whatsapp")  # warm up
            without = _load_from_second_process(port, 6_000, CONNECTIONS, "/webhooks/whatsapp")
            # Enough webhooks to outlast the backup, which takes longer while the intake competes for CPU.
            requests = max(2_000, int(without["rate"] * (backup_seconds * 2.5 + 2.0)))
            process = _backup_process(settings, workdir / "during")
            process_started = time.perf_counter()
            finished: list[float] = []

            def wait_for_backup() -> None:
                process.wait()
                finished.append(time.perf_counter() - process_started)

            waiter = threading.Thread(target=wait_for_backup)
            waiter.start()
            load_started = time.perf_counter()
            during = _load_from_second_process(port, requests, CONNECTIONS, "/webhooks/whatsapp")
            load_seconds = time.perf_counter() - load_started
            waiter.join()
            output, errors = process.communicate()
            if process.returncode != 0:
                raise SystemExit(f"inbox db backup failed: {errors.strip().splitlines()[-1:]}")
            again = _load_from_second_process(port, 6_000, CONNECTIONS, "/webhooks/whatsapp")
        finally:
            server.stop()
            database.dispose()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"database: {database.dialect}, {args.conversations:,} conversations, {args.messages:,} messages "
        f"(filled in {filled:.1f} s); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
        f"{os.cpu_count()} cores"
    )
    print(
        f"backup alone (in process): {backup_seconds:.2f} s, archive {alone.size_bytes / 1e6:.1f} MB; "
        f"inbox db backup while webhooks arrive: {finished[0]:.2f} s including the command's start "
        f"({output.strip().splitlines()[-1]})"
    )
    overlap = min(load_seconds, finished[0])
    print(
        f"webhook intake over {CONNECTIONS} connections ({load_seconds:.1f} s of load, "
        f"{overlap:.1f} s of it while the backup ran):"
    )
    print(_line("without a backup", without))
    print(_line("while inbox db backup runs", during))
    print(_line("without a backup, again", again))


if __name__ == "__main__":
    main()
