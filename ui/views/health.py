"""The health tab: the five measures, queue depth by state, and charts of delivery gap and send rate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial

from PySide6.QtCharts import QChart, QChartView, QDateTimeAxis, QLineSeries, QScatterSeries, QValueAxis
from PySide6.QtCore import QDateTime, QMargins, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ui.api.client import ApiClient
from ui.api.resources import NUMBER_HEALTH_CHANGED, OUTBOUND_STATES, Event, Metrics
from ui.health import HealthHistory, Point, load_history
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.presentation import (
    health_reading_text,
    number_text,
    quality_text,
    quality_warning_text,
    state_name,
    tier_text,
)
from ui.runner import BackgroundRunner
from ui.theme import is_dark
from ui.views.plain_text import plain_label

METRICS_INTERVAL_MS = 5000
CHART_INTERVAL_MS = 2000
# Readings of the number's rating and limit listed under them, newest first.
HISTORY_SHOWN = 5
MEASURES = (
    (
        "sending_over_1m",
        QT_TRANSLATE_NOOP("HealthView", "Sending for over 1 min"),
        QT_TRANSLATE_NOOP("HealthView", "rows claimed but not answered for a minute"),
    ),
    (
        "dedupe_rejections",
        QT_TRANSLATE_NOOP("HealthView", "Dedupe rejections"),
        QT_TRANSLATE_NOOP("HealthView", "second enqueues of the same business event, refused"),
    ),
    (
        "duplicate_webhooks",
        QT_TRANSLATE_NOOP("HealthView", "Duplicate webhooks"),
        QT_TRANSLATE_NOOP("HealthView", "webhook events received again and ignored"),
    ),
    (
        "unattributed_inbound",
        QT_TRANSLATE_NOOP("HealthView", "Unattributed replies"),
        QT_TRANSLATE_NOOP("HealthView", "replies waiting in the work queue"),
    ),
    (
        "gap",
        QT_TRANSLATE_NOOP("HealthView", "Sent → delivered (last hour)"),
        QT_TRANSLATE_NOOP("HealthView", "median and 95th percentile"),
    ),
    (
        "webhooks",
        QT_TRANSLATE_NOOP("HealthView", "Outgoing webhooks"),
        QT_TRANSLATE_NOOP("HealthView", "subscriptions off after 3 days of failures / deliveries waiting"),
    ),
    (
        "last_backup",
        QT_TRANSLATE_NOOP("HealthView", "Last backup"),
        QT_TRANSLATE_NOOP("HealthView", "red after two days without one (inbox db backup)"),
    ),
    (
        "free_disk",
        QT_TRANSLATE_NOOP("HealthView", "Free disk (data folder)"),
        QT_TRANSLATE_NOOP("HealthView", "red under 1 GB"),
    ),
)
# Past these the tile turns red: an office must see it before the backup or the disk is needed.
BACKUP_TOO_OLD = timedelta(days=2)
LOW_DISK_BYTES = 1_000_000_000


def backup_age_text(last_backup_at: datetime | None, now: datetime) -> str:
    """How long ago the newest backup was taken, in words."""
    if last_backup_at is None:
        return translate("HealthView", "never")
    seconds = max(0, int((now - last_backup_at).total_seconds()))
    if seconds < 3600:
        return translate("HealthView", "{count} min ago").format(count=number_text(seconds // 60))
    if seconds < 2 * 86400:
        return translate("HealthView", "{count} h ago").format(count=number_text(seconds // 3600))
    return translate("HealthView", "%n day(s) ago", None, seconds // 86400)


def disk_text(free_bytes: int | None) -> str:
    """Free bytes as a person reads them."""
    if free_bytes is None:
        return "—"
    if free_bytes >= 1_000_000_000:
        return translate("HealthView", "{size} GB").format(size=number_text(free_bytes / 1_000_000_000))
    return translate("HealthView", "{size} MB").format(size=number_text(round(free_bytes / 1_000_000)))


def _tile(title: str, hint: str) -> tuple[QFrame, QLabel]:
    frame = QFrame()
    frame.setObjectName("tile")
    value = plain_label("—")
    value.setObjectName("tileValue")
    value.setAccessibleName(title)
    caption = plain_label(title)
    caption.setObjectName("tileTitle")
    explanation = plain_label(hint)
    explanation.setObjectName("tileHint")
    explanation.setWordWrap(True)
    layout = QVBoxLayout(frame)
    layout.addWidget(caption)
    layout.addWidget(value)
    layout.addWidget(explanation)
    return frame, value


class TimeChart(QChartView):
    """A line chart over time with a date-time axis."""

    def __init__(self, title: str, unit: str, colour: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(title)
        self.viewport().setAccessibleName(title)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        chart = QChart()
        if is_dark():
            chart.setTheme(QChart.ChartTheme.ChartThemeDark)
        chart.setTitle(title)
        chart.legend().hide()
        chart.setMargins(QMargins(4, 4, 4, 4))
        chart.setBackgroundRoundness(6)
        self.line = QLineSeries()
        self.line.setPen(QPen(QColor(colour), 2))
        self.dots = QScatterSeries()
        self.dots.setMarkerSize(6)
        self.dots.setColor(QColor(colour))
        self.dots.setBorderColor(QColor(colour))
        chart.addSeries(self.line)
        chart.addSeries(self.dots)
        self.time_axis = QDateTimeAxis()
        self.time_axis.setFormat("HH:mm")
        self.time_axis.setTickCount(6)
        self.value_axis = QValueAxis()
        self.value_axis.setTitleText(unit)
        self.value_axis.setLabelFormat("%.1f")
        chart.addAxis(self.time_axis, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(self.value_axis, Qt.AlignmentFlag.AlignLeft)
        for series in (self.line, self.dots):
            series.attachAxis(self.time_axis)
            series.attachAxis(self.value_axis)
        self.setChart(chart)
        self.setMinimumHeight(220)
        self.set_points([])

    def set_points(self, points: list[Point]) -> None:
        """Replace the plotted points."""
        now = datetime.now(UTC)
        start = points[0].at if points else now - timedelta(minutes=10)
        end = max(now, points[-1].at if points else now)
        if end - start < timedelta(minutes=1):
            start = end - timedelta(minutes=1)
        values = [
            (QDateTime.fromSecsSinceEpoch(int(point.at.timestamp())).toMSecsSinceEpoch(), point.value)
            for point in points
        ]
        self.line.replace([_point(x, y) for x, y in values])
        self.dots.replace([_point(x, y) for x, y in values])
        self.time_axis.setRange(
            QDateTime.fromSecsSinceEpoch(int(start.timestamp())),
            QDateTime.fromSecsSinceEpoch(int(end.timestamp())),
        )
        self.time_axis.setFormat("HH:mm:ss" if end - start < timedelta(minutes=30) else "HH:mm")
        top = max((point.value for point in points), default=1.0)
        self.value_axis.setRange(0, max(1.0, top * 1.2))


def media_disk_use_text(metrics: Metrics) -> str:
    """`Media kept: 12 files, 3.4 MB (1 downloading, 2 could not be downloaded)`."""
    size = metrics.media_bytes
    if size >= 1024 * 1024:
        amount = translate("HealthView", "{size} MB").format(size=number_text(size / (1024 * 1024)))
    elif size >= 1024:
        amount = translate("HealthView", "{size} KB").format(size=number_text(round(size / 1024)))
    else:
        amount = translate("HealthView", "%n byte(s)", None, size)
    files = translate("HealthView", "%n file(s)", None, metrics.media_files)
    extra = []
    if metrics.media_pending:
        extra.append(
            translate("HealthView", "{count} downloading").format(count=number_text(metrics.media_pending))
        )
    if metrics.media_failed:
        extra.append(
            translate("HealthView", "{count} could not be downloaded").format(
                count=number_text(metrics.media_failed)
            )
        )
    kept = translate("HealthView", "Media kept: {files}, {size}").format(files=files, size=amount)
    return kept + (f" ({', '.join(extra)})" if extra else "")


def _point(x: float, y: float) -> QPointF:
    return QPointF(x, y)


class HealthView(QWidget):
    """Live health of sending and receiving."""

    # Something worth a line in the status bar happened.
    status_message = Signal(str)

    def __init__(
        self, api: ApiClient | None, runner: BackgroundRunner | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self.history = HealthHistory()
        self.metrics: Metrics | None = None
        self._dirty = False

        tiles = QHBoxLayout()
        self.values: dict[str, QLabel] = {}
        for name, title, hint in MEASURES:
            frame, value = _tile(translate("HealthView", title), translate("HealthView", hint))
            tiles.addWidget(frame)
            self.values[name] = value
        depth_box = QGroupBox(translate("HealthView", "Queue depth by state"))
        depth_layout = QGridLayout(depth_box)
        self.depth_labels: dict[str, QLabel] = {}
        for number, state in enumerate(OUTBOUND_STATES):
            state_label = plain_label(state_name(state))
            state_label.setObjectName("depthName")
            count = plain_label("0")
            count.setObjectName("depthValue")
            count.setAccessibleName(
                translate("HealthView", "{state} messages").format(state=state_name(state))
            )
            depth_layout.addWidget(state_label, 0, number, Qt.AlignmentFlag.AlignHCenter)
            depth_layout.addWidget(count, 1, number, Qt.AlignmentFlag.AlignHCenter)
            self.depth_labels[state] = count
        number_box = QGroupBox(translate("HealthView", "Business number (as Meta rates it)"))
        number_layout = QGridLayout(number_box)
        self.quality_label = plain_label(translate("HealthView", "not read yet"))
        self.quality_label.setAccessibleName(translate("HealthView", "Quality rating"))
        self.tier_label = plain_label("—")
        self.tier_label.setAccessibleName(translate("HealthView", "Messaging limit"))
        self.quality_warning = plain_label("")
        self.quality_warning.setObjectName("qualityWarning")
        self.quality_warning.setAccessibleName(translate("HealthView", "Quality warning"))
        self.quality_warning.setStyleSheet("color: #b91c1c; font-weight: 600;")
        self.quality_warning.setWordWrap(True)
        self.quality_warning.setVisible(False)
        self.health_history_label = plain_label("")
        self.health_history_label.setAccessibleName(translate("HealthView", "Quality and limit history"))
        self.health_history_label.setObjectName("depthName")
        number_layout.addWidget(plain_label(translate("HealthView", "Quality rating")), 0, 0)
        number_layout.addWidget(self.quality_label, 0, 1)
        number_layout.addWidget(plain_label(translate("HealthView", "Messaging limit")), 1, 0)
        number_layout.addWidget(self.tier_label, 1, 1)
        number_layout.addWidget(self.quality_warning, 2, 0, 1, 2)
        number_layout.addWidget(self.health_history_label, 3, 0, 1, 2)
        number_layout.setColumnStretch(1, 1)
        self.gap_chart = TimeChart(
            translate("HealthView", "Sent → delivered gap (median per interval)"),
            translate("HealthView", "seconds"),
            "#0ea5e9",
        )
        self.rate_chart = TimeChart(
            translate("HealthView", "Send rate"),
            translate("HealthView", "messages / minute"),
            "#16a34a",
        )
        charts = QHBoxLayout()
        charts.addWidget(self.gap_chart)
        charts.addWidget(self.rate_chart)
        # Disk use of customers' photos, voice notes and documents kept in the data folder.
        self.media_label = plain_label(translate("HealthView", "Media kept: none yet"))
        self.media_label.setObjectName("mediaDiskUse")
        layout = QVBoxLayout(self)
        layout.addLayout(tiles)
        layout.addWidget(depth_box)
        layout.addWidget(self.media_label)
        layout.addWidget(number_box)
        layout.addLayout(charts, 1)

        self._metrics_timer = QTimer(self)
        self._metrics_timer.setInterval(METRICS_INTERVAL_MS)
        self._metrics_timer.timeout.connect(self.refresh_metrics)
        self._chart_timer = QTimer(self)
        self._chart_timer.setInterval(CHART_INTERVAL_MS)
        self._chart_timer.timeout.connect(self._redraw_if_dirty)

    def start(self, latest_seq: int | None = None) -> None:
        """Begin polling metrics, and load recent history once the journal's end is known."""
        self.refresh_metrics()
        self._metrics_timer.start()
        self._chart_timer.start()
        if latest_seq is not None:
            self.load_history(latest_seq)

    def load_history(self, latest_seq: int) -> None:
        """Fold the journal's recent events into the charts."""
        if self._api is not None and self._runner is not None:
            self._runner.submit(partial(load_history, self._api, latest_seq), self.add_events)

    def refresh_metrics(self) -> None:
        """Ask the backend for the measures now."""
        if self._api is not None and self._runner is not None:
            self._runner.submit(self._api.metrics, self.show_metrics, self._metrics_failed)

    def show_metrics(self, metrics: Metrics) -> None:
        """Show the measures and queue depth."""
        self.metrics = metrics
        self.values["sending_over_1m"].setText(str(metrics.sending_over_1m))
        self.values["sending_over_1m"].setProperty("alert", metrics.sending_over_1m > 0)
        self.values["dedupe_rejections"].setText(str(metrics.dedupe_rejections))
        self.values["duplicate_webhooks"].setText(str(metrics.duplicate_webhooks))
        self.values["unattributed_inbound"].setText(str(metrics.unattributed_inbound))
        self.media_label.setText(media_disk_use_text(metrics))
        p50, p95 = metrics.sent_to_delivered_p50, metrics.sent_to_delivered_p95
        self.values["gap"].setText(
            "—"
            if p50 is None
            else translate("HealthView", "{p50} s / {p95} s").format(
                p50=number_text(p50), p95=number_text(p95 or 0.0)
            )
        )
        disabled = metrics.webhook_subscriptions_disabled
        self.values["webhooks"].setText(
            translate("HealthView", "{disabled} off / {waiting}").format(
                disabled=number_text(disabled), waiting=number_text(metrics.outgoing_deliveries_pending)
            )
        )
        self.values["webhooks"].setProperty("alert", disabled > 0)
        moment = datetime.now(UTC)
        self.values["last_backup"].setText(backup_age_text(metrics.last_backup_at, moment))
        self.values["last_backup"].setProperty(
            "alert", metrics.last_backup_at is None or moment - metrics.last_backup_at > BACKUP_TOO_OLD
        )
        self.values["free_disk"].setText(disk_text(metrics.data_folder_free_bytes))
        self.values["free_disk"].setProperty(
            "alert",
            metrics.data_folder_free_bytes is not None and metrics.data_folder_free_bytes < LOW_DISK_BYTES,
        )
        for state, label in self.depth_labels.items():
            label.setText(str(metrics.queue_depth.get(state, 0)))
        self._show_number_health(metrics)
        for label in self.values.values():
            label.style().unpolish(label)
            label.style().polish(label)

    def _show_number_health(self, metrics: Metrics) -> None:
        self.quality_label.setText(quality_text(metrics.quality_rating))
        self.tier_label.setText(
            tier_text(metrics.messaging_tier, metrics.messaging_limit, set_by_hand=metrics.tier_set_by_hand)
        )
        warning = quality_warning_text(metrics)
        if warning and warning != self.quality_warning.text():
            self.status_message.emit(warning)
        self.quality_warning.setText(warning)
        self.quality_warning.setVisible(bool(warning))
        now = datetime.now(UTC)
        self.health_history_label.setText(
            "  ·  ".join(
                health_reading_text(reading, now) for reading in metrics.health_history[:HISTORY_SHOWN]
            )
        )

    def _metrics_failed(self, error: Exception) -> None:
        self.status_message.emit(
            translate("HealthView", "Health measures unavailable: {reason}").format(reason=error)
        )

    def add_events(self, events: list[Event]) -> None:
        """Fold new events into the charts (redrawn at most every two seconds)."""
        self.history.add(events)
        self._dirty = True
        if any(event.type == NUMBER_HEALTH_CHANGED for event in events):
            # Meta moved the rating or the limit: show it now, not at the next poll.
            self.refresh_metrics()
        if not self._chart_timer.isActive():
            self.redraw()

    def _redraw_if_dirty(self) -> None:
        if self._dirty and self.isVisible():
            self.redraw()

    def redraw(self) -> None:
        """Plot the history now."""
        self._dirty = False
        self.gap_chart.set_points(self.history.delivery_gap())
        self.rate_chart.set_points(self.history.send_rate())
