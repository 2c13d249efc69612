"""The Reports tab (supervisors): a range, charts of volume and response time, tables, Export CSV."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import partial
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from PySide6.QtCharts import (
    QBarCategoryAxis,
    QBarSeries,
    QBarSet,
    QChart,
    QChartView,
    QLineSeries,
    QValueAxis,
)
from PySide6.QtCore import QDate, QLocale, QMargins, QPointF, QSortFilterProxyModel, Qt, QTimeZone, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QMenu,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient
from ui.api.reports import CSV_SECTIONS, DAY, HOUR, Report, ReportBucket
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.models.report_tables import (
    AGENT_HEADERS,
    PURPOSE_HEADERS,
    ReportTableModel,
    SortRole,
    agent_rows,
    purpose_rows,
)
from ui.presentation import number_text
from ui.runner import BackgroundRunner
from ui.theme import is_dark
from ui.views.plain_text import plain_label

TODAY = QT_TRANSLATE_NOOP("ReportsView", "Today")
YESTERDAY = QT_TRANSLATE_NOOP("ReportsView", "Yesterday")
LAST_7_DAYS = QT_TRANSLATE_NOOP("ReportsView", "Last 7 days")
LAST_30_DAYS = QT_TRANSLATE_NOOP("ReportsView", "Last 30 days")
THIS_MONTH = QT_TRANSLATE_NOOP("ReportsView", "This month")
CUSTOM = QT_TRANSLATE_NOOP("ReportsView", "Custom range")
PRESETS = (TODAY, YESTERDAY, LAST_7_DAYS, LAST_30_DAYS, THIS_MONTH, CUSTOM)
DEFAULT_PRESET = LAST_7_DAYS
SECTION_TITLES = {
    "buckets": QT_TRANSLATE_NOOP("ReportsView", "Days or hours"),
    "agents": QT_TRANSLATE_NOOP("ReportsView", "People"),
    "purposes": QT_TRANSLATE_NOOP("ReportsView", "Purposes"),
}
INBOUND_COLOUR = "#0ea5e9"
OUTBOUND_COLOUR = "#16a34a"
MEDIAN_COLOUR = "#f97316"
P90_COLOUR = "#a855f7"


def system_zone() -> str:
    """The computer's IANA time zone, or UTC when the system names none Python knows."""
    name = bytes(QTimeZone.systemTimeZoneId().data()).decode("ascii", "replace")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return name


@dataclass(frozen=True)
class ReportRequest:
    """What one report asks for: [start, end) in a zone, by day or hour."""

    start: datetime
    end: datetime
    bucket: str
    zone: str


def preset_days(preset: str, today: date) -> tuple[date, date]:
    """The first day and the day after the last of a preset range."""
    if preset == TODAY:
        return today, today + timedelta(days=1)
    if preset == YESTERDAY:
        return today - timedelta(days=1), today
    if preset == LAST_30_DAYS:
        return today - timedelta(days=29), today + timedelta(days=1)
    if preset == THIS_MONTH:
        return today.replace(day=1), today + timedelta(days=1)
    return today - timedelta(days=6), today + timedelta(days=1)


def _download_csv(api: ApiClient, request: ReportRequest, section: str, path: Path) -> Path:
    """Runs on a worker thread: fetch one CSV section and save it where the user chose."""
    text = api.report_csv(request.start, request.end, request.bucket, request.zone, section)
    # With its byte order mark again, so spreadsheets read it as UTF-8.
    path.write_text(text, encoding="utf-8-sig", newline="")
    return path


def _bucket_labels(buckets: tuple[ReportBucket, ...], by: str, zone: ZoneInfo) -> list[str]:
    """A unique label per period: the day, or the hour (with its day when the range holds several)."""
    starts = [bucket.start.astimezone(zone) for bucket in buckets]
    if by != HOUR:
        month_format = translate("presentation", "d MMM", "date format")
        return [
            QLocale().toString(QDate(start.year, start.month, start.day), month_format) for start in starts
        ]
    several_days = len({start.date() for start in starts}) > 1
    labels = [start.strftime("%a %H:00" if several_days else "%H:00") for start in starts]
    # A DST change repeats an hour: number the repeats so none is dropped.
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return unique


