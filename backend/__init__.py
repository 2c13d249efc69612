"""The service: HTTP API, webhook receiver, outbox and workers. Never imports Qt, ui or app."""

# The product's version, read by the package build (pyproject.toml) and written into backups.
__version__ = "0.2.0"
