"""`inbox service install|uninstall|status`: start `inbox serve` at login and again after a crash."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from app.autostart import PLATFORMS, ServicePlan, current_platform, describe, home_folder, plan_for
from app.cli_errors import FAILURE_STATUS, CommandError
from app.commands.common import settings_from
from backend.settings import default_data_dir


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox service` and its actions."""
    parser = subcommands.add_parser(
        "service",
        help="run inbox serve as a service: systemd (Linux), launchd (macOS), Task Scheduler (Windows)",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text in (
        ("install", "write the service definition and start it"),
        ("uninstall", "stop the service and remove its definition"),
        ("status", "say whether the service is installed and running"),
    ):
        action = actions.add_parser(name, help=help_text)
        action.add_argument(
            "--dry-run", action="store_true", help="print what would be written and run, and change nothing"
        )
        # For showing (and testing) another platform's definition; the commands only run on their own.
        action.add_argument("--platform", choices=PLATFORMS, default=None, help=argparse.SUPPRESS)
        action.set_defaults(run=run)


def _plan(args: argparse.Namespace) -> ServicePlan:
    settings = settings_from(args)
    config = getattr(args, "config", None)
    environment = {}
    if settings.data_dir != default_data_dir():
        environment["INBOX_DATA_DIR"] = str(settings.data_dir)
    return plan_for(
        args.platform or current_platform(),
        python=sys.executable,
        home=home_folder(),
        data_dir=settings.data_dir,
        config_file=Path(config).resolve() if config else None,
        config_home=Path(os.environ["XDG_CONFIG_HOME"]) if os.environ.get("XDG_CONFIG_HOME") else None,
        environment=environment,
    )


def run(args: argparse.Namespace) -> int:
    """Install, uninstall or report on the service."""
    plan = _plan(args)
    foreign = plan.platform != current_platform()
    if foreign and not args.dry_run:
        raise CommandError(f"--platform {plan.platform} only works with --dry-run on this machine")
    commands = {"install": plan.install, "uninstall": plan.uninstall, "status": (plan.status,)}[args.action]
    if args.dry_run:
        if args.action == "install":
            print(f"would write {plan.path}:")
            print(plan.text().rstrip())
        elif args.action == "uninstall":
            print(f"would remove {plan.path}")
        print("would run:" if commands else "would run nothing")
        for line in describe(commands):
            print(f"  {line}")
        return 0
    manager = shutil.which(plan.manager)
    if args.action == "install":
        plan.path.parent.mkdir(parents=True, exist_ok=True)
        plan.path.write_bytes(plan.content)
        print(f"wrote {plan.path}")
    if args.action == "status":
        print(f"{plan.path}: {'installed' if plan.path.is_file() else 'not installed'}")
    if manager is None:
        print(f"{plan.manager} is not on this machine: run these where it is, or start inbox serve yourself:")
        for line in describe(commands):
            print(f"  {line}")
        status = 0
    else:
        status = _run_all(commands, stop_on_failure=args.action == "install")
    if args.action == "uninstall":
        plan.path.unlink(missing_ok=True)
        print(f"removed {plan.path}")
    if args.action == "install" and plan.note:
        print(plan.note)
    return status


def _run_all(commands: tuple[tuple[str, ...], ...], *, stop_on_failure: bool) -> int:
    status = 0
    for command in commands:
        result = subprocess.run(list(command), check=False)
        if result.returncode != 0:
            status = FAILURE_STATUS
            if stop_on_failure:
                raise CommandError(
                    f"{describe([command])[0]} failed (exit {result.returncode})", exit_status=status
                )
    return status
