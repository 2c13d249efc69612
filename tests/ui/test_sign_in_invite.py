"""The sign-in with an office invite: the pinned certificate is checked before the token is sent, and
a server showing any other certificate is refused in words the person at the desk understands."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from keyring.backend import KeyringBackend

from app.cli_errors import CommandError
from app.commands.ui import read_invite_file, remembered_sign_in
from app.composition import build_parts
from app.http_server import bind_listener
from app.lan.advertisement import LanAdvertisement, service_info
from app.lan.certificate import LanCertificate, make_certificate
from app.lan.invite import invite_url
from app.lan.server import LanServer
from backend.clock import utc_now
from backend.database import Database
from backend.settings import load_settings
from backend.users import create_user
from backend.web import create_app
from ui.api.client import ApiClient
from ui.api.invite import InviteError, parse_invite
from ui.discovery import OfficeServers
from ui.runner import BackgroundRunner
from ui.sign_in import FILE_NAME, IN_KEYRING, SignIn, load_sign_in, save_sign_in
from ui.views.main_window import MainWindow
from ui.views.sign_in import SignInDialog

LAN_HOST = "127.0.0.2"


class Office:
    """A LAN listener on 127.0.0.2 serving a fresh database, and the token of one agent."""

    def __init__(self, server: LanServer, certificate: LanCertificate, token: str) -> None:
        self.server = server
        self.certificate = certificate
        self.token = token

    def invite(self, fingerprint: str | None = None) -> str:
        return invite_url(LAN_HOST, self.server.port, fingerprint or self.certificate.fingerprint, self.token)


@pytest.fixture
def office(database: Database, tmp_path: Path) -> Iterator[Office]:
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path / "office")})
    with database.transaction() as session:
        token = create_user(session, "nora", "agent", utc_now())
    certificate = make_certificate(settings.data_dir, LAN_HOST)
    server = LanServer(create_app(build_parts(settings, database)), bind_listener(LAN_HOST, 0), certificate)
    server.start()
    yield Office(server, certificate, token)
    server.stop(timeout=2)


def wait_until_closed(qtbot: Any, dialog: SignInDialog) -> None:
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)


def test_a_certificate_with_another_fingerprint_is_refused_and_the_sign_in_says_why(
    qtbot: Any, office: Office
) -> None:
    impostor = "ab" * 32
    dialog = SignInDialog(None, invite_text=office.invite(impostor), discover=False)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.url_field.text() == f"https://{LAN_HOST}:{office.server.port}"
    dialog.buttons.accepted.emit()
    qtbot.waitUntil(lambda: "not your office's inbox server" in dialog.problem_label.text(), timeout=10_000)
    assert "certificate has changed" in dialog.problem_label.text()
    assert dialog.isVisible() and dialog.result() != SignInDialog.DialogCode.Accepted
    assert dialog.buttons.isEnabled()  # the person can paste the right invite and try again


def test_the_right_invite_signs_in_with_the_pin_and_learns_the_user_s_name(
    qtbot: Any, office: Office
) -> None:
    dialog = SignInDialog(None, invite_text=office.invite(), discover=False)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.buttons.accepted.emit()
    wait_until_closed(qtbot, dialog)
    assert dialog.result() == SignInDialog.DialogCode.Accepted
    assert dialog.sign_in() == SignIn(
        f"https://{LAN_HOST}:{office.server.port}", office.token, "nora", office.certificate.fingerprint
    )


def test_an_invite_whose_token_was_replaced_is_refused_with_what_to_do(qtbot: Any, office: Office) -> None:
    stale = invite_url(LAN_HOST, office.server.port, office.certificate.fingerprint, "an-old-token")
    dialog = SignInDialog(None, invite_text=stale, discover=False)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.buttons.accepted.emit()
    qtbot.waitUntil(lambda: "does not accept this invite" in dialog.problem_label.text(), timeout=10_000)


def test_a_damaged_invite_says_what_is_wrong_while_it_is_pasted(qtbot: Any) -> None:
    dialog = SignInDialog(None, discover=False)
    qtbot.addWidget(dialog)
    dialog.invite_field.setText("inbox://10.0.0.5:8443?fingerprint=abc&token=x")
    assert "fingerprint is missing or damaged" in dialog.problem_label.text()
    dialog.invite_field.setText("https://10.0.0.5:8443")
    assert "starts with inbox://" in dialog.problem_label.text()


def test_invites_parse_as_printed_and_refuse_what_is_missing() -> None:
    fingerprint = "0f" * 32
    invite = parse_invite(f"  inbox://192.168.1.20:8443?fingerprint={fingerprint}&token=a-b_c\n")
    assert (invite.backend_url, invite.fingerprint, invite.token) == (
        "https://192.168.1.20:8443",
        fingerprint,
        "a-b_c",
    )
    assert parse_invite(invite_url("fe80::1", 9443, fingerprint, "t")).backend_url == "https://[fe80::1]:9443"
    for broken in [
        f"inbox://192.168.1.20?fingerprint={fingerprint}&token=t",
        "inbox://192.168.1.20:8443?token=t",
        f"inbox://192.168.1.20:8443?fingerprint={fingerprint}",
        f"inbox://192.168.1.20:8443?fingerprint={fingerprint}&token=t&token=u",
    ]:
        with pytest.raises(InviteError):
            parse_invite(broken)


def test_the_invite_file_may_hold_the_whole_output_of_the_invite_command(tmp_path: Path) -> None:
    saved = tmp_path / "invite.txt"
    saved.write_text("The old token of 'nora' is refused from now on.\nOn nora's PC…\ninbox://x:1?a\n\n")
    assert read_invite_file(saved) == "inbox://x:1?a"
    with pytest.raises(CommandError):
        read_invite_file(tmp_path / "missing.txt")


class MemoryKeyring(KeyringBackend):
    """A keyring backend kept in memory, standing in for the operating system's."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


