"""TLS to the office's server trusted by one fingerprint: the SHA-256 of its certificate, from the invite.

The certificate is self-signed, so no authority vouches for it; the invite does. The check runs right
after the handshake, before a byte of the request (and its token) is sent.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import ssl
from typing import Any

FINGERPRINT_PATTERN = re.compile(r"^[0-9a-f]{64}$")
MISMATCH_CODE = "certificate_mismatch"
MISMATCH_MESSAGE = (
    "This is not your office's inbox server, or its certificate has changed, so nothing was sent to it. "
    "If the inbox was set up again, ask whoever runs it for a new invite; otherwise tell them at once."
)


class CertificateMismatchError(ssl.SSLCertVerificationError):
    """The server showed a certificate other than the one the invite pins."""

    def __init__(self, pinned: str, presented: str) -> None:
        super().__init__(MISMATCH_MESSAGE)
        self.pinned = pinned
        self.presented = presented


def _check_peer(context: ssl.SSLContext, der: bytes | None) -> None:
    pinned = getattr(context, "pinned_fingerprint", None)
    if pinned is None:
        return
    presented = hashlib.sha256(der).hexdigest() if der else ""
    if not hmac.compare_digest(presented, pinned):
        raise CertificateMismatchError(pinned, presented)


class _PinnedSocket(ssl.SSLSocket):
    """A TLS socket that refuses the connection when the peer's certificate is not the pinned one."""

    def do_handshake(self, block: bool = False) -> None:
        """Handshake, then compare the certificate's fingerprint with the pin."""
        super().do_handshake(block)
        try:
            _check_peer(self.context, self.getpeercert(binary_form=True))
        except CertificateMismatchError:
            self.close()
            raise


class _PinnedObject(ssl.SSLObject):
    """The same check for TLS over memory buffers (async clients, proxies)."""

    def do_handshake(self) -> None:
        """Handshake, then compare the certificate's fingerprint with the pin."""
        super().do_handshake()
        _check_peer(self.context, self.getpeercert(binary_form=True))


class PinnedContext(ssl.SSLContext):
    """A client context whose connections succeed only with the certificate of one fingerprint."""

    pinned_fingerprint: str
    sslsocket_class = _PinnedSocket
    sslobject_class = _PinnedObject

    def __new__(cls, fingerprint: str, *args: Any, **kwargs: Any) -> PinnedContext:
        """A TLS client context (the fingerprint is taken by __init__)."""
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self, fingerprint: str) -> None:
        if not FINGERPRINT_PATTERN.match(fingerprint):
            raise ValueError("a certificate fingerprint is 64 lowercase hexadecimal digits")
        self.pinned_fingerprint = fingerprint
        self.minimum_version = ssl.TLSVersion.TLSv1_2
        # No authority signs the office's certificate and its name is whatever the invite says:
        # the fingerprint check after the handshake is the whole verification.
        self.check_hostname = False
        self.verify_mode = ssl.CERT_NONE


def certificate_mismatch_in(error: BaseException) -> CertificateMismatchError | None:
    """The pin refusal behind an HTTP client's error, if that is what it was."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, CertificateMismatchError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
