"""`inbox user`: list, disable, enable, rotate-token and set-role through the CLI, and what a running
`inbox serve` makes of the tokens afterwards (SQLite and PostgreSQL)."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.cli import main
from backend.database import Database
from backend.users import user_for_token
from tests.integration.test_cli import free_port, isolated_env, run_inbox

ACTIONS = ["add", "list", "disable", "enable", "rotate-token", "invite", "set-role"]


@dataclass(frozen=True)
class Outcome:
    """What one `inbox` run printed and returned."""

    status: int
    out: str
    err: str

    @property
    def last_line(self) -> str:
        return self.out.strip().splitlines()[-1]


class Inbox:
    """Runs `inbox ARGS` through the CLI entry point against this test's database."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys

    def __call__(self, *args: str) -> Outcome:
        self._capsys.readouterr()
        status = main(list(args))
        captured = self._capsys.readouterr()
        return Outcome(status, captured.out, captured.err)

    def add(self, name: str, role: str = "agent") -> str:
        outcome = self("user", "add", name, "--role", role)
        assert outcome.status == 0, outcome.err
        return outcome.last_line


@pytest.fixture
def environment(tmp_path: Path, database_url: str) -> dict[str, str]:
    """The settings of this test's `inbox` runs: a private data folder and the test database."""
    return isolated_env(tmp_path, INBOX_DATABASE_URL=database_url)


@pytest.fixture
def inbox(
    environment: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Inbox]:
    for name in ("INBOX_DATA_DIR", "INBOX_DATABASE_URL"):
        monkeypatch.setenv(name, environment[name])
    root = logging.getLogger()
    level = root.level
    yield Inbox(capsys)
    root.setLevel(level)  # the CLI applies INBOX_LOG_LEVEL to the root logger


def accepted(database: Database, token: str) -> str | None:
    """The name of the enabled user holding the token, or None when it is refused."""
    with database.reader() as session:
        user = user_for_token(session, token)
        return None if user is None else user.name


def test_user_help_lists_every_action() -> None:
    result = run_inbox("user", "--help")
    assert result.returncode == 0
    for action in ACTIONS:
        assert action in result.stdout


def test_list_shows_name_role_status_and_creation(inbox: Inbox) -> None:
    assert "No users yet" in inbox("user", "list").out
    inbox.add("dana", "supervisor")
    inbox.add("a-much-longer-name")
    assert inbox("user", "disable", "a-much-longer-name").status == 0

    listing = inbox("user", "list")
    assert listing.status == 0, listing.err
    header, *rows = listing.out.strip().splitlines()
    assert header.split() == ["NAME", "ROLE", "STATUS", "CREATED"]
    assert [row.split()[:3] for row in rows] == [
        ["dana", "supervisor", "enabled"],
        ["a-much-longer-name", "agent", "disabled"],
    ]
    # Columns line up, and creation is a readable UTC time.
    assert len({row.index(row.split()[1]) for row in rows}) == 1
    assert all(row.endswith(" UTC") and row.split()[3][:2] == "20" for row in rows)


def test_disable_refuses_the_token_and_enable_accepts_it_again(inbox: Inbox, database: Database) -> None:
    token = inbox.add("erin")
    assert accepted(database, token) == "erin"

    disabled = inbox("user", "disable", "erin")
    assert disabled.status == 0
    assert "erin" in disabled.out
    assert accepted(database, token) is None
    assert "disabled" in inbox("user", "list").out

    enabled = inbox("user", "enable", "erin")
    assert enabled.status == 0
    assert accepted(database, token) == "erin"


def test_rotate_token_prints_the_new_token_alone_and_refuses_the_old(
    inbox: Inbox, database: Database
) -> None:
    old = inbox.add("frank", "supervisor")
    rotated = inbox("user", "rotate-token", "frank")
    assert rotated.status == 0, rotated.err
    new = rotated.last_line
    assert len(new) >= 32 and " " not in new and new != old
    assert accepted(database, old) is None
    assert accepted(database, new) == "frank"


def test_rotating_a_disabled_user_s_token_leaves_them_disabled(inbox: Inbox, database: Database) -> None:
    inbox.add("gina")
    inbox("user", "disable", "gina")
    rotated = inbox("user", "rotate-token", "gina")
    assert rotated.status == 0
    assert "still disabled" in rotated.out
    assert accepted(database, rotated.last_line) is None
    inbox("user", "enable", "gina")
    assert accepted(database, rotated.last_line) == "gina"


