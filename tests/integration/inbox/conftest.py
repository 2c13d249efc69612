"""Fixtures for inbox tests: the same settings, app, client and processor as the webhook tests."""

from tests.integration.webhooks.conftest import app, client, parts, processor, settings

__all__ = ["app", "client", "parts", "processor", "settings"]
