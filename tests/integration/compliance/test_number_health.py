"""The number's quality and limit: Meta's webhooks and reads move the pacer's tier, unless set by hand."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.composition import build_parts
from backend.database import Database
from backend.outbox.account_sync import AccountSync
from backend.outbox.sender import OutboxSender
from backend.parts import BackendParts
from backend.users import create_user
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from tests.conftest import journal_entries
from tests.integration.outbox.conftest import (
    START,
    FakeClock,
    RecordingGraph,
    enqueue_all,
    make_settings,
    number,
    rows,
    template_request,
)
from tests.integration.webhooks.support import encode

CUSTOMERS = 52


def _quality_update(event: str, current: str, old: str, time: int = 1764590000) -> bytes:
    return encode(
        {
            "object": "whatsapp_business_account",
            "entry": [
                {
                    "id": "102290129340398",
                    "time": time,
                    "changes": [
                        {
                            "field": "phone_number_quality_update",
                            "value": {
                                "display_phone_number": "15550783881",
                                "event": event,
                                "current_limit": current,
                                "old_limit": old,
                            },
                        }
                    ],
                }
            ],
        }
    )


def _deliver(parts: BackendParts, body: bytes) -> None:
    assert parts.delivery_store.store(body, None)
    assert WebhookProcessor(parts).drain().failed_deliveries == 0


_VIEWERS = iter(range(1_000_000))


def _metrics(parts: BackendParts) -> dict[str, Any]:
    with parts.database.transaction() as session:
        token = create_user(session, f"viewer{next(_VIEWERS)}", "agent", START)
    app = create_app(parts)
    answer = app.test_client().get("/v1/metrics", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    return dict(answer.get_json())


@pytest.fixture
def setup(
    database: Database, database_url: str, tmp_path: Path
) -> Callable[..., tuple[BackendParts, FakeClock]]:
    def build(**overrides: Any) -> tuple[BackendParts, FakeClock]:
        settings = make_settings(database_url, tmp_path, **overrides)
        clock = FakeClock()
        return build_parts(settings, database, clock=clock), clock

    return build


def _send_campaign(parts: BackendParts, clock: FakeClock) -> dict[str, str]:
    enqueue_all(
        parts.database,
        parts.settings,
        [template_request(f"campaign-{i}", number(i)) for i in range(CUSTOMERS)],
        clock(),
    )
    sender = OutboxSender(
        parts, transport=RecordingGraph().transport(), sleep_until=clock.sleep_until, jitter=lambda: 0.5
    )
    sender.run_once()
    return {key: row.state for key, row in rows(parts.database).items()}


def test_a_quality_webhook_moves_the_tier_the_pacer_keeps(
    setup: Callable[..., tuple[BackendParts, FakeClock]],
) -> None:
    parts, clock = setup()
    _deliver(parts, _quality_update("DOWNGRADE", "TIER_50", "TIER_2K"))
    measures = _metrics(parts)
    assert measures["messaging_tier"] == {"tier": "TIER_50", "limit": 50, "set_by_hand": False}
    assert measures["number_health_history"][0]["event"] == "DOWNGRADE"
    states = _send_campaign(parts, clock)
    assert sum(1 for state in states.values() if state == "accepted") == 50
    waiting = [key for key, state in states.items() if state == "queued"]
    assert len(waiting) == CUSTOMERS - 50
    assert all(rows(parts.database)[key].not_before >= START + timedelta(hours=24) for key in waiting)


def test_a_tier_set_by_hand_stays_put(setup: Callable[..., tuple[BackendParts, FakeClock]]) -> None:
    parts, clock = setup(messaging_tier=100000, messaging_tier_set=True)
    _deliver(parts, _quality_update("DOWNGRADE", "TIER_50", "TIER_2K"))
    measures = _metrics(parts)
    assert measures["messaging_tier"] == {"tier": "TIER_50", "limit": 100000, "set_by_hand": True}
    states = _send_campaign(parts, clock)
    assert sum(1 for state in states.values() if state == "accepted") == CUSTOMERS


def test_an_upgrade_to_unlimited_lifts_the_limit(
    setup: Callable[..., tuple[BackendParts, FakeClock]],
) -> None:
    parts, clock = setup()
    _deliver(parts, _quality_update("DOWNGRADE", "TIER_50", "TIER_250", time=1764590000))
    _deliver(parts, _quality_update("UPGRADE", "TIER_UNLIMITED", "TIER_50", time=1764590100))
    assert _metrics(parts)["messaging_tier"]["limit"] is None
    states = _send_campaign(parts, clock)
    assert sum(1 for state in states.values() if state == "accepted") == CUSTOMERS


def test_quality_drops_are_flagged_and_kept_in_the_history(
    setup: Callable[..., tuple[BackendParts, FakeClock]],
) -> None:
    parts, clock = setup()
    number_reads = iter(["GREEN", "YELLOW"])

    def graph(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v23.0/106540352242922"
        assert "quality_rating" in request.url.params["fields"]
        rating = next(number_reads)
        return httpx.Response(
            200,
            json={
                "quality_rating": rating,
                "whatsapp_business_manager_messaging_limit": "TIER_2K",
                "id": "106540352242922",
            },
        )

    worker = AccountSync(
        parts.database,
        parts.settings,
        parts.clock,
        lambda: httpx.Client(transport=httpx.MockTransport(graph)),
    )
    assert worker.run_once() == ["number_health"]
    first = _metrics(parts)
    assert first["quality_rating"]["rating"] == "GREEN" and first["quality_rating"]["dropped"] is False
    assert first["messaging_tier"]["limit"] == 2000
    assert worker.run_once() == []  # read again only a day later
    clock.advance(86400)
    assert worker.run_once() == ["number_health"]
    second = _metrics(parts)
    assert second["quality_rating"]["rating"] == "YELLOW" and second["quality_rating"]["dropped"] is True
    assert [item["quality_rating"] for item in second["number_health_history"]] == ["YELLOW", "GREEN"]
    # Meta flags the number: the webhook's event says the rating fell to low.
    _deliver(parts, _quality_update("FLAGGED", "TIER_2K", "TIER_2K"))
    third = _metrics(parts)
    assert third["quality_rating"]["rating"] == "RED" and third["quality_rating"]["dropped"] is True
    entries = [entry.data for entry in journal_entries(parts.database, "number.health_changed")]
    assert [entry["quality_dropped"] for entry in entries] == [False, True, True]


def test_an_unknown_tier_name_changes_nothing(setup: Callable[..., tuple[BackendParts, FakeClock]]) -> None:
    parts, _clock = setup(messaging_tier=250)
    _deliver(parts, _quality_update("ONBOARDING", "TIER_NOT_SET", "TIER_NOT_SET"))
    assert _metrics(parts)["messaging_tier"]["limit"] == 250
