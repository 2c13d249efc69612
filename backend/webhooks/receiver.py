"""Receiving webhook bodies: check the signature over the raw bytes, store, then answer 200.

POST /webhooks/whatsapp is answered by a lean WSGI layer in front of the web app: it only reads the
bytes, checks the signature and waits for the commit, so it stays fast under Meta's concurrent
deliveries. Nothing here knows a web framework; backend/web adds the routes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from backend.domain.webhook_signature import SignatureCheck, check_signature
from backend.parts import BodyStore

WEBHOOK_PATH = "/webhooks/whatsapp"
SIGNATURE_HEADER = "X-Hub-Signature-256"
MAX_WEBHOOK_BYTES = 3 * 1024 * 1024

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_ACCEPTED_BODY = b'{"status":"stored"}'

log = logging.getLogger(__name__)


def error_body(code: str, message: str) -> bytes:
    """The JSON error body every refusal carries."""
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

    def __init__(self, store: BodyStore, app_secret: str | None) -> None:
        self.store = store
        self._app_secret = app_secret

    def receive(self, body: bytes, signature: str | None) -> tuple[int, bytes]:
        """(HTTP status, JSON body) for a POSTed body: 200 only after the body is committed."""
        refusal = self.check(body, signature)
        if refusal is not None:
            return refusal
        # Bodies that are not JSON are stored too: the processor records them as parse failures.
        if not self.store.store(body, signature):
            return self.refuse("store_failed")
        return 200, _ACCEPTED_BODY

    async def receive_async(self, body: bytes, signature: str | None) -> tuple[int, bytes]:
        """`receive` for an event loop: the commit is awaited, no thread waits for it."""
        refusal = self.check(body, signature)
        if refusal is not None:
            return refusal
        stored = asyncio.wrap_future(self.store.submit(body, signature))
        try:
            # Shielded: a request ended early (the server stopping, a timeout) leaves the commit alone.
            committed = await asyncio.wait_for(asyncio.shield(stored), self.store.timeout_seconds)
        except TimeoutError:
            # Committed later or not at all: either way Meta delivers again and the copy is dropped.
            log.warning("storing a webhook body took over %.1f s; answering 503", self.store.timeout_seconds)
            committed = False
        return (200, _ACCEPTED_BODY) if committed else self.refuse("store_failed")

    def check(self, body: bytes, signature: str | None) -> tuple[int, bytes] | None:
        """The refusal for a body that must not be stored, or None for one that must."""
        if not self._app_secret:
            return self.refuse("not_configured")
        if len(body) > MAX_WEBHOOK_BYTES:
            return self.refuse("too_large")
        check = check_signature(body, signature, self._app_secret)
        if check is SignatureCheck.MISSING:
            return self.refuse("missing_signature")
        if check is SignatureCheck.INVALID:
            return self.refuse("bad_signature")
        return None

    @staticmethod
    def refuse(reason: str) -> tuple[int, bytes]:
        """(HTTP status, JSON body) of one refusal: a key of the refusals table."""
        status, code, message = _REFUSALS[reason]
        # Never the body or the signature: one is customers' words, the other derives from the secret.
        log.info("webhook refused: %d %s", status, code)
        return status, error_body(code, message)


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
            return 400, error_body("bad_request", "Content-Length is not a number.")
        if length > MAX_WEBHOOK_BYTES:
            return WebhookReceiver.refuse("too_large")
        stream = environ["wsgi.input"]
        # Without a length (chunked upload) read one byte past the limit to tell "too large" apart.
        body = stream.read(length) if length >= 0 else stream.read(MAX_WEBHOOK_BYTES + 1)
        return self._receiver.receive(body, environ.get("HTTP_X_HUB_SIGNATURE_256"))
