"""Typed settings: defaults, then a TOML file, then environment variables (rising priority)."""

from __future__ import annotations

import logging
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

import platformdirs

from backend.domain.opt_out import DEFAULT_OPT_OUT_KEYWORDS

APP_NAME = "whatsapp-shared-inbox"
CONFIG_FILE_NAME = "inbox.toml"
DATABASE_FILE_NAME = "inbox.db"
MESSAGING_TIERS = (250, 2000, 10000, 100000)
MAX_SEND_RATE = 1000.0
# Below this a worker that merely stalls (a busy machine, a long GC pause) looks crashed, and its
# rows turn `unknown` although nothing went wrong.
MIN_SEND_LEASE_SECONDS = 10.0
# The data folder and every file holding customer data, a token or a secret: this user only.
PRIVATE_FOLDER_MODE = 0o700
PRIVATE_FILE_MODE = 0o600

log = logging.getLogger(__name__)

UnknownRule = Literal["review", "resend"]


class SettingsError(Exception):
    """A setting is missing or has a value we cannot use; the message names it."""


@dataclass(frozen=True)
class PurposeRule:
    """How the outbox treats messages of one purpose."""

    unknown_rule: UnknownRule = "review"
    urgent: bool = False
    retention_days: int = 90
    # Marketing: never sent to a contact who opted out (a template of category MARKETING is too).
    marketing: bool = False


@dataclass(frozen=True)
class Settings:
    """Everything the product can be configured with; built by `load_settings`."""

    data_dir: Path
    database_url: str
    host: str = "127.0.0.1"
    port: int = 8080
    allow_remote_bind: bool = False
    # The office network's address of this machine: `inbox serve` also serves /v1 there, over TLS only.
    lan_host: str | None = None
    lan_port: int = 8443
    graph_url: str = "https://graph.facebook.com/v23.0"
    whatsapp_token: str | None = None
    whatsapp_phone_number_id: str | None = None
    whatsapp_app_secret: str | None = None
    whatsapp_verify_token: str | None = None
    sqlite_synchronous: Literal["NORMAL", "FULL"] = "NORMAL"
    templates_file: Path | None = None
    max_attempts: int = 10
    send_lease_seconds: float = 30.0
    connect_timeout_seconds: float = 5.0
    read_timeout_seconds: float = 20.0
    send_rate: float = 80.0
    send_concurrency: int = 64
    pair_interval_seconds: float = 6.0
    messaging_tier: int | None = None
    # Whether INBOX_MESSAGING_TIER was given (file or environment): then Meta's limit does not move it.
    messaging_tier_set: bool = False
    quiet_hours: str | None = None
    unknown_wait_seconds: float = 300.0
    default_purpose_rule: PurposeRule = field(default_factory=PurposeRule)
    purposes: Mapping[str, PurposeRule] = field(default_factory=dict)
    processed_keys_retention_days: int = 30
    raw_bodies_retention_days: int = 30
    # Customers' files and uploads are removed this long after they arrived (their messages stay).
    media_retention_days: int = 365
    auto_reply_enabled: bool = False
    auto_reply_text: str = "Thanks for your message! We're closed right now and will answer when we're back."
    business_hours: str = "09:00-17:00"
    business_timezone: str = "UTC"
    log_level: str = "INFO"
    backup_keep: int = 7
    # The business account whose templates are synced from Meta; without it the templates file is the source.
    whatsapp_business_account_id: str | None = None
    opt_out_keywords: tuple[str, ...] = DEFAULT_OPT_OUT_KEYWORDS
    # Sent once to a customer who opted out with a keyword or the button; empty sends nothing.
    opt_out_confirmation_text: str | None = (
        "You will no longer receive marketing messages from us. You can still write to us here at any time."
    )
    template_sync_interval_seconds: float = 3600.0
    number_health_interval_seconds: float = 86400.0

    def rule_for(self, purpose: str) -> PurposeRule:
        """The rule for a purpose, or the default rule when it has none of its own."""
        return self.purposes.get(purpose, self.default_purpose_rule)

    def require(self, name: str) -> str:
        """The value of a required secret, or a SettingsError naming its variable."""
        value = getattr(self, name)
        if not value:
            raise SettingsError(
                f"{ENVIRONMENT_NAMES[name]} is not set: put it in the environment "
                f"or as {name} in {CONFIG_FILE_NAME}"
            )
        return str(value)

    @property
    def is_sqlite(self) -> bool:
        """Whether the database is the embedded SQLite file."""
        return self.database_url.startswith("sqlite")


