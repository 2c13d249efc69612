"""The summary report: volume and response times per period, per agent and per business purpose.

First response: from a customer message nobody had answered yet (the earliest since the previous
reply by a person in the conversation) to the next reply by a person (an outbox row of origin
`agent`), counted in the period of the reply. Resolution: from the first customer message after the
conversation's previous resolution to its resolution, counted in the period of the resolution.
The range is widened to whole periods of the report's time zone, so every bucket is complete.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Integer, and_, case, func, literal, or_, select, union_all
from sqlalchemy.orm import Session, aliased

from backend.database.models import (
    Conversation,
    ConversationStatusChange,
    InboundMessage,
    OutboxMessage,
    User,
)
from backend.domain import states
from backend.domain.origins import ORIGIN_AGENT
from backend.domain.statistics import percentile

DAY = "day"
HOUR = "hour"
BUCKETS = (DAY, HOUR)
DEFAULT_DAYS = 7
MAX_RANGE = timedelta(days=400)
RESOLVED = "resolved"
OPEN = "open"
# SQLite allows 500 terms in one compound SELECT.
_BUCKETS_PER_QUERY = 250

# Delivery outcomes of business messages, cumulative along the state's rank (a read message was
# also delivered and sent).
_SENT_STATES = (states.SENT, states.DELIVERED, states.READ)
_DELIVERED_STATES = (states.DELIVERED, states.READ)


class ReportError(ValueError):
    """A report that cannot be made as asked; `code` is the API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ReportRange:
    """The periods of one report: bucket starts in UTC, the end of the last one, and the time zone."""

    bucket: str
    zone: ZoneInfo
    starts: tuple[datetime, ...]
    end: datetime

    @property
    def start(self) -> datetime:
        """The start of the first period."""
        return self.starts[0]

    def index_of(self, moment: datetime) -> int:
        """The bucket a moment inside the range falls in."""
        low, high = 0, len(self.starts) - 1
        while low < high:  # the last start not after the moment
            middle = (low + high + 1) // 2
            if self.starts[middle] <= moment:
                low = middle
            else:
                high = middle - 1
        return low


def zone_named(name: str | None) -> ZoneInfo:
    """The IANA time zone (UTC when absent), or ReportError."""
    if name is None or name == "":
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ReportError(
            "invalid_parameter", "tz must be an IANA time zone such as Europe/Berlin."
        ) from None


def parse_moment(name: str, raw: str, zone: ZoneInfo) -> datetime:
    """An ISO 8601 date or time; one without a zone is read in the report's time zone."""
    try:
        moment = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        raise ReportError("invalid_parameter", f"{name} must be an ISO 8601 date or time.") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ReportError("invalid_range", f"{name} is out of range.") from None


def report_range(
    start: datetime | None, end: datetime | None, bucket: str, zone: ZoneInfo, now: datetime
) -> ReportRange:
    """The whole periods covering [start, end): by default the last 7 days; at most 400 days."""
    if bucket not in BUCKETS:
        raise ReportError("invalid_parameter", "bucket must be day or hour.")
    end = end or now
    start = start or end - timedelta(days=DEFAULT_DAYS)
    if start >= end:
        raise ReportError("invalid_range", "from must be before to.")
    if end - start > MAX_RANGE:
        raise ReportError("invalid_range", "A report covers at most 400 days.")
    try:
        starts = _day_starts(start, end, zone) if bucket == DAY else _hour_starts(start, end, zone)
    except OverflowError:
        raise ReportError("invalid_range", "The range is out of the representable years.") from None
    return ReportRange(bucket=bucket, zone=zone, starts=tuple(starts[:-1]), end=starts[-1])


def _day_starts(start: datetime, end: datetime, zone: ZoneInfo) -> list[datetime]:
    """Local midnights from the one starting `start`'s day to the first at or after `end`."""
    day = start.astimezone(zone).date()
    starts: list[datetime] = []
    while True:
        # Local midnight, so a day of a DST change lasts 23 or 25 hours.
        moment = datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
        starts.append(moment)
        if moment >= end and len(starts) > 1:
            return starts
        day += timedelta(days=1)


