"""Flask app factory, blueprints, auth, errors. Imports backend and Flask, never ui or app."""

from backend.web.factory import create_app

__all__ = ["create_app"]
