"""A bare outbox sender as its own process, for tests that kill it.

Run as `python -m tests.integration.outbox.sender_child`; settings come from the environment
(INBOX_* and WHATSAPP_*). It prints one line once it runs.
"""

from __future__ import annotations

import threading

from app.composition import build_parts
from backend.database import create_database
from backend.outbox.sender import OutboxSender
from backend.settings import load_settings


def main() -> None:
    """Send until killed."""
    settings = load_settings()
    sender = OutboxSender(build_parts(settings, create_database(settings.database_url)))
    print("sender running", flush=True)
    sender.run(threading.Event())


if __name__ == "__main__":
    main()
