"""Outgoing webhooks (Standard Webhooks): event names, the secret's format, signatures, the retry schedule."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from urllib.parse import urlsplit

SECRET_PREFIX = "whsec_"
SIGNATURE_VERSION = "v1"
SECRET_BYTES = 32
# The journal's event types a subscription may ask for; "*" asks for every one of them.
EVENT_TYPES = (
    "message.state_changed",
    "inbound.received",
    "conversation.status_changed",
    "conversation.assigned",
    "contact.opted_out",
)
ALL_EVENTS = "*"
# Waits before the 2nd, 3rd... attempt; after the last one, every attempt waits as long as it.
RETRY_DELAYS = (
    timedelta(seconds=5),
    timedelta(seconds=30),
    timedelta(minutes=2),
    timedelta(minutes=10),
    timedelta(minutes=30),
    timedelta(hours=1),
    timedelta(hours=2),
    timedelta(hours=4),
    timedelta(hours=8),
)
# A delivery still failing this long after its first attempt fails for good and disables its subscription.
RETRY_PERIOD = timedelta(days=3)
MAX_URL_LENGTH = 2000


def new_secret() -> str:
    """A fresh signing secret: whsec_ and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def secret_key(secret: str) -> bytes:
    """The HMAC key of a whsec_ secret: its base64-decoded part."""
    try:
        return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except binascii.Error as error:
        raise ValueError("the secret is not whsec_ followed by base64") from error


def new_webhook_id() -> str:
    """A webhook-id: unique per delivery, the same on each of its attempts."""
    return "msg_" + secrets.token_urlsafe(18)


def sign(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    """The webhook-signature header: v1, and the base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"."""
    signed = webhook_id.encode("utf-8") + b"." + str(timestamp).encode("ascii") + b"." + body
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode('ascii')}"


def wants(events: list[str], event_type: str) -> bool:
    """Whether a subscription to `events` gets an event of this type."""
    return ALL_EVENTS in events or event_type in events


def events_problem(events: object) -> str | None:
    """Why a subscription's event list is unusable, or None."""
    if not isinstance(events, list) or not events:
        return 'events must be a non-empty list of event types (or ["*"]).'
    for name in events:
        if not isinstance(name, str) or (name != ALL_EVENTS and name not in EVENT_TYPES):
            return f"events may hold only {', '.join(EVENT_TYPES)} or *."
    return None


def url_problem(url: object) -> str | None:
    """Why a subscription's URL is unusable (not http(s), no host, credentials in it), or None."""
    if not isinstance(url, str) or not url:
        return "url must be an http or https URL."
    if len(url) > MAX_URL_LENGTH:
        return f"url must be at most {MAX_URL_LENGTH} characters."
    if any(character.isspace() or ord(character) < 32 for character in url):
        return "url must not contain spaces or control characters."
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "url is not a valid URL."
    del port  # only parsed to refuse a port that is not a number
    if parts.scheme not in ("http", "https"):
        return "url must be an http or https URL."
    if not parts.hostname:
        return "url must name a host."
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return "url must not hold credentials; the signature proves who is calling."
    if parts.fragment:
        return "url must not have a #fragment."
    return None


def next_attempt(attempts: int, failed_at: datetime, retry_since: datetime) -> datetime | None:
    """When to try again after `attempts` failed attempts, or None once the retry period is over."""
    delay = RETRY_DELAYS[min(attempts, len(RETRY_DELAYS)) - 1]
    moment = failed_at + delay
    if moment > retry_since + RETRY_PERIOD:
        return None
    return moment
