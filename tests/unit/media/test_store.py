"""The media store receives a file piece by piece: written aside while hashed, moved in under its hash
once whole (once per content), and nothing left behind when it is refused or a process died."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from backend.media.store import INCOMING_PREFIX, MediaStore


def _leftovers(store: MediaStore) -> list[Path]:
    return sorted(store.root.rglob(INCOMING_PREFIX + "*"))


def test_a_file_received_in_pieces_is_kept_under_its_hash(tmp_path: Path) -> None:
    store = MediaStore(tmp_path / "media")
    pieces = [b"first piece ", b"second piece ", b"last"]
    with store.receive() as incoming:
        for piece in pieces:
            incoming.write(piece)
        digest = incoming.keep()
    assert digest == hashlib.sha256(b"".join(pieces)).hexdigest()
    assert store.read(digest) == b"".join(pieces)
    assert incoming.size == sum(len(piece) for piece in pieces)
    assert _leftovers(store) == []
    if os.name == "posix":
        assert store.path_of(digest).stat().st_mode & 0o777 == 0o600


def test_the_same_bytes_received_twice_are_kept_once(tmp_path: Path) -> None:
    store = MediaStore(tmp_path / "media")
    digests = []
    for _ in range(2):
        with store.receive() as incoming:
            incoming.write(b"same bytes")
            digests.append(incoming.keep())
    assert digests[0] == digests[1] == store.put(b"same bytes")
    assert store.disk_use() == (1, len(b"same bytes"))
    assert _leftovers(store) == []


def test_a_file_left_without_keeping_it_is_removed(tmp_path: Path) -> None:
    store = MediaStore(tmp_path / "media")
    with pytest.raises(RuntimeError), store.receive() as incoming:
        incoming.write(b"half a file")
        assert _leftovers(store) == [incoming.path]
        raise RuntimeError("refused")
    assert _leftovers(store) == []
    assert store.disk_use() == (0, 0)
    with pytest.raises(ValueError, match="already"):
        incoming.write(b"more")


def test_files_half_received_by_a_process_that_died_are_removed_after_a_day(tmp_path: Path) -> None:
    store = MediaStore(tmp_path / "media")
    kept = store.put(b"a kept file")
    store.root.mkdir(exist_ok=True)
    old = store.root / f"{INCOMING_PREFIX}dead-upload"
    old_fetch = store.path_of(kept).parent / f"{INCOMING_PREFIX}dead-fetch"
    recent = store.root / f"{INCOMING_PREFIX}upload-in-progress"
    for path in (old, old_fetch, recent):
        path.write_bytes(b"partial")
    day_ago = time.time() - 25 * 3600
    os.utime(old, (day_ago, day_ago))
    os.utime(old_fetch, (day_ago, day_ago))
    assert store.remove_abandoned(24 * 3600) == 2
    assert _leftovers(store) == [recent]
    assert store.read(kept) == b"a kept file"
    assert MediaStore(tmp_path / "nowhere").remove_abandoned(0) == 0
