"""The summary report as CSV, one file a section, for spreadsheets."""

from __future__ import annotations

import csv
import io
from typing import Any

SECTIONS = ("buckets", "agents", "purposes")
# Excel reads a file as UTF-8 only when it starts with a byte order mark.
BYTE_ORDER_MARK = "\ufeff"
# A cell starting with one of these is a formula to a spreadsheet; a quote mark keeps it text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

_COLUMNS: dict[str, tuple[str, ...]] = {
    "buckets": (
        "start",
        "inbound",
        "outbound",
        "conversations_opened",
        "conversations_resolved",
        "first_response_p50_seconds",
        "first_response_p90_seconds",
        "resolution_p50_seconds",
        "resolution_p90_seconds",
    ),
    "agents": (
        "user",
        "replies",
        "conversations_resolved",
        "first_response_p50_seconds",
        "first_response_p90_seconds",
    ),
    "purposes": ("purpose", "sent", "delivered", "read", "failed", "unknown", "replied"),
}


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    """Nested {"p50", "p90"} measures as columns of their own."""
    flat: dict[str, Any] = {}
    for name, value in row.items():
        if isinstance(value, dict):
            prefix = name.removesuffix("_seconds")
            for key, inner in value.items():
                flat[f"{prefix}_{key}_seconds"] = inner
        else:
            flat[name] = value
    return flat


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return str(value)


def report_csv(report: dict[str, Any], section: str) -> str:
    """One section of the report: a header row, then a row per bucket, agent or purpose."""
    columns = _COLUMNS[section]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    for row in report[section]:
        flat = _flat(row)
        writer.writerow([_cell(flat.get(name)) for name in columns])
    return BYTE_ORDER_MARK + buffer.getvalue()
