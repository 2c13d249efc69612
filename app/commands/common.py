"""Helpers shared by subcommands: settings and the database."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from backend.database import Database, create_database, upgrade_database
from backend.settings import Settings, load_settings


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings for this run, honouring --config; also applies their log level."""
    config = getattr(args, "config", None)
    settings = load_settings(Path(config) if config else None)
    logging.getLogger().setLevel(settings.log_level)
    return settings


def open_database(settings: Settings, *, upgrade: bool = True) -> Database:
    """The configured database, migrated to the newest schema unless told not to."""
    database = create_database(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    if upgrade:
        upgrade_database(database)
    return database
