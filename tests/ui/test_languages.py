"""The client in Spanish, Brazilian Portuguese and Arabic: texts, plural forms, locale formats, direction."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDate, QLocale, Qt
from PySide6.QtWidgets import QApplication

from app.commands.demo import DemoStack
from ui.api.client import ApiClient
from ui.app import ClientShell, apply_preferences, language_switch
from ui.i18n import (
    PREFERENCES_FILE_NAME,
    Preferences,
    catalogue_source,
    compile_catalogue,
    current_language,
    language_for_locale,
    load_preferences,
    save_preferences,
    translate,
)
from ui.presentation import age_text, short_time, text_direction, window_text
from ui.theme import current_theme
from ui.views.main_window import MainWindow
from ui.views.search import SearchDialog


@pytest.fixture
def english(qapp: QApplication, tmp_path: Path) -> Iterator[None]:
    """Each test starts in English and light colours, and leaves the application so."""
    apply_preferences(None, language="en", theme="light", cache_folder=tmp_path)
    yield
    apply_preferences(None, language="en", theme="light", cache_folder=tmp_path)


def offline_window(qtbot: Any) -> MainWindow:
    """The main window without a backend: every text it shows before any data arrives."""
    window = MainWindow(None, None, user_name="dana", live=False)
    qtbot.addWidget(window)
    return window


@pytest.mark.parametrize(
    ("language", "inbox_tab", "reply_button", "direction"),
    [
        ("es", "&Bandeja de entrada", "Enviar", Qt.LayoutDirection.LeftToRight),
        ("pt_BR", "&Caixa de entrada", "Enviar", Qt.LayoutDirection.LeftToRight),
        ("ar", "&صندوق الوارد", "إرسال", Qt.LayoutDirection.RightToLeft),
    ],
)
def test_the_client_starts_in_a_language_with_its_texts_and_direction(  # noqa: PLR0917 - parametrised
    qtbot: Any, english: None, language: str, inbox_tab: str, reply_button: str, direction: Qt.LayoutDirection
) -> None:
    """Tabs, buttons and the window's direction follow the chosen language."""
    apply_preferences(None, language=language)
    window = offline_window(qtbot)
    assert current_language() == language
    assert window.tabs.tabText(0) == inbox_tab
    assert window.inbox.composer.send_button.text() == reply_button
    assert window.layoutDirection() == direction
    assert QApplication.layoutDirection() == direction
    assert window.windowTitle() == translate("MainWindow", "WhatsApp shared inbox") != "WhatsApp shared inbox"


@pytest.mark.parametrize("language", ["es", "pt_BR", "ar"])
def test_dates_times_durations_and_numbers_follow_the_locale(english: None, language: str) -> None:
    """A date from another day uses the locale's month name; a countdown its digits and units."""
    apply_preferences(None, language=language)
    now = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    yesterday = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    shown = short_time(yesterday, now)
    local_day = yesterday.astimezone().date()
    month_format = translate("presentation", "d MMM", "date format")
    expected = QLocale(language).toString(QDate(local_day.year, local_day.month, local_day.day), month_format)
    assert shown == expected
    assert shown != QLocale("en").toString(QDate(local_day.year, local_day.month, local_day.day), "d MMM")
    countdown = window_text(now + timedelta(hours=23, minutes=59), now).text
    locale = QLocale(language)
    assert locale.toString(23) in countdown and locale.toString(59) in countdown
    assert countdown != "23 h 59 m left"
    assert locale.toString(5) in age_text(300)


def test_spanish_words_for_a_countdown_and_plural_forms(qtbot: Any, english: None) -> None:
    """'quedan 23 h 59 min'; one result and many results take their own forms."""
    apply_preferences(None, language="es")
    now = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    assert window_text(now + timedelta(hours=23, minutes=59), now).text == "quedan 23 h 59 min"
    assert translate("SearchDialog", "%n message(s) found.", None, 1) == "1 mensaje encontrado."
    assert translate("SearchDialog", "%n message(s) found.", None, 3) == "3 mensajes encontrados."


def test_arabic_uses_its_dual_and_its_digits(english: None) -> None:
    """Arabic has a form for two; its locale writes Arabic-Indic digits."""
    apply_preferences(None, language="ar")
    assert translate("SearchDialog", "%n message(s) found.", None, 2) == "عُثر على رسالتين."
    assert "٣" in translate("SearchDialog", "%n message(s) found.", None, 3)
    assert "٥" in age_text(300)


