"""A backend process for the crash test: serves webhooks and processes them until it is killed."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from app.composition import build_parts
from app.http_server import HttpServer
from backend.database import create_database
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import make_settings


def main() -> None:
    """Usage: crash_child DATABASE_URL PORT_FILE PROCESS(yes|no)."""
    database_url, port_file, process = sys.argv[1], Path(sys.argv[2]), sys.argv[3] == "yes"
    settings = make_settings(port_file.parent, database_url)
    database = create_database(database_url)
    parts = build_parts(settings, database)
    server = HttpServer(create_app(parts), "127.0.0.1", 0, threads=8).start()
    if process:
        worker = WebhookProcessor(parts, batch_size=5)
        threading.Thread(target=worker.run, args=(threading.Event(),), daemon=True).start()
    port_file.write_text(str(server.port))
    threading.Event().wait()


if __name__ == "__main__":
    main()
