"""Autostart: what `inbox serve` looks like to each platform's service manager, and how it is told.

Linux: a systemd user unit; macOS: a launchd agent; Windows: a Task Scheduler task. Each starts
`inbox serve` at login (boot, with lingering on Linux) and starts it again when it crashes.
Secrets stay in inbox.toml in the data folder, never in these files.
"""

from __future__ import annotations

import plistlib
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

SERVICE_NAME = "whatsapp-shared-inbox"
LAUNCHD_LABEL = "com.whatsapp-shared-inbox.serve"
TASK_NAME = "WhatsApp shared inbox"
PLATFORMS = ("linux", "darwin", "win32")


def current_platform() -> str:
    """`linux`, `darwin` or `win32` (other POSIX systems are treated as Linux)."""
    if sys.platform.startswith("win"):
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


@dataclass(frozen=True)
class ServicePlan:
    """What install writes and runs, what uninstall runs, and how status asks, on one platform."""

    platform: str
    path: Path
    content: bytes
    install: tuple[tuple[str, ...], ...]
    uninstall: tuple[tuple[str, ...], ...]
    status: tuple[str, ...]
    # The program that must exist for the commands to run.
    manager: str
    note: str = ""

    def text(self) -> str:
        """The file's content as shown by --dry-run."""
        encoding = "utf-16" if self.platform == "win32" else "utf-8"
        return self.content.decode(encoding)


def serve_command(python: str, config_file: Path | None) -> list[str]:
    """The command line the service runs."""
    command = [python, "-m", "app", "serve"]
    if config_file is not None:
        command[3:3] = ["--config", str(config_file)]
    return command


def plan_for(
    platform: str,
    *,
    python: str,
    home: Path,
    data_dir: Path,
    config_file: Path | None = None,
    config_home: Path | None = None,
    environment: dict[str, str] | None = None,
) -> ServicePlan:
    """The plan for `platform`; `environment` holds the variables the service needs (INBOX_DATA_DIR)."""
    command = serve_command(python, config_file)
    environment = environment or {}
    if platform == "linux":
        folder = (config_home or home / ".config") / "systemd" / "user"
        unit = f"{SERVICE_NAME}.service"
        lines = [
            "[Unit]",
            "Description=WhatsApp shared inbox (inbox serve)",
            "After=network-online.target",
            "Wants=network-online.target",
            "",
            "[Service]",
            "Type=simple",
            f"ExecStart={shlex.join(command)}",
            *(f"Environment={shlex.quote(f'{name}={value}')}" for name, value in sorted(environment.items())),
            f"WorkingDirectory={shlex.quote(str(data_dir))}",
            # SIGTERM to the supervisor only: it stops its children within 10 s, then systemd kills leftovers.
            "KillMode=mixed",
            "TimeoutStopSec=20",
            "Restart=on-failure",
            "RestartSec=5",
            "",
            "[Install]",
            "WantedBy=default.target",
            "",
        ]
        return ServicePlan(
            platform,
            folder / unit,
            "\n".join(lines).encode(),
            install=(
                ("systemctl", "--user", "daemon-reload"),
                ("systemctl", "--user", "enable", "--now", unit),
            ),
            uninstall=(
                ("systemctl", "--user", "disable", "--now", unit),
                ("systemctl", "--user", "daemon-reload"),
            ),
            status=("systemctl", "--user", "status", "--no-pager", unit),
            manager="systemctl",
            note="to start it at boot before anyone logs in: loginctl enable-linger $USER",
        )
    if platform == "darwin":
        path = home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
        logs = data_dir / "logs"
        agent = {
            "Label": LAUNCHD_LABEL,
            "ProgramArguments": command,
            "EnvironmentVariables": environment,
            "WorkingDirectory": str(data_dir),
            "RunAtLoad": True,
            # Started again whenever it ends other than by a clean stop.
            "KeepAlive": {"SuccessfulExit": False},
            "ThrottleInterval": 10,
            "ExitTimeOut": 20,
            "StandardOutPath": str(logs / "service.out"),
            "StandardErrorPath": str(logs / "service.err"),
        }
        return ServicePlan(
            platform,
            path,
            plistlib.dumps(agent),
            install=(("launchctl", "load", "-w", str(path)),),
            uninstall=(("launchctl", "unload", "-w", str(path)),),
            status=("launchctl", "list", LAUNCHD_LABEL),
            manager="launchctl",
        )
    if platform == "win32":
        path = data_dir / f"{SERVICE_NAME}-task.xml"
        if environment:
            # A task has no environment of its own: cmd sets it for the one command.
            settings = "&& ".join(f'set "{name}={value}"' for name, value in sorted(environment.items()))
            program, arguments = "cmd.exe", f"/c {settings}&& {subprocess.list2cmdline(command)}"
        else:
            program, arguments = command[0], subprocess.list2cmdline(command[1:])
        task = f"""<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>WhatsApp shared inbox (inbox serve), started at logon and again after a failure</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>{escape(program)}</Command>
      <Arguments>{escape(arguments)}</Arguments>
      <WorkingDirectory>{escape(str(data_dir))}</WorkingDirectory>
    </Exec>
  </Actions>
</Task>
"""
        return ServicePlan(
            platform,
            path,
            task.encode("utf-16"),
            install=(
                ("schtasks", "/Create", "/TN", TASK_NAME, "/XML", str(path), "/F"),
                ("schtasks", "/Run", "/TN", TASK_NAME),
            ),
            uninstall=(
                ("schtasks", "/End", "/TN", TASK_NAME),
                ("schtasks", "/Delete", "/TN", TASK_NAME, "/F"),
            ),
            status=("schtasks", "/Query", "/TN", TASK_NAME, "/V", "/FO", "LIST"),
            manager="schtasks",
        )
    raise ValueError(f"unknown platform {platform!r}; one of {', '.join(PLATFORMS)}")


def describe(commands: Sequence[Sequence[str]]) -> list[str]:
    """Commands as a person would type them."""
    return [shlex.join(command) for command in commands]


def home_folder() -> Path:
    """The user's home folder."""
    return Path.home()
