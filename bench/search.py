"""Search latency on a big inbox: the full-text index against a plain LIKE scan of the same data.

Run: .venv/bin/python -m bench.search [--conversations 10000] [--messages 200000] [--queries 200]
     [--database-url postgresql+psycopg://user@host/any]  (a new database is made there and dropped)

Fills a fresh database directly (bulk inserts: half inbound, half outbound as text, buttons and
templates; support-desk words in English, Spanish, French, Portuguese and German, some accented),
then runs the same varied queries twice: as GET /v1/search does (search_messages, a page of 50 with
contacts) and as a LIKE scan over the same text, newest first, also a page of 50.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import String, and_, cast, insert, select, text
from sqlalchemy.orm import Session

from backend.database import Database, create_database
from backend.database.models import Contact, Conversation, InboundMessage, OutboxMessage
from backend.domain.templates import TemplateCatalog
from backend.inbox.search import search_messages
from backend.templates import load_templates
from bench.chaos import fresh_database_url

TARGET_P95_MS = 100.0
PAGE = 50
BATCH = 10_000

# Support-desk words, most frequent first; the sentences below draw them with a Zipf-like weight.
_WORDS_TEXT = """
the my order is to and you for a of your it in please we can thanks hello this have on with
not when will be delivery package address today tomorrow payment refund invoice number tracking
help question problem time day week store pickup return exchange size color shipped arrived late
broken damaged missing wrong item product price discount code coupon account password email phone
change cancel confirm appointment reminder booking schedule morning afternoon evening monday tuesday
wednesday thursday friday saturday sunday card receipt warranty repair replacement courier parcel
box label stock available weekend holiday opening hours branch manager support agent team customer
gracias hola pedido dirección entrega mañana tarde envío devolución factura número cuándo también
está qué cómo llegó paquete señor información teléfono código reembolso descuento tamaño
merci bonjour commande livraison adresse numéro reçu déjà très problème colis été à bientôt
remboursement échange délai réponse
obrigado olá encomenda endereço não você está então também já até ajuda troca
danke hallo bestellung lieferung adresse rückgabe größe für über schön grüße
josé maría müller françois zoë renée łukasz søren
blender toaster kettle teapot lamp chair sofa mattress pillow blanket jacket shoes shirt dress
"""
WORDS = _WORDS_TEXT.split()

NAMES = ["Dana", "Eli", "José", "María", "Zoë", "Jürgen", "Amélie", "Chen", "Ngozi", "Søren", "Priya", None]


def _weights(count: int) -> list[float]:
    return [1.0 / (rank + 1) ** 0.8 for rank in range(count)]


class Writer:
    """Sentences that read like messages to and from a shop."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.weights = _weights(len(WORDS))

    def sentence(self) -> str:
        """Four to eighteen words, capitalised, with punctuation now and then."""
        words = self.random.choices(WORDS, weights=self.weights, k=self.random.randint(4, 18))
        words[0] = words[0].capitalize()
        if self.random.random() < 0.3:
            words.insert(self.random.randint(1, len(words)), f"#{self.random.randint(1000, 99999)}")
        return " ".join(words) + self.random.choice([".", "?", "!", "", "..."])


def fill(database: Database, conversations: int, messages: int, seed: int) -> None:
    """Contacts, conversations and messages, inserted in bulk in time order over 60 days."""
    writer = Writer(seed)
    chooser = random.Random(seed + 1)
    start = datetime.now(UTC) - timedelta(days=60)
    with database.transaction() as session:
        session.execute(
            insert(Contact),
            [
                {
                    "id": number,
                    "wa_id": f"1650{number:07d}",
                    "number": f"+1650{number:07d}",
                    "profile_name": chooser.choice(NAMES),
                    "created_at": start,
                }
                for number in range(1, conversations + 1)
            ],
        )
        session.execute(
            insert(Conversation),
            [
                {"id": number, "contact_id": number, "unread_count": 0, "created_at": start}
                for number in range(1, conversations + 1)
            ],
        )
    step = timedelta(days=60) / messages
    inbound: list[dict[str, Any]] = []
    outbound: list[dict[str, Any]] = []
    for position in range(messages):
        moment = start + step * position
        conversation_id = chooser.randint(1, conversations)
        if position % 2:
            inbound.append(
                {
                    "wamid": f"wamid.in.{position}",
                    "contact_id": conversation_id,
                    "conversation_id": conversation_id,
                    "type": "text",
                    "text": writer.sentence(),
                    "placement": "conversation",
                    "raw": {},
                    "sent_at": moment,
                    "received_at": moment,
                }
            )
        else:
            kind, payload = _outbound_payload(writer, chooser)
            outbound.append(
                {
                    "dedupe_key": f"bench-{position}",
                    "to_number": f"+1650{conversation_id:07d}",
                    "purpose": "support",
                    "kind": kind,
                    "payload": payload,
                    "state": "read",
                    "attempts": 1,
                    "wamid": f"wamid.out.{position}",
                    "not_before": moment,
                    "conversation_id": conversation_id,
                    "created_at": moment,
                    "updated_at": moment,
                }
            )
        if len(inbound) + len(outbound) >= BATCH or position == messages - 1:
            with database.transaction() as session:
                if inbound:
                    session.execute(insert(InboundMessage), inbound)
                if outbound:
                    session.execute(insert(OutboxMessage), outbound)
            inbound, outbound = [], []
    # Planner statistics, as autovacuum (PostgreSQL) or `PRAGMA optimize` (SQLite) would have them.
    with database.transaction() as session:
        session.execute(text("ANALYZE"))