ENVIRONMENT_NAMES: dict[str, str] = {
    "data_dir": "INBOX_DATA_DIR",
    "database_url": "INBOX_DATABASE_URL",
    "host": "INBOX_HOST",
    "port": "INBOX_PORT",
    "allow_remote_bind": "INBOX_ALLOW_REMOTE_BIND",
    "lan_host": "INBOX_LAN_HOST",
    "lan_port": "INBOX_LAN_PORT",
    "graph_url": "WHATSAPP_GRAPH_URL",
    "whatsapp_token": "WHATSAPP_TOKEN",
    "whatsapp_phone_number_id": "WHATSAPP_PHONE_NUMBER_ID",
    "whatsapp_app_secret": "WHATSAPP_APP_SECRET",
    "whatsapp_verify_token": "WHATSAPP_VERIFY_TOKEN",
    "sqlite_synchronous": "INBOX_SQLITE_SYNCHRONOUS",
    "templates_file": "INBOX_TEMPLATES_FILE",
    "max_attempts": "INBOX_MAX_ATTEMPTS",
    "send_lease_seconds": "INBOX_SEND_LEASE_SECONDS",
    "connect_timeout_seconds": "INBOX_CONNECT_TIMEOUT_SECONDS",
    "read_timeout_seconds": "INBOX_READ_TIMEOUT_SECONDS",
    "send_rate": "INBOX_SEND_RATE",
    "send_concurrency": "INBOX_SEND_CONCURRENCY",
    "pair_interval_seconds": "INBOX_PAIR_INTERVAL_SECONDS",
    "messaging_tier": "INBOX_MESSAGING_TIER",
    "quiet_hours": "INBOX_QUIET_HOURS",
    "unknown_wait_seconds": "INBOX_UNKNOWN_WAIT_SECONDS",
    "processed_keys_retention_days": "INBOX_PROCESSED_KEYS_RETENTION_DAYS",
    "raw_bodies_retention_days": "INBOX_RAW_BODIES_RETENTION_DAYS",
    "media_retention_days": "INBOX_MEDIA_RETENTION_DAYS",
    "auto_reply_enabled": "INBOX_AUTO_REPLY",
    "auto_reply_text": "INBOX_AUTO_REPLY_TEXT",
    "business_hours": "INBOX_BUSINESS_HOURS",
    "business_timezone": "INBOX_BUSINESS_TIMEZONE",
    "log_level": "INBOX_LOG_LEVEL",
    "backup_keep": "INBOX_BACKUP_KEEP",
    "whatsapp_business_account_id": "WHATSAPP_BUSINESS_ACCOUNT_ID",
    "opt_out_keywords": "INBOX_OPT_OUT_KEYWORDS",
    "opt_out_confirmation_text": "INBOX_OPT_OUT_CONFIRMATION",
    "template_sync_interval_seconds": "INBOX_TEMPLATE_SYNC_INTERVAL_SECONDS",
    "number_health_interval_seconds": "INBOX_NUMBER_HEALTH_INTERVAL_SECONDS",
}

_TRUE_WORDS = {"1", "true", "yes", "on"}
_FALSE_WORDS = {"0", "false", "no", "off", ""}
_HOURS_PATTERN = re.compile(r"^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$")


