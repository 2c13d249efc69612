"""Fixtures for webhook tests: settings with a known secret, the app and its test client."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app.composition import build_parts
from backend.database import Database
from backend.parts import BackendParts
from backend.settings import Settings
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import make_settings


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    """Settings with the test app secret."""
    return make_settings(tmp_path, database_url)


@pytest.fixture
def parts(database: Database, settings: Settings) -> BackendParts:
    """The backend's parts on the test database, shared by the app and the processor as in `inbox serve`."""
    return build_parts(settings, database)


@pytest.fixture
def app(parts: BackendParts) -> Flask:
    """The product's app on the test database."""
    return create_app(parts)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def processor(parts: BackendParts) -> WebhookProcessor:
    """The webhook processor on the test database."""
    return WebhookProcessor(parts)
