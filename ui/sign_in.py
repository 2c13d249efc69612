"""The remembered sign-in (backend URL, pinned fingerprint, user name), kept per user in the data folder.

The token goes to the operating system's keyring when it has one; otherwise it stays in the same
file, which only this user may read.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

FILE_NAME = "client-sign-in.json"
# It holds a token: this user only, and so is the folder it lives in (POSIX).
FILE_MODE = 0o600
FOLDER_MODE = 0o700
# The keyring entry: this service, the backend's URL as the account.
KEYRING_SERVICE = "whatsapp-shared-inbox"
# Written in the file instead of the token when the keyring holds it.
IN_KEYRING = "in_keyring"


@dataclass(frozen=True)
class SignIn:
    """Where the backend is, which certificate it must show (over TLS), and who we are to it."""

    backend_url: str
    token: str
    user_name: str | None = None
    # The SHA-256 of the office server's certificate, from the invite; None for plain loopback HTTP.
    fingerprint: str | None = None


class TokenKeyring(Protocol):
    """What the client uses of a keyring backend (the `keyring` package's interface)."""

    def get_password(self, service: str, username: str) -> str | None:
        """The secret stored for the account, or None."""

    def set_password(self, service: str, username: str, password: str) -> None:
        """Store the secret for the account."""


def system_keyring() -> TokenKeyring | None:
    """The operating system's keyring, or None where there is none (a server without a session bus)."""
    try:
        import keyring
        from keyring.backends import fail
        from keyring.errors import KeyringError
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except KeyringError:
        return None
    if isinstance(backend, fail.Keyring) or float(backend.priority) <= 0:
        return None
    return backend


def load_sign_in(data_dir: Path, token_keyring: TokenKeyring | None = None) -> SignIn | None:
    """The remembered sign-in, or None when there is none or it is unreadable."""
    path = data_dir / FILE_NAME
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        backend_url = str(body["backend_url"])
        token = str(body["token"])
        fingerprint = body.get("fingerprint") or None
        user_name = body.get("user_name") or None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if body.get(IN_KEYRING):
        token = _keyring_token(token_keyring, backend_url) or ""
    return SignIn(backend_url, token, user_name, str(fingerprint) if fingerprint else None)


def _keyring_token(token_keyring: TokenKeyring | None, backend_url: str) -> str | None:
    if token_keyring is None:
        return None
    try:
        return token_keyring.get_password(KEYRING_SERVICE, backend_url)
    except Exception as error:  # any backend's failure: the user signs in again
        log.warning("the keyring did not give back the token: %s", error)
        return None


def save_sign_in(data_dir: Path, sign_in: SignIn, token_keyring: TokenKeyring | None = None) -> Path:
    """Remember a sign-in: the token in `token_keyring` when given and working, else in the 0600 file."""
    body = asdict(sign_in)
    if token_keyring is not None and sign_in.token:
        try:
            token_keyring.set_password(KEYRING_SERVICE, sign_in.backend_url, sign_in.token)
        except Exception as error:  # a locked or broken keyring: the private file still works
            log.warning("the keyring refused the token; it is kept in the private sign-in file: %s", error)
        else:
            body = {**asdict(replace(sign_in, token="")), IN_KEYRING: True}
    return _write_private_json(data_dir, body)


def _write_private_json(data_dir: Path, body: dict[str, object]) -> Path:
    """Write the file readable by this user only, from the moment it exists."""
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
            json.dump(body, handle)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path
