"""The summary report: volume and response times per period, per agent and per business purpose.

First response: from a customer message nobody had answered yet (the earliest since the previous
reply by a person in the conversation) to the next reply by a person (an outbox row of origin
`agent`), counted in the period of the reply. Resolution: from the first customer message after the
conversation's previous resolution to its resolution, counted in the period of the resolution.
Both waits are written with the answer (`waiting_since`, backend.inbox.waiting), so a report reads
them in one pass over the range instead of searching each conversation's history.
The range is widened to whole periods of the report's time zone, so every bucket is complete.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import and_, func, literal_column, or_, select
from sqlalchemy.orm import Session

from backend.database.models import (
    Conversation,
    ConversationStatusChange,
    InboundMessage,
    OutboxMessage,
    User,
)
from backend.database.types import epoch_seconds, epoch_slot
from backend.domain import states
from backend.domain.origins import ORIGIN_AGENT
from backend.domain.statistics import percentile
from backend.inbox.inbound import LINKED, REPLY

DAY = "day"
HOUR = "hour"
BUCKETS = (DAY, HOUR)
DEFAULT_DAYS = 7
MAX_RANGE = timedelta(days=400)
RESOLVED = "resolved"
OPEN = "open"
# Counts are grouped by the database in slots this long, then summed into buckets.
_SLOT_SECONDS = 900

# Delivery outcomes of business messages, cumulative along the state's rank (a read message was
# also delivered and sent).
_SENT_STATES = (states.SENT, states.DELIVERED, states.READ)
_DELIVERED_STATES = (states.DELIVERED, states.READ)
# Where a customer message that answers one of ours is filed: quoting it, or linked by an agent.
_PLACED_UNDER_A_MESSAGE = (REPLY, LINKED)


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

    @cached_property
    def epoch_starts(self) -> list[float]:
        """The starts in epoch seconds."""
        return [start.timestamp() for start in self.starts]

    def index_of(self, moment: float) -> int:
        """The bucket a moment inside the range (in epoch seconds) falls in."""
        return max(0, bisect_right(self.epoch_starts, moment) - 1)


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
    """How many rows have `timed` in each bucket, counted by the database per quarter hour.

    Every time zone's hours and days start on a quarter hour, so each slot lies in one bucket.
    """
    slot = epoch_slot(timed, literal_column(str(_SLOT_SECONDS)))
    rows = session.execute(
        select(slot, func.count()).where(timed >= span.start, timed < span.end, *where).group_by(slot)
    ).all()
    counts = [0] * len(span.starts)
    for number, count in rows:
        counts[span.index_of(float(number) * _SLOT_SECONDS)] += int(count)
    return counts


# (answer, who, since when the customer waited or None), all in epoch seconds.
Waits = list[tuple[float, int | None, float | None]]


def _first_responses(session: Session, span: ReportRange) -> Waits:
    """(reply, replier, the waiting customer message) of each first response in the range.

    Each reply by a person keeps the customer's first message since the reply before it
    (`waiting_since`, written with the reply), so this is one range read of an index.
    """
    rows = session.execute(
        select(
            epoch_seconds(OutboxMessage.created_at),
            OutboxMessage.created_by,
            epoch_seconds(OutboxMessage.waiting_since),
        ).where(
            OutboxMessage.origin == ORIGIN_AGENT,
            OutboxMessage.created_at >= span.start,
            OutboxMessage.created_at < span.end,
            OutboxMessage.waiting_since.is_not(None),
        )
    ).all()
    return [(float(replied), user, float(since)) for replied, user, since in rows]


def _resolutions(session: Session, span: ReportRange) -> Waits:
    """(resolution, resolver, the first customer message since the previous resolution, if any)."""
    change = ConversationStatusChange
    rows = session.execute(
        select(epoch_seconds(change.at), change.user_id, epoch_seconds(change.waiting_since)).where(
            change.status == RESOLVED,
            change.previous_status != RESOLVED,
            change.at >= span.start,
            change.at < span.end,
        )
    ).all()
    return [(float(at), user, None if since is None else float(since)) for at, user, since in rows]


def _purposes(session: Session, span: ReportRange) -> list[dict[str, Any]]:
    """Outcomes of the messages queued in the range, per purpose; replied: a customer quoted it."""
    counts: dict[str, dict[str, int]] = {}
    names = ("sent", "delivered", "read", "failed", "unknown", "replied")
    in_range = (OutboxMessage.created_at >= span.start, OutboxMessage.created_at < span.end)
    by_state = session.execute(
        select(OutboxMessage.purpose, OutboxMessage.state, func.count())
        .where(*in_range)
        .group_by(OutboxMessage.purpose, OutboxMessage.state)
    ).all()
    for purpose, state, count in by_state:
        row = counts.setdefault(purpose, dict.fromkeys(names, 0))
        row["sent"] += count if state in _SENT_STATES else 0
        row["delivered"] += count if state in _DELIVERED_STATES else 0
        row["read"] += count if state == states.READ else 0
        row["failed"] += count if state == states.FAILED else 0
        row["unknown"] += count if state == states.UNKNOWN else 0
    # Replies come after the message, so only customer messages placed under one since the range began.
    replied = session.execute(
        select(OutboxMessage.purpose, func.count(func.distinct(InboundMessage.reply_to_message_id)))
        .join(OutboxMessage, OutboxMessage.id == InboundMessage.reply_to_message_id)
        .where(
            InboundMessage.placement.in_(_PLACED_UNDER_A_MESSAGE),
            InboundMessage.received_at >= span.start,
            *in_range,
        )
        .group_by(OutboxMessage.purpose)
    ).all()
    for purpose, count in replied:
        counts.setdefault(purpose, dict.fromkeys(names, 0))["replied"] = int(count)
    return [{"purpose": purpose, **counts[purpose]} for purpose in sorted(counts)]


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
        assert since is not None  # only answers to a waiting customer are first responses
        wait = max(0.0, replied - since)
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
            resolution_by_bucket[position].append(max(0.0, resolved_at - first_message))
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
