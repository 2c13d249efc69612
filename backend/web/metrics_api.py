"""Metrics as JSON (/v1/metrics) and Prometheus text (/metrics), and the template list."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, Flask, Response, jsonify
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend import counters
from backend.database.models import InboundMessage, OutboxMessage
from backend.dispatch.subscriptions import dispatch_measures
from backend.domain import states
from backend.domain.statistics import percentile
from backend.inbox.inbound import WORK_QUEUE
from backend.media.records import media_disk_use
from backend.operations.archive import free_disk_bytes, last_backup
from backend.outbox.number_health import current_health, effective_tier_limit, health_history
from backend.settings import Settings
from backend.web.common import iso, now, require_token, templates
from backend.web.context import web_context

SENDING_TOO_LONG = timedelta(minutes=1)
GAP_PERIOD = timedelta(hours=1)

blueprint = Blueprint("metrics", __name__, url_prefix="/v1")
blueprint.before_request(require_token)
public = Blueprint("public_metrics", __name__)


def number_health(session: Session, settings: Settings) -> dict[str, Any]:
    """The messaging tier the pacer keeps, the quality rating, and their history, newest first."""
    health = current_health(session)
    limit = effective_tier_limit(session, settings)
    return {
        "messaging_tier": {
            "tier": health.messaging_tier,
            "limit": limit,
            # A hand-set INBOX_MESSAGING_TIER wins over Meta's.
            "set_by_hand": settings.messaging_tier_set,
        },
        "quality_rating": {
            "rating": health.quality_rating,
            "dropped": health.quality_dropped,
            "updated_at": iso(health.updated_at),
        },
        "number_health_history": [
            {
                "recorded_at": iso(row.recorded_at),
                "quality_rating": row.quality_rating,
                "messaging_tier": row.messaging_tier,
                "source": row.source,
                "event": row.event,
            }
            for row in health_history(session)
        ],
    }


def collect(session: Session, moment: datetime) -> dict[str, Any]:
    """The measures, the queue depth by state and the counts of webhooks we refused to trust."""
    sending_over = session.scalar(
        select(func.count())
        .select_from(OutboxMessage)
        .where(OutboxMessage.state == states.SENDING, OutboxMessage.updated_at < moment - SENDING_TOO_LONG)
    )
    # Work items only: plain chat and replies need no one to place them.
    work_items = session.scalar(
        select(func.count()).select_from(InboundMessage).where(InboundMessage.placement == WORK_QUEUE)
    )
    pairs = session.execute(
        select(OutboxMessage.sent_at, OutboxMessage.delivered_at).where(
            OutboxMessage.delivered_at >= moment - GAP_PERIOD,
            OutboxMessage.sent_at.is_not(None),
        )
    ).all()
    gaps = sorted(
        max(0.0, (delivered - sent).total_seconds()) for sent, delivered in pairs if sent and delivered
    )
    depth = {state: 0 for state in states.ALL_STATES}
    for state, count in session.execute(
        select(OutboxMessage.state, func.count()).group_by(OutboxMessage.state)
    ):
        depth[state] = int(count)
    return {
        "sending_over_1m": int(sending_over or 0),
        "dedupe_rejections": counters.read(session, counters.DEDUPE_REJECTIONS),
        "duplicate_webhooks": counters.read(session, counters.DUPLICATE_WEBHOOKS),
        "unattributed_inbound": int(work_items or 0),
        "sent_to_delivered_seconds": {"p50": percentile(gaps, 0.5), "p95": percentile(gaps, 0.95)},
        "queue_depth": depth,
        "webhook_parse_failures": counters.read(session, counters.WEBHOOK_PARSE_FAILURES),
        "cross_contact_quotes": counters.read(session, counters.CROSS_CONTACT_QUOTES),
        "foreign_number_events": counters.read(session, counters.FOREIGN_NUMBER_EVENTS),
        **dispatch_measures(session),
        # Disk use of the media store (each file once) and customers' files not kept yet.
        "media": media_disk_use(session),
    }


_HELP = {
    "sending_over_1m": ("gauge", "Outbox messages in state sending for more than one minute."),
    "dedupe_rejections": ("counter", "Enqueues refused because the dedupe key already existed."),
    "duplicate_webhooks": ("counter", "Webhook events received again and ignored."),
    "unattributed_inbound": ("gauge", "Inbound messages waiting in the work queue."),
    "webhook_parse_failures": ("counter", "Webhook bodies that could not be parsed."),
    "cross_contact_quotes": (
        "counter",
        "Replies naming a message sent to another contact, filed as unquoted.",
    ),
    "foreign_number_events": (
        "counter",
        "Webhook events about another business number, stored but not applied.",
    ),
    "webhook_subscriptions_disabled": (
        "gauge",
        "Outgoing webhook subscriptions disabled after a delivery failed for 3 days.",
    ),
    "outgoing_deliveries_pending": ("gauge", "Outgoing webhook deliveries waiting to be delivered."),
    "outgoing_deliveries_failed": ("gauge", "Outgoing webhook deliveries that failed for good."),
}


def prometheus_text(measures: dict[str, Any]) -> str:
    """The measures in the Prometheus text exposition format."""
    lines: list[str] = []
    for name, (kind, text) in _HELP.items():
        lines += [f"# HELP {name} {text}", f"# TYPE {name} {kind}", f"{name} {measures[name]}"]
    lines += [
        "# HELP sent_to_delivered_seconds Seconds from sent to delivered over the last hour.",
        "# TYPE sent_to_delivered_seconds summary",
    ]
    for label, key in (("0.5", "p50"), ("0.95", "p95")):
        value = measures["sent_to_delivered_seconds"][key]
        lines.append(f'sent_to_delivered_seconds{{quantile="{label}"}} {"NaN" if value is None else value}')
    free = measures.get("data_folder_free_bytes")
    if free is not None:
        lines += [
            "# HELP data_folder_free_bytes Free disk space where the data folder is.",
            "# TYPE data_folder_free_bytes gauge",
            f"data_folder_free_bytes {free}",
        ]
    media = measures["media"]
    for name, key, text in (
        ("media_files", "files", "Files in the media store, each content once."),
        ("media_bytes", "bytes", "Bytes of the files in the media store."),
        ("media_pending", "pending", "Customers' files waiting to be downloaded."),
        ("media_failed", "failed", "Customers' files that could not be downloaded."),
    ):
        lines += [f"# HELP {name} {text}", f"# TYPE {name} gauge", f"{name} {media[key]}"]
    lines += ["# HELP queue_depth Outbox messages by state.", "# TYPE queue_depth gauge"]
    for state, count in measures["queue_depth"].items():
        lines.append(f'queue_depth{{state="{state}"}} {count}')
    return "\n".join(lines) + "\n"


def _measures() -> dict[str, Any]:
    context = web_context()
    with context.database.reader() as session:
        measures = collect(session, now())
        newest = last_backup(session)
    # What an office without IT staff must notice before it is too late: no recent backup, a full disk.
    measures["last_backup_at"] = iso(newest.taken_at) if newest is not None else None
    measures["data_folder_free_bytes"] = free_disk_bytes(context.settings.data_dir)
    return measures


@blueprint.get("/metrics")
def get_metrics() -> Response:
    """The measures as JSON, with the number's messaging tier and quality rating."""
    context = web_context()
    with context.database.reader() as session:
        health = number_health(session, context.settings)
    return jsonify({**_measures(), **health})


@public.get("/metrics")
def get_prometheus_metrics() -> Response:
    """The measures for Prometheus (no token, like /healthz)."""
    return Response(prometheus_text(_measures()), content_type="text/plain; version=0.0.4; charset=utf-8")


@blueprint.get("/templates")
def get_templates() -> Response:
    """The templates: the file's, or Meta's with their review status (only APPROVED ones can be sent)."""
    catalog = templates()
    catalog.refresh(check_now=True)
    listed = [
        {
            "name": template.name,
            "language": template.language,
            "body": template.body,
            "parameters": list(template.parameters),
            "parameter_count": template.parameter_count,
            "buttons": list(template.buttons),
            "status": template.status,
            "category": template.category,
            "status_reason": template.status_reason,
        }
        for template in catalog
    ]
    return jsonify({"templates": listed, "next_cursor": None})


def register(app: Flask) -> None:
    """Add the metrics and template routes."""
    app.register_blueprint(blueprint)
    app.register_blueprint(public)
