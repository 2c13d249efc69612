"""An upload's multipart body streamed into the media store: never held whole in memory.

The request is read a chunk at a time. The `file` part's bytes go straight to a file in the data
folder while they are hashed, and the file moves into the content-addressed store once its last byte
is in. Its type is judged from the part's headers before any byte is written, and the upload is
refused the moment it passes its kind's limit: nothing more is written, and the rest of the body is
only read past, a chunk at a time, so the client hears the refusal.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from typing import Final, Protocol

from werkzeug.exceptions import HTTPException
from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import Data, Epilogue, Field, File, MultipartDecoder, NeedData

from backend.domain import media as rules
from backend.media.store import IncomingFile, MediaStore

FILE_FIELD: Final = "file"
CHUNK_BYTES: Final = 64 * 1024
# What the decoder may hold at once (headers, a line of another field): a file's bytes pass through.
MAX_FORM_MEMORY_BYTES: Final = 1024 * 1024
MAX_FORM_PARTS: Final = 100


class Readable(Protocol):
    """The request's body stream."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to `size` bytes; empty at the end."""


class UploadFormError(ValueError):
    """The body is not a multipart form with a file in the field `file`."""


@dataclass(frozen=True)
class ReceivedUpload:
    """A file received whole, checked and kept in the store."""

    digest: str
    size: int
    # Without parameters: `audio/ogg; codecs=opus` is kept as `audio/ogg`.
    mime_type: str
    filename: str | None


def part_mime_type(content_type: str | None, filename: str | None) -> str:
    """The type a part says it has, or (when it says none, or only octet-stream) the name's type."""
    mime_type = parse_options_header(content_type or "")[0].strip().lower()
    if not mime_type or mime_type == "application/octet-stream":
        guessed, _ = mimetypes.guess_type(filename or "")
        mime_type = guessed or mime_type
    return mime_type


class _FilePart:
    """The `file` part while its bytes arrive: its type's limit and the store's file they go to."""

    def __init__(self, event: File, store: MediaStore) -> None:
        self.mime_type = part_mime_type(event.headers.get("content-type"), event.filename)
        # Judged before a byte is written: a type Meta refuses is refused at once.
        self.limit = rules.check_type(self.mime_type)
        self.filename = rules.safe_filename(event.filename, "") or None
        self.incoming: IncomingFile = store.receive()
        self.complete = False

    def write(self, chunk: bytes) -> None:
        self.incoming.write(chunk)
        if self.incoming.size > self.limit.max_bytes:
            raise rules.too_large(self.limit)


def discard_rest(stream: Readable) -> int:
    """Read what is left of a refused body in small pieces and drop it; how many bytes that was.

    The refusal is decided and nothing more is kept the moment a file passes its limit, but the client
    is still sending: reading the rest lets it receive the answer, and reading it here, a chunk at a
    time, keeps a server that would drain it itself from holding it in memory in one piece.
    """
    discarded = 0
    try:
        while chunk := stream.read(CHUNK_BYTES):
            discarded += len(chunk)
    except HTTPException:
        # Past the largest body any upload may have, or the client went away: nothing more to read.
        pass
    return discarded


def receive_upload(stream: Readable, boundary: bytes, store: MediaStore) -> ReceivedUpload:
    """Read a multipart body, keeping the first `file` part in the store.

    Raises UploadFormError for a body without such a part (or not a multipart form at all),
    MediaRefusedError for a file Meta would not take, and werkzeug's RequestEntityTooLarge when the
    body itself is larger than any upload may be.
    """
    decoder = MultipartDecoder(boundary, MAX_FORM_MEMORY_BYTES, max_parts=MAX_FORM_PARTS)
    part: _FilePart | None = None
    # Whether the Data events now arriving are the `file` part's.
    in_file = False
    try:
        while True:
            chunk = stream.read(CHUNK_BYTES)
            try:
                decoder.receive_data(chunk or None)
                event = decoder.next_event()
                while not isinstance(event, NeedData | Epilogue):
                    if isinstance(event, File) and event.name == FILE_FIELD and part is None:
                        part = _FilePart(event, store)
                        in_file = True
                    elif isinstance(event, File | Field):
                        # Another field, or a second file: read past, never kept.
                        in_file = False
                    elif isinstance(event, Data) and in_file and part is not None:
                        part.write(event.data)
                        if not event.more_data:
                            part.complete = True
                            in_file = False
                    event = decoder.next_event()
            except rules.MediaRefusedError:
                raise
            except ValueError as error:
                raise UploadFormError(f"The multipart body could not be read: {error}.") from None
            if isinstance(event, Epilogue) or not chunk:
                break
        if part is None or not part.complete:
            raise UploadFormError("Send the file as multipart/form-data in the field `file`.")
        rules.check_size(part.limit, part.incoming.size)
        digest = part.incoming.keep()
        return ReceivedUpload(
            digest=digest,
            size=part.incoming.size,
            mime_type=rules.base_mime_type(part.mime_type),
            filename=part.filename,
        )
    finally:
        if part is not None and part.incoming.digest is None:
            part.incoming.discard()