def _parse_bool(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    word = str(raw).strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    raise SettingsError(f"{name} must be true or false, not {raw!r}")


def _parse_int(name: str, raw: object) -> int:
    try:
        return int(str(raw).strip())
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, not {raw!r}") from None


def _parse_float(name: str, raw: object) -> float:
    try:
        return float(str(raw).strip())
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from None


def _parse_tier(name: str, raw: object) -> int | None:
    word = str(raw).strip().lower()
    if word in {"unlimited", "none", ""}:
        return None
    tier = _parse_int(name, word)
    if tier not in MESSAGING_TIERS:
        allowed = ", ".join(str(t) for t in MESSAGING_TIERS)
        raise SettingsError(f"{name} must be one of {allowed} or unlimited, not {raw!r}")
    return tier


def _parse_synchronous(name: str, raw: object) -> str:
    word = str(raw).strip().upper()
    if word not in {"NORMAL", "FULL"}:
        raise SettingsError(f"{name} must be NORMAL or FULL, not {raw!r}")
    return word


def _parse_hours(name: str, raw: object) -> str | None:
    text = str(raw).strip()
    if text.lower() in {"", "off", "none"}:
        return None
    if not _HOURS_PATTERN.match(text):
        raise SettingsError(f"{name} must look like 21:00-08:00, not {raw!r}")
    return text


def _parse_required_hours(name: str, raw: object) -> str:
    hours = _parse_hours(name, raw)
    if hours is None:
        raise SettingsError(f"{name} must look like 09:00-17:00, not {raw!r}")
    return hours


_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _parse_log_level(name: str, raw: object) -> str:
    level = str(raw).strip().upper()
    if level not in _LOG_LEVELS:
        raise SettingsError(f"{name} must be one of {', '.join(_LOG_LEVELS)}, not {raw!r}")
    return level


def _parse_optional_text(name: str, raw: object) -> str | None:
    text = str(raw)
    return text or None


def _parse_lan_host(name: str, raw: object) -> str | None:
    text = str(raw).strip()
    if any(character.isspace() or character in "/?#@[]" for character in text):
        raise SettingsError(f"{name} must be a host name or an IP address of this machine, not {raw!r}")
    return text or None


def _parse_keywords(name: str, raw: object) -> tuple[str, ...]:
    items = raw if isinstance(raw, list) else str(raw).split(",")
    words = tuple(str(item).strip() for item in items if str(item).strip())
    if not words:
        raise SettingsError(f"{name} must list at least one keyword, separated by commas")
    return words


def _parse_path(name: str, raw: object) -> Path:
    return Path(str(raw)).expanduser()


_PARSERS: dict[str, Callable[[str, object], Any]] = {
    "data_dir": _parse_path,
    "templates_file": _parse_path,
    "port": _parse_int,
    "lan_port": _parse_int,
    "lan_host": _parse_lan_host,
    "max_attempts": _parse_int,
    "send_concurrency": _parse_int,
    "processed_keys_retention_days": _parse_int,
    "raw_bodies_retention_days": _parse_int,
    "media_retention_days": _parse_int,
    "allow_remote_bind": _parse_bool,
    "auto_reply_enabled": _parse_bool,
    "send_lease_seconds": _parse_float,
    "connect_timeout_seconds": _parse_float,
    "read_timeout_seconds": _parse_float,
    "send_rate": _parse_float,
    "pair_interval_seconds": _parse_float,
    "unknown_wait_seconds": _parse_float,
    "messaging_tier": _parse_tier,
    "sqlite_synchronous": _parse_synchronous,
    "quiet_hours": _parse_hours,
    "business_hours": _parse_required_hours,
    "log_level": _parse_log_level,
    "backup_keep": _parse_int,
    "whatsapp_token": _parse_optional_text,
    "whatsapp_phone_number_id": _parse_optional_text,
    "whatsapp_app_secret": _parse_optional_text,
    "whatsapp_verify_token": _parse_optional_text,
    "whatsapp_business_account_id": _parse_optional_text,
    "opt_out_confirmation_text": _parse_optional_text,
    "opt_out_keywords": _parse_keywords,
    "template_sync_interval_seconds": _parse_float,
    "number_health_interval_seconds": _parse_float,
}


def _parse_value(name: str, raw: object, source: str) -> Any:
    parser = _PARSERS.get(name)
    if parser is None:
        return str(raw)
    return parser(source, raw)


def _parse_purpose_rule(name: str, table: object) -> PurposeRule:
    if not isinstance(table, dict):
        raise SettingsError(f"purposes.{name} in {CONFIG_FILE_NAME} must be a table")
    unknown = set(table) - {"unknown_rule", "urgent", "retention_days", "marketing"}
    if unknown:
        raise SettingsError(f"purposes.{name} has unknown keys: {', '.join(sorted(unknown))}")
    rule = PurposeRule()
    if "unknown_rule" in table:
        choice = str(table["unknown_rule"])
        if choice not in {"review", "resend"}:
            raise SettingsError(f"purposes.{name}.unknown_rule must be review or resend")
        rule = replace(rule, unknown_rule=choice)  # type: ignore[arg-type]
    if "urgent" in table:
        rule = replace(rule, urgent=_parse_bool(f"purposes.{name}.urgent", table["urgent"]))
    if "retention_days" in table:
        days = _parse_int(f"purposes.{name}.retention_days", table["retention_days"])
        rule = replace(rule, retention_days=days)
    if "marketing" in table:
        rule = replace(rule, marketing=_parse_bool(f"purposes.{name}.marketing", table["marketing"]))
    return rule


def default_data_dir() -> Path:
    """The per-user data folder of this platform."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def load_settings(config_file: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Build settings from defaults, the TOML file and the environment, in that order."""
    environ = os.environ if environ is None else environ
    data_dir_raw = environ.get("INBOX_DATA_DIR")
    data_dir = _parse_path("INBOX_DATA_DIR", data_dir_raw) if data_dir_raw else default_data_dir()

    explicit_file = config_file is not None
    config_path = config_file if config_file is not None else data_dir / CONFIG_FILE_NAME
    file_values: dict[str, Any] = {}
    if config_path.is_file():
        try:
            file_values = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise SettingsError(f"{config_path} is not valid TOML: {error}") from None
    elif explicit_file:
        raise SettingsError(f"config file {config_path} does not exist")

    values: dict[str, Any] = {}
    known = {f.name for f in fields(Settings)} - {"purposes", "default_purpose_rule", "messaging_tier_set"}
    for key, raw in file_values.items():
        if key == "purposes":
            if not isinstance(raw, dict):
                raise SettingsError(f"purposes in {config_path} must be a table of tables")
            rules = {name: _parse_purpose_rule(name, table) for name, table in raw.items()}
            default_rule = rules.pop("default", None)
            values["purposes"] = rules
            if default_rule is not None:
                values["default_purpose_rule"] = default_rule
            continue
        if key not in known:
            raise SettingsError(f"{config_path} has an unknown setting: {key}")
        values[key] = _parse_value(key, raw, f"{key} in {config_path}")

    for name, variable in ENVIRONMENT_NAMES.items():
        if variable in environ:
            values[name] = _parse_value(name, environ[variable], variable)

    data_dir = values.pop("data_dir", data_dir)
    values["messaging_tier_set"] = "messaging_tier" in values
    if "database_url" not in values:
        values["database_url"] = f"sqlite:///{data_dir / DATABASE_FILE_NAME}"
    settings = Settings(data_dir=data_dir, **values)
    _check(settings)
    return settings


def _check(settings: Settings) -> None:
    if not 0 < settings.send_rate <= MAX_SEND_RATE:
        raise SettingsError(f"INBOX_SEND_RATE must be above 0 and at most {MAX_SEND_RATE:g}")
    if settings.max_attempts < 1:
        raise SettingsError("INBOX_MAX_ATTEMPTS must be at least 1")
    if settings.send_lease_seconds < MIN_SEND_LEASE_SECONDS:
        raise SettingsError(
            f"INBOX_SEND_LEASE_SECONDS must be at least {MIN_SEND_LEASE_SECONDS:g} seconds, not "
            f"{settings.send_lease_seconds:g}: a shorter lease turns sends `unknown` whenever "
            "the machine is briefly busy"
        )
    if settings.send_lease_seconds <= settings.read_timeout_seconds:
        raise SettingsError(
            "INBOX_SEND_LEASE_SECONDS must be longer than INBOX_READ_TIMEOUT_SECONDS, "
            "or a slow answer would look like a crashed worker"
        )
    if settings.backup_keep < 0:
        raise SettingsError("INBOX_BACKUP_KEEP must be 0 (no daily backups) or more")
    if settings.media_retention_days < 1:
        raise SettingsError("INBOX_MEDIA_RETENTION_DAYS must be at least 1")
    if settings.template_sync_interval_seconds < 60 or settings.number_health_interval_seconds < 60:
        raise SettingsError(
            "INBOX_TEMPLATE_SYNC_INTERVAL_SECONDS and INBOX_NUMBER_HEALTH_INTERVAL_SECONDS "
            "must be at least 60"
        )
    if not 0 < settings.port < 65536:
        raise SettingsError("INBOX_PORT must be between 1 and 65535")
    if not 0 < settings.lan_port < 65536:
        raise SettingsError("INBOX_LAN_PORT must be between 1 and 65535")


def make_private_folder(path: Path) -> None:
    """Create a folder only this user may open (0700 on POSIX); an existing folder is left as it is."""
    if path.is_dir():
        return
    path.mkdir(mode=PRIVATE_FOLDER_MODE, parents=True, exist_ok=True)
    if os.name == "posix":
        # mkdir's mode passes through the umask; set it outright so no umask can widen or narrow it.
        path.chmod(PRIVATE_FOLDER_MODE)


def tighten(path: Path, mode: int) -> bool:
    """Take away from an existing file or folder any permission beyond `mode`, saying so in the log.

    Returns whether it changed anything. Does nothing outside POSIX or when the path is missing.
    """
    if os.name != "posix":
        return False
    try:
        current = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return False
    if not current & ~mode:
        return False
    try:
        path.chmod(current & mode)
    except OSError as error:
        log.warning(
            "%s can be opened by other users of this machine (mode %03o) and could not be restricted: %s",
            path,
            current,
            error.strerror,
        )
        return False
    log.warning(
        "%s could be opened by other users of this machine (mode %03o); restricted it to %03o",
        path,
        current,
        current & mode,
    )
    return True


def secure_data_dir(data_dir: Path, private_files: tuple[str, ...] = ()) -> None:
    """Restrict an existing data folder to this user, and the named files in it that hold secrets."""
    if not data_dir.is_dir():
        return
    tighten(data_dir, PRIVATE_FOLDER_MODE)
    database_files = tuple(f"{DATABASE_FILE_NAME}{suffix}" for suffix in ("", "-wal", "-shm"))
    for name in (CONFIG_FILE_NAME, *database_files, *private_files):
        tighten(data_dir / name, PRIVATE_FILE_MODE)
