"""Starting the client: the Qt application, its style, the main window, and screenshots."""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from ui.api.client import ApiClient
from ui.garbage import GuiThreadGarbageCollector
from ui.runner import BackgroundRunner
from ui.views.main_window import MainWindow


def display_available() -> bool:
    """Whether a window can be shown here (a display, or a platform chosen explicitly)."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def stylesheet() -> str:
    """The client's stylesheet shipped in resources/."""
    return resources.files("resources").joinpath("inbox.qss").read_text(encoding="utf-8")


def application(*, offscreen: bool = False) -> QApplication:
    """The one QApplication of this process, made on first use."""
    if offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    existing = QCoreApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    app = QApplication([sys.argv[0] if sys.argv else "inbox"])
    app.setApplicationName("WhatsApp shared inbox")
    app.setStyle("Fusion")
    app.setStyleSheet(stylesheet())
    # The demo runs the backend's threads in this process too: collect only on the GUI thread.
    GuiThreadGarbageCollector(app)
    return app


def open_main_window(
    base_url: str,
    token: str,
    *,
    user_name: str | None = None,
    title_suffix: str = "",
    fingerprint: str | None = None,
) -> tuple[MainWindow, BackgroundRunner, ApiClient]:
    """Build, show and start the main window for a signed-in user (pinned to `fingerprint` over TLS)."""
    api = ApiClient(base_url, token, fingerprint=fingerprint)
    runner = BackgroundRunner()
    window = MainWindow(api, runner, user_name=user_name, title_suffix=title_suffix)
    runner.setParent(window)
    window.show()
    window.start()
    return window, runner, api


def save_screenshot(window: MainWindow, path: Path) -> None:
    """Render the window to a PNG file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
