"""`inbox webhooks replay --since TIME` re-runs stored bodies; events already applied are skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient
from sqlalchemy import delete, func, select

from app.cli import main
from backend import counters
from backend.database import Database
from backend.database.models import InboundMessage, ProcessedEvent
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import deliver, encode, post_signed, text_message


@pytest.fixture
def configured(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line reads the test database from the environment."""
    monkeypatch.setenv("INBOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("INBOX_DATABASE_URL", database_url)


@pytest.mark.usefixtures("configured")
def test_replay_restores_lost_effects_and_repeats_nothing(
    database: Database, client: FlaskClient, processor: WebhookProcessor, capsys: pytest.CaptureFixture[str]
) -> None:
    deliver(client, processor, text_message("wamid.R1"), text_message("wamid.R2"))
    # Lose one message's effects and its key, as a restore from an older backup would.
    with database.transaction() as session:
        session.execute(delete(InboundMessage).where(InboundMessage.wamid == "wamid.R2"))
        session.execute(delete(ProcessedEvent).where(ProcessedEvent.event_key == "msg:wamid.R2"))
    assert main(["webhooks", "replay", "--since", "2000-01-01"]) == 0
    assert "replayed 2 stored bodies" in capsys.readouterr().out
    assert main(["webhooks", "replay", "--since", "2000-01-01T00:00Z"]) == 0
    with database.reader() as session:
        assert sorted(session.scalars(select(InboundMessage.wamid))) == ["wamid.R1", "wamid.R2"]
        assert session.scalar(select(func.count()).select_from(ProcessedEvent)) == 2
        # Replays repeat events on purpose; they are not duplicates from Meta.
        assert counters.read(session, counters.DUPLICATE_WEBHOOKS) == 0


@pytest.mark.usefixtures("configured")
def test_replay_applies_only_events_about_our_number(
    database: Database, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WHATSAPP_PHONE_NUMBER_ID", "106540352242922")
    metadata = {"display_phone_number": "15550783881"}
    changes = [
        {
            "field": "messages",
            "value": {"metadata": {**metadata, "phone_number_id": number}, **text_message(wamid)},
        }
        for number, wamid in (("106540352242922", "wamid.OURS"), ("999888777666555", "wamid.FOREIGN"))
    ]
    body = encode({"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": changes}]})
    assert post_signed(client, body).status_code == 200
    assert main(["webhooks", "replay", "--since", "2000-01-01"]) == 0
    with database.reader() as session:
        assert session.scalars(select(InboundMessage.wamid)).all() == ["wamid.OURS"]
        # A replay is not a delivery from Meta: it leaves the count of foreign events alone.
        assert counters.read(session, counters.FOREIGN_NUMBER_EVENTS) == 0


def test_replay_refuses_a_time_it_cannot_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["webhooks", "replay", "--since", "yesterday"]) == 2
    assert "not an ISO 8601 time" in capsys.readouterr().err
