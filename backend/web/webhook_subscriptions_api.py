"""Outgoing webhook subscriptions (supervisors): create, list, delete, and their deliveries."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify

from backend.dispatch.subscriptions import (
    SubscriptionError,
    create_subscription,
    delete_subscription,
    delivery_resource,
    list_deliveries,
    list_subscriptions,
    redeliver,
    subscription_resource,
)
from backend.web.common import (
    decode_cursor,
    encode_cursor,
    json_object,
    now,
    page_limit,
    require_supervisor,
    require_token,
)
from backend.web.context import web_context
from backend.web.errors import ApiError

blueprint = Blueprint("webhook_subscriptions", __name__, url_prefix="/v1")
blueprint.before_request(require_token)
_STATUS_OF = {"not_found": 404, "invalid_subscription": 400}


def _api_error(error: SubscriptionError) -> ApiError:
    return ApiError(_STATUS_OF.get(error.code, 400), error.code, error.message)


@blueprint.post("/webhook-subscriptions")
def create() -> tuple[Response, int]:
    """A new subscription; its secret is in this answer only."""
    user = require_supervisor()
    body = json_object()
    try:
        with web_context().database.transaction() as session:
            answer = subscription_resource(
                create_subscription(session, body, user_id=user.id, now=now()), with_secret=True
            )
    except SubscriptionError as error:
        raise _api_error(error) from None
    return jsonify(answer), 201


@blueprint.get("/webhook-subscriptions")
def list_all() -> Response:
    """Every subscription (without secrets)."""
    require_supervisor()
    with web_context().database.reader() as session:
        items = [subscription_resource(row) for row in list_subscriptions(session)]
    return jsonify({"webhook_subscriptions": items})


# The path names the subscription `id`, as the OpenAPI document does.
@blueprint.delete("/webhook-subscriptions/<id:id>")
def remove(id: int) -> Response:
    """Remove a subscription and its deliveries."""
    require_supervisor()
    try:
        with web_context().database.transaction() as session:
            delete_subscription(session, id)
    except SubscriptionError as error:
        raise _api_error(error) from None
    return Response(status=204)


@blueprint.get("/webhook-subscriptions/<id:id>/deliveries")
def deliveries(id: int) -> Response:
    """The subscription's deliveries, newest first, a page at a time."""
    require_supervisor()
    limit = page_limit()
    position = decode_cursor(("before",))
    try:
        with web_context().database.reader() as session:
            rows, before = list_deliveries(
                session, id, before=position["before"] if position else None, limit=limit
            )
            items = [delivery_resource(row) for row in rows]
    except SubscriptionError as error:
        raise _api_error(error) from None
    cursor = encode_cursor({"before": before}) if before is not None else None
    return jsonify({"deliveries": items, "next_cursor": cursor})


@blueprint.post("/webhook-subscriptions/<id:id>/deliveries/<id:delivery_id>/redeliver")
def send_again(id: int, delivery_id: int) -> tuple[Response, int]:
    """Send a delivery again, with the same webhook-id and body, in order with the others."""
    require_supervisor()
    try:
        with web_context().database.transaction() as session:
            answer = delivery_resource(redeliver(session, id, delivery_id, now()))
    except SubscriptionError as error:
        raise _api_error(error) from None
    return jsonify(answer), 202


def register(app: Flask) -> None:
    """Add the webhook subscription routes."""
    app.register_blueprint(blueprint)
