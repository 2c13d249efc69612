"""Helpers shared by subcommands: settings, database, not-yet-built notice."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from backend.database import Database, create_database, upgrade_database
from backend.settings import Settings, load_settings


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings for this run, honouring --config."""
    config = getattr(args, "config", None)
    return load_settings(Path(config) if config else None)


def open_database(settings: Settings, *, upgrade: bool = True) -> Database:
    """The configured database, migrated to the newest schema unless told not to."""
    database = create_database(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    if upgrade:
        upgrade_database(database)
    return database


def not_built(name: str) -> int:
    """Say in one line that a subcommand does not exist yet, and fail."""
    print(f"inbox {name}: not built yet in this version", file=sys.stderr)
    return 2
