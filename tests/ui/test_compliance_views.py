"""The desk and Meta's rules: the template picker, the opt-out marker, the number's quality and limit."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel

from tests.ui import test_lifecycle_controls
from tests.ui.test_lifecycle_controls import NOW, FakeBackend, _time
from ui.api.resources import NUMBER_HEALTH_CHANGED, Event, Metrics, TemplateInfo
from ui.presentation import OPTED_OUT_MARK, quality_warning_text, template_unavailable_reason, tier_text
from ui.views.composer import Composer
from ui.views.main_window import MainWindow

pytestmark = pytest.mark.timeout(60)


def _template(name: str, status: str = "APPROVED", category: str = "UTILITY", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "language": "en",
        "body": "Hi {{1}}",
        "parameters": ["name"],
        "parameter_count": 1,
        "buttons": [],
        "status": status,
        "category": category,
        "status_reason": None,
        **extra,
    }


TEMPLATES = [
    _template("black_friday", "PAUSED", "MARKETING", status_reason="LOW_QUALITY"),
    _template("order_shipped"),
    _template("we_miss_you", category="MARKETING"),
    _template("old_receipt", "REJECTED"),
    _template("new_offer", "PENDING", "MARKETING"),
]


def _metrics(**number: Any) -> dict[str, Any]:
    return {
        "sending_over_1m": 0,
        "dedupe_rejections": 0,
        "duplicate_webhooks": 0,
        "unattributed_inbound": 0,
        "sent_to_delivered_seconds": {"p50": None, "p95": None},
        "queue_depth": {},
        "webhook_parse_failures": 0,
        "cross_contact_quotes": 0,
        "foreign_number_events": 0,
        "webhook_subscriptions_disabled": 0,
        "outgoing_deliveries_pending": 0,
        "outgoing_deliveries_failed": 0,
        "last_backup_at": None,
        "data_folder_free_bytes": None,
        "messaging_tier": {"tier": "TIER_2K", "limit": 2000, "set_by_hand": False},
        "quality_rating": {"rating": "GREEN", "dropped": False, "updated_at": _time(NOW)},
        "number_health_history": [
            {
                "recorded_at": _time(NOW),
                "quality_rating": "GREEN",
                "messaging_tier": "TIER_2K",
                "source": "read",
                "event": None,
            }
        ],
        **number,
    }


class MetaAwareBackend(FakeBackend):
    """The fake backend with templates from Meta, an opted-out customer and the number's health."""

    def __init__(self) -> None:
        super().__init__()
        self.templates = TEMPLATES
        self.metrics = _metrics()
        ana = self.conversations[1]
        ana["contact"] = {
            **ana["contact"],
            "opted_out": True,
            "opted_out_at": _time(NOW - timedelta(hours=1)),
        }
        ana["window_closes_at"] = _time(NOW - timedelta(hours=1))
        ana["window_open"] = False
        ben = self.conversations[2]
        ben["contact"] = {**ben["contact"], "opted_out": False, "opted_out_at": None}
        ben["window_closes_at"] = _time(NOW - timedelta(hours=2))
        ben["window_open"] = False

    def _answer(self, method: str, path: str, params: dict[str, str], body: Any) -> httpx.Response:
        if path == "/v1/templates":
            return httpx.Response(200, json={"templates": self.templates, "next_cursor": None})
        if path == "/v1/metrics":
            return httpx.Response(200, json=self.metrics)
        return super()._answer(method, path, params, body)


# The client signed in on this module's backend, as the lifecycle tests build it.
window = test_lifecycle_controls.window


@pytest.fixture
def backend() -> MetaAwareBackend:
    return MetaAwareBackend()


def _items(composer: Composer) -> list[tuple[str, bool, str | None]]:
    model = composer.template_box.model()
    assert isinstance(model, QStandardItemModel)
    rows = []
    for row in range(model.rowCount()):
        item = model.item(row)
        tooltip = item.data(Qt.ItemDataRole.ToolTipRole)
        rows.append((item.text(), item.isEnabled(), tooltip))
    return rows


def _select(qtbot: Any, window: MainWindow, conversation_id: int) -> None:
    # The templates arrive beside the conversation list.
    qtbot.waitUntil(lambda: window.inbox.composer.template_box.count() == len(TEMPLATES), timeout=10_000)
    row = window.inbox.conversations.row_of(conversation_id)
    assert row is not None
    window.inbox.conversation_list.setCurrentIndex(window.inbox.conversations.index(row, 0))


