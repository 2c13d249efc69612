"""Fixtures for outgoing webhooks: the same app, users and clock as the HTTP API tests."""

from tests.integration.web.conftest import api

__all__ = ["api"]
