"""A failed download is tried again by `inbox media retry` or the client's Retry button."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from app.cli import main
from backend.database.models import InboundMessage, MediaFile
from tests.integration.media.conftest import CUSTOMER, MediaStack, png_bytes


def _failed_photo(stack: MediaStack) -> str:
    stack.sandbox.set_faults(media_download_failure_rate=1.0)
    wamid = stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", png_bytes(seed=9))
    stack.receive()
    for _ in range(8):
        stack.fetcher.run_once()
        stack.clock.advance(3600)
    stack.sandbox.set_faults(media_download_failure_rate=0.0)
    with stack.database.reader() as session:
        media_id = session.scalars(select(InboundMessage.media_id).where(InboundMessage.wamid == wamid)).one()
        assert media_id is not None
        assert (
            session.scalars(select(MediaFile.state).where(MediaFile.media_id == media_id)).one() == "failed"
        )
    return media_id


def test_the_retry_command_puts_failed_media_back_and_names_ids_it_cannot_retry(
    media_stack: MediaStack,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    media_id = _failed_photo(media_stack)
    monkeypatch.setenv("INBOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("INBOX_DATABASE_URL", database_url)
    assert main(["media", "retry", "999"]) == 1
    assert "999" in capsys.readouterr().err
    assert main(["media", "retry"]) == 0
    assert capsys.readouterr().out.strip() == "1 media to download again"
    assert media_stack.media_item(media_id)["state"] == "pending"
    # The command stamps the row with the real time: the fetcher's hand-moved clock must pass it, on
    # whatever day the suite runs.
    media_stack.clock.now = max(media_stack.clock.now, datetime.now(UTC)) + timedelta(minutes=1)
    assert media_stack.fetcher.drain().stored == 1
    assert media_stack.download(media_id).data == png_bytes(seed=9)


def test_the_api_retries_a_failed_download_and_refuses_others(media_stack: MediaStack) -> None:
    media_id = _failed_photo(media_stack)
    client, headers = media_stack.client(), media_stack.headers()
    answer = client.post(f"/v1/media/{media_id}/retry", headers=headers)
    assert answer.status_code == 202 and answer.get_json() == {"id": media_id, "state": "pending"}
    again = client.post(f"/v1/media/{media_id}/retry", headers=headers)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "media_not_failed"
    assert client.post("/v1/media/42/retry", headers=headers).status_code == 404
    assert media_stack.fetcher.drain().stored == 1
