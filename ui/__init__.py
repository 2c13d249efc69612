"""PySide6 desktop client; talks to the backend only over HTTP. Never imports backend or app."""
