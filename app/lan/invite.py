"""The invite a desk pastes into its sign-in: where the office's server is, its fingerprint, a token."""

from __future__ import annotations

import ipaddress
from urllib.parse import quote

from app.cli_errors import CommandError
from backend.settings import Settings

SCHEME = "inbox"


def invite_url(host: str, port: int, fingerprint: str, token: str) -> str:
    """`inbox://HOST:PORT?fingerprint=HEX&token=TOKEN` (an IPv6 host in brackets)."""
    shown_host = f"[{host}]" if ":" in host else host
    return f"{SCHEME}://{shown_host}:{port}?fingerprint={fingerprint}&token={quote(token, safe='')}"


def lan_host_for_invites(settings: Settings) -> str:
    """The LAN listener's address as desks dial it, or a CommandError saying what to set."""
    host = settings.lan_host
    if not host:
        raise CommandError(
            "no LAN listener is configured, so other desks cannot reach this inbox: set INBOX_LAN_HOST "
            "to this machine's address on the office network (for example 192.168.1.20), restart "
            "`inbox serve`, then invite again"
        )
    try:
        unspecified = ipaddress.ip_address(host).is_unspecified
    except ValueError:
        unspecified = False
    if unspecified:
        raise CommandError(
            f"INBOX_LAN_HOST is {host}, which no desk can dial: set it to this machine's own address "
            "on the office network (for example 192.168.1.20)"
        )
    return host
