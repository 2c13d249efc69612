"""The webhook endpoint: GET verifies the subscription, POST stores the signed raw body, then answers 200.

POST /webhooks/whatsapp is answered by a lean WSGI layer in front of Flask: it only reads the bytes,
checks the signature and waits for the commit, so it stays fast under Meta's concurrent deliveries.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable
from typing import Any

from flask import Blueprint, Flask, Response, request

from backend.domain.webhook_signature import SignatureCheck, check_signature
from backend.web.errors import error_response
from backend.web.factory import MAX_WEBHOOK_BYTES, WebContext
from backend.webhooks.store import DeliveryStore

WEBHOOK_PATH = "/webhooks/whatsapp"
SIGNATURE_HEADER = "X-Hub-Signature-256"
STORE_SERVICE = "webhook_store"

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_ACCEPTED_BODY = b'{"status":"stored"}'


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode("utf-8")


# status, code, message for every refusal the receiver can give.
_REFUSALS = {
    "missing_signature": (401, "missing_signature", f"The {SIGNATURE_HEADER} header is missing."),
    "bad_signature": (403, "bad_signature", f"The {SIGNATURE_HEADER} header does not match the body."),
    "too_large": (413, "payload_too_large", "Webhook bodies may be at most 3 MB."),
    "not_configured": (503, "webhook_not_configured", "The app secret is not configured."),
    "store_failed": (503, "storage_unavailable", "The body could not be stored; deliver it again."),
}


class WebhookReceiver:
    """Checks and stores one POSTed body; knows nothing of HTTP frameworks."""

    def __init__(self, store: DeliveryStore, app_secret: str | None) -> None:
        self.store = store
        self._app_secret = app_secret

    def receive(self, body: bytes, signature: str | None) -> tuple[int, bytes]:
        """(HTTP status, JSON body) for a POSTed body: 200 only after the body is committed."""
        if not self._app_secret:
            return self._refuse("not_configured")
        if len(body) > MAX_WEBHOOK_BYTES:
            return self._refuse("too_large")
        check = check_signature(body, signature, self._app_secret)
        if check is SignatureCheck.MISSING:
            return self._refuse("missing_signature")
        if check is SignatureCheck.INVALID:
            return self._refuse("bad_signature")
        # Bodies that are not JSON are stored too: the processor records them as parse failures.
        if not self.store.store(body, signature):
            return self._refuse("store_failed")
        return 200, _ACCEPTED_BODY

    @staticmethod
    def _refuse(reason: str) -> tuple[int, bytes]:
        status, code, message = _REFUSALS[reason]
        return status, _error_body(code, message)


_STATUS_LINES = {
    200: "200 OK",
    400: "400 Bad Request",
    401: "401 Unauthorized",
    403: "403 Forbidden",
    413: "413 Payload Too Large",
    503: "503 Service Unavailable",
}


class WebhookIntake:
    """WSGI middleware answering POST /webhooks/whatsapp itself and passing everything else on."""

    def __init__(self, next_app: WsgiApp, receiver: WebhookReceiver) -> None:
        self._next_app = next_app
        self._receiver = receiver

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one request."""
        if environ.get("PATH_INFO") != WEBHOOK_PATH or environ.get("REQUEST_METHOD") != "POST":
            return self._next_app(environ, start_response)
        status, body = self._handle(environ)
        start_response(
            _STATUS_LINES[status],
            [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
        )
        return [body]

    def _handle(self, environ: dict[str, Any]) -> tuple[int, bytes]:
        length_text = environ.get("CONTENT_LENGTH") or ""
        try:
            length = int(length_text) if length_text else -1
        except ValueError:
            return 400, _error_body("bad_request", "Content-Length is not a number.")
        if length > MAX_WEBHOOK_BYTES:
            return WebhookReceiver._refuse("too_large")
        stream = environ["wsgi.input"]
        # Without a length (chunked upload) read one byte past the limit to tell "too large" apart.
        body = stream.read(length) if length >= 0 else stream.read(MAX_WEBHOOK_BYTES + 1)
        return self._receiver.receive(body, environ.get("HTTP_X_HUB_SIGNATURE_256"))


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
            status, body = WebhookReceiver._refuse("too_large")
        else:
            status, body = receiver.receive(
                request.get_data(cache=False), request.headers.get(SIGNATURE_HEADER)
            )
        return Response(body, status=status, mimetype="application/json")

    return blueprint


def register_webhooks(app: Flask) -> None:
    """Add the webhook routes and put the lean POST path in front of the Flask app."""
    context = app.extensions["inbox"]
    assert isinstance(context, WebContext)
    store = context.services.get(STORE_SERVICE)
    if not isinstance(store, DeliveryStore):
        store = DeliveryStore(context.database)
        context.services[STORE_SERVICE] = store
    receiver = WebhookReceiver(store, context.settings.whatsapp_app_secret)
    app.register_blueprint(_verify_blueprint(receiver, context.settings.whatsapp_verify_token))
    app.wsgi_app = WebhookIntake(app.wsgi_app, receiver)  # type: ignore[method-assign]
