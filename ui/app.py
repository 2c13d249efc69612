"""Starting the client: the Qt application, its language and theme, the main window, and screenshots."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QApplication

from ui.api.client import ApiClient
from ui.garbage import GuiThreadGarbageCollector
from ui.i18n import LanguageSwitch, Preferences, load_preferences, save_preferences, system_language
from ui.runner import BackgroundRunner
from ui.theme import apply_theme, stylesheet_source, themed_stylesheet
from ui.views.main_window import MainWindow

# The application's one language switch, made on first use.
_languages: list[LanguageSwitch] = []


def display_available() -> bool:
    """Whether a window can be shown here (a display, or a platform chosen explicitly)."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def stylesheet() -> str:
    """The client's stylesheet shipped in resources/, in the theme in use."""
    return themed_stylesheet(stylesheet_source())


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


def language_switch(cache_folder: Path | None = None) -> LanguageSwitch:
    """The application's one language switch."""
    if not _languages:
        _languages.append(LanguageSwitch(cache_folder))
    return _languages[0]


def apply_preferences(
    data_dir: Path | None,
    *,
    language: str | None = None,
    theme: str | None = None,
    cache_folder: Path | None = None,
) -> Preferences:
    """Language and theme: given ones win, then the agent's saved choice, then the system's."""
    saved = load_preferences(data_dir)
    chosen = Preferences(language=language or saved.language, theme=theme or saved.theme)
    language_switch(cache_folder or data_dir).apply(chosen.language or system_language())
    apply_theme(chosen.theme)
    return chosen


class ClientShell(QObject):
    """Keeps the signed-in session while the window is rebuilt in another language or theme."""

    def __init__(
        self,
        api: ApiClient,
        *,
        user_name: str | None,
        title_suffix: str,
        data_dir: Path | None,
        remember: bool = True,
    ) -> None:
        super().__init__(QCoreApplication.instance())
        self.api = api
        self._user_name = user_name
        self._title_suffix = title_suffix
        self._data_dir = data_dir
        self._remember = remember
        self.window, self.runner = self._build()

    def _build(self) -> tuple[MainWindow, BackgroundRunner]:
        runner = BackgroundRunner()
        window = MainWindow(self.api, runner, user_name=self._user_name, title_suffix=self._title_suffix)
        runner.setParent(window)
        window.preferences_chosen.connect(self.change_preferences)
        return window, runner

    def change_preferences(self, language: str, theme: str) -> None:
        """Apply a language and theme the agent chose, and rebuild the window with the same session."""
        if self._remember:
            save_preferences(self._data_dir, Preferences(language=language, theme=theme))
        language_switch(self._data_dir).apply(language)
        apply_theme(theme)
        old_window, old_runner = self.window, self.runner
        self._user_name = old_window.user_name or self._user_name
        tab = old_window.tabs.currentIndex()
        geometry = old_window.geometry()
        self.window, self.runner = self._build()
        self.window.setGeometry(geometry)
        self.window.show()
        self.window.start()
        self.window.tabs.setCurrentIndex(tab)
        old_window.stop()
        old_runner.shutdown()
        old_window.close()
        old_window.deleteLater()


def open_main_window(
    base_url: str,
    token: str,
    *,
    user_name: str | None = None,
    title_suffix: str = "",
    fingerprint: str | None = None,
    data_dir: Path | None = None,
) -> tuple[MainWindow, BackgroundRunner, ApiClient]:
    """Build, show and start the main window for a signed-in user (pinned to `fingerprint` over TLS)."""
    shell = open_shell(
        base_url,
        token,
        user_name=user_name,
        title_suffix=title_suffix,
        fingerprint=fingerprint,
        data_dir=data_dir,
    )
    return shell.window, shell.runner, shell.api


def open_shell(
    base_url: str,
    token: str,
    *,
    user_name: str | None = None,
    title_suffix: str = "",
    fingerprint: str | None = None,
    data_dir: Path | None = None,
    remember: bool = True,
) -> ClientShell:
    """The signed-in client: its session and its (rebuildable) main window, shown and started."""
    api = ApiClient(base_url, token, fingerprint=fingerprint)
    shell = ClientShell(
        api, user_name=user_name, title_suffix=title_suffix, data_dir=data_dir, remember=remember
    )
    shell.window.show()
    shell.window.start()
    return shell


def save_screenshot(window: MainWindow, path: Path) -> None:
    """Render the window to a PNG file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
