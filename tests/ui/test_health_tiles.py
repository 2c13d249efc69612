"""The Health tab's backup and disk tiles: red when the last backup is over two days old or disk is low."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ui.api.resources import Metrics
from ui.views.health import HealthView, backup_age_text, disk_text


def _metrics(last_backup_at: datetime | None, free: int | None) -> Metrics:
    return Metrics(
        sending_over_1m=0,
        dedupe_rejections=0,
        duplicate_webhooks=0,
        unattributed_inbound=0,
        webhook_parse_failures=0,
        sent_to_delivered_p50=None,
        sent_to_delivered_p95=None,
        last_backup_at=last_backup_at,
        data_folder_free_bytes=free,
    )


@pytest.mark.parametrize(
    "case",
    [
        (timedelta(hours=5), 40_000_000_000, "5 h ago", False, "40.0 GB", False),
        (timedelta(days=3), 40_000_000_000, "3 days ago", True, "40.0 GB", False),
        (timedelta(minutes=10), 800_000_000, "10 min ago", False, "800 MB", True),
        (None, None, "never", True, "—", False),
    ],
)
def test_tiles_say_how_old_the_backup_is_and_how_much_disk_is_left(qtbot: Any, case: tuple[Any, ...]) -> None:
    age, free, backup_text, backup_red, disk, disk_red = case
    view = HealthView(None, None)
    qtbot.addWidget(view)
    last = None if age is None else datetime.now(UTC) - age
    view.show_metrics(_metrics(last, free))
    assert view.values["last_backup"].text() == backup_text
    assert view.values["last_backup"].property("alert") is backup_red
    assert view.values["free_disk"].text() == disk
    assert view.values["free_disk"].property("alert") is disk_red


def test_the_wire_format_carries_the_backup_and_the_disk() -> None:
    body = {
        "sending_over_1m": 0,
        "dedupe_rejections": 0,
        "duplicate_webhooks": 0,
        "unattributed_inbound": 0,
        "webhook_parse_failures": 0,
        "sent_to_delivered_seconds": {"p50": None, "p95": None},
        "queue_depth": {},
        "webhook_subscriptions_disabled": 0,
        "outgoing_deliveries_pending": 0,
        "outgoing_deliveries_failed": 0,
        "last_backup_at": "2026-12-01T09:00:00Z",
        "data_folder_free_bytes": 123,
    }
    metrics = Metrics.from_json(body)
    assert metrics.last_backup_at == datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    assert metrics.data_folder_free_bytes == 123
    assert backup_age_text(None, datetime.now(UTC)) == "never"
    assert disk_text(1_500_000_000) == "1.5 GB"
