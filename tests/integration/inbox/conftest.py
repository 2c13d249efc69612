"""Fixtures for inbox tests: the same settings, app, client and processor as the webhook tests."""

from tests.integration.webhooks.conftest import app, client, processor, settings

__all__ = ["app", "client", "processor", "settings"]
