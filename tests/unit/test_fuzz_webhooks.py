"""Fuzzing the webhook path: random JSON shapes, wrong types, huge strings and deep nesting.

The parser answers with events or a WebhookParseError, never another exception; the processor never
raises out of its loop, never loses a stored body (each ends processed or set aside, bytes intact),
and keeps processing genuine bodies that come after the junk.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from app.composition import build_parts
from backend.database import Database
from backend.database.models import InboundMessage, WebhookDelivery
from backend.domain.webhook_events import ParsedBody, WebhookParseError, parse_body
from backend.settings import Settings
from backend.webhooks.processor import WebhookProcessor

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=300, max_size=2000),  # longer than any column
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=25,
)


def genuine_message(index: int) -> dict[str, Any]:
    """A well-formed inbound text message value."""
    return {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550783881", "phone_number_id": "100000000000001"},
        "contacts": [{"profile": {"name": "Sheena Nelson"}, "wa_id": "16505551234"}],
        "messages": [
            {
                "from": "16505551234",
                "id": f"wamid.FUZZ{index}",
                "timestamp": str(int(NOW.timestamp())),
                "type": "text",
                "text": {"body": f"hello {index}"},
            }
        ],
    }


def envelope(value: Any, *, field: Any = "messages") -> dict[str, Any]:
    """The whatsapp_business_account envelope around one change value."""
    return {
        "object": "whatsapp_business_account",
        "entry": [{"id": "1", "changes": [{"value": value, "field": field}]}],
    }


# Paths inside a genuine body where a fuzzed value replaces what Meta would send.
PATHS: list[tuple[Any, ...]] = [
    ("entry",),
    ("entry", 0),
    ("entry", 0, "changes"),
    ("entry", 0, "changes", 0),
    ("entry", 0, "changes", 0, "value"),
    ("entry", 0, "changes", 0, "field"),
    ("entry", 0, "changes", 0, "value", "contacts"),
    ("entry", 0, "changes", 0, "value", "contacts", 0, "wa_id"),
    ("entry", 0, "changes", 0, "value", "contacts", 0, "profile"),
    ("entry", 0, "changes", 0, "value", "messages"),
    ("entry", 0, "changes", 0, "value", "messages", 0),
    ("entry", 0, "changes", 0, "value", "messages", 0, "id"),
    ("entry", 0, "changes", 0, "value", "messages", 0, "from"),
    ("entry", 0, "changes", 0, "value", "messages", 0, "type"),
    ("entry", 0, "changes", 0, "value", "messages", 0, "timestamp"),
    ("entry", 0, "changes", 0, "value", "messages", 0, "text"),
    ("entry", 0, "changes", 0, "value", "messages", 0, "text", "body"),
    ("entry", 0, "changes", 0, "value", "messages", 0, "context"),
    ("entry", 0, "changes", 0, "value", "messages", 0, "errors"),
    ("entry", 0, "changes", 0, "value", "statuses"),
]
STATUS_PATHS = [
    "id",
    "status",
    "timestamp",
    "recipient_id",
    "biz_opaque_callback_data",
    "errors",
    "conversation",
]
MESSAGE_TYPES = [
    "text",
    "button",
    "interactive",
    "reaction",
    "image",
    "location",
    "contacts",
    "order",
    "system",
]


def _replace(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return document


@st.composite
def mutated_bodies(draw: st.DrawFn) -> bytes:
    """A genuine body with one to three places replaced by random JSON, sometimes re-typed first."""
    document = envelope(genuine_message(draw(st.integers(0, 10**6))))
    message = document["entry"][0]["changes"][0]["value"]["messages"][0]
    message_type: str = draw(st.sampled_from(MESSAGE_TYPES))
    message["type"] = message_type
    message[message_type] = draw(json_values)
    if draw(st.booleans()):
        status: dict[str, Any] = {
            "id": "wamid.S",
            "status": "delivered",
            "timestamp": "1",
            "recipient_id": "16505551234",
        }
        status[draw(st.sampled_from(STATUS_PATHS))] = draw(json_values)
        document["entry"][0]["changes"][0]["value"]["statuses"] = [status]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        with contextlib.suppress(KeyError, IndexError, TypeError):  # an earlier replacement removed the path
            document = _replace(document, path, draw(json_values))
    return json.dumps(document).encode()


def deeply_nested(depth: int, opener: str = "[") -> bytes:
    """A webhook whose value nests `depth` levels deep."""
    closer = "]" if opener == "[" else "}"
    inner = (opener if opener == "[" else '{"a":') * depth + "1" + closer * depth
    return (
        '{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":'
        + inner
        + "}]}]}"
    ).encode()


bodies = st.one_of(
    mutated_bodies(),
    json_values.map(lambda value: json.dumps(value).encode()),
    json_values.map(lambda value: json.dumps(envelope(value)).encode()),
    st.binary(max_size=200),
    st.integers(1, 200_000).map(deeply_nested),
    st.integers(1, 200_000).map(lambda depth: deeply_nested(depth, "{")),
)


@settings(max_examples=400, deadline=None)
@given(body=bodies)
def test_the_parser_answers_events_or_a_parse_error_and_nothing_else(body: bytes) -> None:
    try:
        parsed = parse_body(body)
    except WebhookParseError:
        return
    assert isinstance(parsed, ParsedBody)
    for event in parsed.messages:
        assert event.wamid and len(event.wamid) <= 255
    for status in parsed.statuses:
        assert status.wamid and status.status


def test_a_body_nested_deeper_than_the_json_decoder_goes_is_a_parse_error() -> None:
    with pytest.raises(WebhookParseError):
        parse_body(deeply_nested(100_000))


@pytest.fixture
def processor_settings(tmp_path: Path, database_url: str) -> Settings:
    """Settings for the processor."""
    return Settings(data_dir=tmp_path, database_url=database_url)


@pytest.fixture
def store(database: Database) -> Iterator[Any]:
    """Store a body as the receiver does (raw bytes, before any parsing); returns its id."""

    def stored(body: bytes) -> int:
        with database.transaction() as session:
            row = WebhookDelivery(body=body, signature="sha256=fuzz", received_at=NOW)
            session.add(row)
            session.flush()
            return row.id

    yield stored


@pytest.mark.timeout(180)
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(junk=st.lists(bodies, min_size=1, max_size=4), genuine_index=st.integers(0, 10**9))
def test_the_processor_never_stops_never_loses_a_body_and_still_processes_genuine_ones(
    junk: list[bytes], genuine_index: int, database: Database, processor_settings: Settings, store: Any
) -> None:
    ids = [store(body) for body in junk]
    genuine = json.dumps(envelope(genuine_message(genuine_index))).encode()
    genuine_id = store(genuine)
    processor = WebhookProcessor(build_parts(processor_settings, database), batch_size=3)
    for _ in range(len(ids) + 3):
        processor.run_once()  # raising here would stop the worker's loop
    with database.reader() as session:
        rows = {
            row.id: row
            for row in session.scalars(
                select(WebhookDelivery).where(WebhookDelivery.id.in_([*ids, genuine_id]))
            )
        }
        # Every body is still there, byte for byte, and none is left pending.
        assert [bytes(rows[i].body) for i in ids] == junk
        assert all(row.processed_at is not None for row in rows.values())
        genuine_stored = session.scalar(
            select(func.count())
            .select_from(InboundMessage)
            .where(InboundMessage.wamid == f"wamid.FUZZ{genuine_index}")
        )
    assert genuine_stored == 1
