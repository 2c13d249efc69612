"""What honouring opt-outs costs the outbox: enqueue and claim with marketing to opted-out customers.

Run: .venv/bin/python -m bench.compliance [--customers 300] [--rounds 3] [--database-url URL]

In one fresh database, each round enqueues a batch of `customers` template messages in one transaction
and claims them all: utility templates (nothing to check: the baseline) and marketing templates
to the same customers with one in ten opted out (refused at enqueue), then with one in ten opted out
after enqueue (cancelled by the claim). Prints the median per message of each, the baseline beside it,
and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, update

from backend.database import Database, create_database
from backend.database.models import Contact, OutboxMessage, PacingSlot
from backend.domain.messages import RECIPIENT_OPTED_OUT, MessageError, TemplateRequest
from backend.outbox.claim import claim_batch, pacing_rules
from backend.outbox.enqueue import MessageRequest, enqueue
from backend.settings import load_settings
from backend.templates import load_templates
from bench.chaos import fresh_database_url

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _number(index: int) -> str:
    # 555-0000 to 555-9999: valid numbers reserved for fiction.
    return f"+1650555{index:04d}"


def _requests(round_number: int, customers: int, template: str, marketing: bool) -> list[MessageRequest]:
    purpose = "win_back" if marketing else "order_shipped"
    return [
        MessageRequest(
            dedupe_key=f"r{round_number}-{template}-{i}",
            to=_number(i),
            purpose=purpose,
            template=TemplateRequest(template, "en", ("x",)),
        )
        for i in range(customers)
    ]


def _timed(step: Callable[[], Any]) -> float:
    began = time.perf_counter()
    step()
    return time.perf_counter() - began


@contextmanager
def _clean(database: Database) -> Any:
    yield
    with database.transaction() as session:
        session.execute(delete(OutboxMessage))
        session.execute(delete(PacingSlot))
        session.execute(update(Contact).values(opted_out_at=None, opted_out_reason=None))


def run(database_url: str, customers: int, rounds: int) -> dict[str, list[float]]:
    """Per-message seconds of each step, one figure per round."""
    database = create_database(database_url)
    settings = replace(
        load_settings(environ={"INBOX_DATA_DIR": tempfile.gettempdir(), "INBOX_DATABASE_URL": database_url}),
        send_rate=1000.0,
        pair_interval_seconds=0.0,
    )
    templates = load_templates()
    rules = replace(pacing_rules(settings, horizon_seconds=3600.0), rate=1_000_000.0)
    counts: list[int] = []
    figures: dict[str, list[float]] = {
        "enqueue utility": [],
        "enqueue marketing, 1 in 10 refused": [],
        "claim utility": [],
        "claim marketing, 1 in 10 cancelled": [],
    }

    def enqueue_all(requests: list[MessageRequest]) -> None:
        with database.transaction() as session:
            for request in requests:
                try:
                    enqueue(session, request, templates=templates, settings=settings, now=START)
                except MessageError as error:
                    if error.code != RECIPIENT_OPTED_OUT:
                        raise

    def claim_all() -> None:
        with database.transaction() as session:
            claimed = claim_batch(
                session,
                rules=rules,
                lease_seconds=30,
                now=START + timedelta(seconds=1),
                limit=customers,
                worker_id="bench",
                start_lead_seconds=-1,
            )
            counts.append(len(claimed))

    def opt_out_every_tenth() -> None:
        with database.transaction() as session:
            for i in range(0, customers, 10):
                session.execute(
                    update(Contact)
                    .where(Contact.number == _number(i))
                    .values(opted_out_at=START, opted_out_reason="keyword")
                )

    def requests(number: int, template: str, marketing: bool) -> Callable[[], None]:
        return lambda: enqueue_all(_requests(number, customers, template, marketing))

    try:
        for round_number in range(rounds):
            with _clean(database):
                figures["enqueue utility"].append(_timed(requests(round_number, "order_shipped", False)))
                figures["claim utility"].append(_timed(claim_all))
            with _clean(database):
                opt_out_every_tenth()
                figures["enqueue marketing, 1 in 10 refused"].append(
                    _timed(requests(round_number, "we_miss_you", True))
                )
            with _clean(database):
                enqueue_all(_requests(round_number + rounds, customers, "we_miss_you", True))
                opt_out_every_tenth()
                figures["claim marketing, 1 in 10 cancelled"].append(_timed(claim_all))
    finally:
        database.dispose()
    # Every row is claimed, but for the cancelled tenth of the marketing rounds.
    expected = [customers, customers - customers // 10] * rounds
    assert counts == expected, (counts, expected)
    return {name: [seconds / customers for seconds in values] for name, values in figures.items()}


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=300, help="at most 10,000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", help="a PostgreSQL server URL (a database is made, then dropped)")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as workdir,
        fresh_database_url(args.database_url, Path(workdir)) as url,
    ):
        figures = run(url, args.customers, args.rounds)
    load = os.getloadavg()
    print(f"{args.customers} messages per step, {args.rounds} rounds, median µs per message")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    for step, baseline in (("enqueue", "enqueue utility"), ("claim", "claim utility")):
        base = statistics.median(figures[baseline]) * 1e6
        for name, values in figures.items():
            if name.startswith(step):
                value = statistics.median(values) * 1e6
                print(f"  {name:38} {value:8.1f} µs  (baseline {base:.1f} µs, {value / base:.2f}×)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
