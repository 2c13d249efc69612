"""Helpers shared by subcommands: settings, the database and the backend's parts."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from app.cli_errors import CommandError
from app.composition import build_parts
from backend.database import Database, create_database, upgrade_database
from backend.domain.templates import TemplateError
from backend.parts import BackendParts
from backend.settings import Settings, load_settings, secure_data_dir
from backend.templates import load_templates
from ui.sign_in import FILE_NAME as SIGN_IN_FILE_NAME


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings for this run, honouring --config; applies their log level and guards the data folder."""
    config = getattr(args, "config", None)
    settings = load_settings(Path(config) if config else None)
    logging.getLogger().setLevel(settings.log_level)
    # A folder or file left open to other users (an older version, a copy, a wide umask) is
    # restricted before anything reads or writes it.
    secure_data_dir(settings.data_dir, (SIGN_IN_FILE_NAME,))
    return settings


def open_database(settings: Settings, *, upgrade: bool = True) -> Database:
    """The configured database, migrated to the newest schema unless told not to."""
    database = create_database(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    if upgrade:
        upgrade_database(database)
    return database


def parts_for(settings: Settings, database: Database) -> BackendParts:
    """The backend's parts; a templates file that cannot be used ends the command with one clear line."""
    try:
        templates = load_templates(settings.templates_file)
    except (OSError, TemplateError) as error:
        database.dispose()
        raise CommandError(f"the templates file {settings.templates_file} cannot be used: {error}") from None
    return build_parts(settings, database, templates=templates)