def test_set_role_makes_an_agent_a_supervisor_and_back(inbox: Inbox) -> None:
    inbox.add("hugo")
    promoted = inbox("user", "set-role", "hugo", "--role", "supervisor")
    assert promoted.status == 0
    assert "supervisor" in promoted.out
    assert inbox("user", "list").out.splitlines()[1].split()[:2] == ["hugo", "supervisor"]
    assert inbox("user", "set-role", "hugo", "--role", "agent").status == 0
    assert inbox("user", "list").out.splitlines()[1].split()[:2] == ["hugo", "agent"]


def test_set_role_needs_a_known_role(inbox: Inbox) -> None:
    inbox.add("ivy")
    with pytest.raises(SystemExit) as exit_info:
        inbox("user", "set-role", "ivy", "--role", "owner")
    assert exit_info.value.code == 2


@pytest.mark.parametrize(
    "arguments",
    [
        ["disable", "nobody"],
        ["enable", "nobody"],
        ["rotate-token", "nobody"],
        ["set-role", "nobody", "--role", "supervisor"],
    ],
)
def test_an_unknown_name_is_one_clear_line_and_exit_status_1(inbox: Inbox, arguments: list[str]) -> None:
    inbox.add("dana", "supervisor")
    outcome = inbox("user", *arguments)
    assert outcome.status == 1
    assert outcome.out == ""
    assert outcome.err.strip() == (
        "inbox user: there is no user named 'nobody' (`inbox user list` shows who there is)"
    )


def test_an_unknown_name_exits_1_from_the_installed_command(environment: dict[str, str]) -> None:
    result = run_inbox("user", "disable", "nobody", env=environment)
    assert result.returncode == 1
    assert "no user named 'nobody'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture
def serving(environment: dict[str, str]) -> Iterator[httpx.Client]:
    """`inbox serve` in its own process on this test's database, and a client for it."""
    port = free_port()
    env = {
        **environment,
        "WHATSAPP_APP_SECRET": "secret",
        "WHATSAPP_VERIFY_TOKEN": "verify",
        "WHATSAPP_TOKEN": "token",
        "WHATSAPP_PHONE_NUMBER_ID": "100000000000001",
        "WHATSAPP_GRAPH_URL": "http://127.0.0.1:9/v23.0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if client.get("/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.communicate(timeout=10)[1]
            assert time.monotonic() < deadline, "inbox serve did not answer /healthz"
            time.sleep(0.1)
        yield client
    finally:
        client.close()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        finally:
            if process.poll() is None:
                process.kill()
            process.communicate(timeout=10)


def me(client: httpx.Client, token: str) -> httpx.Response:
    return client.get("/v1/me", headers={"Authorization": f"Bearer {token}"})


@pytest.mark.timeout(90)
def test_a_running_server_refuses_disabled_and_rotated_away_tokens_at_once(
    inbox: Inbox, serving: httpx.Client
) -> None:
    agent = inbox.add("kim")
    supervisor = inbox.add("lee", "supervisor")
    assert me(serving, agent).status_code == 200
    assert me(serving, supervisor).json()["name"] == "lee"

    assert inbox("user", "disable", "kim").status == 0
    refused = me(serving, agent)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthorized"
    assert me(serving, supervisor).status_code == 200  # only that user is shut out

    assert inbox("user", "enable", "kim").status == 0
    assert me(serving, agent).status_code == 200

    rotated = inbox("user", "rotate-token", "lee")
    new_token = rotated.last_line
    assert me(serving, supervisor).status_code == 401
    assert me(serving, new_token).json()["name"] == "lee"

    # A role change applies from the next request too: an agent is refused the supervisor's queue.
    queue = {"Authorization": f"Bearer {new_token}"}
    assert serving.get("/v1/supervisor/queue", headers=queue).status_code == 200
    assert inbox("user", "set-role", "lee", "--role", "agent").status == 0
    assert serving.get("/v1/supervisor/queue", headers=queue).status_code == 403
    assert me(serving, new_token).json()["role"] == "agent"
