"""Fixtures for inbox tests: settings with a known secret, the app and its test client."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from backend.database import Database
from backend.settings import Settings
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import make_app, make_settings


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    """Settings with the test app secret."""
    return make_settings(tmp_path, database_url)


@pytest.fixture
def app(database: Database, settings: Settings) -> Flask:
    """The product's app on the test database."""
    return make_app(database, settings)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def processor(database: Database, settings: Settings) -> WebhookProcessor:
    """The webhook processor on the test database."""
    return WebhookProcessor(database, settings)