def _hour_starts(start: datetime, end: datetime, zone: ZoneInfo) -> list[datetime]:
    """Local hour starts from the one holding `start` to the first at or after `end`."""
    first = start.astimezone(zone).replace(minute=0, second=0, microsecond=0).astimezone(UTC)
    starts = [first]
    while starts[-1] < end or len(starts) == 1:
        starts.append(starts[-1] + timedelta(hours=1))
    return starts


def _seconds(values_: list[float]) -> dict[str, int | None]:
    ordered = sorted(values_)
    p50, p90 = percentile(ordered, 0.5), percentile(ordered, 0.9)
    return {"p50": None if p50 is None else round(p50), "p90": None if p90 is None else round(p90)}


def _counts_per_bucket(
    session: Session, span: ReportRange, timed: Any, where: Iterable[Any] = ()
) -> list[int]:
    """How many rows have `timed` in each bucket: an indexed range count per bucket, many per query."""
    ends = [*span.starts[1:], span.end]
    table = timed.class_
    counts: list[int] = []
    for first in range(0, len(span.starts), _BUCKETS_PER_QUERY):
        selects = [
            select(
                literal(position, Integer).label("position"),
                select(func.count())
                .select_from(table)
                .where(timed >= span.starts[position], timed < ends[position], *where)
                .scalar_subquery()
                .label("found"),
            )
            for position in range(first, min(first + _BUCKETS_PER_QUERY, len(span.starts)))
        ]
        found: dict[int, int] = {row[0]: row[1] for row in session.execute(union_all(*selects))}
        counts += [int(found[position]) for position in range(first, first + len(selects))]
    return counts


def _first_responses(session: Session, span: ReportRange) -> list[tuple[datetime, int | None, datetime]]:
    """(reply time, replier, the waiting customer message's time) of each first response in the range."""
    reply = aliased(OutboxMessage, name="reply")
    earlier = aliased(OutboxMessage, name="earlier")
    previous_reply = (
        select(func.max(earlier.created_at))
        .where(
            earlier.conversation_id == reply.conversation_id,
            earlier.origin == ORIGIN_AGENT,
            earlier.created_at < reply.created_at,
        )
        .correlate(reply)
        .scalar_subquery()
    )
    waiting_since = (
        select(func.min(InboundMessage.received_at))
        .where(
            InboundMessage.conversation_id == reply.conversation_id,
            InboundMessage.received_at <= reply.created_at,
            or_(previous_reply.is_(None), InboundMessage.received_at > previous_reply),
        )
        .scalar_subquery()
    )
    rows = session.execute(
        select(reply.created_at, reply.created_by, waiting_since).where(
            reply.origin == ORIGIN_AGENT,
            reply.created_at >= span.start,
            reply.created_at < span.end,
            reply.conversation_id.is_not(None),
        )
    )
    return [(replied, user, since) for replied, user, since in rows if since is not None]


def _resolutions(session: Session, span: ReportRange) -> list[tuple[datetime, int | None, datetime | None]]:
    """(resolution time, resolver, the first customer message since the previous resolution)."""
    change = aliased(ConversationStatusChange, name="change")
    earlier = aliased(ConversationStatusChange, name="earlier")
    previous_resolution = (
        select(func.max(earlier.at))
        .where(
            earlier.conversation_id == change.conversation_id,
            earlier.status == RESOLVED,
            earlier.at < change.at,
        )
        .correlate(change)
        .scalar_subquery()
    )
    first_message = (
        select(func.min(InboundMessage.received_at))
        .where(
            InboundMessage.conversation_id == change.conversation_id,
            InboundMessage.received_at <= change.at,
            or_(previous_resolution.is_(None), InboundMessage.received_at > previous_resolution),
        )
        .scalar_subquery()
    )
    rows = session.execute(
        select(change.at, change.user_id, first_message).where(
            change.status == RESOLVED,
            change.previous_status != RESOLVED,
            change.at >= span.start,
            change.at < span.end,
        )
    )
    return list(rows)


