"""What every route reads from the app serving it: the backend's parts and the long-poll slots."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from backend.database import Database
from backend.domain.media import MAX_UPLOAD_BYTES
from backend.parts import BackendParts
from backend.settings import Settings
from backend.web.long_polls import LongPollSlots
from backend.webhooks.receiver import MAX_WEBHOOK_BYTES

MAX_REQUEST_BYTES = 1024 * 1024
# The one route taking large bodies: a media upload, as large as the largest file Meta takes plus
# room for the multipart envelope.
UPLOAD_PATH = "/v1/media"
MAX_UPLOAD_BODY_BYTES = MAX_UPLOAD_BYTES + 1024 * 1024

__all__ = [
    "MAX_REQUEST_BYTES",
    "MAX_UPLOAD_BODY_BYTES",
    "MAX_WEBHOOK_BYTES",
    "UPLOAD_PATH",
    "WebContext",
    "web_context",
]


@dataclass
class WebContext:
    """What routes need: the backend's parts and the slots of waiting long-polls."""

    parts: BackendParts
    long_polls: LongPollSlots

    @property
    def database(self) -> Database:
        """The database every route reads and writes."""
        return self.parts.database

    @property
    def settings(self) -> Settings:
        """The settings the app was built with."""
        return self.parts.settings


def web_context() -> WebContext:
    """The WebContext of the app serving the current request."""
    context = current_app.extensions["inbox"]
    assert isinstance(context, WebContext)
    return context
