"""Desks over the office network: `inbox serve` with INBOX_LAN_HOST on another loopback address
(127.0.0.2), the invite, the pinned certificate and what that listener refuses (SQLite and PostgreSQL)."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from app.lan.certificate import CERTIFICATE_FILE, KEY_FILE, TLS_FOLDER
from tests.integration.test_cli import free_port, isolated_env, mode
from tests.integration.test_user_commands import Inbox
from ui.api.client import ApiClient, ApiError
from ui.api.invite import parse_invite
from ui.api.pinning import MISMATCH_CODE, PinnedContext

LAN_HOST = "127.0.0.2"
INVITE = re.compile(r"^inbox://127\.0\.0\.2:(\d+)\?fingerprint=([0-9a-f]{64})&token=(\S+)$")

pytestmark = [pytest.mark.processes, pytest.mark.slow, pytest.mark.timeout(150)]


def free_lan_port() -> int:
    """A TCP port nobody listens on at 127.0.0.2 right now."""
    with socket.socket() as probe:
        probe.bind((LAN_HOST, 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def environment(tmp_path: Path, database_url: str) -> dict[str, str]:
    """`inbox serve` and `inbox user` of this test: its data folder, database and LAN listener."""
    return isolated_env(
        tmp_path,
        INBOX_DATABASE_URL=database_url,
        INBOX_LAN_HOST=LAN_HOST,
        INBOX_LAN_PORT=str(free_lan_port()),
        WHATSAPP_APP_SECRET="secret",
        WHATSAPP_VERIFY_TOKEN="verify",
        WHATSAPP_TOKEN="token",
        WHATSAPP_PHONE_NUMBER_ID="100000000000001",
        WHATSAPP_GRAPH_URL="http://127.0.0.1:9/v23.0",
    )


@pytest.fixture
def inbox(
    environment: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Inbox]:
    for name in ("INBOX_DATA_DIR", "INBOX_DATABASE_URL", "INBOX_LAN_HOST", "INBOX_LAN_PORT"):
        monkeypatch.setenv(name, environment[name])
    root = logging.getLogger()
    level = root.level
    yield Inbox(capsys)
    root.setLevel(level)


# What `inbox serve` prints once every child is ready.
SERVING_LINE = "inbox is serving on"


@contextmanager
def serving(environment: dict[str, str], announced: Path | None = None) -> Iterator[str]:
    """`inbox serve` in its own process until the block ends; yields its loopback URL.

    With `announced`, what it prints (`child http pid N` …) goes to that file.
    """
    port = free_port()
    output = announced.open("w") if announced is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env=environment,
        stdout=output,
        stderr=subprocess.PIPE,
        text=True,
    )
    lan = (LAN_HOST, int(environment["INBOX_LAN_PORT"]))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                    socket.create_connection(lan, timeout=5).close()
                    # The HTTP child answers before every child is ready; the supervisor says
                    # where it serves only then, and the tests read that line.
                    if announced is None or SERVING_LINE in announced.read_text():
                        break
            except (httpx.TransportError, OSError):
                pass
            assert process.poll() is None, process.communicate(timeout=10)[1]
            assert time.monotonic() < deadline, "inbox serve did not answer"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        finally:
            if process.poll() is None:
                process.kill()
            process.communicate(timeout=10)
            if announced is not None:
                output.close()  # type: ignore[union-attr]


def lan_url(environment: dict[str, str]) -> str:
    return f"https://{LAN_HOST}:{environment['INBOX_LAN_PORT']}"


def served_fingerprint(environment: dict[str, str]) -> str:
    """The SHA-256 of the DER certificate the LAN listener shows, taken without trusting it."""
    pem = ssl.get_server_certificate((LAN_HOST, int(environment["INBOX_LAN_PORT"])), timeout=10)
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest()


def pinned(environment: dict[str, str], fingerprint: str) -> httpx.Client:
    return httpx.Client(base_url=lan_url(environment), verify=PinnedContext(fingerprint), timeout=10)


def http_child(announced: Path) -> int | None:
    """The pid of the newest HTTP process `inbox serve` announced."""
    pids = re.findall(r"^child http pid (\d+)$", announced.read_text(), flags=re.MULTILINE)
    return int(pids[-1]) if pids else None


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_office_network_gets_the_v1_api_over_tls_pinned_by_the_invite_and_nothing_else(
    inbox: Inbox, environment: dict[str, str]
) -> None:
    old_token = inbox.add("kim")
    with serving(environment) as loopback:
        invited = inbox("user", "invite", "kim")
        assert invited.status == 0, invited.err
        match = INVITE.match(invited.last_line)
        assert match, invited.last_line
        port, fingerprint, token = match.groups()
        assert int(port) == int(environment["INBOX_LAN_PORT"])
        assert fingerprint == served_fingerprint(environment)
        assert parse_invite(invited.last_line).token == token

        with pinned(environment, fingerprint) as desk:
            me = desk.get("/v1/me", headers=bearer(token))
            assert me.status_code == 200 and me.json()["name"] == "kim"
            # The invite gave a new token: the one from `inbox user add` is refused from then on.
            assert desk.get("/v1/me", headers=bearer(old_token)).status_code == 401
            for method, path in [
                ("GET", "/healthz"),
                ("GET", "/metrics"),
                ("GET", "/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=verify&hub.challenge=1"),
                ("POST", "/webhooks/whatsapp"),
                ("GET", "/"),
            ]:
                answer = desk.request(method, path, headers=bearer(token), content=b"{}")
                assert answer.status_code == 404, (method, path)
                assert answer.json()["error"]["code"] == "not_found"
        # Loopback still serves them.
        assert httpx.get(f"{loopback}/healthz", timeout=5).status_code == 200
        assert httpx.get(f"{loopback}/metrics", headers=bearer(token), timeout=5).status_code != 404

        # Plain HTTP on the LAN port gets no answer from the API.
        with socket.create_connection((LAN_HOST, int(port)), timeout=10) as plain:
            plain.sendall(f"GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
            received = b""
            try:
                while chunk := plain.recv(4096):
                    received += chunk
            except (ConnectionResetError, TimeoutError):
                pass
        assert b"kim" not in received and not received.startswith(b"HTTP/1.1 200")

    folder = Path(environment["INBOX_DATA_DIR"]) / TLS_FOLDER
    assert mode(folder / KEY_FILE) == 0o600
    certificate = x509.load_pem_x509_certificate((folder / CERTIFICATE_FILE).read_bytes())
    public_key = certificate.public_key()
    assert isinstance(public_key, ec.EllipticCurvePublicKey) and public_key.curve.name == "secp256r1"
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(address) for address in names.get_values_for_type(x509.IPAddress)] == [LAN_HOST]


def test_the_certificate_is_kept_across_restarts_and_replaced_by_tls_rotate(
    inbox: Inbox, environment: dict[str, str], tmp_path: Path
) -> None:
    inbox.add("lee")
    with serving(environment):
        first = served_fingerprint(environment)
        token = INVITE.match(inbox("user", "invite", "lee").last_line).group(3)  # type: ignore[union-attr]
    announced = tmp_path / "serve.out"
    with serving(environment, announced):
        assert served_fingerprint(environment) == first
        with pinned(environment, first) as desk:
            assert desk.get("/v1/me", headers=bearer(token)).status_code == 200
        said = announced.read_text()
        assert f"and https://{LAN_HOST}:{environment['INBOX_LAN_PORT']} (office network" in said
        assert f"desks pin the certificate {first}" in said

        # A killed HTTP process comes back on the supervisor's LAN socket with the same certificate;
        # a desk asking while none runs waits in that socket's queue and is answered.
        killed = http_child(announced)
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        with pinned(environment, first) as desk:
            desk.timeout = httpx.Timeout(30)
            assert desk.get("/v1/me", headers=bearer(token)).json()["name"] == "lee"
        assert http_child(announced) not in {None, killed}
        assert served_fingerprint(environment) == first

    rotated = inbox("tls", "rotate")
    assert rotated.status == 0, rotated.err
    new = rotated.last_line
    assert re.fullmatch(r"[0-9a-f]{64}", new) and new != first
    with serving(environment):
        assert served_fingerprint(environment) == new
        # A desk still pinned to the old certificate is refused, in words, before its token is sent.
        desk_client = ApiClient(lan_url(environment), token, fingerprint=first)
        with pytest.raises(ApiError) as refused:
            desk_client.identity()
        desk_client.close()
        assert refused.value.code == MISMATCH_CODE
        assert "not your office's inbox server" in refused.value.message
        fresh = INVITE.match(inbox("user", "invite", "lee").last_line)
        assert fresh is not None and fresh.group(2) == new
        with pinned(environment, new) as desk:
            assert desk.get("/v1/me", headers=bearer(fresh.group(3))).json()["name"] == "lee"


def test_an_invite_without_a_lan_listener_is_refused_with_what_to_set(
    inbox: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox.add("mia")
    monkeypatch.delenv("INBOX_LAN_HOST")
    outcome = inbox("user", "invite", "mia")
    assert outcome.status != 0
    assert outcome.out == ""
    assert "no LAN listener is configured" in outcome.err and "INBOX_LAN_HOST" in outcome.err
    assert inbox("tls", "rotate").status != 0