def _purposes(session: Session, span: ReportRange) -> list[dict[str, Any]]:
    """Outcomes of the messages queued in the range, per purpose; replied: a customer quoted it."""
    replied = select(InboundMessage.id).where(InboundMessage.reply_to_message_id == OutboxMessage.id).exists()

    def tally(condition: Any) -> Any:
        return func.sum(case((condition, 1), else_=0))

    rows = session.execute(
        select(
            OutboxMessage.purpose,
            tally(OutboxMessage.state.in_(_SENT_STATES)),
            tally(OutboxMessage.state.in_(_DELIVERED_STATES)),
            tally(OutboxMessage.state == states.READ),
            tally(OutboxMessage.state == states.FAILED),
            tally(OutboxMessage.state == states.UNKNOWN),
            tally(replied),
        )
        .where(OutboxMessage.created_at >= span.start, OutboxMessage.created_at < span.end)
        .group_by(OutboxMessage.purpose)
        .order_by(OutboxMessage.purpose)
    )
    names = ("sent", "delivered", "read", "failed", "unknown", "replied")
    return [
        {"purpose": purpose, **{name: int(value or 0) for name, value in zip(names, counts, strict=True)}}
        for purpose, *counts in rows
    ]


def summary(session: Session, span: ReportRange) -> dict[str, Any]:
    """The report: buckets (empty ones with zeros), agents and purposes."""
    size = len(span.starts)
    inbound = _counts_per_bucket(session, span, InboundMessage.received_at)
    outbound = _counts_per_bucket(session, span, OutboxMessage.created_at)
    created = _counts_per_bucket(session, span, Conversation.created_at)
    reopened = _counts_per_bucket(
        session,
        span,
        ConversationStatusChange.at,
        (ConversationStatusChange.previous_status == RESOLVED, ConversationStatusChange.status == OPEN),
    )
    first_by_bucket: list[list[float]] = [[] for _ in range(size)]
    first_by_user: dict[int, list[float]] = defaultdict(list)
    for replied, user_id, since in _first_responses(session, span):
        wait = max(0.0, (replied - since).total_seconds())
        first_by_bucket[span.index_of(replied)].append(wait)
        if user_id is not None:
            first_by_user[user_id].append(wait)
    resolved = [0] * size
    resolution_by_bucket: list[list[float]] = [[] for _ in range(size)]
    resolved_by_user: dict[int, int] = defaultdict(int)
    for resolved_at, resolver, first_message in _resolutions(session, span):
        position = span.index_of(resolved_at)
        resolved[position] += 1
        if first_message is not None:
            resolution_by_bucket[position].append(max(0.0, (resolved_at - first_message).total_seconds()))
        if resolver is not None:
            resolved_by_user[resolver] += 1
    buckets = [
        {
            "start": start.astimezone(span.zone).isoformat(),
            "inbound": inbound[position],
            "outbound": outbound[position],
            "conversations_opened": created[position] + reopened[position],
            "conversations_resolved": resolved[position],
            "first_response_seconds": _seconds(first_by_bucket[position]),
            "resolution_seconds": _seconds(resolution_by_bucket[position]),
        }
        for position, start in enumerate(span.starts)
    ]
    return {
        "buckets": buckets,
        "agents": _agents(session, span, first_by_user, resolved_by_user),
        "purposes": _purposes(session, span),
    }


def _agents(
    session: Session,
    span: ReportRange,
    first_by_user: dict[int, list[float]],
    resolved_by_user: dict[int, int],
) -> list[dict[str, Any]]:
    """Every enabled user, and any other who worked in the range, by name."""
    replies = dict(
        session.execute(
            select(OutboxMessage.created_by, func.count())
            .where(
                OutboxMessage.origin == ORIGIN_AGENT,
                OutboxMessage.created_at >= span.start,
                OutboxMessage.created_at < span.end,
                OutboxMessage.created_by.is_not(None),
            )
            .group_by(OutboxMessage.created_by)
        ).all()
    )
    active = set(replies) | set(resolved_by_user) | set(first_by_user)
    users = session.execute(
        select(User.id, User.name)
        .where(or_(and_(User.disabled.is_(False)), User.id.in_(active)))
        .order_by(User.name)
    )
    return [
        {
            "user": name,
            "replies": int(replies.get(user_id, 0)),
            "conversations_resolved": resolved_by_user.get(user_id, 0),
            "first_response_seconds": _seconds(first_by_user.get(user_id, [])),
        }
        for user_id, name in users
    ]
