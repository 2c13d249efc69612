"""The business number's quality rating and messaging limit as Meta last told us, and their history.

The pacer's messaging limit comes from here unless INBOX_MESSAGING_TIER was set by hand.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database import Database
from backend.database.models import NumberHealth
from backend.domain.account_events import quality_dropped, tier_limit
from backend.settings import Settings

NUMBER_HEALTH_CHANGED = "number.health_changed"
HISTORY_LIMIT = 50
# How long the sender trusts the limit it read before reading it again.
TIER_REFRESH_SECONDS = 5.0


@dataclass(frozen=True)
class Health:
    """The latest quality rating and messaging limit, and whether the rating's last move was a drop."""

    quality_rating: str | None
    messaging_tier: str | None
    quality_dropped: bool
    updated_at: datetime | None


def record_reading(
    session: Session,
    *,
    quality_rating: str | None,
    tier: str | None,
    source: str,
    event: str | None,
    now: datetime,
) -> tuple[str, dict[str, Any]]:
    """Store one reading; the journal entry (type, data) that tells the desks."""
    before = current_health(session)
    session.add(
        NumberHealth(
            recorded_at=now, quality_rating=quality_rating, messaging_tier=tier, source=source, event=event
        )
    )
    session.flush()
    after = current_health(session)
    return (
        NUMBER_HEALTH_CHANGED,
        {
            "quality_rating": after.quality_rating,
            "messaging_tier": after.messaging_tier,
            "previous_quality_rating": before.quality_rating,
            "previous_messaging_tier": before.messaging_tier,
            "quality_dropped": quality_dropped(before.quality_rating, after.quality_rating),
            "event": event,
        },
    )


def current_health(session: Session) -> Health:
    """The latest rating and limit (each from the latest reading that had one)."""
    ratings = session.scalars(
        select(NumberHealth.quality_rating)
        .where(NumberHealth.quality_rating.is_not(None))
        .order_by(NumberHealth.recorded_at.desc(), NumberHealth.id.desc())
        .limit(2)
    ).all()
    latest = session.execute(
        select(NumberHealth.messaging_tier, NumberHealth.recorded_at)
        .where(NumberHealth.messaging_tier.is_not(None))
        .order_by(NumberHealth.recorded_at.desc(), NumberHealth.id.desc())
        .limit(1)
    ).first()
    updated_at = session.scalar(
        select(NumberHealth.recorded_at)
        .order_by(NumberHealth.recorded_at.desc(), NumberHealth.id.desc())
        .limit(1)
    )
    return Health(
        quality_rating=ratings[0] if ratings else None,
        messaging_tier=latest.messaging_tier if latest is not None else None,
        quality_dropped=len(ratings) == 2 and quality_dropped(ratings[1], ratings[0]),
        updated_at=updated_at,
    )


def health_history(session: Session, limit: int = HISTORY_LIMIT) -> list[NumberHealth]:
    """The latest readings, newest first."""
    return list(
        session.scalars(
            select(NumberHealth)
            .order_by(NumberHealth.recorded_at.desc(), NumberHealth.id.desc())
            .limit(limit)
        )
    )


def effective_tier_limit(session: Session, settings: Settings) -> int | None:
    """The messaging limit the pacer keeps: the hand-set one, else Meta's latest (None: no limit)."""
    if settings.messaging_tier_set:
        return settings.messaging_tier
    known, limit = tier_limit(current_health(session).messaging_tier)
    return limit if known else settings.messaging_tier


class TierSource:
    """The sender's view of the messaging limit, read again every few seconds (every process agrees)."""

    def __init__(
        self, database: Database, settings: Settings, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._database = database
        self._settings = settings
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._read_at: float | None = None
        self._limit: int | None = settings.messaging_tier

    def limit(self, session: Session) -> int | None:
        """The limit now, read in `session` when the last read is older than a few seconds."""
        if self._settings.messaging_tier_set:
            return self._settings.messaging_tier
        with self._lock:
            moment = self._monotonic()
            if self._read_at is None or moment - self._read_at >= TIER_REFRESH_SECONDS:
                self._limit = effective_tier_limit(session, self._settings)
                self._read_at = moment
            return self._limit
