"""How long a voice note, an audio file or a video lasts, read from the kept file's headers (mutagen)."""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Final

from mutagen import FileType
from mutagen.aac import AAC
from mutagen.mp3 import MP3
from mutagen.mp4 import MP4
from mutagen.oggflac import OggFLAC
from mutagen.oggopus import OggOpus
from mutagen.oggspeex import OggSpeex
from mutagen.oggvorbis import OggVorbis

from backend.domain import media as rules

log = logging.getLogger(__name__)

# The readers worth trying for each type Meta takes as audio or video. The store names files by their
# hash, without an extension, so the type says which container to read rather than mutagen guessing.
# AMR (audio/amr) has no reader: its length stays unknown.
_READERS: Final[dict[str, tuple[type[FileType], ...]]] = {
    "audio/ogg": (OggOpus, OggVorbis, OggFLAC, OggSpeex),
    "audio/mpeg": (MP3,),
    "audio/mp4": (MP4,),
    "audio/aac": (AAC, MP4),
    "video/mp4": (MP4,),
    "video/3gpp": (MP4,),
}
# Longer than anything WhatsApp carries: a header claiming more is wrong, not a long recording.
_LONGEST_SECONDS: Final = 24 * 3600.0


def duration_seconds(path: Path, mime_type: str | None) -> float | None:
    """The file's length in seconds (to the millisecond), or None when it has none or it cannot be read.

    Only headers are read (an Ogg file's first and last pages, an MP4's movie header), so this is quick
    whatever the file's size. A picture or a document, a file no reader understands (AMR) or a broken
    one is None: never an error.
    """
    for reader in _READERS.get(rules.base_mime_type(mime_type or ""), ()):
        try:
            info = reader(path).info
        except Exception as error:  # mutagen raises many kinds on a file that is not what it says
            log.debug("%s cannot read %s as %s: %s", path.name, mime_type, reader.__name__, error)
            continue
        length = getattr(info, "length", None)
        if isinstance(length, int | float) and math.isfinite(length) and 0 < length <= _LONGEST_SECONDS:
            return round(float(length), 3)
    return None
