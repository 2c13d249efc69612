"""`inbox db backup|restore|upgrade` as a person runs them: while serving, refused, verified, upgraded."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import MetaData, select, text

from backend import __version__
from backend.database import create_database, upgrade_database
from backend.database.migrate import current_revision
from backend.database.models import BackupRecord, OutboxMessage, ReleaseRecord
from backend.operations.archive import read_manifest
from backend.operations.upgrade import head_revision
from bench.chaos import enqueue_backlog
from bench.harness import APP_SECRET, GRAPH_TOKEN, ROOT, VERIFY_TOKEN, Rig
from tests.conftest import DatabaseMaker

pytestmark = pytest.mark.processes

# The schema revision release 0.1.0 shipped with (its newest migration).
RELEASE_0_1_0_HEAD = "0004"
AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def inbox(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m app ARGS` in the environment of an installation."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


@pytest.fixture
def rig(database_url: str, tmp_path: Path) -> Iterator[Rig]:
    """A sandbox and, once started, `inbox serve` on this test's database."""
    made = Rig(database_url, tmp_path)
    yield made
    made.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_backup_while_serving_under_sends_and_restore_refused_naming_the_server(rig: Rig) -> None:
    serve = rig.start_serve()
    enqueue_backlog(rig, "busy", 300)
    backup = inbox(rig.environment(), "db", "backup")
    assert backup.returncode == 0, backup.stderr
    archive = Path(backup.stdout.strip().splitlines()[-1])
    assert archive.is_file()
    assert archive.parent == rig.data_dir / "backups"
    manifest = read_manifest(archive)
    assert manifest["schema_revision"] == head_revision()
    assert manifest["counts"]["outbox_messages"] == 300

    refused = inbox(rig.environment(), "db", "restore", str(archive))
    assert refused.returncode == 1
    assert f"inbox serve (pid {serve.process.pid}" in refused.stderr, refused.stderr
    assert "refusing to restore" in refused.stderr
    # Nothing was touched: the server goes on.
    assert not list(rig.data_dir.glob("pre-restore-*"))
    with rig.database.reader() as session:
        assert session.scalars(select(BackupRecord.archive)).all() == [str(archive.resolve())]

    serve.terminate()
    serve.process.wait(15)
    # The children's lines reached the one log file through the supervisor; no secret is in it.
    logged = (rig.data_dir / "logs" / "inbox.log").read_text()
    assert "[sender]: send busy-" in logged
    assert "[MainProcess]: stopped" in logged
    for secret in (GRAPH_TOKEN, APP_SECRET, VERIFY_TOKEN):
        assert secret not in logged
    restored = inbox(rig.environment(), "db", "restore", str(archive))
    assert restored.returncode == 0, restored.stderr
    assert "the previous data is kept in" in restored.stdout
    assert len(list(rig.data_dir.glob("pre-restore-*"))) == 1


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("INBOX_", "WHATSAPP_"))}
    env.update({"INBOX_DATA_DIR": str(tmp_path / "data"), "INBOX_DATABASE_URL": url})
    return env


def test_an_archive_that_is_not_whole_or_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    env = _env(tmp_path, f"sqlite:///{tmp_path / 'data' / 'inbox.db'}")
    assert inbox(env, "user", "add", "dana", "--role", "supervisor").returncode == 0
    made = inbox(env, "db", "backup", "--to", str(tmp_path / "archives"))
    assert made.returncode == 0, made.stderr
    archive = Path(made.stdout.splitlines()[-1])

    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    refused = inbox(env, "db", "restore", str(truncated))
    assert refused.returncode == 1
    assert "truncated.tar.gz" in refused.stderr

    newer = tmp_path / "newer.tar.gz"
    with tarfile.open(archive) as source, tarfile.open(newer, "w:gz") as target:
        for member in source.getmembers():
            data = source.extractfile(member)
            if member.name == "manifest.json":
                assert data is not None
                manifest = json.loads(data.read())
                manifest.update(schema_revision="0099", product_version="0.9.0")
                body = json.dumps(manifest).encode()
                member.size = len(body)
                target.addfile(member, io.BytesIO(body))
            else:
                target.addfile(member, data)
    refused = inbox(env, "db", "restore", str(newer))
    assert refused.returncode == 1
    assert "install inbox 0.9.0 or newer" in refused.stderr
    # Neither refusal moved the current data aside.
    assert not list((tmp_path / "data").glob("pre-restore-*"))
    assert inbox(env, "user", "list").stdout.count("dana") == 1


def test_a_database_of_release_0_1_0_is_backed_up_then_migrated_and_a_newer_one_refused(
    database_maker: DatabaseMaker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from app.cli import main

    if database_maker.postgres_url:
        url = database_maker.new_empty_url()
    else:
        url = f"sqlite:///{tmp_path / 'data' / 'inbox.db'}"
    database = create_database(url)
    try:
        upgrade_database(database, RELEASE_0_1_0_HEAD)
        released = MetaData()
        released.reflect(database.engine)
        with database.engine.begin() as connection:
            connection.execute(
                released.tables["outbox_messages"].insert(),
                {
                    "dedupe_key": "order-1:shipped",
                    "to_number": "+16505551234",
                    "purpose": "order_shipped",
                    "priority": 0,
                    "kind": "text",
                    "payload": {"text": "Shipped"},
                    "state": "read",
                    "attempts": 1,
                    "not_before": AT,
                    "business_initiated": True,
                    "urgent": False,
                    "origin": "api",
                    "created_at": AT,
                    "updated_at": AT,
                    "read_at": AT,
                },
            )
        database.dispose()
        env = _env(tmp_path, url)
        with pytest.MonkeyPatch.context() as patch:
            for name, value in env.items():
                if name.startswith("INBOX_"):
                    patch.setenv(name, value)
            with caplog.at_level(logging.INFO):
                assert main(["db", "upgrade"]) == 0
        backups = list((tmp_path / "data" / "backups").glob("inbox-pre-upgrade-*.tar.gz"))
        assert len(backups) == 1
        assert read_manifest(backups[0])["schema_revision"] == RELEASE_0_1_0_HEAD
        said = caplog.text
        assert f"schema revision {RELEASE_0_1_0_HEAD}, older than inbox {__version__}" in said
        assert f"migrated the database from schema revision {RELEASE_0_1_0_HEAD} to {head_revision()}" in said
        assert current_revision(database) == head_revision()
        with database.reader() as session:
            assert session.scalars(select(OutboxMessage.dedupe_key)).all() == ["order-1:shipped"]
            assert session.scalars(select(ReleaseRecord.version)).all() == [__version__]
            assert session.scalars(select(BackupRecord.reason)).all() == ["pre_upgrade"]

        # A later version moved the schema on; this one names it instead of guessing.
        with database.engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '0099'"))
            connection.execute(
                ReleaseRecord.__table__.insert(),  # type: ignore[attr-defined]
                {"version": "0.3.0", "revision": "0099", "recorded_at": AT},
            )
        database.dispose()
        refused = inbox(env, "db", "upgrade")
        assert refused.returncode == 1
        assert "install inbox 0.3.0 or newer" in refused.stderr, refused.stderr
        assert len(list((tmp_path / "data" / "backups").glob("*.tar.gz"))) == 1
    finally:
        database.dispose()
        if database_maker.postgres_url:
            database_maker.drop(url)
