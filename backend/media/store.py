"""The content-addressed media store: files in the data folder's `media/`, named by their SHA-256."""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from backend.domain.media import content_hash
from backend.settings import PRIVATE_FILE_MODE, Settings, make_private_folder

MEDIA_FOLDER = "media"


# Files being received are written here, in the store's own folder (so the move into place is a rename
# on one file system), under names the store's listing skips.
INCOMING_PREFIX = ".incoming-"


class IncomingFile:
    """A file being received into the store: written aside while it is hashed, kept only by `keep`.

    Used as a context manager: leaving it without `keep` (a refusal, an error) removes what was written.
    """

    def __init__(self, store: MediaStore) -> None:
        self._store = store
        make_private_folder(store.root)
        handle, name = tempfile.mkstemp(dir=store.root, prefix=INCOMING_PREFIX)
        self.path = Path(name)
        self._file: BinaryIO | None = os.fdopen(handle, "wb")
        self._hash = hashlib.sha256()
        self.size = 0
        self.digest: str | None = None

    def __enter__(self) -> IncomingFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.digest is None:
            self.discard()

    def write(self, chunk: bytes) -> None:
        """Add the next bytes of the file."""
        if self._file is None:
            raise ValueError("the file was already kept or discarded")
        self._file.write(chunk)
        self._hash.update(chunk)
        self.size += len(chunk)

    def keep(self) -> str:
        """Move the file into the store under its hash (once: the same bytes kept before stay); the hash."""
        if self._file is None:
            raise ValueError("the file was already kept or discarded")
        file, self._file = self._file, None
        try:
            file.flush()
            os.fsync(file.fileno())
        finally:
            file.close()
        digest = self._hash.hexdigest()
        target = self._store.path_of(digest)
        try:
            if target.is_file() and target.stat().st_size == self.size:
                self.path.unlink()
            else:
                make_private_folder(target.parent)
                if os.name == "posix":
                    self.path.chmod(PRIVATE_FILE_MODE)
                # A rename: a reader never sees half a file and a crash leaves no torn one.
                self.path.replace(target)
        except BaseException:
            self.path.unlink(missing_ok=True)
            raise
        self.digest = digest
        return digest

    def discard(self) -> None:
        """Remove what was written (nothing is kept)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.path.unlink(missing_ok=True)


@dataclass(frozen=True)
class MediaStore:
    """Bytes kept once per content: `media/ab/abcdef…` under the data folder."""

    root: Path

    @classmethod
    def for_settings(cls, settings: Settings) -> MediaStore:
        """The store in this installation's data folder."""
        return cls(settings.data_dir / MEDIA_FOLDER)

    def path_of(self, digest: str) -> Path:
        """Where the file with this hex SHA-256 lives."""
        if len(digest) != 64 or any(ch not in "0123456789abcdef" for ch in digest):
            raise ValueError(f"not a SHA-256 in hex: {digest!r}")
        return self.root / digest[:2] / digest

    def receive(self) -> IncomingFile:
        """A new file to write piece by piece (an upload streamed from its request)."""
        return IncomingFile(self)

    def put(self, content: bytes) -> str:
        """Keep `content` (once, however often it is put); its hex SHA-256."""
        digest = content_hash(content)
        target = self.path_of(digest)
        if target.is_file() and target.stat().st_size == len(content):
            return digest
        with self.receive() as incoming:
            incoming.write(content)
            return incoming.keep()

    def remove_abandoned(self, older_than_seconds: float, now: float | None = None) -> int:
        """Remove files left half received (a process that died mid-upload); how many were removed."""
        if not self.root.is_dir():
            return 0
        cutoff = (time.time() if now is None else now) - older_than_seconds
        removed = 0
        # Uploads are received in the root; files fetched before this store received them piece by
        # piece were written beside their final place.
        leftovers = [*self.root.glob(INCOMING_PREFIX + "*"), *self.root.glob(f"*/{INCOMING_PREFIX}*")]
        for path in leftovers:
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except FileNotFoundError:
                continue
        return removed

    def read(self, digest: str) -> bytes:
        """The bytes kept under this hash (FileNotFoundError when they are gone)."""
        return self.path_of(digest).read_bytes()

    def has(self, digest: str) -> bool:
        """Whether the bytes are kept."""
        return self.path_of(digest).is_file()

    def remove(self, digest: str) -> bool:
        """Remove the file; whether it was there."""
        path = self.path_of(digest)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True

    def disk_use(self) -> tuple[int, int]:
        """(files, bytes) the store holds now."""
        files = size = 0
        if not self.root.is_dir():
            return 0, 0
        for folder in self.root.iterdir():
            if not folder.is_dir():
                continue
            for path in folder.iterdir():
                if path.name.startswith("."):
                    continue
                try:
                    size += path.stat().st_size
                except FileNotFoundError:
                    continue
                files += 1
        return files, size
