"""Fixtures for opt-outs, templates from Meta and the number's health: the web app with chosen settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.composition import build_parts
from backend.database import Database
from backend.settings import PurposeRule, load_settings
from backend.users import create_user
from backend.web import create_app
from tests.integration.web.conftest import START, Api, FakeClock

# A purpose the settings call marketing, sent as free text or a utility template.
NEWSLETTER = "newsletter"


@pytest.fixture
def make_api(database: Database, tmp_path: Path) -> Callable[..., Api]:
    """Build the app once per test with settings overrides; users alice (agent), sam (supervisor), bob."""
    with database.transaction() as session:
        agent = create_user(session, "alice", "agent", START)
        supervisor = create_user(session, "sam", "supervisor", START)
        other = create_user(session, "bob", "agent", START)

    def build(**overrides: Any) -> Api:
        settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path)})
        settings = replace(settings, purposes={NEWSLETTER: PurposeRule(marketing=True)}, **overrides)
        clock = FakeClock()
        parts = build_parts(settings, database, clock=clock)
        app = create_app(parts)
        app.config["TESTING"] = True
        return Api(app, parts, database, settings, clock, agent, supervisor, other)

    return build


@pytest.fixture
def api(make_api: Callable[..., Api]) -> Api:
    """The app with the shipped templates and a marketing purpose `newsletter`."""
    return make_api()