class ReportsView(QWidget):
    """Volume, first responses and resolutions over a range, per person and per purpose."""

    # Something worth a line in the status bar happened.
    status_message = Signal(str)
    # A report arrived and is shown.
    report_shown = Signal()
    # A CSV section was saved: the file.
    csv_saved = Signal(str)

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        parent: QWidget | None = None,
        *,
        zone: str | None = None,
        today: date | None = None,
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self.zone = zone or system_zone()
        self._today = today
        self.report: Report | None = None
        self.shown_request: ReportRequest | None = None
        self._generation = 0

        self.preset = QComboBox()
        self.preset.setAccessibleName(translate("ReportsView", "Report range"))
        for preset in PRESETS:
            self.preset.addItem(translate("ReportsView", preset), preset)
        self.preset.setCurrentIndex(self.preset.findData(DEFAULT_PRESET))
        self.start_edit = QDateEdit()
        self.start_edit.setAccessibleName(translate("ReportsView", "From day"))
        self.end_edit = QDateEdit()
        self.end_edit.setAccessibleName(translate("ReportsView", "To day (included)"))
        for edit in (self.start_edit, self.end_edit):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
        self.bucket = QComboBox()
        self.bucket.setAccessibleName(translate("ReportsView", "Report periods"))
        self.bucket.addItem(translate("ReportsView", "By day"), DAY)
        self.bucket.addItem(translate("ReportsView", "By hour"), HOUR)
        self.refresh_button = QPushButton(translate("ReportsView", "Refresh"))
        self.export_button = QPushButton(translate("ReportsView", "Export CSV"))
        self.export_button.setAccessibleName(translate("ReportsView", "Export the report as CSV"))
        self.export_menu = QMenu(self.export_button)
        for section in CSV_SECTIONS:
            action = self.export_menu.addAction(translate("ReportsView", SECTION_TITLES[section]) + "…")
            action.setData(section)
        self.export_menu.triggered.connect(self._export_action)
        self.export_button.setMenu(self.export_menu)
        self.export_button.setEnabled(False)
        self.summary = plain_label("")
        self.summary.setObjectName("reportSummary")
        bar = QHBoxLayout()
        bar.addWidget(plain_label(translate("ReportsView", "Range")))
        bar.addWidget(self.preset)
        bar.addWidget(self.start_edit)
        bar.addWidget(plain_label(translate("ReportsView", "to")))
        bar.addWidget(self.end_edit)
        bar.addWidget(self.bucket)
        bar.addWidget(self.refresh_button)
        bar.addStretch(1)
        bar.addWidget(self.summary)
        bar.addWidget(self.export_button)

        self.volume_chart = QChartView()
        self.volume_chart.setAccessibleName(translate("ReportsView", "Messages per period"))
        self.response_chart = QChartView()
        self.response_chart.setAccessibleName(translate("ReportsView", "First response time per period"))
        for view in (self.volume_chart, self.response_chart):
            view.setRenderHint(QPainter.RenderHint.Antialiasing)
            # The chart's drawing surface takes the focus too: a screen reader names it as the chart.
            view.viewport().setAccessibleName(view.accessibleName())
            view.setMinimumHeight(220)
        charts = QHBoxLayout()
        charts.addWidget(self.volume_chart)
        charts.addWidget(self.response_chart)

        self.agent_model = ReportTableModel(AGENT_HEADERS, self)
        self.purpose_model = ReportTableModel(PURPOSE_HEADERS, self)
        self.agent_table = self._table(self.agent_model, "Work per person")
        self.purpose_table = self._table(self.purpose_model, "Delivery per purpose")
        agents_box = QGroupBox(translate("ReportsView", "Per person"))
        QVBoxLayout(agents_box).addWidget(self.agent_table)
        purposes_box = QGroupBox(
            translate("ReportsView", "Per purpose (business messages queued in the range)")
        )
        QVBoxLayout(purposes_box).addWidget(self.purpose_table)
        tables = QHBoxLayout()
        tables.addWidget(agents_box)
        tables.addWidget(purposes_box)

        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addLayout(charts, 3)
        layout.addLayout(tables, 2)

        self._set_dates_from_preset()
        self.preset.currentTextChanged.connect(self._preset_changed)
        self.refresh_button.clicked.connect(self.refresh)
        self.bucket.currentIndexChanged.connect(self.refresh)
        self.start_edit.dateChanged.connect(self._custom_date_changed)
        self.end_edit.dateChanged.connect(self._custom_date_changed)
        self.show_report(Report((), (), ()), None)

    def _table(self, model: ReportTableModel, name: str) -> QTableView:
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(model)
        proxy.setSortRole(SortRole)
        table = QTableView()
        table.setAccessibleName(name)
        table.setModel(proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        return table

    # -- the range ---------------------------------------------------------------------------
    def today(self) -> date:
        """Today in the report's zone."""
        return self._today or datetime.now(ZoneInfo(self.zone)).date()

    def _set_dates_from_preset(self) -> None:
        custom = self.preset.currentData() == CUSTOM
        for edit in (self.start_edit, self.end_edit):
            edit.setEnabled(custom)
        if custom:
            return
        first, after = preset_days(self.preset.currentData(), self.today())
        for edit, day in ((self.start_edit, first), (self.end_edit, after - timedelta(days=1))):
            edit.blockSignals(True)
            edit.setDate(QDate(day.year, day.month, day.day))
            edit.blockSignals(False)
        # A day or two reads best by hour; longer ranges by day.
        self.bucket.blockSignals(True)
        self.bucket.setCurrentIndex(self.bucket.findData(HOUR if (after - first).days <= 2 else DAY))
        self.bucket.blockSignals(False)

    def _preset_changed(self, _text: str) -> None:
        self._set_dates_from_preset()
        self.refresh()

    def _custom_date_changed(self, _date: QDate) -> None:
        if self.preset.currentData() == CUSTOM:
            self.refresh()

    def set_custom_range(self, first: date, last: date) -> None:
        """Choose a custom range of whole days, `last` included, and load it."""
        self.preset.blockSignals(True)
        self.preset.setCurrentIndex(self.preset.findData(CUSTOM))
        self.preset.blockSignals(False)
        self._set_dates_from_preset()
        for edit, day in ((self.start_edit, first), (self.end_edit, last)):
            edit.blockSignals(True)
            edit.setDate(QDate(day.year, day.month, day.day))
            edit.blockSignals(False)
        self.refresh()

    def current_request(self) -> ReportRequest | None:
        """The report the controls ask for, or None when the range is empty."""
        zone = ZoneInfo(self.zone)
        first = self.start_edit.date().toPython()
        last = self.end_edit.date().toPython()
        assert isinstance(first, date) and isinstance(last, date)
        if last < first:
            return None
        start = datetime.combine(first, time(0), tzinfo=zone)
        end = datetime.combine(last + timedelta(days=1), time(0), tzinfo=zone)
        return ReportRequest(start=start, end=end, bucket=str(self.bucket.currentData()), zone=self.zone)

    # -- loading -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Ask for the report the controls describe."""
        request = self.current_request()
        if request is None:
            self.status_message.emit(
                translate("ReportsView", "The report's first day is after its last day.")
            )
            return
        if self._api is None or self._runner is None:
            return
        self._generation += 1
        call = partial(_tagged_report, self._api, request, self._generation)
        self._runner.submit(call, self._report_arrived, self._report_failed)

    def _report_arrived(self, result: tuple[int, ReportRequest, Report]) -> None:
        generation, request, report = result
        if generation == self._generation:  # an older answer never replaces a newer range
            self.show_report(report, request)

    def _report_failed(self, error: Exception) -> None:
        self.status_message.emit(
            translate("ReportsView", "Report unavailable: {reason}").format(reason=error)
        )

    def show_report(self, report: Report, request: ReportRequest | None) -> None:
        """Draw a report: charts, tables, and a one-line summary."""
        self.report = report
        self.shown_request = request
        by = request.bucket if request is not None else DAY
        zone = ZoneInfo(request.zone if request is not None else self.zone)
        labels = _bucket_labels(report.buckets, by, zone)
        self.volume_chart.setChart(self._volume(report, labels))
        self.response_chart.setChart(self._responses(report, labels))
        self.agent_model.set_rows(agent_rows(report.agents))
        self.purpose_model.set_rows(purpose_rows(report.purposes))
        inbound = sum(bucket.inbound for bucket in report.buckets)
        outbound = sum(bucket.outbound for bucket in report.buckets)
        resolved = sum(bucket.conversations_resolved for bucket in report.buckets)
        self.summary.setText(
            translate("ReportsView", "{inbound} in · {outbound} out · {resolved} resolved").format(
                inbound=number_text(inbound), outbound=number_text(outbound), resolved=number_text(resolved)
            )
        )
        self.export_button.setEnabled(request is not None)
        if request is not None:
            self.report_shown.emit()

    def _volume(self, report: Report, labels: list[str]) -> QChart:
        chart = _chart(translate("ReportsView", "Messages"))
        inbound = QBarSet(translate("ReportsView", "From customers"))
        outbound = QBarSet(translate("ReportsView", "From the business"))
        inbound.setColor(QColor(INBOUND_COLOUR))
        outbound.setColor(QColor(OUTBOUND_COLOUR))
        inbound.append([float(bucket.inbound) for bucket in report.buckets])
        outbound.append([float(bucket.outbound) for bucket in report.buckets])
        series = QBarSeries()
        series.append(inbound)
        series.append(outbound)
        chart.addSeries(series)
        top = max([bucket.inbound for bucket in report.buckets] + [b.outbound for b in report.buckets] + [1])
        _axes(
            chart,
            series=[series],
            labels=labels,
            top=top,
            unit=translate("ReportsView", "messages"),
            form="%d",
        )
        return chart

    def _responses(self, report: Report, labels: list[str]) -> QChart:
        measured = [
            value
            for bucket in report.buckets
            for value in (bucket.first_response.p50, bucket.first_response.p90)
            if value is not None
        ]
        unit, size = _time_unit(max(measured, default=0))
        chart = _chart(translate("ReportsView", "First response ({unit})").format(unit=unit))
        median, slow = QLineSeries(), QLineSeries()
        median.setName(translate("ReportsView", "Median"))
        slow.setName(translate("ReportsView", "90 % within"))
        median.setPen(QPen(QColor(MEDIAN_COLOUR), 2))
        slow.setPen(QPen(QColor(P90_COLOUR), 2, Qt.PenStyle.DashLine))
        for series in (median, slow):
            series.setPointsVisible(True)  # a period alone between empty ones still shows
        for position, bucket in enumerate(report.buckets):
            for series, value in ((median, bucket.first_response.p50), (slow, bucket.first_response.p90)):
                if value is not None:  # no reply in a period: no point, rather than a false zero
                    series.append(QPointF(position, value / size))
        chart.addSeries(median)
        chart.addSeries(slow)
        top = max(1.0, max(measured, default=0) / size)
        _axes(chart, series=[median, slow], labels=labels, top=top, unit=unit, form="%.1f")
        return chart

    # -- export ----------------------------------------------------------------------------------
    def _export_action(self, action: object) -> None:
        section = getattr(action, "data", lambda: None)()
        if section in CSV_SECTIONS:
            self.export_requested(str(section))

    def export_requested(self, section: str) -> None:
        """Ask where to save one section, then save it."""
        request = self.shown_request
        if request is None:
            return
        first = request.start.date().isoformat()
        suggested = str(Path.home() / f"report-{section}-{first}.csv")
        chosen, _ = QFileDialog.getSaveFileName(
            self,
            translate("ReportsView", "Export CSV"),
            suggested,
            translate("ReportsView", "CSV files (*.csv)"),
        )
        if chosen:
            self.export_csv(section, Path(chosen))

    def export_csv(self, section: str, path: Path) -> None:
        """Save one section of the shown report's range as CSV at `path` (in the background)."""
        request = self.shown_request
        if request is None or self._api is None or self._runner is None:
            return
        call = partial(_download_csv, self._api, request, section, path)
        self._runner.submit(call, self._csv_done, self._csv_failed)

    def _csv_done(self, path: Path) -> None:
        self.status_message.emit(translate("ReportsView", "Saved {path}").format(path=path))
        self.csv_saved.emit(str(path))

    def _csv_failed(self, error: Exception) -> None:
        self.status_message.emit(
            translate("ReportsView", "Could not export the report: {reason}").format(reason=error)
        )


def _tagged_report(
    api: ApiClient, request: ReportRequest, generation: int
) -> tuple[int, ReportRequest, Report]:
    """Runs on a worker thread: the report, with the request and generation that asked for it."""
    return generation, request, api.report(request.start, request.end, request.bucket, request.zone)


def _time_unit(longest_seconds: int) -> tuple[str, int]:
    """The unit that shows the longest time as a readable number: seconds, minutes or hours."""
    if longest_seconds < 120:
        return translate("ReportsView", "seconds"), 1
    if longest_seconds < 2 * 3600:
        return translate("ReportsView", "minutes"), 60
    return translate("ReportsView", "hours"), 3600


def _chart(title: str) -> QChart:
    chart = QChart()
    if is_dark():
        chart.setTheme(QChart.ChartTheme.ChartThemeDark)
    chart.setTitle(title)
    chart.setMargins(QMargins(4, 4, 4, 4))
    chart.setBackgroundRoundness(6)
    chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
    return chart


def _axes(
    chart: QChart,
    *,
    series: list[QBarSeries] | list[QLineSeries],
    labels: list[str],
    top: float,
    unit: str,
    form: str,
) -> None:
    categories = QBarCategoryAxis()
    # Many periods: label only some, so the labels stay readable. The axis drops repeated labels,
    # so each unlabelled period gets its own run of zero-width spaces.
    step = max(1, len(labels) // 12)
    categories.append(
        [label if number % step == 0 else "\u200b" * (number + 1) for number, label in enumerate(labels)]
    )
    values = QValueAxis()
    values.setTitleText(unit)
    values.setLabelFormat(form)
    values.setRange(0, top * 1.15)
    chart.addAxis(categories, Qt.AlignmentFlag.AlignBottom)
    chart.addAxis(values, Qt.AlignmentFlag.AlignLeft)
    for item in series:
        item.attachAxis(categories)
        item.attachAxis(values)
