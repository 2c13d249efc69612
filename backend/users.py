"""API users and their tokens; tokens are stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import User

ROLES = ("agent", "supervisor")
TOKEN_BYTES = 32


class UserError(Exception):
    """A user cannot be created or changed as asked; the message says why."""


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_user(session: Session, name: str, role: str, now: datetime) -> str:
    """Add a user and return their new API token (shown once, stored hashed)."""
    name = name.strip()
    if not name or len(name) > 100:
        raise UserError("a user name must be 1 to 100 characters")
    if role not in ROLES:
        raise UserError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if session.scalar(select(User.id).where(User.name == name)) is not None:
        raise UserError(f"a user named {name!r} already exists")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(User(name=name, role=role, token_hash=hash_token(token), created_at=now))
    session.flush()
    return token


def user_for_token(session: Session, token: str) -> User | None:
    """The enabled user holding this token, or None."""
    digest = hash_token(token)
    user = session.scalar(select(User).where(User.token_hash == digest))
    # The lookup is by hash; compare again in constant time so equality never leaks timing.
    if user is None or user.disabled or not hmac.compare_digest(user.token_hash, digest):
        return None
    return user
