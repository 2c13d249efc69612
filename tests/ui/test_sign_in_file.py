"""The remembered sign-in holds a token: it is this user's only from the moment it exists (POSIX)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ui import sign_in
from ui.sign_in import FILE_NAME, SignIn, load_sign_in, save_sign_in

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")

SAVED = SignIn("http://127.0.0.1:8080", "a-long-secret-token", "dana")


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common default umask, which leaves new files readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("umask_022")
def test_a_new_data_folder_and_the_sign_in_file_are_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    path = save_sign_in(data_dir, SAVED)
    assert mode(data_dir) == 0o700
    assert mode(path) == 0o600
    assert load_sign_in(data_dir) == SAVED
    assert [entry.name for entry in data_dir.iterdir()] == [FILE_NAME]  # no temporary file left


def test_the_file_is_created_exclusively_as_0600_under_another_name_then_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[tuple[str, int, int]] = []
    real_open = os.open

    def recording_open(path: Any, flags: int, mode: int = 0o777, **keywords: Any) -> int:
        opened.append((str(path), flags, mode))
        return real_open(path, flags, mode, **keywords)

    monkeypatch.setattr(sign_in.os, "open", recording_open)
    path = save_sign_in(tmp_path, SAVED)

    assert len(opened) == 1
    temporary, flags, created_mode = opened[0]
    assert Path(temporary).parent == tmp_path and Path(temporary) != path
    assert flags & os.O_CREAT and flags & os.O_EXCL and flags & os.O_WRONLY
    assert not flags & os.O_TRUNC  # never reuses a file that already exists
    assert created_mode == 0o600
    assert not Path(temporary).exists()
    assert load_sign_in(tmp_path) == SAVED


@pytest.mark.usefixtures("umask_022")
def test_a_readable_file_from_before_is_replaced_by_a_private_one(tmp_path: Path) -> None:
    old = tmp_path / FILE_NAME
    old.write_text('{"backend_url": "http://old", "token": "old"}', encoding="utf-8")
    assert mode(old) == 0o644
    save_sign_in(tmp_path, SAVED)
    assert mode(old) == 0o600
    assert load_sign_in(tmp_path) == SAVED
