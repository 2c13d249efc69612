"""Small media files made here, byte by byte, for the tests of lengths, limits and stickers.

Voice notes come from the sandbox (`opus_voice_note`, `voice_note`): the files its customers send.
"""

from __future__ import annotations

import struct

from backend.sandbox.pictures import opus_voice_note, voice_note

__all__ = ["mp3_audio", "mp4_video", "opus_voice_note", "voice_note", "webp_sized"]

# An MPEG-1 Layer III frame header: 128 kbit/s, 44.1 kHz, no padding, so every frame is 417 bytes
# and lasts 1152 samples.
_MP3_FRAME_HEADER = b"\xff\xfb\x90\x00"
_MP3_FRAME_BYTES = 417
_MP3_FRAME_SECONDS = 1152 / 44100


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def mp4_video(seconds: float, timescale: int = 600) -> bytes:
    """An MP4 file's boxes as a phone writes them first: `ftyp`, then `moov` with the movie header."""
    file_type = _box(b"ftyp", b"isom" + struct.pack(">I", 0x200) + b"isomiso2mp41")
    identity_matrix = struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000)
    movie_header = _box(
        b"mvhd",
        struct.pack(">B3xIIII", 0, 0, 0, timescale, round(seconds * timescale))
        + struct.pack(">IH10x", 0x00010000, 0x0100)
        + identity_matrix
        + bytes(24)
        + struct.pack(">I", 2),
    )
    return file_type + _box(b"moov", movie_header) + _box(b"mdat", bytes(64))


def mp3_audio(seconds: float) -> bytes:
    """Constant-bitrate MP3 frames (of silence) lasting about `seconds`."""
    frames = max(1, round(seconds / _MP3_FRAME_SECONDS))
    return (_MP3_FRAME_HEADER + bytes(_MP3_FRAME_BYTES - len(_MP3_FRAME_HEADER))) * frames


def webp_sized(size: int) -> bytes:
    """`size` bytes that start as a WebP file does (RIFF, WEBP, a VP8L chunk), for the size limits."""
    chunk = size - 20
    return b"RIFF" + struct.pack("<I", size - 8) + b"WEBPVP8L" + struct.pack("<I", chunk) + bytes(chunk)
