"""The service: HTTP API, webhook receiver, outbox and workers. Never imports Qt, ui or app."""
