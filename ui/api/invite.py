"""The invite `inbox user invite NAME` prints: `inbox://HOST:PORT?fingerprint=HEX&token=TOKEN`."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from ui.api.pinning import FINGERPRINT_PATTERN

SCHEME = "inbox"


class InviteError(ValueError):
    """The text is not an invite this client can use; the message says what is wrong in plain words."""


@dataclass(frozen=True)
class Invite:
    """Where the office's server is, the certificate to trust, and this desk's token."""

    backend_url: str
    fingerprint: str
    token: str


def parse_invite(text: str) -> Invite:
    """The invite in `text` (spaces and line breaks around it, as pasted, are ignored)."""
    cleaned = "".join(text.split())
    if not cleaned.lower().startswith(f"{SCHEME}://"):
        raise InviteError(
            "An invite starts with inbox:// — paste the whole last line `inbox user invite` printed."
        )
    parts = urlsplit(cleaned)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        raise InviteError("The invite's server address is damaged; ask for a new invite.") from None
    if not host or port is None:
        raise InviteError("The invite names no server and port; ask for a new invite.")
    query = parse_qs(parts.query, keep_blank_values=True)
    fingerprints, tokens = query.get("fingerprint", []), query.get("token", [])
    if len(fingerprints) != 1 or not FINGERPRINT_PATTERN.match(fingerprints[0].lower()):
        raise InviteError("The invite's fingerprint is missing or damaged; copy the whole invite again.")
    if len(tokens) != 1 or not tokens[0]:
        raise InviteError("The invite holds no token; copy the whole invite again.")
    shown_host = f"[{host}]" if ":" in host else host
    return Invite(f"https://{shown_host}:{port}", fingerprints[0].lower(), tokens[0])
