"""Webhook ingest while the media fetcher downloads 200 images at the same time, against ingest alone.

Run: .venv/bin/python -m bench.media [--requests N] [--images N] [--image-kb KB] [--rounds R]

The sandbox (standing in for Meta's media servers) runs in its own process and the webhook load comes
from a third one, so neither shares this process's interpreter lock; the backend (its server, the
receiver, SQLite) and the fetcher run here together, as the HTTP and background roles of `inbox serve`
share one machine. Rounds alternate ingest alone and ingest with the fetcher busy; printed: median and
p99 of each, their ratio, the fetch's duration, and the load average.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.webhooks import _fresh_database, _load_from_second_process, _print_ingest

GRAPH_TOKEN = "bench-media-token"
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ALLOWED_RATIO = 1.2


def serve_sandbox(images: int, image_kb: int) -> None:
    """Entry of the sandbox process: hold `images` files, print where and their ids, run until stdin ends."""
    from backend.sandbox.server import Sandbox, SandboxConfig

    sandbox = Sandbox(SandboxConfig(token=GRAPH_TOKEN, seed=1)).start()
    rng = random.Random(5)
    ids = [
        sandbox.keep_media(rng.randbytes(image_kb * 1024), "image/jpeg", f"photo-{index}.jpg")
        for index in range(images)
    ]
    print(json.dumps({"graph_url": sandbox.graph_url, "media_ids": ids}), flush=True)
    sys.stdin.read()
    sandbox.stop()


def fetch_in_child(database_url: str, data_dir: str, graph_url: str, *, concurrency: int) -> None:
    """Entry of the fetcher process: download every pending image, print the seconds it took."""
    from app.composition import build_parts
    from backend.database import create_database
    from backend.media.fetcher import MediaFetcher
    from backend.settings import Settings

    logging.getLogger("backend.media").setLevel(logging.WARNING)
    database = create_database(database_url)
    settings = Settings(
        data_dir=Path(data_dir), database_url=database_url, graph_url=graph_url, whatsapp_token=GRAPH_TOKEN
    )
    fetcher = MediaFetcher(build_parts(settings, database), concurrency=concurrency)
    started = time.perf_counter()
    fetcher.drain()
    print(f"{time.perf_counter() - started:.3f}", flush=True)
    database.dispose()


def _seed_pending(database: Any, media_ids: list[str]) -> None:
    """Every image pending, due now, as the processor leaves them after their webhooks."""
    from sqlalchemy import delete, insert

    from backend.database.models import MediaFile

    with database.transaction() as session:
        session.execute(delete(MediaFile))
        session.execute(
            insert(MediaFile),
            [
                {
                    "media_id": media_id,
                    "direction": "inbound",
                    "mime_type": "image/jpeg",
                    "state": "pending",
                    "attempts": 0,
                    "next_attempt_at": START,
                    "created_at": START,
                }
                for media_id in media_ids
            ],
        )


def _stored(database: Any) -> int:
    from sqlalchemy import func, select

    from backend.database.models import MediaFile

    with database.reader() as session:
        return int(session.scalar(select(func.count()).where(MediaFile.state == "stored")) or 0)


def main() -> None:
    """Run the benchmark (or, with --serve-sandbox, be the sandbox)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=3000, help="webhooks per round")
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--image-kb", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=8, help="downloads the fetcher runs at once")
    parser.add_argument("--serve-sandbox", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fetch-child", nargs=3, metavar=("URL", "DIR", "GRAPH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_sandbox:
        serve_sandbox(args.images, args.image_kb)
        return
    if args.fetch_child:
        fetch_in_child(*args.fetch_child, concurrency=args.concurrency)
        return
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    logging.getLogger("backend.media").setLevel(logging.WARNING)

    from app.composition import build_parts
    from app.http_server import HttpServer
    from backend.settings import Settings
    from backend.web import create_app

    sandbox_process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.media",
            "--serve-sandbox",
            "--images",
            str(args.images),
            "--image-kb",
            str(args.image_kb),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert sandbox_process.stdout is not None and sandbox_process.stdin is not None
    sandbox = json.loads(sandbox_process.stdout.readline())
    with tempfile.TemporaryDirectory(prefix="bench-media-") as directory:
        workdir = Path(directory)
        database = _fresh_database(workdir, "media.db")
        settings = Settings(
            data_dir=workdir,
            database_url=str(database.engine.url),
            whatsapp_app_secret="bench_app_secret",
            whatsapp_verify_token="bench",
            graph_url=sandbox["graph_url"],
            whatsapp_token=GRAPH_TOKEN,
        )
        parts = build_parts(settings, database)
        server = HttpServer(create_app(parts), "127.0.0.1", 0, threads=args.threads).start()
        print(
            f"Ingest of {args.requests} signed status webhooks ({args.connections} connections, 2nd process)"
            f" alone, and while the fetcher downloads {args.images} images of {args.image_kb} KB"
            f" ({args.concurrency} at once) from the sandbox (third process); SQLite"
        )
        alone: list[dict[str, Any]] = []
        busy: list[dict[str, Any]] = []
        path = "/webhooks/whatsapp"
        try:
            _load_from_second_process(server.port, min(args.requests, 1000), args.connections, path)
            for number in range(1, args.rounds + 1):
                alone.append(_load_from_second_process(server.port, args.requests, args.connections, path))
                _print_ingest(f"round {number} baseline: ingest alone", alone[-1])
                shutil.rmtree(workdir / "media", ignore_errors=True)
                _seed_pending(database, sandbox["media_ids"])
                # The fetcher runs in its own process, as in the background role of `inbox serve`.
                fetch_started = time.perf_counter()
                fetcher = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "bench.media",
                        "--fetch-child",
                        str(database.engine.url),
                        str(workdir),
                        sandbox["graph_url"],
                        "--concurrency",
                        str(args.concurrency),
                    ],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                busy.append(_load_from_second_process(server.port, args.requests, args.connections, path))
                load_seconds = time.perf_counter() - fetch_started
                fetch_output, _ = fetcher.communicate(timeout=120)
                fetch_seconds = float(fetch_output.strip().splitlines()[-1])
                _print_ingest(f"round {number} product: ingest + fetching", busy[-1])
                fetched = _stored(database)
                print(
                    f"    fetched {fetched}/{args.images} images in {fetch_seconds:.2f} s"
                    f" (ingest took {load_seconds:.2f} s of it)"
                )
        finally:
            server.stop()
            sandbox_process.stdin.close()
            sandbox_process.wait(10)
            database.dispose()
    median_alone = sorted(r["median_ms"] for r in alone)[len(alone) // 2]
    median_busy = sorted(r["median_ms"] for r in busy)[len(busy) // 2]
    p99_alone = sorted(r["p99_ms"] for r in alone)[len(alone) // 2]
    p99_busy = sorted(r["p99_ms"] for r in busy)[len(busy) // 2]
    print(
        f"  median of rounds: median {median_busy:.2f} ms vs {median_alone:.2f} ms alone"
        f" ({median_busy / median_alone:.2f}x); p99 {p99_busy:.2f} ms vs {p99_alone:.2f} ms alone"
        f" ({p99_busy / p99_alone:.2f}x)"
    )
    within = median_busy <= median_alone * ALLOWED_RATIO and p99_busy <= p99_alone * ALLOWED_RATIO
    print(f"  target: within {ALLOWED_RATIO - 1:.0%} of ingest alone: {'met' if within else 'NOT met'}")
    print(f"  load average {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
