"""Inbox servers that advertise themselves on the office network (zeroconf), for the sign-in to list.

Listing is a convenience only: anyone on a network can advertise, and only an invite's fingerprint
makes a server trusted.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal
from zeroconf import Error as ZeroconfError
from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

log = logging.getLogger(__name__)

# The type `inbox serve` advertises its LAN listener under.
SERVICE_TYPE = "_shared-inbox._tcp.local."
LOOKUP_TIMEOUT_MS = 3000


class OfficeServers(QObject):
    """Browses the office network for inbox servers and reports each one found or gone."""

    # A server was found: its advertised name, "host:port", and the first digits of its fingerprint.
    # Emitted on zeroconf's thread; Qt queues it to the receivers' thread.
    server_found = Signal(str, str, str)
    # A server withdrew its advertisement: its name.
    server_gone = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._zeroconf: Zeroconf | None = None
        self._browser: ServiceBrowser | None = None
        # Set by stop(): a lookup still running on zeroconf's thread reports nothing.
        self._stopped = False

    def start(self) -> bool:
        """Begin browsing; False when this network or machine refuses multicast."""
        self._stopped = False
        try:
            self._zeroconf = Zeroconf(ip_version=IPVersion.V4Only)
            self._browser = ServiceBrowser(self._zeroconf, SERVICE_TYPE, handlers=[self._changed])
        except (OSError, ZeroconfError) as error:
            log.info("cannot look for inbox servers on this network: %s", error)
            self.stop()
            return False
        return True

    def _changed(
        self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        """zeroconf's handler, on its browser thread: look the server up and report it."""
        shown = name.removesuffix("." + service_type)
        if state_change is ServiceStateChange.Removed:
            self._report(self.server_gone, shown)
            return
        info = zeroconf.get_service_info(service_type, name, timeout=LOOKUP_TIMEOUT_MS)
        if info is None or not info.parsed_addresses() or info.port is None:
            return
        address = info.parsed_addresses()[0]
        host = f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
        properties: dict[Any, Any] = info.properties or {}
        fingerprint = bytes(properties.get(b"fingerprint") or b"").decode("ascii", "replace")
        self._report(self.server_found, shown, f"{host}:{info.port}", fingerprint[:16])

    def _report(self, signal: Any, *values: str) -> None:
        """Emit from zeroconf's thread, unless the sign-in that listens is closed or gone meanwhile."""
        if self._stopped or not shiboken6.isValid(self):
            return
        # The dialog may be deleted between the check and the emit (a lookup takes up to 3 s).
        with contextlib.suppress(RuntimeError):
            signal.emit(*values)

    def stop(self) -> None:
        """Stop browsing and close the sockets."""
        self._stopped = True
        if self._browser is not None:
            self._browser.cancel()
            self._browser = None
        if self._zeroconf is not None:
            self._zeroconf.close()
            self._zeroconf = None
