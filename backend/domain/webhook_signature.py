"""X-Hub-Signature-256: HMAC-SHA256 of the raw body bytes with the app secret, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
from enum import Enum

SIGNATURE_PREFIX = "sha256="


class SignatureCheck(Enum):
    """The outcome of checking a webhook signature."""

    VALID = "valid"
    MISSING = "missing"
    INVALID = "invalid"


def sign(body: bytes, app_secret: str) -> str:
    """The header value Meta sends for `body`: `sha256=` and 64 lowercase hex digits."""
    digest = hmac.new(app_secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def check_signature(body: bytes, header: str | None, app_secret: str) -> SignatureCheck:
    """Whether `header` is the signature of exactly these bytes (never of a re-serialised body)."""
    if not header:
        return SignatureCheck.MISSING
    expected = sign(body, app_secret)
    # compare_digest on ASCII bytes: constant time whatever the header holds.
    given = header.strip().lower().encode("ascii", errors="replace")
    if hmac.compare_digest(given, expected.encode("ascii")):
        return SignatureCheck.VALID
    return SignatureCheck.INVALID
