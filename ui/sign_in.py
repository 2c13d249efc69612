"""The remembered sign-in (backend URL, token, user name), kept per user in the data folder."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

FILE_NAME = "client-sign-in.json"
# It holds a token: this user only, and so is the folder it lives in (POSIX).
FILE_MODE = 0o600
FOLDER_MODE = 0o700


@dataclass(frozen=True)
class SignIn:
    """Where the backend is and who we are to it."""

    backend_url: str
    token: str
    user_name: str | None = None


def load_sign_in(data_dir: Path) -> SignIn | None:
    """The remembered sign-in, or None when there is none or it is unreadable."""
    path = data_dir / FILE_NAME
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        return SignIn(
            backend_url=str(body["backend_url"]),
            token=str(body["token"]),
            user_name=body.get("user_name") or None,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_sign_in(data_dir: Path, sign_in: SignIn) -> Path:
    """Remember a sign-in; the file is readable by this user only, from the moment it exists."""
    if not data_dir.is_dir():
        data_dir.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        if os.name == "posix":
            data_dir.chmod(FOLDER_MODE)  # mkdir's mode passes through the umask
    path = data_dir / FILE_NAME
    # A fresh name created exclusively: never a file someone else made or opened beforehand.
    temporary = data_dir / f".{FILE_NAME}.{secrets.token_hex(8)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            if os.name == "posix":
                os.fchmod(handle.fileno(), FILE_MODE)  # the umask cannot change it either way
            json.dump(asdict(sign_in), handle)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path
