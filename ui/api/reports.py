"""Reports: the summary's call and wire format, parsed strictly, and its CSV sections as text."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from ui.api.paths import api_path
from ui.api.resources import _Fields

R = TypeVar("R")

DAY = "day"
HOUR = "hour"
CSV_SECTIONS = ("buckets", "agents", "purposes")


@dataclass(frozen=True)
class Percentiles:
    """The median and 90th percentile of some seconds; None when nothing was measured."""

    p50: int | None
    p90: int | None

    @classmethod
    def parse(cls, fields: _Fields) -> Percentiles:
        """Read {"p50", "p90"}."""
        return cls(p50=fields.optional_integer("p50"), p90=fields.optional_integer("p90"))


@dataclass(frozen=True)
class ReportBucket:
    """One day or hour of the report."""

    start: datetime
    inbound: int
    outbound: int
    conversations_opened: int
    conversations_resolved: int
    first_response: Percentiles
    resolution: Percentiles


@dataclass(frozen=True)
class AgentRow:
    """One person's work over the range."""

    user: str
    replies: int
    conversations_resolved: int
    first_response: Percentiles


@dataclass(frozen=True)
class PurposeRow:
    """Outcomes of the business messages of one purpose queued in the range."""

    purpose: str
    sent: int
    delivered: int
    read: int
    failed: int
    unknown: int
    replied: int


@dataclass(frozen=True)
class Report:
    """`GET /v1/reports/summary`."""

    buckets: tuple[ReportBucket, ...]
    agents: tuple[AgentRow, ...]
    purposes: tuple[PurposeRow, ...]


def parse_report(body: object) -> Report:
    """Read the summary report."""
    fields = _Fields(body, "report")
    buckets = tuple(
        ReportBucket(
            start=entry.time("start"),
            inbound=entry.integer("inbound"),
            outbound=entry.integer("outbound"),
            conversations_opened=entry.integer("conversations_opened"),
            conversations_resolved=entry.integer("conversations_resolved"),
            first_response=Percentiles.parse(entry.nested("first_response_seconds")),
            resolution=Percentiles.parse(entry.nested("resolution_seconds")),
        )
        for entry in fields.entries("buckets")
    )
    agents = tuple(
        AgentRow(
            user=entry.string("user"),
            replies=entry.integer("replies"),
            conversations_resolved=entry.integer("conversations_resolved"),
            first_response=Percentiles.parse(entry.nested("first_response_seconds")),
        )
        for entry in fields.entries("agents")
    )
    purposes = tuple(
        PurposeRow(
            purpose=entry.string("purpose"),
            sent=entry.integer("sent"),
            delivered=entry.integer("delivered"),
            read=entry.integer("read"),
            failed=entry.integer("failed"),
            unknown=entry.integer("unknown"),
            replied=entry.integer("replied"),
        )
        for entry in fields.entries("purposes")
    )
    return Report(buckets=buckets, agents=agents, purposes=purposes)


def _aware(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("report ranges are aware times")
    return moment.isoformat()


def report_params(
    start: datetime, end: datetime, bucket: str, zone: str, csv_section: str | None = None
) -> dict[str, str]:
    """The query of a report over [start, end) by bucket in an IANA zone (and a CSV section)."""
    params = {"from": _aware(start), "to": _aware(end), "bucket": bucket, "tz": zone}
    if csv_section is not None:
        params.update({"format": "csv", "section": csv_section})
    return params


class ReportCalls:
    """The report calls, mixed into the API client."""

    @abstractmethod
    def _call(
        self,
        method: str,
        path: str,
        parse: Callable[[Any], R],
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
    ) -> R:
        """Send one request and parse its JSON body (the client does it)."""

    @abstractmethod
    def _get_text(self, path: str, params: Mapping[str, Any]) -> str:
        """GET a text answer (the client does it)."""

    def report(self, start: datetime, end: datetime, bucket: str, zone: str) -> Report:
        """The summary report (supervisors only)."""
        return self._call(
            "GET",
            api_path("v1", "reports", "summary"),
            parse_report,
            params=report_params(start, end, bucket, zone),
        )

    def report_csv(self, start: datetime, end: datetime, bucket: str, zone: str, section: str) -> str:
        """One section of the report as CSV text, as the server wrote it."""
        return self._get_text(
            api_path("v1", "reports", "summary"), report_params(start, end, bucket, zone, section)
        )
