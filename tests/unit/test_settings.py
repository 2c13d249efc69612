"""Settings: defaults, then the TOML file, then the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.settings import SettingsError, load_settings


def test_defaults_put_a_sqlite_file_in_the_data_folder(tmp_path: Path) -> None:
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})
    assert settings.data_dir == tmp_path
    assert settings.database_url == f"sqlite:///{tmp_path / 'inbox.db'}"
    assert settings.host == "127.0.0.1"
    assert settings.port == 8080
    assert settings.max_attempts == 10
    assert settings.send_lease_seconds == 30
    assert settings.messaging_tier is None


def test_the_environment_beats_the_file_which_beats_defaults(tmp_path: Path) -> None:
    (tmp_path / "inbox.toml").write_text(
        'port = 9000\nhost = "127.0.0.2"\nwhatsapp_token = "from-file"\n', encoding="utf-8"
    )
    settings = load_settings(
        environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_PORT": "9100"},
    )
    assert settings.port == 9100
    assert settings.host == "127.0.0.2"
    assert settings.whatsapp_token == "from-file"


def test_an_explicit_config_file_is_read(tmp_path: Path) -> None:
    config = tmp_path / "other.toml"
    config.write_text(
        'database_url = "postgresql+psycopg://postgres@127.0.0.1:5432/shop"\n'
        '[purposes.table_ready]\nunknown_rule = "resend"\n'
        "[purposes.one_time_code]\nurgent = true\n",
        encoding="utf-8",
    )
    settings = load_settings(config, environ={"INBOX_DATA_DIR": str(tmp_path)})
    assert settings.database_url.startswith("postgresql+psycopg://")
    assert settings.rule_for("table_ready").unknown_rule == "resend"
    assert settings.rule_for("one_time_code").urgent
    assert settings.rule_for("anything_else").unknown_rule == "review"


def test_a_missing_secret_names_its_variable(tmp_path: Path) -> None:
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})
    with pytest.raises(SettingsError, match="WHATSAPP_APP_SECRET"):
        settings.require("whatsapp_app_secret")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("INBOX_PORT", "eighty", "INBOX_PORT must be a whole number"),
        ("INBOX_SEND_RATE", "5000", "INBOX_SEND_RATE must be above 0 and at most 1000"),
        ("INBOX_MESSAGING_TIER", "1000", "INBOX_MESSAGING_TIER must be one of"),
        ("INBOX_SQLITE_SYNCHRONOUS", "OFF", "NORMAL or FULL"),
        ("INBOX_QUIET_HOURS", "late", "21:00-08:00"),
        ("INBOX_SEND_LEASE_SECONDS", "10", "longer than INBOX_READ_TIMEOUT_SECONDS"),
        ("INBOX_SEND_LEASE_SECONDS", "9.5", "INBOX_SEND_LEASE_SECONDS must be at least 10 seconds, not 9.5"),
        ("INBOX_SEND_LEASE_SECONDS", "3", "INBOX_SEND_LEASE_SECONDS must be at least 10 seconds, not 3"),
        ("INBOX_LOG_LEVEL", "chatty", "INBOX_LOG_LEVEL must be one of DEBUG"),
    ],
)
def test_bad_values_are_refused_with_their_name(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), variable: value})


def test_a_send_lease_of_10_seconds_is_the_shortest_allowed(tmp_path: Path) -> None:
    base = {"INBOX_DATA_DIR": str(tmp_path), "INBOX_READ_TIMEOUT_SECONDS": "2"}
    assert load_settings(environ={**base, "INBOX_SEND_LEASE_SECONDS": "10"}).send_lease_seconds == 10
    # Even with a read timeout short enough to allow it, a shorter lease is refused.
    with pytest.raises(SettingsError, match="INBOX_SEND_LEASE_SECONDS must be at least 10"):
        load_settings(environ={**base, "INBOX_SEND_LEASE_SECONDS": "9.99"})


def test_a_short_send_lease_in_the_file_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "inbox.toml").write_text(
        "send_lease_seconds = 5\nread_timeout_seconds = 1\n", encoding="utf-8"
    )
    with pytest.raises(SettingsError, match="INBOX_SEND_LEASE_SECONDS must be at least 10"):
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})


def test_tiers_and_unlimited(tmp_path: Path) -> None:
    base = {"INBOX_DATA_DIR": str(tmp_path)}
    assert load_settings(environ={**base, "INBOX_MESSAGING_TIER": "2000"}).messaging_tier == 2000
    unlimited = load_settings(environ={**base, "INBOX_MESSAGING_TIER": "unlimited"})
    assert unlimited.messaging_tier is None


def test_unknown_keys_in_the_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "inbox.toml").write_text("prot = 1\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="unknown setting: prot"):
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})


def test_the_log_level_reaches_the_root_logger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import logging

    from app.commands.common import settings_from

    monkeypatch.setenv("INBOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("INBOX_LOG_LEVEL", "warning")
    root = logging.getLogger()
    before = root.level
    try:
        assert settings_from(argparse.Namespace(config=None)).log_level == "WARNING"
        assert root.level == logging.WARNING
    finally:
        root.setLevel(before)


def test_the_lan_listener_is_off_by_default_and_set_by_host_and_port(tmp_path: Path) -> None:
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})
    assert settings.lan_host is None and settings.lan_port == 8443
    (tmp_path / "inbox.toml").write_text('lan_host = "192.168.1.20"\n', encoding="utf-8")
    configured = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_LAN_PORT": "9443"})
    assert (configured.lan_host, configured.lan_port) == ("192.168.1.20", 9443)
    assert load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_LAN_HOST": ""}).lan_host is None


@pytest.mark.parametrize(
    ("name", "value"),
    [("INBOX_LAN_PORT", "0"), ("INBOX_LAN_PORT", "https"), ("INBOX_LAN_HOST", "https://192.168.1.20")],
)
def test_a_lan_setting_that_cannot_be_used_is_refused_by_name(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), name: value})


def test_opt_out_keywords_templates_source_and_a_hand_set_tier(tmp_path: Path) -> None:
    defaults = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})
    assert "STOP" in defaults.opt_out_keywords and "ARRÊT" in defaults.opt_out_keywords
    assert defaults.whatsapp_business_account_id is None
    assert defaults.messaging_tier_set is False
    assert defaults.opt_out_confirmation_text
    chosen = load_settings(
        environ={
            "INBOX_DATA_DIR": str(tmp_path),
            "INBOX_OPT_OUT_KEYWORDS": " stop, Fermati ,, ",
            "INBOX_OPT_OUT_CONFIRMATION": "",
            "WHATSAPP_BUSINESS_ACCOUNT_ID": "102290129340398",
            "INBOX_MESSAGING_TIER": "unlimited",
        }
    )
    assert chosen.opt_out_keywords == ("stop", "Fermati")
    assert chosen.opt_out_confirmation_text is None
    assert chosen.whatsapp_business_account_id == "102290129340398"
    # Set by hand, even to unlimited: Meta's limit no longer moves the pacer.
    assert (chosen.messaging_tier, chosen.messaging_tier_set) == (None, True)
    with pytest.raises(SettingsError, match="INBOX_OPT_OUT_KEYWORDS"):
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_OPT_OUT_KEYWORDS": " , "})
    config = tmp_path / "inbox.toml"
    config.write_text("[purposes.newsletter]\nmarketing = true\n", encoding="utf-8")
    assert load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)}).rule_for("newsletter").marketing is True
