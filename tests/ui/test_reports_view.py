"""The Reports tab against a real backend: range presets, charts, tables, Export CSV, supervisors only."""

from __future__ import annotations

import csv
import io
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from PySide6.QtCharts import QBarSeries, QLineSeries

from app.commands.demo import DemoStack
from tests.ui.conftest import conversation_id_for, customer_writes, send_text, wait_for_state
from ui.api.client import ApiClient
from ui.api.reports import DAY, HOUR
from ui.api.resources import Identity
from ui.models.report_tables import duration_text
from ui.runner import BackgroundRunner
from ui.views.main_window import REPORTS_TAB, MainWindow
from ui.views.reports import CUSTOM, LAST_7_DAYS, TODAY, ReportsView, preset_days

NUMBER = "+16505551234"


def _history(stack: DemoStack, api: ApiClient) -> int:
    """A customer writes; a business message is sent; the supervisor answers and resolves the conversation."""
    customer_writes(stack, NUMBER, "Hello, is my order on its way?")
    conversation_id_for(stack, NUMBER)
    key = send_text(stack, NUMBER, "Your order ships today.", purpose="order_shipped")
    wait_for_state(stack, key, {"sent", "delivered", "read"})
    conversation = conversation_id_for(stack, NUMBER)
    api.reply(conversation, f"reply-{uuid.uuid4()}", text="Tomorrow morning.", force=True)
    api.set_status(conversation, "resolved")
    return conversation


def _view(qtbot: Any, api: ApiClient | None, runner: BackgroundRunner | None) -> ReportsView:
    view = ReportsView(api, runner, zone="UTC", today=datetime.now(UTC).date())
    qtbot.addWidget(view)
    view.show()
    return view


def test_presets_choose_whole_local_days() -> None:
    today = date(2026, 12, 1)
    assert preset_days(TODAY, today) == (today, date(2026, 12, 2))
    assert preset_days(LAST_7_DAYS, today) == (date(2026, 11, 25), date(2026, 12, 2))
    assert preset_days("This month", date(2026, 12, 17)) == (date(2026, 12, 1), date(2026, 12, 18))
    assert duration_text(None) == "—"
    assert [duration_text(value) for value in (45, 720, 12_000, 180_000)] == [
        "45 s",
        "12 min",
        "3 h 20 min",
        "2 d 2 h",
    ]


def test_the_report_shows_charts_and_tables_and_exports_csv(
    qtbot: Any,
    qtmodeltester: Any,
    stack: DemoStack,
    api: ApiClient,
    runner: BackgroundRunner,
    *,
    tmp_path: Path,
) -> None:
    _history(stack, api)
    view = _view(qtbot, api, runner)
    with qtbot.waitSignal(view.report_shown, timeout=10_000):
        view.preset.setCurrentText(TODAY)
    assert view.bucket.currentData() == HOUR  # a single day reads best by hour
    request = view.shown_request
    assert request is not None and request.end - request.start == timedelta(days=1)
    report = view.report
    assert report is not None and len(report.buckets) == 24
    assert sum(bucket.inbound for bucket in report.buckets) == 1
    assert sum(bucket.outbound for bucket in report.buckets) == 2
    assert sum(bucket.conversations_resolved for bucket in report.buckets) == 1
    # Charts: bars of messages per hour, a line of first responses where there were some.
    [bars] = [series for series in view.volume_chart.chart().series() if isinstance(series, QBarSeries)]
    inbound = bars.barSets()[0]
    assert inbound.count() == 24 and sum(inbound.at(number) for number in range(24)) == 1
    lines = [series for series in view.response_chart.chart().series() if isinstance(series, QLineSeries)]
    assert [line.count() for line in lines] == [1, 1]
    # Tables: the supervisor replied once and resolved once; the business message was sent.
    qtmodeltester.check(view.agent_model)
    qtmodeltester.check(view.purpose_model)
    people = {view.agent_model.cell_text(row, 0): row for row in range(view.agent_model.rowCount())}
    dana = people[stack.user_name]
    assert [view.agent_model.cell_text(dana, column) for column in (1, 2)] == ["1", "1"]
    assert view.agent_model.cell_text(dana, 3) != "—"
    purposes = {view.purpose_model.cell_text(row, 0): row for row in range(view.purpose_model.rowCount())}
    shipped = purposes["order_shipped"]
    assert view.purpose_model.cell_text(shipped, 1) == "1"  # sent (or further)
    assert "1 in" in view.summary.text()

    # Export CSV: each section to its own file, with a header row, readable by a spreadsheet.
    target = tmp_path / "agents.csv"
    with qtbot.waitSignal(view.csv_saved, timeout=10_000):
        view.export_csv("agents", target)
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0][:3] == ["user", "replies", "conversations_resolved"]
    assert [stack.user_name, "1", "1"] == next(row for row in rows if row[0] == stack.user_name)[:3]
    buckets = tmp_path / "buckets.csv"
    with qtbot.waitSignal(view.csv_saved, timeout=10_000):
        view.export_csv("buckets", buckets)
    assert len(buckets.read_text(encoding="utf-8-sig").splitlines()) == 25  # header + 24 hours


def test_a_custom_range_by_day_has_a_bucket_per_day(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    view = _view(qtbot, api, runner)
    today = view.today()
    view.bucket.setCurrentIndex(view.bucket.findData(DAY))
    with qtbot.waitSignal(view.report_shown, timeout=10_000):
        view.set_custom_range(today - timedelta(days=9), today)
    assert view.preset.currentText() == CUSTOM and view.start_edit.isEnabled()
    assert view.report is not None and len(view.report.buckets) == 10
    assert all(bucket.inbound == 0 for bucket in view.report.buckets)  # empty days are there, zeros
    [bars] = view.volume_chart.chart().series()
    assert isinstance(bars, QBarSeries) and bars.barSets()[0].count() == 10


def test_an_empty_range_is_refused_before_asking(qtbot: Any) -> None:
    view = _view(qtbot, None, None)
    messages: list[str] = []
    view.status_message.connect(messages.append)
    view.preset.setCurrentText(CUSTOM)
    view.end_edit.setDate(view.start_edit.date().addDays(-2))
    assert view.current_request() is None
    assert messages and "after its last day" in messages[-1]
    assert not view.export_button.isEnabled()


def test_only_supervisors_see_the_reports_tab(qtbot: Any) -> None:
    window = MainWindow(None, None, live=False)
    qtbot.addWidget(window)
    assert not window.tabs.isTabVisible(REPORTS_TAB)
    window._identity_known(Identity(name="alice", role="agent"))
    assert not window.tabs.isTabVisible(REPORTS_TAB)
    window._identity_known(Identity(name="dana", role="supervisor"))
    assert window.tabs.isTabVisible(REPORTS_TAB)
    window.show_tab("reports")
    assert window.tabs.currentWidget() is window.reports
