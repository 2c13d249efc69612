"""How long a voice note, audio or video lasts: read by the fetcher once the file is kept (off the
webhook's path) and by POST /v1/media, shown in the thread as `duration_seconds`; null for a file whose
length cannot be read, and that never fails the download."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from backend.database.models import MediaFile
from tests.integration.media.conftest import CUSTOMER, MediaStack, png_bytes
from tests.integration.media.test_outbound_media import upload
from tests.media_files import mp3_audio, mp4_video, opus_voice_note, voice_note


def test_a_voice_note_s_length_is_read_once_it_is_kept_and_shown_in_the_thread(
    media_stack: MediaStack,
) -> None:
    note = opus_voice_note(7.0)
    wamid = media_stack.sandbox.inbound_media(CUSTOMER, "audio", "audio/ogg; codecs=opus", note)
    media_stack.receive()
    media_id = media_stack.media_id_of(wamid)
    # Stored with its message, not yet fetched: nobody knows its length.
    assert media_stack.media_item(media_id)["duration_seconds"] is None

    assert media_stack.fetcher.drain().stored == 1
    kept = media_stack.media_item(media_id)
    assert kept["state"] == "stored" and kept["duration_seconds"] == pytest.approx(7.0, abs=0.02)
    assert media_stack.download(media_id).data == note


def test_a_video_has_its_length_and_a_photo_none(media_stack: MediaStack) -> None:
    video = media_stack.sandbox.inbound_media(CUSTOMER, "video", "video/mp4", mp4_video(12.5))
    photo = media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", png_bytes(seed=9))
    media_stack.receive(2)
    assert media_stack.fetcher.drain().stored == 2
    assert media_stack.media_item(media_stack.media_id_of(video))["duration_seconds"] == 12.5
    assert media_stack.media_item(media_stack.media_id_of(photo))["duration_seconds"] is None


@pytest.mark.parametrize(
    ("mime_type", "content"),
    [
        # The sandbox's simulated customers send AMR, which no reader knows.
        ("audio/amr", voice_note(2.0)),
        # A broken file: an Ogg header with none of its pages.
        ("audio/ogg", opus_voice_note(7.0)[:200]),
        ("video/mp4", b"not a movie at all"),
    ],
)
def test_a_file_whose_length_cannot_be_read_is_stored_all_the_same_with_none(
    media_stack: MediaStack, mime_type: str, content: bytes
) -> None:
    wamid = media_stack.sandbox.inbound_media(CUSTOMER, mime_type.partition("/")[0], mime_type, content)
    media_stack.receive()
    media_id = media_stack.media_id_of(wamid)
    result = media_stack.fetcher.drain()
    assert (result.stored, result.failed, result.retrying) == (1, 0, 0)
    kept = media_stack.media_item(media_id)
    assert kept["state"] == "stored" and kept["duration_seconds"] is None and kept["error"] is None
    assert media_stack.download(media_id).data == content


@pytest.mark.parametrize(
    ("mime_type", "content", "seconds"),
    [
        ("audio/ogg", opus_voice_note(4.2), 4.2),
        ("audio/mpeg", mp3_audio(3.0), 3.0),
        ("video/mp4", mp4_video(9.0), 9.0),
        ("audio/amr", voice_note(2.0), None),
        ("image/png", png_bytes(seed=12), None),
    ],
)
def test_an_upload_answers_with_its_length_and_keeps_it(
    media_stack: MediaStack, mime_type: str, content: bytes, seconds: float | None
) -> None:
    answer = upload(media_stack, content, mime_type, "recording")
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    assert body["duration_seconds"] == (None if seconds is None else pytest.approx(seconds, abs=0.02))
    with media_stack.database.reader() as session:
        row = session.scalars(select(MediaFile).where(MediaFile.media_id == body["id"])).one()
    assert row.duration_seconds == body["duration_seconds"]
