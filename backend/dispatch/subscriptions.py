"""Webhook subscriptions and their deliveries: create, list, delete, redeliver; the caller commits."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from backend.database.models import OutgoingDelivery, WebhookSubscription
from backend.domain.outgoing_webhooks import events_problem, new_secret, url_problem
from backend.inbox.queries import iso
from backend.journal import last_seq

PENDING = "pending"
DELIVERED = "delivered"
FAILED = "failed"
DELIVERY_STATES = (PENDING, DELIVERED, FAILED)
MAX_DESCRIPTION = 500


class SubscriptionError(ValueError):
    """A subscription request that cannot be done as asked; `code` is the API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def subscription_resource(row: WebhookSubscription, *, with_secret: bool = False) -> dict[str, Any]:
    """The API's view of a subscription; the secret only when it is created."""
    resource: dict[str, Any] = {
        "id": row.id,
        "url": row.url,
        "events": list(row.events),
        "description": row.description,
        "created_at": iso(row.created_at),
        "enabled": row.enabled,
        "disabled_at": iso(row.disabled_at),
        "disabled_reason": row.disabled_reason,
    }
    if with_secret:
        resource["secret"] = row.secret
    return resource


def delivery_resource(row: OutgoingDelivery) -> dict[str, Any]:
    """The API's view of one delivery."""
    return {
        "id": row.id,
        "type": row.type,
        "seq": row.seq,
        "webhook_id": row.webhook_id,
        "attempts": row.attempts,
        "state": row.state,
        "last_status": row.last_status,
        "last_error": row.last_error,
        "next_attempt_at": iso(row.next_attempt_at) if row.state == PENDING else None,
        "created_at": iso(row.created_at),
        "delivered_at": iso(row.delivered_at),
    }


def create_subscription(
    session: Session, body: dict[str, Any], *, user_id: int, now: datetime
) -> WebhookSubscription:
    """A new subscription getting every matching event journaled from now on."""
    problem = url_problem(body.get("url")) or events_problem(body.get("events"))
    description = body.get("description")
    if (
        problem is None
        and description is not None
        and (not isinstance(description, str) or len(description) > MAX_DESCRIPTION)
    ):
        problem = f"description must be text of at most {MAX_DESCRIPTION} characters."
    unknown = set(body) - {"url", "events", "description"}
    if problem is None and unknown:
        problem = f"Unknown field(s): {', '.join(sorted(unknown))}."
    if problem is not None:
        raise SubscriptionError("invalid_subscription", problem)
    row = WebhookSubscription(
        url=body["url"],
        events=list(dict.fromkeys(body["events"])),
        description=description,
        secret=new_secret(),
        created_by=user_id,
        created_at=now,
        enabled=True,
        cursor_seq=last_seq(session),
    )
    session.add(row)
    session.flush()
    return row


def list_subscriptions(session: Session) -> list[WebhookSubscription]:
    """Every subscription, oldest first."""
    return list(session.scalars(select(WebhookSubscription).order_by(WebhookSubscription.id)))


def subscription(session: Session, subscription_id: int, *, lock: bool = False) -> WebhookSubscription:
    """One subscription, or SubscriptionError not_found."""
    query = select(WebhookSubscription).where(WebhookSubscription.id == subscription_id)
    if lock:
        query = query.with_for_update()
    row = session.scalar(query)
    if row is None:
        raise SubscriptionError("not_found", "There is no webhook subscription with this id.")
    return row


def delete_subscription(session: Session, subscription_id: int) -> None:
    """Remove a subscription and its deliveries; nothing more is sent to it."""
    row = subscription(session, subscription_id, lock=True)
    session.execute(delete(OutgoingDelivery).where(OutgoingDelivery.subscription_id == row.id))
    session.delete(row)


def list_deliveries(
    session: Session, subscription_id: int, *, before: int | None, limit: int
) -> tuple[list[OutgoingDelivery], int | None]:
    """A subscription's deliveries, newest first, and the id to continue before (None at the end)."""
    subscription(session, subscription_id)
    query = select(OutgoingDelivery).where(OutgoingDelivery.subscription_id == subscription_id)
    if before is not None:
        query = query.where(OutgoingDelivery.id < before)
    rows = list(session.scalars(query.order_by(OutgoingDelivery.id.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, rows[-1].id if more and rows else None


def redeliver(session: Session, subscription_id: int, delivery_id: int, now: datetime) -> OutgoingDelivery:
    """Send a delivery again (same webhook-id, same body) from now, with a fresh retry period.

    It goes out in seq order with the subscription's other pending deliveries; a subscription that
    was disabled for failing is enabled again, since asking for a redelivery says the endpoint is back.
    """
    owner = subscription(session, subscription_id, lock=True)
    row = session.scalar(
        select(OutgoingDelivery)
        .where(OutgoingDelivery.id == delivery_id, OutgoingDelivery.subscription_id == subscription_id)
        .with_for_update()
    )
    if row is None:
        raise SubscriptionError("not_found", "This subscription has no delivery with this id.")
    row.state = PENDING
    row.next_attempt_at = now
    row.retry_since = None
    if not owner.enabled:
        owner.enabled = True
        owner.disabled_at = None
        owner.disabled_reason = None
    session.flush()
    return row


def dispatch_measures(session: Session) -> dict[str, int]:
    """For /v1/metrics and the Health tab: disabled subscriptions, deliveries waiting and failed."""
    disabled = session.scalar(
        select(func.count()).select_from(WebhookSubscription).where(WebhookSubscription.enabled.is_(False))
    )
    by_state = dict(
        session.execute(
            select(OutgoingDelivery.state, func.count())
            .where(OutgoingDelivery.state.in_((PENDING, FAILED)))
            .group_by(OutgoingDelivery.state)
        ).all()
    )
    return {
        "webhook_subscriptions_disabled": int(disabled or 0),
        "outgoing_deliveries_pending": int(by_state.get(PENDING, 0)),
        "outgoing_deliveries_failed": int(by_state.get(FAILED, 0)),
    }
