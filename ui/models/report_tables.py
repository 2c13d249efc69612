"""Table models of the Reports tab: one row per agent or per purpose, sortable by each column."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ui.api.reports import AgentRow, Percentiles, PurposeRow
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.presentation import number_text

AnyIndex = QModelIndex | QPersistentModelIndex
# The number behind a cell, for sorting (durations by seconds, not by their text).
SortRole = Qt.ItemDataRole.UserRole + 1
Cell = tuple[str, float]


def duration_text(seconds: int | None) -> str:
    """Seconds as a person reads them: 45 s, 12 min, 3 h 20 min, 2 d 4 h; a dash when unmeasured."""
    if seconds is None:
        return "—"
    if seconds < 60:
        return translate("ReportTableModel", "{count} s").format(count=number_text(seconds))
    minutes = seconds // 60
    if minutes < 60:
        return translate("ReportTableModel", "{count} min").format(count=number_text(minutes))
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        if minutes:
            return translate("ReportTableModel", "{hours} h {minutes} min").format(
                hours=number_text(hours), minutes=number_text(minutes)
            )
        return translate("ReportTableModel", "{count} h").format(count=number_text(hours))
    days, hours = divmod(hours, 24)
    if hours:
        return translate("ReportTableModel", "{days} d {hours} h").format(
            days=number_text(days), hours=number_text(hours)
        )
    return translate("ReportTableModel", "{count} d").format(count=number_text(days))


def _count(value: int) -> Cell:
    return (number_text(value), float(value))


def _duration(value: int | None) -> Cell:
    return (duration_text(value), float("inf") if value is None else float(value))


def _percentiles(value: Percentiles) -> list[Cell]:
    return [_duration(value.p50), _duration(value.p90)]


class ReportTableModel(QAbstractTableModel):
    """Rows of text cells under fixed headers; customer-free text, shown as plain text by the view."""

    def __init__(self, headers: Sequence[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._headers = tuple(headers)
        self._rows: list[list[Cell]] = []

    def set_rows(self, rows: list[list[Cell]]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's default argument)
        """Rows under the root; none under a row."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        """One column per header."""
        return 0 if parent.isValid() else len(self._headers)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """A cell's text, its number for sorting, numbers right-aligned."""
        if not index.isValid() or index.row() >= len(self._rows) or index.column() >= len(self._headers):
            return None
        text, number = self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == SortRole:
            return number if index.column() else text.casefold()
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column():
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """The column titles."""
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._headers):
            return translate("ReportTableModel", self._headers[section])
        if orientation == Qt.Orientation.Vertical and 0 <= section < len(self._rows):
            return str(section + 1)
        return None

    def cell_text(self, row: int, column: int) -> str:
        """The text shown in one cell."""
        return self._rows[row][column][0]


AGENT_HEADERS = (
    QT_TRANSLATE_NOOP("ReportTableModel", "Person"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Replies"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Resolved"),
    QT_TRANSLATE_NOOP("ReportTableModel", "First response (median)"),
    QT_TRANSLATE_NOOP("ReportTableModel", "First response (90 %)"),
)
PURPOSE_HEADERS = (
    QT_TRANSLATE_NOOP("ReportTableModel", "Purpose"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Sent"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Delivered"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Read"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Failed"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Unknown"),
    QT_TRANSLATE_NOOP("ReportTableModel", "Replied"),
)


def agent_rows(agents: Sequence[AgentRow]) -> list[list[Cell]]:
    """The agents table's rows."""
    return [
        [
            (agent.user, 0.0),
            _count(agent.replies),
            _count(agent.conversations_resolved),
            *_percentiles(agent.first_response),
        ]
        for agent in agents
    ]


def purpose_rows(purposes: Sequence[PurposeRow]) -> list[list[Cell]]:
    """The purposes table's rows."""
    return [
        [
            (row.purpose, 0.0),
            _count(row.sent),
            _count(row.delivered),
            _count(row.read),
            _count(row.failed),
            _count(row.unknown),
            _count(row.replied),
        ]
        for row in purposes
    ]
