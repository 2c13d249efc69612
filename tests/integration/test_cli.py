"""The `inbox` command line: help for every subcommand, user tokens, serve and worker processes, /healthz."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.cli import COMMANDS, build_parser
from app.commands.ui import remembered_sign_in
from bench.harness import CHILD_LINE
from tests.integration.app.process_support import process_gone
from ui.sign_in import FILE_NAME as SIGN_IN_FILE_NAME
from ui.sign_in import SignIn, load_sign_in, save_sign_in

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")

SUBCOMMANDS = [
    "demo",
    "serve",
    "worker",
    "sandbox",
    "ui",
    "db",
    "user",
    "webhooks",
    "tls",
    "templates",
    "logs",
    "service",
    "media",
]


def run_inbox(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m app ARGS` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def isolated_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment pointing the product at a private data folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INBOX_", "WHATSAPP_"))}
    env["INBOX_DATA_DIR"] = str(tmp_path / "data")
    env.update(extra)
    return env


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def mode(path: Path) -> int:
    """The permission bits of a file or folder."""
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common default umask (children inherit it), which leaves new files readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_help_lists_every_subcommand() -> None:
    result = run_inbox("--help")
    assert result.returncode == 0
    for name in SUBCOMMANDS:
        assert name in result.stdout
    assert len(COMMANDS) == len(SUBCOMMANDS)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_each_subcommand_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([name, "--help"])
    assert exit_info.value.code == 0
    assert f"inbox {name}" in capsys.readouterr().out


def test_user_add_prints_the_token_alone_on_the_last_line(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    result = run_inbox("user", "add", "dana", "--role", "supervisor", env=env)
    assert result.returncode == 0, result.stderr
    token = result.stdout.strip().splitlines()[-1]
    assert len(token) >= 32
    assert " " not in token
    again = run_inbox("user", "add", "dana", env=env)
    assert again.returncode == 2
    assert "already exists" in again.stderr
    assert "Traceback" not in again.stderr


def test_a_missing_secret_is_one_clear_line(tmp_path: Path) -> None:
    result = run_inbox("serve", env=isolated_env(tmp_path))
    assert result.returncode == 2
    assert "WHATSAPP_APP_SECRET" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_templates_file_that_cannot_be_read_is_one_clear_line(tmp_path: Path) -> None:
    broken = tmp_path / "templates.toml"
    broken.write_text("[[template]\nname = ", encoding="utf-8")
    env = isolated_env(
        tmp_path, WHATSAPP_TOKEN="t", WHATSAPP_PHONE_NUMBER_ID="1", INBOX_TEMPLATES_FILE=str(broken)
    )
    result = run_inbox("worker", env=env)
    assert result.returncode == 2
    assert str(broken) in result.stderr and "not valid TOML" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_unreachable_database_is_one_clear_line_without_its_password(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://postgres:s3cret@127.0.0.1:{free_port()}/inbox"
    result = run_inbox("user", "list", env=isolated_env(tmp_path, INBOX_DATABASE_URL=url))
    assert result.returncode == 1
    assert "cannot reach the database" in result.stderr and "Connection refused" in result.stderr
    assert "s3cret" not in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_database_url_of_an_unknown_kind_is_one_clear_line(tmp_path: Path) -> None:
    result = run_inbox("db", "upgrade", env=isolated_env(tmp_path, INBOX_DATABASE_URL="oracle-ish://x"))
    assert result.returncode == 2
    assert "is not usable" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_refuses_a_non_loopback_address_without_the_setting(tmp_path: Path) -> None:
    env = isolated_env(
        tmp_path,
        WHATSAPP_APP_SECRET="s",
        WHATSAPP_VERIFY_TOKEN="v",
        WHATSAPP_TOKEN="t",
        WHATSAPP_PHONE_NUMBER_ID="1",
    )
    result = run_inbox("serve", "--host", "0.0.0.0", env=env)
    assert result.returncode == 2
    assert "INBOX_ALLOW_REMOTE_BIND" in result.stderr


def test_serve_on_a_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    env = isolated_env(
        tmp_path,
        WHATSAPP_APP_SECRET="s",
        WHATSAPP_VERIFY_TOKEN="v",
        WHATSAPP_TOKEN="t",
        WHATSAPP_PHONE_NUMBER_ID="1",
    )
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = run_inbox("serve", "--port", str(port), env=env)
    assert result.returncode == 2
    assert result.stderr.startswith(f"inbox serve: cannot listen on 127.0.0.1:{port}: ")
    assert len(result.stderr.strip().splitlines()) == 1 and "while attempting" not in result.stderr
    assert "child" not in result.stdout  # nothing was started


def test_db_upgrade_creates_the_schema(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    result = run_inbox("db", "upgrade", env=env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "inbox.db").exists()
    assert run_inbox("db", "current", env=env).stdout.strip() != "empty"


@pytest.mark.processes
def test_serve_answers_healthz_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    env = isolated_env(
        tmp_path,
        WHATSAPP_APP_SECRET="secret",
        WHATSAPP_VERIFY_TOKEN="verify",
        WHATSAPP_TOKEN="token",
        WHATSAPP_PHONE_NUMBER_ID="100000000000001",
        WHATSAPP_GRAPH_URL="http://127.0.0.1:9/v23.0",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        # Said once every process is ready.
        for line in process.stdout:
            lines.append(line)
            if line.startswith("inbox is serving on"):
                break
        assert lines[-1].startswith(f"inbox is serving on http://127.0.0.1:{port} "), lines
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        began = time.monotonic()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert time.monotonic() - began <= 10.0
    finally:
        if process.poll() is None:
            process.kill()
        rest, _errors = process.communicate(timeout=10)
    # One process per role, each gone with the supervisor.
    children = dict(CHILD_LINE.findall("".join(lines) + rest))
    assert sorted(children) == ["background", "http", "sender"]
    assert all(process_gone(int(pid)) for pid in children.values())


@pytest.mark.processes
def test_worker_runs_its_roles_in_processes_and_stops_them_on_sigterm(tmp_path: Path) -> None:
    env = isolated_env(
        tmp_path,
        WHATSAPP_TOKEN="token",
        WHATSAPP_PHONE_NUMBER_ID="1",
        WHATSAPP_GRAPH_URL="http://127.0.0.1:9",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "worker"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        for line in process.stdout:
            lines.append(line)
            if line.startswith("inbox worker is running"):
                break
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
        rest, _errors = process.communicate(timeout=10)
    output = "".join(lines) + rest
    running = next(line for line in lines if line.startswith("inbox worker is running"))
    for name in (
        "outbox-sender",
        "outbox-sweeper",
        "webhook-processor",
        "window-timers",
        "retention-sweeper",
    ):
        assert name in running
    children = dict(CHILD_LINE.findall(output))
    assert sorted(children) == ["background", "sender"]
    assert all(process_gone(int(pid)) for pid in children.values())
    assert output.rstrip().endswith("inbox worker stopped")


@posix_only
@pytest.mark.usefixtures("umask_022")
def test_the_data_folder_and_the_database_are_private_under_a_wide_umask(tmp_path: Path) -> None:
    result = run_inbox("db", "upgrade", env=isolated_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert mode(tmp_path / "data") == 0o700
    assert mode(tmp_path / "data" / "inbox.db") == 0o600


@posix_only
@pytest.mark.usefixtures("umask_022")
def test_an_open_data_folder_and_its_secret_files_are_restricted_on_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "inbox.toml").write_text('whatsapp_app_secret = "s3cret"\n', encoding="utf-8")
    (data / SIGN_IN_FILE_NAME).write_text('{"backend_url": "http://x", "token": "t"}', encoding="utf-8")
    (data / "inbox.db").touch()
    opened = [data, data / "inbox.toml", data / SIGN_IN_FILE_NAME, data / "inbox.db"]
    assert [mode(path) for path in opened] == [0o755, 0o644, 0o644, 0o644]

    result = run_inbox("db", "current", env=isolated_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert [mode(path) for path in opened] == [0o700, 0o600, 0o600, 0o600]
    for path in opened:
        assert f"{path} could be opened by other users of this machine" in result.stderr

    again = run_inbox("db", "current", env=isolated_env(tmp_path))
    assert "could be opened" not in again.stderr  # said once, when it was changed


def test_ui_refuses_a_token_on_its_command_line(tmp_path: Path) -> None:
    result = run_inbox("ui", "--token", "visible-in-ps", env=isolated_env(tmp_path))
    assert result.returncode == 2
    assert "INBOX_TOKEN" in result.stderr and "sign-in dialog" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "data" / SIGN_IN_FILE_NAME).exists()
    help_text = run_inbox("ui", "--help").stdout
    assert "INBOX_TOKEN" in help_text and "--token" not in help_text and "--url" in help_text


@posix_only
@pytest.mark.usefixtures("umask_022")
def test_ui_takes_its_token_from_inbox_token_and_remembers_it_privately(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert remembered_sign_in(data, None, {}) is None  # nothing yet: the dialog will ask

    chosen = remembered_sign_in(data, "http://127.0.0.1:9000", {"INBOX_TOKEN": "token-from-env"})
    assert chosen == SignIn("http://127.0.0.1:9000", "token-from-env", None)
    assert load_sign_in(data) == chosen
    assert mode(data) == 0o700 and mode(data / SIGN_IN_FILE_NAME) == 0o600
    assert json.loads((data / SIGN_IN_FILE_NAME).read_text(encoding="utf-8"))["token"] == "token-from-env"


def test_ui_keeps_the_remembered_sign_in_unless_told_otherwise(tmp_path: Path) -> None:
    save_sign_in(tmp_path, SignIn("http://127.0.0.1:9000", "remembered", "dana"))
    assert remembered_sign_in(tmp_path, None, {}) == SignIn("http://127.0.0.1:9000", "remembered", "dana")
    # A new URL keeps the token and the name; a new token forgets the name shown for the old one.
    moved = remembered_sign_in(tmp_path, "http://10.0.0.2:8080", {})
    assert moved == SignIn("http://10.0.0.2:8080", "remembered", "dana")
    other = remembered_sign_in(tmp_path, None, {"INBOX_TOKEN": "someone-else"})
    assert other == SignIn("http://10.0.0.2:8080", "someone-else", None)
