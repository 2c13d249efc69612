"""Builds the Flask application from collaborators made in app/."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, jsonify
from sqlalchemy import text

from backend.parts import BackendParts
from backend.web.context import MAX_UPLOAD_BODY_BYTES, MAX_WEBHOOK_BYTES, UPLOAD_PATH, WebContext, web_context
from backend.web.errors import error_response, install_error_handlers
from backend.web.long_polls import LONG_POLL_SLOTS, LongPollSlots
from backend.web.paths import keep_encoded_slashes
from backend.webhooks.receiver import WebhookReceiver

__all__ = [
    "MAX_UPLOAD_BODY_BYTES",
    "MAX_WEBHOOK_BYTES",
    "UPLOAD_PATH",
    "InboxApp",
    "WebContext",
    "create_app",
]


class InboxApp(Flask):
    """The product's Flask app: routes on the raw path, so "%2F" inside a key never splits it."""

    # The receiver of the webhook routes: an ASGI server takes webhook bodies through it, off the WSGI path.
    webhook_receiver: WebhookReceiver | None = None

    def wsgi_app(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Answer one WSGI request."""
        keep_encoded_slashes(environ)
        return super().wsgi_app(environ, start_response)

    def limit_long_polls(self, slots: int) -> None:
        """Let at most `slots` long-polls wait at once (the server serving this app holds a thread each)."""
        context = self.extensions["inbox"]
        assert isinstance(context, WebContext)
        context.long_polls = LongPollSlots(slots)

    def long_polls_waiting(self) -> int:
        """How many long-polls hold a slot now."""
        context = self.extensions["inbox"]
        assert isinstance(context, WebContext)
        return context.long_polls.taken

    def end_long_polls(self) -> None:
        """Answer every waiting long-poll now and let none wait again: the server is stopping."""
        context = self.extensions["inbox"]
        assert isinstance(context, WebContext)
        context.long_polls.close()


def create_app(parts: BackendParts, *, long_poll_slots: int = LONG_POLL_SLOTS) -> InboxApp:
    """A Flask app serving /healthz and every blueprint of the product."""
    app = InboxApp("backend.web")
    # "//" in a path is never merged (with a redirect) into "/": the path "/v1/messages//a" must
    # not be answered for the key "a".
    app.url_map.merge_slashes = False
    # The webhook route needs up to 3 MB; every other route checks the 1 MB limit itself.
    app.config["MAX_CONTENT_LENGTH"] = MAX_WEBHOOK_BYTES
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["inbox"] = WebContext(parts=parts, long_polls=LongPollSlots(long_poll_slots))
    install_error_handlers(app)

    @app.get("/healthz")
    def healthz() -> Response:
        try:
            with web_context().database.reader() as session:
                session.execute(text("SELECT 1"))
        except Exception:  # the database is the one thing health depends on
            current_app.logger.exception("health check: the database does not answer")
            return error_response(503, "database_unavailable", "The database does not answer.")
        return jsonify({"status": "ok"})

    # The routes are imported only when an app is built, so commands that serve nothing start fast.
    from backend.web.api import register_api
    from backend.web.webhook_routes import register_webhooks

    register_api(app)
    app.webhook_receiver = register_webhooks(app)
    return app
