"""Account webhooks: marketing preferences, template reviews and quality updates read into events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.domain.account_events import (
    MarketingPreferenceEvent,
    QualityEvent,
    TemplateStatusEvent,
    quality_dropped,
    tier_limit,
)
from backend.domain.webhook_events import parse_body

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance" / "pywa"


def _recorded(name: str) -> dict[str, dict[str, object]]:
    return dict(json.loads((CONFORMANCE / f"{name}.json").read_text(encoding="utf-8")))


def test_recorded_template_status_updates_become_events() -> None:
    events = [
        event
        for document in _recorded("template_status_update").values()
        for event in parse_body(json.dumps(document).encode()).account_events
    ]
    assert events
    assert all(isinstance(event, TemplateStatusEvent) for event in events)
    rejected = next(e for e in events if isinstance(e, TemplateStatusEvent) and e.status == "REJECTED")
    assert (rejected.name, rejected.language, rejected.category) == ("abandoned_cart", "en", "MARKETING")
    assert rejected.reason is not None and "parameters" in rejected.reason
    approved = next(e for e in events if isinstance(e, TemplateStatusEvent) and e.status == "APPROVED")
    assert approved.reason is None
    assert len({event.key for event in events}) == len(events)


def test_recorded_marketing_preferences_become_events_of_our_number_only() -> None:
    documents = _recorded("user_marketing_preferences")
    resume = parse_body(json.dumps(documents["resume"]).encode(), phone_number_id="106540352242922")
    assert resume.account_events == [
        MarketingPreferenceEvent(
            key="preference:16505551234:resume:1731705721",
            wa_id="16505551234",
            value="resume",
            occurred_at=resume.account_events[0].occurred_at,  # type: ignore[union-attr]
        )
    ]
    foreign = parse_body(json.dumps(documents["resume"]).encode(), phone_number_id="999")
    assert foreign.account_events == [] and foreign.foreign_events == {"106540352242922": 1}


def test_a_quality_update_names_its_tier_and_a_flag_means_a_low_rating() -> None:
    body = {
        "object": "whatsapp_business_account",
        "entry": [
            {
                "id": "1",
                "time": 1764590000,
                "changes": [
                    {
                        "field": "phone_number_quality_update",
                        "value": {
                            "display_phone_number": "15550783881",
                            "event": "FLAGGED",
                            "current_limit": "TIER_2K",
                        },
                    }
                ],
            }
        ],
    }
    (event,) = parse_body(json.dumps(body).encode()).account_events
    assert isinstance(event, QualityEvent)
    assert (event.event, event.tier, event.quality_rating) == ("FLAGGED", "TIER_2K", "RED")


@pytest.mark.parametrize(
    ("tier", "expected"),
    [
        ("TIER_250", (True, 250)),
        ("TIER_2K", (True, 2000)),
        ("TIER_UNLIMITED", (True, None)),
        ("TIER_NOT_SET", (False, None)),
        (None, (False, None)),
    ],
)
def test_tier_names_map_to_daily_limits(tier: str | None, expected: tuple[bool, int | None]) -> None:
    assert tier_limit(tier) == expected


@pytest.mark.parametrize(
    ("before", "after", "dropped"),
    [
        ("GREEN", "YELLOW", True),
        ("YELLOW", "RED", True),
        ("RED", "GREEN", False),
        ("GREEN", "GREEN", False),
        (None, "RED", False),
        ("GREEN", "UNKNOWN", False),
    ],
)
def test_a_drop_is_a_move_to_a_worse_rating(before: str | None, after: str | None, dropped: bool) -> None:
    assert quality_dropped(before, after) is dropped
