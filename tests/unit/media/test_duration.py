"""A recording's length, read from the kept file's headers: Ogg Opus voice notes, MP3, MP4 video;
None for AMR, for pictures and documents, and for files that are not what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.media.duration import duration_seconds
from tests.media_files import mp3_audio, mp4_video, opus_voice_note, voice_note


def _kept(tmp_path: Path, content: bytes) -> Path:
    # Named as the store names files: by hash, with no extension to guess from.
    path = tmp_path / "3f1a9c"
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("seconds", [0.5, 7.0, 61.3])
def test_a_voice_note_s_length_is_read_to_the_millisecond(tmp_path: Path, seconds: float) -> None:
    path = _kept(tmp_path, opus_voice_note(seconds))
    assert duration_seconds(path, "audio/ogg; codecs=opus") == pytest.approx(seconds, abs=0.02)


@pytest.mark.parametrize(
    ("mime_type", "content", "seconds"),
    [
        ("audio/mpeg", mp3_audio(3.0), 3.0),
        ("video/mp4", mp4_video(12.5), 12.5),
        ("video/3gpp", mp4_video(4.0), 4.0),
        ("audio/mp4", mp4_video(2.0), 2.0),
    ],
)
def test_mp3_audio_and_mp4_video_have_their_length(
    tmp_path: Path, mime_type: str, content: bytes, seconds: float
) -> None:
    assert duration_seconds(_kept(tmp_path, content), mime_type) == pytest.approx(seconds, abs=0.02)


@pytest.mark.parametrize(
    ("mime_type", "content"),
    [
        # No reader knows AMR: its length is unknown, not a failure.
        ("audio/amr", voice_note(3.0)),
        # Broken or false files: a header without its pages, a voice note the fetcher test used to send.
        ("audio/ogg", opus_voice_note(7.0)[:200]),
        ("audio/ogg", b"OggS\x00\x02" + bytes(range(200))),
        ("audio/mpeg", b"\x01" * 100),
        ("audio/aac", b"\x01" * 100),
        ("video/mp4", b"not a movie"),
        ("audio/ogg", b""),
        # Files that have no length at all.
        ("image/png", opus_voice_note(7.0)),
        ("application/pdf", b"%PDF-1.4\n%%EOF\n"),
        (None, opus_voice_note(7.0)),
    ],
)
def test_a_file_whose_length_cannot_be_read_has_none(
    tmp_path: Path, mime_type: str | None, content: bytes
) -> None:
    assert duration_seconds(_kept(tmp_path, content), mime_type) is None


def test_a_file_gone_from_the_store_has_no_length(tmp_path: Path) -> None:
    assert duration_seconds(tmp_path / "missing", "audio/ogg") is None
