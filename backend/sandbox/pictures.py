"""Files the sandbox's customers send, made here: pictures as PNG bytes, voice notes as AMR."""

from __future__ import annotations

import struct
import zlib

Colour = tuple[int, int, int]

_TABLE: Colour = (214, 196, 168)
_MUG: Colour = (245, 245, 240)
_SHADOW: Colour = (200, 200, 195)
_CRACK: Colour = (60, 50, 45)
_COFFEE: Colour = (111, 78, 55)


def png(width: int, height: int, pixel: object) -> bytes:
    """A PNG of `width` × `height` RGB pixels, each from `pixel(x, y)`."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows.extend(pixel(x, y))  # type: ignore[operator]

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def cracked_mug(width: int = 240, height: int = 180) -> bytes:
    """A white mug on a wooden table with a dark crack running down beside its handle."""
    left, right, top, bottom = 70, 150, 40, 150
    handle_x, handle_y = 160, 95

    def pixel(x: int, y: int) -> Colour:
        inside_body = left <= x <= right and top <= y <= bottom
        ring = (x - handle_x) ** 2 + (y - handle_y) ** 2
        on_handle = x > right and 18**2 <= ring <= 30**2
        crack = abs(x - (right + 4 + (y - 75) // 4)) <= 1 and 70 <= y <= 120
        if crack and (on_handle or x <= right + 12):
            return _CRACK
        if top <= y <= top + 8 and left + 4 <= x <= right - 4:
            return _COFFEE
        if inside_body:
            return _SHADOW if x > right - 14 else _MUG
        if on_handle:
            return _MUG
        grain = (x * 7 + y * 3) % 23 == 0
        return (_TABLE[0] - 12, _TABLE[1] - 12, _TABLE[2] - 12) if grain else _TABLE

    return png(width, height, pixel)


# AMR-NB at 12.2 kbit/s: a header byte then 31 bytes per 20 ms frame (RFC 4867's file format).
_AMR_MAGIC = b"#!AMR\n"
_AMR_FRAME_HEADER = 0x3C
_AMR_FRAME_BYTES = 31
_AMR_FRAMES_PER_SECOND = 50


def voice_note(seconds: float = 2.0) -> bytes:
    """A short AMR voice note (a quiet hum), a type WhatsApp takes as audio."""
    frames = bytearray(_AMR_MAGIC)
    for number in range(max(1, int(seconds * _AMR_FRAMES_PER_SECOND))):
        frames.append(_AMR_FRAME_HEADER)
        frames.extend(((number * 7 + index * 13) % 256) for index in range(_AMR_FRAME_BYTES))
    return bytes(frames)
