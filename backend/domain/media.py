"""Media rules: which files Meta takes and how big, the fetcher's backoff, Meta's hash format."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

MEDIA_KINDS: Final = ("image", "audio", "video", "document", "sticker")
# The kinds an agent or another system can send (stickers are only received).
SENDABLE_KINDS: Final = ("image", "audio", "video", "document")
MEGABYTE: Final = 1024 * 1024

PENDING: Final = "pending"
STORED: Final = "stored"
FAILED: Final = "failed"
MEDIA_STATES: Final = (PENDING, STORED, FAILED)

INBOUND: Final = "inbound"
OUTBOUND: Final = "outbound"

# Meta keeps an uploaded file for 30 days; a little margin so a send never names an expired id.
GRAPH_MEDIA_VALIDITY: Final = timedelta(days=29)


@dataclass(frozen=True)
class MediaLimit:
    """What Meta accepts of one kind: its MIME types and the largest size."""

    kind: str
    mime_types: tuple[str, ...]
    max_bytes: int


# As Meta documents them for the Cloud API.
LIMITS: Final = (
    MediaLimit("image", ("image/jpeg", "image/png"), 5 * MEGABYTE),
    MediaLimit("audio", ("audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"), 16 * MEGABYTE),
    MediaLimit("video", ("video/mp4", "video/3gpp"), 16 * MEGABYTE),
    MediaLimit(
        "document",
        (
            "text/plain",
            "application/pdf",
            "application/vnd.ms-powerpoint",
            "application/msword",
            "application/vnd.ms-excel",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ),
        100 * MEGABYTE,
    ),
    MediaLimit("sticker", ("image/webp",), 500 * 1024),
)
MAX_UPLOAD_BYTES: Final = max(limit.max_bytes for limit in LIMITS)


class MediaRefusedError(ValueError):
    """A file Meta would not take; `code` is the API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def base_mime_type(mime_type: str) -> str:
    """The type without parameters, lower case: `audio/ogg; codecs=opus` → `audio/ogg`."""
    return mime_type.split(";", 1)[0].strip().lower()


def limit_for(mime_type: str) -> MediaLimit | None:
    """The kind and limit a MIME type falls under, or None when Meta takes no such file."""
    base = base_mime_type(mime_type)
    for limit in LIMITS:
        if base in limit.mime_types:
            return limit
    return None


def check_type(mime_type: str) -> MediaLimit:
    """The limit a file of this type falls under, or MediaRefusedError when Meta takes no such file."""
    limit = limit_for(mime_type)
    if limit is None:
        raise MediaRefusedError(
            "unsupported_media_type",
            f"{base_mime_type(mime_type) or 'a file without a type'} cannot be sent on WhatsApp; "
            "send an image (jpeg, png), audio (aac, amr, mpeg, mp4, ogg), video (mp4, 3gpp), "
            "a document (pdf, office, text) or a sticker (webp)",
        )
    return limit


_A_FILE_OF_KIND: Final = {
    "image": "an image",
    "audio": "an audio file",
    "video": "a video",
    "document": "a document",
    "sticker": "a sticker",
}


def too_large(limit: MediaLimit, size: int | None = None) -> MediaRefusedError:
    """The refusal of a file past its kind's limit (size None: refused before its end was read)."""
    this_file = "this file is larger" if size is None else f"this file is {_size_words(size)}"
    return MediaRefusedError(
        "media_too_large",
        f"{_A_FILE_OF_KIND[limit.kind]} may be at most {_size_words(limit.max_bytes)}; {this_file}",
    )


def check_size(limit: MediaLimit, size: int) -> None:
    """MediaRefusedError when a whole file of `size` bytes breaks its kind's limit or is empty."""
    if size > limit.max_bytes:
        raise too_large(limit, size)
    if size == 0:
        raise MediaRefusedError("empty_media", "the file is empty")


def check_upload(mime_type: str, size: int) -> MediaLimit:
    """The limit a file meets, or MediaRefusedError saying which rule it breaks."""
    limit = check_type(mime_type)
    check_size(limit, size)
    return limit


def _size_words(size: int) -> str:
    if size >= MEGABYTE:
        return f"{size / MEGABYTE:.1f} MB".replace(".0 MB", " MB")
    return f"{size / 1024:.0f} KB"


def kind_of(mime_type: str | None) -> str:
    """The kind a stored file shows as (image, audio, video, document or sticker)."""
    limit = limit_for(mime_type or "")
    if limit is not None:
        return limit.kind
    base = base_mime_type(mime_type or "")
    for kind in ("image", "audio", "video"):
        if base.startswith(kind + "/"):
            return kind
    return "document"


def content_hash(content: bytes) -> str:
    """The stored file's name: lower-case hex SHA-256."""
    return hashlib.sha256(content).hexdigest()


def meta_sha256(content: bytes) -> str:
    """The form Meta gives a file's hash in: base64 of its SHA-256."""
    return base64.b64encode(hashlib.sha256(content).digest()).decode()


def matches_meta_sha256(content: bytes, expected: str) -> bool:
    """Whether `content` has Meta's hash (base64; lower-case hex is accepted too, as some payloads use it)."""
    expected = expected.strip()
    digest = hashlib.sha256(content).digest()
    if expected.lower() == digest.hex():
        return True
    return expected == base64.b64encode(digest).decode()


# Seconds before each further try of a failed download: 5 s, 30 s, 2 min, 10 min, 1 h.
FETCH_BACKOFF_SECONDS: Final = (5.0, 30.0, 120.0, 600.0, 3600.0)
MAX_FETCH_ATTEMPTS: Final = len(FETCH_BACKOFF_SECONDS) + 1


def next_fetch_delay(attempts: int) -> timedelta | None:
    """How long to wait after `attempts` failed tries, or None when that was the last one."""
    if attempts >= MAX_FETCH_ATTEMPTS:
        return None
    return timedelta(seconds=FETCH_BACKOFF_SECONDS[min(attempts, len(FETCH_BACKOFF_SECONDS)) - 1])


def safe_filename(name: str | None, fallback: str) -> str:
    """A file name for a Content-Disposition header: no folders, no control characters, not empty."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(ch for ch in base if ch.isprintable() and ch not in '"')
    return cleaned.strip()[:200] or fallback


_EXTENSIONS: Final = {
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/webp": "webp",
    "audio/ogg": "ogg",
    "audio/mpeg": "mp3",
    "audio/mp4": "m4a",
    "audio/aac": "aac",
    "audio/amr": "amr",
    "video/mp4": "mp4",
    "video/3gpp": "3gp",
    "application/pdf": "pdf",
    "text/plain": "txt",
}


def default_filename(kind: str, media_id: str, mime_type: str | None) -> str:
    """The name a file without one is saved under: `image-1234.jpg`."""
    extension = _EXTENSIONS.get(base_mime_type(mime_type or ""), "bin")
    return f"{kind}-{media_id}.{extension}"