def test_the_token_goes_to_the_keyring_where_there_is_one_and_never_into_the_file(tmp_path: Path) -> None:
    keyring = MemoryKeyring()
    signed_in = SignIn("https://10.0.0.5:8443", "a-long-secret-token", "nora", "0f" * 32)
    path = save_sign_in(tmp_path, signed_in, keyring)
    text = path.read_text(encoding="utf-8")
    assert "a-long-secret-token" not in text and IN_KEYRING in text
    assert list(keyring.entries.values()) == ["a-long-secret-token"]
    assert load_sign_in(tmp_path, keyring) == signed_in
    # Without the keyring the token is missing, so the sign-in asks again instead of failing later.
    assert load_sign_in(tmp_path) == SignIn("https://10.0.0.5:8443", "", "nora", "0f" * 32)
    # Without a keyring it stays in the private file, as before.
    save_sign_in(tmp_path, signed_in)
    assert "a-long-secret-token" in (tmp_path / FILE_NAME).read_text(encoding="utf-8")
    # A new URL drops the pin of the old server; the same URL keeps it.
    assert remembered_sign_in(tmp_path, None, {}, keyring) == signed_in
    moved = remembered_sign_in(tmp_path, "http://127.0.0.1:8080", {}, keyring)
    assert moved is not None and moved.fingerprint is None


def _multicast_works() -> bool:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
            probe.sendto(b"", ("224.0.0.251", 5353))
    except OSError:
        return False
    return True


@pytest.mark.timeout(60)
def test_the_sign_in_lists_a_server_that_advertises_itself(qtbot: Any) -> None:
    if not _multicast_works():
        pytest.skip("this machine refuses multicast")
    fingerprint = "5e" * 32
    machine = f"test-{time.monotonic_ns()}"
    advertisement = LanAdvertisement(service_info("127.0.0.1", 18443, fingerprint, machine=machine)).start()
    dialog = SignInDialog(None)
    qtbot.addWidget(dialog)
    try:
        if not advertisement.registered.wait(15):
            pytest.skip("zeroconf could not register on this machine's network")

        def shown() -> list[str]:
            return [dialog.servers_list.item(row).text() for row in range(dialog.servers_list.count())]

        def ours_listed() -> bool:
            return any(machine in line for line in shown())

        try:
            qtbot.waitUntil(ours_listed, timeout=15_000)
        except AssertionError:
            if not shown():
                pytest.skip("multicast answers do not come back on this machine")
            raise
        line = next(line for line in shown() if machine in line)
        assert line == f"Shared inbox on {machine} — 127.0.0.1:18443 (certificate {'5e' * 8}…)"
        # A server that stops says goodbye, and leaves the list.
        advertisement.close()
        qtbot.waitUntil(lambda: not ours_listed(), timeout=10_000)
    finally:
        dialog.close()
        advertisement.close()
    assert isinstance(dialog.discovery, OfficeServers)


def test_a_signed_in_window_whose_server_changed_certificate_says_so_in_its_banner(
    qtbot: Any, office: Office
) -> None:
    api = ApiClient(office.server.url, office.token, fingerprint="cd" * 32)
    runner = BackgroundRunner()
    window = MainWindow(api, runner, user_name="nora", wait_seconds=1.0)
    qtbot.addWidget(window)
    window.show()
    window.start()
    try:
        qtbot.waitUntil(lambda: "not your office's inbox server" in window.banner.text(), timeout=10_000)
    finally:
        window.stop()
        runner.shutdown()
        api.close()


def test_a_lookup_that_ends_after_the_sign_in_closed_reports_nothing(qtbot: Any) -> None:
    servers = OfficeServers()
    found: list[str] = []
    servers.server_found.connect(lambda name, _address, _start: found.append(name))
    servers._report(servers.server_found, "before", "10.0.0.5:8443", "ab")
    servers.stop()
    servers._report(servers.server_found, "after", "10.0.0.5:8443", "ab")
    qtbot.wait(50)
    assert found == ["before"]
