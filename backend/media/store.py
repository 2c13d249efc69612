"""The content-addressed media store: files in the data folder's `media/`, named by their SHA-256."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from backend.domain.media import content_hash
from backend.settings import PRIVATE_FILE_MODE, Settings, make_private_folder

MEDIA_FOLDER = "media"


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

    def put(self, content: bytes) -> str:
        """Keep `content` (once, however often it is put); its hex SHA-256."""
        digest = content_hash(content)
        target = self.path_of(digest)
        if target.is_file() and target.stat().st_size == len(content):
            return digest
        make_private_folder(self.root)
        make_private_folder(target.parent)
        # Written aside and renamed, so a reader never sees half a file and a crash leaves no torn one.
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(content)
                file.flush()
                os.fsync(file.fileno())
            if os.name == "posix":
                Path(temporary).chmod(PRIVATE_FILE_MODE)
            Path(temporary).replace(target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return digest

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
