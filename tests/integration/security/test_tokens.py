"""API tokens: stored only as SHA-256 digests, found by digest, compared in constant time.

Refusal of missing, wrong and disabled tokens on every route and the supervisor-only routes are in
tests/integration/web/test_auth_and_openapi.py; this file checks how a token is held and compared.
"""

from __future__ import annotations

import hmac

import pytest
from sqlalchemy import select

from backend import users
from backend.clock import utc_now
from backend.database import Database
from backend.database.models import User


def test_the_database_holds_a_digest_never_the_token(database: Database) -> None:
    with database.transaction() as session:
        token = users.create_user(session, "token-holder", "agent", utc_now())
    with database.reader() as session:
        stored = session.scalars(select(User.token_hash)).one()
    assert token not in stored
    assert stored == users.hash_token(token)
    assert len(token) >= 32  # enough entropy that the unsalted digest cannot be searched


def test_a_token_is_compared_in_constant_time(database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    with database.transaction() as session:
        token = users.create_user(session, "timing", "supervisor", utc_now())
    comparisons: list[tuple[str, str]] = []
    real_compare = hmac.compare_digest

    def recording_compare(left: str, right: str) -> bool:
        comparisons.append((left, right))
        return real_compare(left, right)

    monkeypatch.setattr(hmac, "compare_digest", recording_compare)
    with database.reader() as session:
        assert users.user_for_token(session, token) is not None
        # A near miss (one character off) is refused like any other wrong token.
        near_miss = token[:-1] + ("A" if token[-1] != "A" else "B")
        assert users.user_for_token(session, near_miss) is None
        assert users.user_for_token(session, "") is None
    assert comparisons == [(users.hash_token(token), users.hash_token(token))]
