"""The remembered sign-in (backend URL, token, user name), kept per user in the data folder."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

FILE_NAME = "client-sign-in.json"


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
    """Remember a sign-in; the file is readable by this user only, since it holds a token."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / FILE_NAME
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(asdict(sign_in), handle)
    temporary.replace(path)
    return path
