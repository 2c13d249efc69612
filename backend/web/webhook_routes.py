"""The webhook routes: GET answers Meta's subscription handshake, POST stores the signed raw body."""

from __future__ import annotations

import hmac

from flask import Blueprint, Flask, Response, request

from backend.web.context import WebContext
from backend.web.errors import error_response
from backend.webhooks.receiver import (
    MAX_WEBHOOK_BYTES,
    SIGNATURE_HEADER,
    WEBHOOK_PATH,
    WebhookIntake,
    WebhookReceiver,
)


def _verify_blueprint(receiver: WebhookReceiver, verify_token: str | None) -> Blueprint:
    blueprint = Blueprint("webhooks", __name__)

    @blueprint.get(WEBHOOK_PATH)
    def verify() -> Response:
        """Meta's subscription handshake: echo hub.challenge when the verify token matches."""
        mode = request.args.get("hub.mode", "")
        token = request.args.get("hub.verify_token", "")
        challenge = request.args.get("hub.challenge", "")
        if (
            verify_token
            and mode == "subscribe"
            and hmac.compare_digest(token.encode("utf-8"), verify_token.encode("utf-8"))
        ):
            return Response(challenge, status=200, mimetype="text/plain")
        return error_response(403, "forbidden", "The verify token or mode does not match.")

    @blueprint.post(WEBHOOK_PATH)
    def receive() -> Response:
        """The same POST handling, for when the app is served without the lean WSGI layer."""
        if request.content_length is not None and request.content_length > MAX_WEBHOOK_BYTES:
            status, body = WebhookReceiver.refuse("too_large")
        else:
            status, body = receiver.receive(
                request.get_data(cache=False), request.headers.get(SIGNATURE_HEADER)
            )
        return Response(body, status=status, mimetype="application/json")

    return blueprint


def register_webhooks(app: Flask) -> WebhookReceiver:
    """Add the webhook routes, put the lean POST path in front of the Flask app; the receiver both use."""
    context = app.extensions["inbox"]
    assert isinstance(context, WebContext)
    receiver = WebhookReceiver(context.parts.delivery_store, context.settings.whatsapp_app_secret)
    app.register_blueprint(_verify_blueprint(receiver, context.settings.whatsapp_verify_token))
    app.wsgi_app = WebhookIntake(app.wsgi_app, receiver)  # type: ignore[method-assign]
    return receiver
