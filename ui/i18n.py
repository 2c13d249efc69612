"""The client's language: Qt catalogues compiled from resources/translations, the locale and its direction.

Every user-facing string goes through `translate(context, text)` (or `QT_TRANSLATE_NOOP` for tables),
so `pyside6-lupdate` finds it; the committed .ts catalogues are compiled to .qm by `pyside6-lrelease`,
at build time (`make catalogues`) or on first run into the data folder.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, Qt, QTranslator
from PySide6.QtGui import QGuiApplication

log = logging.getLogger(__name__)

# The client's languages, by Qt locale name; English is the source language.
LANGUAGES = {
    "en": "English",
    "es": "Español",
    "pt_BR": "Português (Brasil)",
    "ar": "العربية",
}
SOURCE_LANGUAGE = "en"
CATALOGUE_PREFIX = "inbox_"
PREFERENCES_FILE_NAME = "client-preferences.json"
THEMES = ("system", "light", "dark")


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """The text in the client's language (context names the screen; n picks the plural form of %n)."""
    return QCoreApplication.translate(context, text, disambiguation, n)


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark a text in a table for the catalogue; it is translated where it is shown, with `translate`."""
    del context
    return text


def catalogue_folder() -> Path:
    """The folder of the committed .ts catalogues (and of .qm files compiled at build time)."""
    return Path(str(resources.files("resources").joinpath("translations")))


def catalogue_source(language: str) -> Path:
    """The .ts catalogue of a language."""
    return catalogue_folder() / f"{CATALOGUE_PREFIX}{language}.ts"


def qt_tool(name: str) -> Path:
    """A Qt tool shipped in the PySide6 wheel (lrelease, lupdate)."""
    import PySide6

    folder = Path(PySide6.__file__).parent
    for candidate in (folder / name, folder / f"{name}.exe", Path(sys.executable).parent / f"pyside6-{name}"):
        if candidate.exists():
            return candidate
    found = shutil.which(f"pyside6-{name}")
    if found is None:
        raise FileNotFoundError(f"pyside6-{name} is not installed with PySide6")
    return Path(found)


def compile_catalogue(source: Path, target: Path) -> Path:
    """Compile a .ts catalogue to .qm with lrelease (unless the .qm is newer than its source)."""
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written beside and renamed: two clients starting together never read half a file.
    partial = target.with_suffix(f".{os.getpid()}.part.qm")
    subprocess.run(
        [str(qt_tool("lrelease")), "-silent", str(source), "-qm", str(partial)],
        check=True,
        capture_output=True,
    )
    partial.replace(target)
    return target


def compiled_catalogue(language: str, cache_folder: Path | None) -> Path | None:
    """The .qm of a language: built with the package, else compiled once into the cache folder."""
    source = catalogue_source(language)
    if not source.exists():
        return None
    built = source.with_suffix(".qm")
    if built.exists() and built.stat().st_mtime >= source.stat().st_mtime:
        return built
    folder = cache_folder if cache_folder is not None else Path.home() / ".cache" / "whatsapp-shared-inbox"
    return compile_catalogue(source, folder / "translations" / built.name)


def language_for_locale(locale_name: str) -> str:
    """The client language closest to a locale name ('es_MX' → 'es', 'pt_PT' → 'pt_BR', 'fr_FR' → 'en')."""
    if locale_name in LANGUAGES:
        return locale_name
    prefix = locale_name.split("_", maxsplit=1)[0].split("-", maxsplit=1)[0]
    for language in LANGUAGES:
        if language.split("_")[0] == prefix:
            return language
    return SOURCE_LANGUAGE


def system_language() -> str:
    """The client language that follows the system locale."""
    return language_for_locale(QLocale.system().name())


@dataclass(frozen=True)
class Preferences:
    """What the agent chose in the client: a language and a theme (None follows the system)."""

    language: str | None = None
    theme: str = "system"


def load_preferences(data_dir: Path | None) -> Preferences:
    """The saved preferences, or the defaults when there are none (or they cannot be read)."""
    if data_dir is None:
        return Preferences()
    try:
        saved = json.loads((data_dir / PREFERENCES_FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Preferences()
    language = saved.get("language") if isinstance(saved, dict) else None
    theme = saved.get("theme") if isinstance(saved, dict) else None
    return Preferences(
        language=language if language in LANGUAGES else None,
        theme=theme if theme in THEMES else "system",
    )


def save_preferences(data_dir: Path | None, preferences: Preferences) -> None:
    """Remember the agent's choices for the next start."""
    if data_dir is None:
        return
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / PREFERENCES_FILE_NAME
    path.write_text(
        json.dumps({"language": preferences.language, "theme": preferences.theme}), encoding="utf-8"
    )


# The language the application shows now (one per process): [language].
_current_language = [SOURCE_LANGUAGE]


def current_language() -> str:
    """The language the client shows now."""
    return _current_language[0]


def _set_current_language(language: str) -> None:
    _current_language[0] = language


class LanguageSwitch:
    """Installs one language's catalogues (ours and Qt's own) and its locale, replacing the previous ones."""

    def __init__(self, cache_folder: Path | None = None) -> None:
        self._cache_folder = cache_folder
        self._installed: list[QTranslator] = []
        # None until a language is applied.
        self.language: str | None = None

    def apply(self, language: str) -> None:
        """Switch the whole application to a language: texts, number and date formats, direction."""
        app = QCoreApplication.instance()
        if app is None:
            raise RuntimeError("the language is applied after the application is made")
        if language not in LANGUAGES:
            raise ValueError(f"no client language {language!r}; choose one of {', '.join(LANGUAGES)}")
        for translator in self._installed:
            app.removeTranslator(translator)
        self._installed = []
        if language != SOURCE_LANGUAGE or catalogue_source(language).exists():
            self._install(app, compiled_catalogue(language, self._cache_folder))
        if language != SOURCE_LANGUAGE:
            # Qt's own texts (OK, Cancel, Yes) in the same language.
            qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
            self._install(app, Path(qt_folder) / f"qtbase_{language}.qm")
        # The system's own locale when it speaks this language (en_GB keeps its 24-hour clock).
        system = QLocale.system()
        # A language with a region (pt_BR) keeps its own; one without (es) takes the system's region.
        same = system.name() == language or ("_" not in language and system.name().startswith(f"{language}_"))
        locale = system if same else QLocale(language)
        QLocale.setDefault(locale)
        self.language = language
        _set_current_language(language)
        if isinstance(app, QGuiApplication):
            app.setLayoutDirection(locale.textDirection())

    def _install(self, app: QCoreApplication, path: Path | None) -> None:
        if path is None or not path.exists():
            log.warning("no compiled catalogue at %s", path)
            return
        translator = QTranslator(app)
        if not translator.load(str(path)):
            log.warning("could not load the catalogue %s", path)
            return
        app.installTranslator(translator)
        self._installed.append(translator)


def layout_direction(language: str) -> Qt.LayoutDirection:
    """Right to left for Arabic, left to right otherwise."""
    return QLocale(language).textDirection()
