"""The log file rotates by size and `inbox logs` shows it; `inbox service` on each platform."""

from __future__ import annotations

import io
import logging
import plistlib
import sys
import threading
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from app.cli import main
from app.commands.logs import follow
from app.log_files import BACKUP_COUNT, MAX_BYTES, InstallationLogHandler, attach_log_file, log_path

TASK_NAMESPACE = {"task": "http://schemas.microsoft.com/windows/2004/02/mit/task"}


@pytest.fixture
def installation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder and a home folder of this test's own; no service manager on the PATH."""
    data_dir = tmp_path / "data"
    monkeypatch.setenv("INBOX_DATA_DIR", str(data_dir))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return data_dir


def test_the_log_file_rotates_at_its_size_keeping_five_old_files(tmp_path: Path) -> None:
    assert (MAX_BYTES, BACKUP_COUNT) == (10 * 1024 * 1024, 5)
    handler = InstallationLogHandler(tmp_path, max_bytes=2_000)
    logger = logging.getLogger("tests.rotation")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for number in range(400):
            logger.warning("line %04d %s", number, "x" * 60)
    finally:
        logger.removeHandler(handler)
        handler.close()
    folder = log_path(tmp_path).parent
    assert sorted(path.name for path in folder.iterdir()) == [
        "inbox.log",
        *(f"inbox.log.{number}" for number in range(1, 6)),
    ]
    assert all(path.stat().st_size <= 2_000 for path in folder.iterdir())
    assert "line 0399" in log_path(tmp_path).read_text()


def test_the_installed_handler_is_10_mb_by_5_and_attached_once(tmp_path: Path) -> None:
    root = logging.getLogger()
    handler = attach_log_file(tmp_path)
    try:
        assert attach_log_file(tmp_path) is handler
        assert (handler.maxBytes, handler.backupCount) == (MAX_BYTES, BACKUP_COUNT)
        assert sum(isinstance(h, InstallationLogHandler) for h in root.handlers) == 1
    finally:
        root.removeHandler(handler)
        handler.close()


def test_inbox_logs_prints_the_end_and_follow_reads_on_across_a_rotation(
    installation: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = log_path(installation)
    path.parent.mkdir(parents=True)
    path.write_text("".join(f"old line {n}\n" for n in range(150)))
    assert main(["logs", "--lines", "3"]) == 0
    assert capsys.readouterr().out == "old line 147\nold line 148\nold line 149\n"

    out = io.StringIO()
    start = path.stat().st_size

    def write_and_rotate() -> None:
        time.sleep(0.3)
        with path.open("a") as handle:
            handle.write("before the rotation\n")
        time.sleep(0.1)
        path.rename(path.with_name("inbox.log.1"))
        path.write_text("after the rotation\n")

    writer = threading.Thread(target=write_and_rotate)
    writer.start()
    follow(path, start, out, stop_after=1.5)
    writer.join()
    assert out.getvalue() == "before the rotation\nafter the rotation\n"


def test_inbox_logs_without_a_log_says_so(installation: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs"]) == 1
    assert "there is no log yet" in capsys.readouterr().err


def test_dry_run_shows_a_systemd_user_unit_that_restarts_on_failure(
    installation: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["service", "install", "--dry-run", "--platform", "linux"]) == 0
    out = capsys.readouterr().out
    unit = installation.parent / "home" / ".config" / "systemd" / "user" / "whatsapp-shared-inbox.service"
    assert out.startswith(f"would write {unit}:\n[Unit]\n")
    assert " -m app serve\n" in out
    assert f"Environment=INBOX_DATA_DIR={installation}\n" in out
    assert "Restart=on-failure\n" in out
    assert "WantedBy=default.target\n" in out
    assert "systemctl --user enable --now whatsapp-shared-inbox.service" in out
    assert not unit.exists()


def test_dry_run_shows_a_launchd_agent_kept_alive_after_a_crash(
    installation: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["service", "install", "--dry-run", "--platform", "darwin"]) == 0
    out = capsys.readouterr().out
    header, _, rest = out.partition("\n")
    plist_text, _, commands = rest.partition("</plist>\n")
    agent = plistlib.loads((plist_text + "</plist>\n").encode())
    assert header.endswith("Library/LaunchAgents/com.whatsapp-shared-inbox.serve.plist:")
    assert agent["ProgramArguments"][1:] == ["-m", "app", "serve"]
    assert agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["RunAtLoad"] is True
    assert agent["EnvironmentVariables"] == {"INBOX_DATA_DIR": str(installation)}
    assert "launchctl load -w" in commands


def test_dry_run_shows_a_task_scheduler_task_started_at_logon_and_after_a_failure(
    installation: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["service", "install", "--dry-run", "--platform", "win32"]) == 0
    out = capsys.readouterr().out
    _, _, rest = out.partition("\n")
    xml_text, _, commands = rest.partition("</Task>\n")
    task = ElementTree.fromstring((xml_text + "</Task>").split("?>", 1)[1])
    assert task.find("task:Triggers/task:LogonTrigger", TASK_NAMESPACE) is not None
    assert task.findtext("task:Settings/task:RestartOnFailure/task:Count", namespaces=TASK_NAMESPACE) == "999"
    arguments = task.findtext("task:Actions/task:Exec/task:Arguments", namespaces=TASK_NAMESPACE) or ""
    assert f'set "INBOX_DATA_DIR={installation}"' in arguments
    assert arguments.endswith("-m app serve")
    assert "schtasks /Create /TN 'WhatsApp shared inbox' /XML" in commands


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="installs a Linux unit for real")
def test_install_on_linux_without_systemctl_writes_the_unit_and_says_what_to_run(
    installation: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unit = installation.parent / "home" / ".config" / "systemd" / "user" / "whatsapp-shared-inbox.service"
    assert main(["service", "install", "--platform", "linux"]) == 0
    out = capsys.readouterr().out
    assert unit.is_file()
    assert "Restart=on-failure" in unit.read_text()
    assert "systemctl is not on this machine" in out
    assert main(["service", "status", "--platform", "linux"]) == 0
    assert f"{unit}: installed" in capsys.readouterr().out
    assert main(["service", "uninstall", "--platform", "linux"]) == 0
    assert not unit.exists()


def test_another_platforms_service_is_only_shown(
    installation: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["service", "install", "--platform", "darwin"]) == 2
    assert "only works with --dry-run" in capsys.readouterr().err
