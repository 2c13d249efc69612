"""Helpers shared by subcommands: settings, the database and the backend's parts."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from sqlalchemy import make_url, text
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from app.cli_errors import FAILURE_STATUS, CommandError
from app.composition import build_parts
from app.log_files import attach_log_file
from backend.clock import utc_now
from backend.database import Database, create_database
from backend.domain.templates import TemplateError
from backend.operations import OperationsError
from backend.operations.upgrade import bring_schema_up_to_date
from backend.parts import BackendParts
from backend.settings import Settings, load_settings, secure_data_dir
from backend.templates import load_templates
from ui.sign_in import FILE_NAME as SIGN_IN_FILE_NAME


def settings_from(args: argparse.Namespace, *, log_to_file: bool = False) -> Settings:
    """Settings for this run, honouring --config; applies their log level and guards the data folder.

    With `log_to_file`, the command also writes its log to the data folder's logs/inbox.log.
    """
    config = getattr(args, "config", None)
    settings = load_settings(Path(config) if config else None)
    logging.getLogger().setLevel(settings.log_level)
    # A folder or file left open to other users (an older version, a copy, a wide umask) is
    # restricted before anything reads or writes it.
    secure_data_dir(settings.data_dir, (SIGN_IN_FILE_NAME,))
    if log_to_file:
        attach_log_file(settings.data_dir)
    return settings


def open_database(settings: Settings, *, upgrade: bool = True) -> Database:
    """The configured database, migrated to the newest schema unless told not to.

    An older database with data is backed up into the data folder's backups/ before it is migrated;
    a database newer than this code is refused, naming the version to install.
    """
    try:
        database = create_database(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    except (ArgumentError, NoSuchModuleError, ValueError) as error:
        raise CommandError(
            f"the database URL {_shown(settings.database_url)} is not usable: {error}"
        ) from None
    try:
        if upgrade:
            bring_schema_up_to_date(settings, database, now=utc_now)
        else:
            with database.reader() as session:
                session.execute(text("SELECT 1"))
    except OperationsError as error:
        database.dispose()
        raise CommandError(str(error), exit_status=FAILURE_STATUS) from None
    except OperationalError as error:
        database.dispose()
        # The driver's first line says what failed (refused, unknown host, bad password, locked file).
        reason = str(error.orig).strip().splitlines()[0] if error.orig is not None else str(error)
        raise CommandError(
            f"cannot reach the database {_shown(settings.database_url)}: {reason}", exit_status=FAILURE_STATUS
        ) from None
    return database


def _shown(url: str) -> str:
    """The URL as safe to print: without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(unparsable URL)"


def parts_for(settings: Settings, database: Database) -> BackendParts:
    """The backend's parts; a templates file that cannot be used ends the command with one clear line."""
    if settings.whatsapp_business_account_id:
        # Templates come from Meta, synced into the database; the file is not read.
        return build_parts(settings, database)
    try:
        templates = load_templates(settings.templates_file)
    except (OSError, TemplateError) as error:
        database.dispose()
        raise CommandError(f"the templates file {settings.templates_file} cannot be used: {error}") from None
    return build_parts(settings, database, templates=templates)
