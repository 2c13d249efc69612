"""POST /v1/media streams the file into the store: memory stays small whatever the file's size, a file
past its kind's limit is refused as soon as the limit is crossed (nothing more is kept; the rest is read
past so the client hears it), and nothing is left in the data folder by a refusal."""

from __future__ import annotations

import hashlib
import io
import tracemalloc
from typing import Any

import pytest

from backend.media.store import INCOMING_PREFIX, IncomingFile, MediaStore
from tests.integration.media.conftest import MediaStack
from tests.integration.media.test_outbound_media import BOUNDARY, upload

MB = 1024 * 1024


# The file's bytes: a block repeated (made once, so a large body costs the test no memory either).
_BLOCK = bytes((index * 31 + 7) % 251 for index in range(256 * 1024))


class MultipartBody(io.RawIOBase):
    """A multipart body made as it is read, counting what the server read of it."""

    def __init__(self, size: int, mime_type: str, filename: str = "big.bin", before: bytes = b"") -> None:
        super().__init__()
        self.head = (
            before
            + (
                f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                f"Content-Type: {mime_type}\r\n\r\n"
            ).encode()
        )
        self.tail = f"\r\n--{BOUNDARY}--\r\n".encode()
        self.size = size
        self.length = len(self.head) + size + len(self.tail)
        self.position = 0
        # What the server read (the test client only seeks to the end and back to learn the length).
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.length}[whence]
        self.position = base + offset
        return self.position

    def tell(self) -> int:
        return self.position

    def readinto(self, buffer: Any) -> int:
        position, wanted = self.position, len(buffer)
        file_end = len(self.head) + self.size
        if position < len(self.head):
            piece = self.head[position : position + wanted]
        elif position < file_end:
            piece = _BLOCK[: min(wanted, file_end - position, len(_BLOCK))]
        else:
            piece = self.tail[position - file_end : position - file_end + wanted]
        buffer[: len(piece)] = piece
        self.position += len(piece)
        self.read_bytes += len(piece)
        return len(piece)


def _post(stack: MediaStack, body: MultipartBody) -> Any:
    return stack.client().post(
        "/v1/media",
        input_stream=body,
        headers=stack.headers(),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )


def _post_measuring_memory(stack: MediaStack, body: MultipartBody) -> tuple[Any, int]:
    """The upload's answer, and the most Python memory it held at once."""
    tracemalloc.start()
    try:
        answer = _post(stack, body)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return answer, peak


def _leftovers(stack: MediaStack) -> list[str]:
    root = MediaStore.for_settings(stack.parts.settings).root
    return sorted(path.name for path in root.rglob(INCOMING_PREFIX + "*")) if root.exists() else []


def test_a_15_mb_voice_note_is_kept_without_holding_it_in_memory(media_stack: MediaStack) -> None:
    body = MultipartBody(15 * MB, "audio/ogg", "long-note.ogg")
    answer, peak = _post_measuring_memory(media_stack, body)
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["size"] == 15 * MB
    # The whole file read, in chunks: the peak is a few of them, not the file.
    assert body.read_bytes == body.length
    assert peak < 3 * MB, f"peak {peak / MB:.1f} MB"
    kept = MediaStore.for_settings(media_stack.parts.settings).path_of(answer.get_json()["sha256"])
    assert kept.stat().st_size == 15 * MB
    assert _leftovers(media_stack) == []


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many bytes each file being received held after each write."""
    sizes: list[int] = []
    real_write = IncomingFile.write

    def write(self: IncomingFile, chunk: bytes) -> None:
        real_write(self, chunk)
        sizes.append(self.size)

    monkeypatch.setattr(IncomingFile, "write", write)
    return sizes


@pytest.mark.parametrize(
    ("mime_type", "limit"),
    [
        ("image/png", 5 * MB),
        ("audio/ogg", 16 * MB),
        ("image/webp", 500 * 1024),
        ("application/pdf", 100 * MB),
    ],
)
def test_a_file_past_its_limit_is_refused_as_soon_as_the_limit_is_crossed(
    media_stack: MediaStack, written: list[int], mime_type: str, limit: int
) -> None:
    # The body says 100 MB and a little: within what the listener takes, past every kind but documents.
    size = 100 * MB + 512 * 1024 if mime_type == "application/pdf" else 100 * MB
    body = MultipartBody(size, mime_type)
    answer, peak = _post_measuring_memory(media_stack, body)
    assert answer.status_code == 413
    error = answer.get_json()["error"]
    assert error["code"] == "media_too_large" and "at most" in error["message"]
    # Nothing was kept past the chunk that crossed the limit, and that was removed.
    assert limit < max(written) <= limit + 64 * 1024
    assert _leftovers(media_stack) == []
    # The rest was read past, so the client hears the answer, and never held in memory.
    assert body.read_bytes == body.length
    assert peak < 3 * MB, f"peak {peak / MB:.1f} MB"


def test_a_type_meta_refuses_is_refused_before_a_byte_is_kept(
    media_stack: MediaStack, written: list[int]
) -> None:
    body = MultipartBody(50 * MB, "video/quicktime", "clip.mov")
    answer = _post(media_stack, body)
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "unsupported_media_type"
    assert written == []
    assert _leftovers(media_stack) == []


def test_other_fields_are_read_past_and_the_type_comes_from_the_name_when_the_part_has_none(
    media_stack: MediaStack,
) -> None:
    field = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="caption"\r\n\r\nHello\r\n'.encode()
    body = MultipartBody(2000, "application/octet-stream", "scan.pdf", before=field)
    answer = _post(media_stack, body)
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["mime_type"] == "application/pdf"


@pytest.mark.parametrize(
    "content",
    [
        # No boundary ever comes: the body ends inside the file.
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
        f"Content-Type: application/pdf\r\n\r\n%PDF-1.4 and no end",
        # A part without a Content-Disposition header.
        f"--{BOUNDARY}\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--{BOUNDARY}--\r\n",
        # `file` as a plain field, not a file.
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n\r\n%PDF\r\n--{BOUNDARY}--\r\n',
    ],
)
def test_a_body_that_is_no_form_with_a_file_is_400_and_leaves_nothing(
    media_stack: MediaStack, content: str
) -> None:
    answer = media_stack.client().post(
        "/v1/media",
        data=content.encode(),
        headers=media_stack.headers(),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "invalid_media"
    assert _leftovers(media_stack) == []


def test_an_empty_file_is_refused_and_the_first_of_two_files_is_the_one_kept(media_stack: MediaStack) -> None:
    empty = upload(media_stack, b"", "application/pdf")
    assert empty.status_code == 400 and empty.get_json()["error"]["code"] == "empty_media"
    two = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="one.pdf"\r\n'
        f"Content-Type: application/pdf\r\n\r\nfirst\r\n"
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="two.pdf"\r\n'
        f"Content-Type: application/pdf\r\n\r\nsecond\r\n--{BOUNDARY}--\r\n"
    )
    answer = media_stack.client().post(
        "/v1/media",
        data=two.encode(),
        headers=media_stack.headers(),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )
    assert answer.status_code == 201
    assert answer.get_json()["sha256"] == hashlib.sha256(b"first").hexdigest()
    assert _leftovers(media_stack) == []