def _outbound_payload(writer: Writer, chooser: random.Random) -> tuple[str, dict[str, Any]]:
    roll = chooser.random()
    if roll < 0.7:
        return "text", {"text": writer.sentence()}
    if roll < 0.85:
        return "buttons", {
            "buttons": {
                "body": writer.sentence(),
                "buttons": [{"id": "yes", "title": "Confirm"}, {"id": "no", "title": "Reschedule"}],
            }
        }
    day = chooser.choice(["Monday", "Friday", "12 December", "mañana"])
    return "template", {
        "template": {"name": "appointment_reminder", "language": "en", "parameters": [day, "10:30"]}
    }


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def queries(count: int, seed: int) -> list[str]:
    """Varied queries: common and rare words, accents left off, two words, prefixes being typed."""
    chooser = random.Random(seed + 2)
    writer = Writer(seed + 3)
    made: list[str] = []
    while len(made) < count:
        kind = len(made) % 5
        if kind == 0:
            made.append(chooser.choice(WORDS))
        elif kind == 1:
            made.append(_unaccented(chooser.choice(WORDS[len(WORDS) // 2 :])).upper())
        elif kind == 2:
            words = [word for word in writer.sentence().split() if word.isalpha()]
            made.append(" ".join(chooser.sample(words, min(2, len(words)))))
        elif kind == 3:
            word = chooser.choice([word for word in WORDS if len(word) > 5])
            made.append(word[: chooser.randint(3, 5)])
        else:
            made.append(f"{chooser.choice(WORDS)} {chooser.choice(WORDS[100:])}")
    return made


def like_scan(session: Session, query: str) -> list[tuple[datetime, int]]:
    """The baseline: each word anywhere in the text (LIKE, no index), newest first, one page."""
    words = [word.lower() for word in query.split()]

    def matching(column: Any) -> Any:
        return and_(*(column.ilike(f"%{word}%") for word in words))

    inbound = session.execute(
        select(InboundMessage.received_at, InboundMessage.id)
        .where(matching(InboundMessage.text))
        .order_by(InboundMessage.received_at.desc(), InboundMessage.id.desc())
        .limit(PAGE + 1)
    ).all()
    outbound = session.execute(
        select(OutboxMessage.created_at, OutboxMessage.id)
        .where(OutboxMessage.conversation_id.is_not(None), matching(cast(OutboxMessage.payload, String)))
        .order_by(OutboxMessage.created_at.desc(), OutboxMessage.id.desc())
        .limit(PAGE + 1)
    ).all()
    rows = [(at, row_id) for at, row_id in [*inbound, *outbound]]
    return sorted(rows, reverse=True)[:PAGE]


def measure(
    database: Database, texts: list[str], run: Callable[[Session, str], int]
) -> tuple[list[float], int]:
    """Seconds per query, each in its own read transaction as a route would, and how many found something."""
    latencies: list[float] = []
    found = 0
    for query in texts:
        started = time.perf_counter()
        with database.reader() as session:
            count = run(session, query)
        latencies.append(time.perf_counter() - started)
        found += count > 0
    return latencies, found


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _figures(name: str, latencies: list[float], found: int) -> str:
    return (
        f"{name}: median {statistics.median(latencies) * 1000:.1f} ms, "
        f"p95 {_percentile(latencies, 0.95) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms "
        f"({found}/{len(latencies)} queries found something)"
    )


def main() -> None:
    """Build the data, run the queries both ways and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--database-url", help="a PostgreSQL server URL; SQLite in a temporary file if absent"
    )
    args = parser.parse_args()
    catalog: TemplateCatalog = load_templates()
    texts = queries(args.queries, args.seed)
    with (
        tempfile.TemporaryDirectory(prefix="bench-search-") as folder,
        fresh_database_url(args.database_url, Path(folder)) as url,
    ):
        database = create_database(url)
        started = time.perf_counter()
        fill(database, args.conversations, args.messages, args.seed)
        filled = time.perf_counter() - started

        def indexed(session: Session, query: str) -> int:
            return len(search_messages(session, query, limit=PAGE, catalog=catalog).results)

        def scanned(session: Session, query: str) -> int:
            return len(like_scan(session, query))

        # One untimed pass warms the caches both ways start from.
        measure(database, texts[:20], indexed)
        measure(database, texts[:20], scanned)
        index_latencies, index_found = measure(database, texts, indexed)
        scan_latencies, scan_found = measure(database, texts, scanned)
        database.dispose()
    print(
        f"database: {database.dialect}, {args.conversations:,} conversations, {args.messages:,} messages "
        f"(filled in {filled:.1f} s, index kept by the database while inserting)"
    )
    print(
        f"{len(texts)} queries, a page of {PAGE} newest first, e.g. {', '.join(repr(t) for t in texts[:6])}"
    )
    print(_figures("GET /v1/search (full-text index)", index_latencies, index_found))
    print(_figures("baseline: LIKE scan               ", scan_latencies, scan_found))
    p95 = _percentile(index_latencies, 0.95) * 1000
    verdict = "met" if p95 <= TARGET_P95_MS else "MISSED"
    print(f"target p95 <= {TARGET_P95_MS:.0f} ms: {verdict} ({p95:.1f} ms)")


if __name__ == "__main__":
    main()
