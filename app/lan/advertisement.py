"""The server says on the office network that it is there (zeroconf), so a desk's sign-in can list it.

Trust never comes from this: anyone on the network can advertise. The invite's fingerprint decides.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading

from zeroconf import Error as ZeroconfError
from zeroconf import IPVersion, ServiceInfo, Zeroconf

log = logging.getLogger(__name__)

# The service type desks browse for; the client's discovery names the same one.
SERVICE_TYPE = "_shared-inbox._tcp.local."
# The name others see in the sign-in's list.
INSTANCE_PREFIX = "Shared inbox on"


def _address_of(host: str) -> bytes:
    """The IPv4 address `host` stands for, packed as zeroconf wants it."""
    try:
        return ipaddress.IPv4Address(host).packed
    except ValueError:
        return socket.inet_aton(socket.gethostbyname(host))


def service_info(host: str, port: int, fingerprint: str, *, machine: str | None = None) -> ServiceInfo:
    """What is advertised: where the LAN listener is, and the start of its fingerprint to compare."""
    machine = machine or socket.gethostname().split(".")[0] or "office"
    return ServiceInfo(
        SERVICE_TYPE,
        f"{INSTANCE_PREFIX} {machine}.{SERVICE_TYPE}",
        addresses=[_address_of(host)],
        port=port,
        # The whole fingerprint is no secret; the sign-in shows its start beside the invite's.
        properties={"path": "/v1", "fingerprint": fingerprint},
        server=f"{machine}.local.",
    )


class LanAdvertisement:
    """Registers the LAN listener with zeroconf on a thread; a network that refuses multicast is logged."""

    def __init__(self, info: ServiceInfo) -> None:
        self.info = info
        self._zeroconf: Zeroconf | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.registered = threading.Event()
        self._thread = threading.Thread(target=self._register, name="lan-advertisement", daemon=True)

    def start(self) -> LanAdvertisement:
        """Begin advertising; returns at once (zeroconf's probing takes a few hundred milliseconds)."""
        self._thread.start()
        return self

    def _register(self) -> None:
        try:
            zeroconf = Zeroconf(ip_version=IPVersion.V4Only)
        except OSError as error:
            log.warning("cannot advertise on the office network (desks can still use invites): %s", error)
            return
        with self._lock:
            if self._closed:
                zeroconf.close()
                return
            self._zeroconf = zeroconf
        try:
            zeroconf.register_service(self.info, allow_name_change=True)
        except (OSError, ZeroconfError) as error:
            log.warning("cannot advertise on the office network (desks can still use invites): %s", error)
            return
        self.registered.set()
        log.info("advertising %s on the office network", self.info.name)

    def close(self) -> None:
        """Withdraw the advertisement and close zeroconf's sockets."""
        with self._lock:
            self._closed = True
            zeroconf, self._zeroconf = self._zeroconf, None
        if self._thread.is_alive():
            self._thread.join(5.0)
        if zeroconf is not None:
            try:
                if self.registered.is_set():
                    zeroconf.unregister_service(self.info)
            except (OSError, ZeroconfError) as error:
                log.debug("could not withdraw the advertisement: %s", error)
            finally:
                zeroconf.close()
