"""Fixtures for inbox tests: the same settings, app, client and processor as the webhook tests."""

import pytest

from backend.database import Database
from backend.database.models import User
from tests.integration.webhooks.conftest import app, client, parts, processor, settings
from tests.integration.webhooks.support import NOW

__all__ = ["agent", "app", "client", "parts", "processor", "settings"]


@pytest.fixture
def agent(database: Database) -> int:
    """An agent's user id, for decisions an agent makes."""
    with database.transaction() as session:
        user = User(name="ada", role="agent", token_hash="0" * 64, created_at=NOW)
        session.add(user)
        session.flush()
        return user.id