def test_the_picker_offers_approved_templates_and_greys_the_others_with_why(
    qtbot: Any, window: MainWindow
) -> None:
    _select(qtbot, window, 2)
    composer = window.inbox.composer
    qtbot.waitUntil(lambda: composer.showing_templates, timeout=5000)
    items = _items(composer)
    assert [(text.split(" ")[0], enabled) for text, enabled, _ in items] == [
        ("order_shipped", True),
        ("we_miss_you", True),
        ("black_friday", False),
        ("old_receipt", False),
        ("new_offer", False),
    ]
    assert items[2][2] == "paused by Meta (low quality): LOW_QUALITY"
    assert "paused by Meta" in items[2][0]
    assert items[3][2] == "rejected by Meta"
    assert items[4][2] == "waiting for Meta's review"
    assert composer.template_box.currentIndex() == 0
    assert composer.send_template_button.isEnabled()
    assert len(composer.parameter_fields) == 1


def test_an_opted_out_customer_is_marked_and_gets_no_marketing_template(
    qtbot: Any, window: MainWindow
) -> None:
    _select(qtbot, window, 1)
    composer = window.inbox.composer
    qtbot.waitUntil(lambda: composer.showing_templates, timeout=5000)
    assert OPTED_OUT_MARK in window.inbox.thread_header.text()
    assert "Opted out of marketing" in window.inbox.details.marketing_label.text()
    assert "service replies still go" in window.inbox.details.marketing_label.text()
    items = _items(composer)
    assert [text.split(" ")[0] for text, enabled, _ in items if enabled] == ["order_shipped"]
    greyed = {text.split(" ")[0]: why for text, enabled, why in items if not enabled}
    assert greyed["we_miss_you"] == "marketing, and this customer opted out of marketing"
    assert composer.send_template_button.isEnabled()
    ana = next(item for item in window.inbox.conversations.items if item.id == 1)
    assert window.inbox.conversations.display_text(ana).endswith(", opted out of marketing")
    # Another customer, who did not opt out, gets the marketing template back.
    _select(qtbot, window, 2)
    qtbot.waitUntil(lambda: OPTED_OUT_MARK not in window.inbox.thread_header.text(), timeout=5000)
    assert [text.split(" ")[0] for text, enabled, _ in _items(composer) if enabled] == [
        "order_shipped",
        "we_miss_you",
    ]
    assert window.inbox.details.marketing_label.text() == "allowed (no opt-out)"


def test_nothing_to_send_when_no_template_is_usable(qtbot: Any) -> None:
    composer = Composer(None, None)
    qtbot.addWidget(composer)
    composer.set_conversation(5, NOW - timedelta(hours=3))
    composer.set_templates(
        [
            TemplateInfo("we_miss_you", "en", "Hi {{1}}", ("name",), category="MARKETING"),
            TemplateInfo("black_friday", "en", "Hi {{1}}", ("name",), status="PAUSED", category="MARKETING"),
        ]
    )
    assert composer.send_template_button.isEnabled()
    composer.set_marketing_allowed(False)
    assert composer.template_box.currentIndex() == -1
    assert not composer.send_template_button.isEnabled()
    assert composer.parameter_fields == []
    composer.set_marketing_allowed(True)
    assert composer.send_template_button.isEnabled()


def test_the_health_tab_shows_quality_and_tier_and_warns_when_the_rating_drops(
    qtbot: Any, window: MainWindow, backend: MetaAwareBackend
) -> None:
    health = window.health
    qtbot.waitUntil(lambda: health.metrics is not None, timeout=5000)
    assert health.quality_label.text() == "High (green)"
    assert health.tier_label.text() == "2,000 customers a day (TIER_2K)"
    assert not health.quality_warning.isVisible()
    assert "green" in health.health_history_label.text()
    backend.metrics = _metrics(
        quality_rating={"rating": "YELLOW", "dropped": True, "updated_at": _time(NOW)},
        messaging_tier={"tier": "TIER_250", "limit": 250, "set_by_hand": False},
    )
    messages: list[str] = []
    health.status_message.connect(messages.append)
    health.add_events([Event(seq=9, type=NUMBER_HEALTH_CHANGED, at=NOW)])
    qtbot.waitUntil(lambda: health.quality_label.text() == "Medium (yellow)", timeout=5000)
    window.tabs.setCurrentWidget(health)
    assert health.quality_warning.isVisible()
    assert "dropped to Medium (yellow)" in health.quality_warning.text()
    assert health.tier_label.text() == "250 customers a day (TIER_250)"
    assert any("dropped" in message for message in messages)


def test_a_tier_set_by_hand_says_so() -> None:
    metrics = Metrics.from_json(
        _metrics(messaging_tier={"tier": "TIER_250", "limit": 100000, "set_by_hand": True})
    )
    assert tier_text(metrics.messaging_tier, metrics.messaging_limit, set_by_hand=True) == (
        "100,000 customers a day (set by hand; Meta says TIER_250)"
    )
    assert quality_warning_text(metrics) == ""
    assert (
        template_unavailable_reason(
            TemplateInfo("x", "en", "", (), status="DISABLED"), marketing_allowed=True
        )
        == "disabled by Meta"
    )
