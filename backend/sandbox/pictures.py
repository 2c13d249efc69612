"""Files the sandbox's customers send, made here: pictures as PNG bytes, voice notes as AMR or Ogg Opus."""

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


# Ogg Opus (RFC 7845) as WhatsApp records voice notes: 48 kHz granules, 20 ms packets of silence.
_OGG_CRC_POLYNOMIAL = 0x04C11DB7
_OPUS_SILENCE = b"\xf8\xff\xfe"  # one 20 ms CELT frame, full band, mono, of digital silence
_OPUS_SAMPLES_PER_PACKET = 960
_OPUS_PRE_SKIP = 312
_PACKETS_PER_PAGE = 50


def _ogg_crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        value = byte << 24
        for _ in range(8):
            value = ((value << 1) ^ _OGG_CRC_POLYNOMIAL) if value & 0x80000000 else value << 1
        table.append(value & 0xFFFFFFFF)
    return tuple(table)


_OGG_CRC_TABLE = _ogg_crc_table()


def _ogg_crc(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _OGG_CRC_TABLE[((crc >> 24) & 0xFF) ^ byte]
    return crc


def _ogg_page(packets: list[bytes], *, granule: int, serial: int, sequence: int, flags: int) -> bytes:
    """One Ogg page holding whole packets (each under 255 bytes, so one lacing value each)."""
    lacing = bytes(len(packet) for packet in packets)
    header = struct.pack("<4sBBqIIIB", b"OggS", 0, flags, granule, serial, sequence, 0, len(lacing))
    page = header + lacing + b"".join(packets)
    checksum = struct.pack("<I", _ogg_crc(page))
    return page[:22] + checksum + page[26:]


def opus_voice_note(seconds: float = 2.0, serial: int = 0x5A17) -> bytes:
    """A voice note as WhatsApp sends one (audio/ogg; codecs=opus) lasting `seconds`, of silence."""
    head = struct.pack("<8sBBHIhB", b"OpusHead", 1, 1, _OPUS_PRE_SKIP, 48000, 0, 0)
    vendor = b"whatsapp-shared-inbox sandbox"
    tags = b"OpusTags" + struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", 0)
    pages = [
        _ogg_page([head], granule=0, serial=serial, sequence=0, flags=0x02),
        _ogg_page([tags], granule=0, serial=serial, sequence=1, flags=0x00),
    ]
    packets = max(1, round(seconds * 48000 / _OPUS_SAMPLES_PER_PACKET))
    written = 0
    while written < packets:
        count = min(_PACKETS_PER_PAGE, packets - written)
        written += count
        pages.append(
            _ogg_page(
                [_OPUS_SILENCE] * count,
                # The last page's granule says where the audio ends, the pre-skip included.
                granule=written * _OPUS_SAMPLES_PER_PACKET + _OPUS_PRE_SKIP,
                serial=serial,
                sequence=len(pages),
                flags=0x04 if written == packets else 0x00,
            )
        )
    return b"".join(pages)
