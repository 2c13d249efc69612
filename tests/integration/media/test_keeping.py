"""Media is kept INBOX_MEDIA_RETENTION_DAYS, then removed with nothing else; its disk use is a measure."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import func, select

from backend.database.models import InboundMessage, MediaFile
from backend.inbox.retention import RetentionSweeper
from backend.media.store import MediaStore
from backend.settings import SettingsError, load_settings
from tests.integration.media.conftest import CUSTOMER, MediaStack, png_bytes


def test_old_media_goes_its_message_stays_and_shows_it_is_no_longer_kept(media_stack: MediaStack) -> None:
    old, shared = png_bytes(seed=21), png_bytes(seed=22)
    first = media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", old, caption="Old one")
    media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", shared)
    media_stack.receive(2)
    media_stack.fetcher.drain()
    media_stack.clock.advance(200 * 86400)
    # The same picture again, later: its file must outlive the old row naming it.
    media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", shared)
    media_stack.receive(3)
    media_stack.fetcher.drain()
    store = MediaStore.for_settings(media_stack.parts.settings)
    assert store.disk_use() == (2, len(old) + len(shared))

    media_stack.clock.advance(200 * 86400)
    parts = replace(media_stack.parts, settings=replace(media_stack.parts.settings, media_retention_days=365))
    result = RetentionSweeper(parts).run_once()
    assert result.media_files == 2
    assert store.disk_use() == (1, len(shared))
    with media_stack.database.reader() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 3
        assert session.scalar(select(func.count()).select_from(MediaFile)) == 1
        media_id = session.scalars(select(InboundMessage.media_id).where(InboundMessage.wamid == first)).one()
    assert media_id is not None
    gone = media_stack.media_item(media_id)
    assert gone["state"] == "failed" and gone["error"] == "the file is no longer kept"
    assert gone["caption"] == "Old one"
    assert media_stack.download(media_id).status_code == 404


def test_disk_use_and_failures_are_in_the_metrics(media_stack: MediaStack) -> None:
    photo = png_bytes(seed=23)
    media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", photo)
    media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", photo)
    media_stack.receive(2)
    before = media_stack.client().get("/v1/metrics", headers=media_stack.headers()).get_json()["media"]
    assert before == {"files": 0, "bytes": 0, "pending": 2, "failed": 0}
    media_stack.fetcher.drain()
    after = media_stack.client().get("/v1/metrics", headers=media_stack.headers()).get_json()["media"]
    assert after == {"files": 1, "bytes": len(photo), "pending": 0, "failed": 0}
    text = media_stack.client().get("/metrics").get_data(as_text=True)
    assert f"media_bytes {len(photo)}" in text and "media_failed 0" in text


def test_the_retention_setting_is_read_and_checked(tmp_path: object) -> None:
    assert load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)}).media_retention_days == 365
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_MEDIA_RETENTION_DAYS": "30"})
    assert settings.media_retention_days == 30
    with pytest.raises(SettingsError, match="INBOX_MEDIA_RETENTION_DAYS"):
        load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_MEDIA_RETENTION_DAYS": "0"})