def test_english_plurals_come_from_the_english_catalogue(english: None) -> None:
    """The source language still needs its plural forms: '1 message found', '2 messages found'."""
    assert translate("SearchDialog", "%n message(s) found.", None, 1) == "1 message found."
    assert translate("SearchDialog", "%n message(s) found.", None, 2) == "2 messages found."


def test_backend_reason_codes_are_translated_on_the_client(qtbot: Any, english: None) -> None:
    """A send error that arrives as a reason code reads in the agent's language."""
    from ui.api.resources import SendError
    from ui.presentation import plain_error

    apply_preferences(None, language="pt_BR")
    error = SendError(code=None, title=None, details=None, reason="request_not_sent")
    assert plain_error(error) == "A mensagem nunca chegou ao WhatsApp (sem conexão); será tentada de novo."


def test_mixed_direction_text_reads_in_its_own_direction() -> None:
    """An Arabic reply with an order number reads right to left; an English one and a number left to right."""
    rtl, ltr = Qt.LayoutDirection.RightToLeft, Qt.LayoutDirection.LeftToRight
    assert text_direction("طلبي رقم 10517 لم يصل", ltr) == rtl
    assert text_direction("Order 10517 has not arrived", rtl) == ltr
    assert text_direction("+16505550105", rtl) == ltr
    assert text_direction("👍", rtl) == rtl


def test_the_language_follows_the_system_locale_closest_match() -> None:
    """es_MX is Spanish, pt_PT gets Brazilian Portuguese, ar_EG Arabic, and anything else English."""
    assert language_for_locale("es_MX") == "es"
    assert language_for_locale("pt_PT") == "pt_BR"
    assert language_for_locale("pt_BR") == "pt_BR"
    assert language_for_locale("ar_EG") == "ar"
    assert language_for_locale("fr_FR") == "en"


def test_a_saved_choice_overrides_the_system_and_a_given_one_overrides_both(
    english: None, tmp_path: Path
) -> None:
    """Preferences are remembered per user; `inbox demo --language` wins over them."""
    save_preferences(tmp_path, Preferences(language="pt_BR", theme="dark"))
    assert load_preferences(tmp_path) == Preferences(language="pt_BR", theme="dark")
    assert apply_preferences(tmp_path) == Preferences(language="pt_BR", theme="dark")
    assert current_language() == "pt_BR" and current_theme() == "dark"
    apply_preferences(tmp_path, language="es", theme="light")
    assert current_language() == "es" and current_theme() == "light"
    (tmp_path / PREFERENCES_FILE_NAME).write_text("{not json", encoding="utf-8")
    assert load_preferences(tmp_path) == Preferences()


def test_catalogues_are_compiled_from_the_committed_sources(tmp_path: Path) -> None:
    """lrelease turns the .ts catalogue into the .qm the client loads, once."""
    compiled = compile_catalogue(catalogue_source("es"), tmp_path / "inbox_es.qm")
    assert compiled.stat().st_size > 1000
    stamp = compiled.stat().st_mtime_ns
    assert compile_catalogue(catalogue_source("es"), compiled).stat().st_mtime_ns == stamp
    assert language_switch() is language_switch()


def test_a_dialog_opened_later_is_in_the_language_too(qtbot: Any, english: None) -> None:
    """Dialogs read the catalogue when they open."""
    apply_preferences(None, language="es")
    dialog = SearchDialog(None, None)
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() != "Search messages"
    assert "conversaciones" in dialog.view.status_label.text()


def test_changing_the_language_keeps_the_session(
    qtbot: Any, english: None, stack: DemoStack, api: ApiClient, tmp_path: Path
) -> None:
    """The window is rebuilt in Spanish on the same signed-in API client; the choice is remembered."""
    shell = ClientShell(api, user_name=stack.user_name, title_suffix="", data_dir=tmp_path)
    first = shell.window
    qtbot.addWidget(first)
    first.show()
    first.start()
    first.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: first.is_supervisor, timeout=10_000)
    first.language_choice.setCurrentIndex(first.language_choice.findData("es"))
    first.language_choice.activated.emit(first.language_choice.currentIndex())
    second = shell.window
    qtbot.addWidget(second)
    assert second is not first and shell.api is api
    assert second.tabs.tabText(0) == "&Bandeja de entrada"
    assert second.tabs.currentIndex() == 1
    assert load_preferences(tmp_path).language == "es"
    # Still signed in: the rebuilt window learns who we are from the same session.
    qtbot.waitUntil(lambda: second.is_supervisor, timeout=10_000)
    second.stop()
