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


class UnknownUserError(UserError):
    """No user has the name given."""


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise UserError(f"role must be one of {', '.join(ROLES)}, not {role!r}")


def create_user(session: Session, name: str, role: str, now: datetime) -> str:
    """Add a user and return their new API token (shown once, stored hashed)."""
    name = name.strip()
    if not name or len(name) > 100:
        raise UserError("a user name must be 1 to 100 characters")
    _check_role(role)
    if session.scalar(select(User.id).where(User.name == name)) is not None:
        raise UserError(f"a user named {name!r} already exists")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(User(name=name, role=role, token_hash=hash_token(token), created_at=now))
    session.flush()
    return token


def all_users(session: Session) -> list[User]:
    """Every user, in the order they were added."""
    return list(session.scalars(select(User).order_by(User.created_at, User.id)))


def find_user(session: Session, name: str) -> User:
    """The user with this name, locked for a change, or UnknownUserError."""
    user = session.scalar(select(User).where(User.name == name.strip()).with_for_update())
    if user is None:
        raise UnknownUserError(f"there is no user named {name!r}")
    return user


def set_disabled(session: Session, name: str, disabled: bool) -> User:
    """Disable a user (their token is refused from the next request on) or enable them again."""
    user = find_user(session, name)
    user.disabled = disabled
    session.flush()
    return user


def rotate_token(session: Session, name: str) -> tuple[User, str]:
    """Give a user a new token; returns them and it. The old token is refused from the commit on."""
    user = find_user(session, name)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    user.token_hash = hash_token(token)
    session.flush()
    return user, token


def set_role(session: Session, name: str, role: str) -> User:
    """Make a user an agent or a supervisor; it applies from their next request."""
    _check_role(role)
    user = find_user(session, name)
    user.role = role
    session.flush()
    return user


def user_for_token(session: Session, token: str) -> User | None:
    """The enabled user holding this token, or None."""
    digest = hash_token(token)
    user = session.scalar(select(User).where(User.token_hash == digest))
    # The lookup is by hash; compare again in constant time so equality never leaks timing.
    if user is None or user.disabled or not hmac.compare_digest(user.token_hash, digest):
        return None
    return user
