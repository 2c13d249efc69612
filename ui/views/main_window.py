"""The main window: Inbox, Work queue, Supervisor, Health and Reports tabs, a connection banner, live data."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QColor, QIcon, QKeySequence, QPainter, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QMainWindow,
    QPushButton,
    QSystemTrayIcon,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient
from ui.api.resources import (
    CANNED_REPLIES_CHANGED,
    CONTACT_OPTED_IN,
    CONTACT_OPTED_OUT,
    CONVERSATION_ASSIGNED,
    CONVERSATION_LABELS_CHANGED,
    CONVERSATION_STATUS_CHANGED,
    DATABASE_RESTORED,
    INBOUND_ATTRIBUTED,
    INBOUND_RECEIVED,
    MEDIA_UPDATED,
    MESSAGE_QUEUED,
    MESSAGE_STATE_CHANGED,
    NOTE_ADDED,
    PRESENCE_CHANGED,
    SUPERVISOR_DECISION,
    TEMPLATE_STATUS_CHANGED,
    WINDOW_CLOSED,
    WINDOW_CLOSING,
    Conversation,
    Event,
    Identity,
    Page,
    TemplateInfo,
)
from ui.i18n import LANGUAGES, QT_TRANSLATE_NOOP, current_language, translate
from ui.live import EventFeed
from ui.presentation import mentions_me, notification_name
from ui.runner import BackgroundRunner
from ui.theme import DARK, LIGHT, SYSTEM, theme_choice
from ui.views.canned import CannedRepliesDialog
from ui.views.health import HealthView
from ui.views.inbox import InboxView
from ui.views.plain_text import plain_label
from ui.views.reports import ReportsView
from ui.views.search import SearchDialog
from ui.views.shortcuts import HELP_SHORTCUT, ShortcutsDialog
from ui.views.supervisor import SupervisorView
from ui.views.work_queue import WorkQueueView

INBOX_TAB, WORK_QUEUE_TAB, SUPERVISOR_TAB, HEALTH_TAB, REPORTS_TAB = range(5)
TAB_NAMES = {
    "inbox": INBOX_TAB,
    "work-queue": WORK_QUEUE_TAB,
    "supervisor": SUPERVISOR_TAB,
    "health": HEALTH_TAB,
    "reports": REPORTS_TAB,
}
DEFAULT_SIZE = (1280, 800)
REFRESH_DELAY_MS = 300
SEARCH_SHORTCUT = "Ctrl+Shift+F"
MAX_ROWS_REFRESHED_ONE_BY_ONE = 3
_SUPERVISOR_STATES = {"unknown", "held"}
THEME_CHOICES = (
    (SYSTEM, QT_TRANSLATE_NOOP("MainWindow", "System colours")),
    (LIGHT, QT_TRANSLATE_NOOP("MainWindow", "Light")),
    (DARK, QT_TRANSLATE_NOOP("MainWindow", "Dark")),
)


def app_icon() -> QIcon:
    """A plain green speech-bubble dot, drawn so no image file is needed."""
    pixmap = QPixmap(64, 64)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor("#16a34a"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(4, 4, 56, 56)
    painter.setBrush(QColor("#ffffff"))
    painter.drawEllipse(18, 26, 8, 8)
    painter.drawEllipse(30, 26, 8, 8)
    painter.drawEllipse(42, 26, 8, 8)
    painter.end()
    return QIcon(pixmap)


def _reply_words(name: str) -> str:
    return translate("MainWindow", "New reply from {name}").format(name=name)


def _closing_words(name: str) -> str:
    return translate(
        "MainWindow", "{name} is still waiting for an answer: their window closes within the hour"
    ).format(name=name)


def _mention_words(author: str, name: str) -> str:
    return translate("MainWindow", "{author} mentioned you in a note on {name}").format(
        author=author, name=name
    )


def _conversations_page(api: ApiClient, view: str) -> Page[Conversation]:
    return api.conversations(view=view, limit=1000)


class MainWindow(QMainWindow):
    """The desktop inbox for one signed-in user."""

    # A desktop notification was shown (or would have been, without a tray): its text.
    notified = Signal(str)
    # The team's canned replies changed on the server.
    canned_replies_changed = Signal()
    # The agent chose a language and a theme ("system", "light" or "dark") in the window.
    preferences_chosen = Signal(str, str)

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        *,
        user_name: str | None = None,
        title_suffix: str = "",
        live: bool = True,
        wait_seconds: float = 20.0,
    ) -> None:
        super().__init__()
        self._api = api
        self._runner = runner
        self._user_name = user_name
        self._my_conversations: set[int] = set()
        self._pending_conversations: set[int] = set()
        # Notifications waiting for the name of a customer not in the list: by conversation.
        self._notifications_waiting: dict[int, list[Callable[[str], str]]] = {}
        self._is_supervisor = False
        self.setWindowTitle(translate("MainWindow", "WhatsApp shared inbox") + title_suffix)
        self.setWindowIcon(app_icon())
        self.resize(*DEFAULT_SIZE)

        self.banner = plain_label("")
        self.banner.setObjectName("banner")
        self.banner.setAccessibleName(translate("MainWindow", "Connection status"))
        self.banner.setWordWrap(True)
        self.banner.hide()
        self.inbox = InboxView(api, runner, user_name)
        self.work_queue = WorkQueueView(api, runner)
        self.supervisor = SupervisorView(api, runner)
        self.health = HealthView(api, runner)
        self.reports = ReportsView(api, runner)
        self._reports_loaded = False
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName(translate("MainWindow", "Sections"))
        self.tabs.tabBar().setAccessibleName(translate("MainWindow", "Sections"))
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.inbox, translate("MainWindow", "&Inbox"))
        self.tabs.addTab(self.work_queue, translate("MainWindow", "Work queue"))
        self.tabs.addTab(self.supervisor, translate("MainWindow", "Supervisor"))
        self.tabs.addTab(self.health, translate("MainWindow", "Health"))
        self.tabs.addTab(self.reports, translate("MainWindow", "Reports"))
        self.tabs.setTabVisible(SUPERVISOR_TAB, False)
        self.tabs.setTabVisible(REPORTS_TAB, False)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.search_dialog: SearchDialog | None = None
        self.canned_dialog: CannedRepliesDialog | None = None
        self.search_button = QPushButton(translate("MainWindow", "Search messages"))
        self.search_button.setAccessibleName(translate("MainWindow", "Search words in every conversation"))
        self.search_button.setToolTip(
            translate("MainWindow", "Search words in every conversation  ({shortcut})").format(
                shortcut=SEARCH_SHORTCUT
            )
        )
        self.search_button.clicked.connect(self.open_search)
        self.canned_button = QPushButton(translate("MainWindow", "Canned replies"))
        self.canned_button.setAccessibleName(translate("MainWindow", "Canned replies"))
        self.canned_button.setToolTip(
            translate("MainWindow", "The team's saved replies: type / and a shortcut in the composer")
        )
        self.canned_button.clicked.connect(self.open_canned_replies)
        self.language_choice = QComboBox()
        self.language_choice.setAccessibleName(translate("MainWindow", "Language"))
        self.language_choice.setToolTip(translate("MainWindow", "The language of the inbox"))
        for code, name in LANGUAGES.items():
            self.language_choice.addItem(name, code)
        self.language_choice.setCurrentIndex(max(0, self.language_choice.findData(current_language())))
        self.theme_choice = QComboBox()
        self.theme_choice.setAccessibleName(translate("MainWindow", "Colour scheme"))
        for code, name in THEME_CHOICES:
            self.theme_choice.addItem(translate("MainWindow", name), code)
        self.theme_choice.setCurrentIndex(max(0, self.theme_choice.findData(theme_choice())))
        self.language_choice.activated.connect(self._preferences_changed)
        self.theme_choice.activated.connect(self._preferences_changed)
        self.help_button = QPushButton(translate("MainWindow", "Shortcuts"))
        self.help_button.setAccessibleName(translate("MainWindow", "Keyboard shortcuts"))
        self.help_button.setToolTip(
            translate("MainWindow", "Every keyboard shortcut  ({shortcut})").format(shortcut="F1")
        )
        self.help_button.clicked.connect(self.open_shortcuts)
        self.shortcuts_dialog: ShortcutsDialog | None = None
        corner = QWidget()
        corner_layout = QHBoxLayout(corner)
        corner_layout.setContentsMargins(0, 2, 8, 2)
        corner_layout.addWidget(self.search_button)
        corner_layout.addWidget(self.canned_button)
        corner_layout.addWidget(self.help_button)
        corner_layout.addWidget(self.language_choice)
        corner_layout.addWidget(self.theme_choice)
        self.tabs.setCornerWidget(corner, Qt.Corner.TopRightCorner)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.statusBar().showMessage(translate("MainWindow", "Connecting…"))

        self.work_queue.count_changed.connect(self._work_queue_count)
        self.work_queue.reply_placed.connect(self._reply_placed)
        self.supervisor.count_changed.connect(self._supervisor_count)
        self.supervisor.resolved.connect(self._supervisor_resolved)
        for view in (self.inbox, self.supervisor, self.health, self.reports):
            view.status_message.connect(self.show_status)

        for number in range(5):
            shortcut = QShortcut(QKeySequence(f"Alt+{number + 1}"), self)
            shortcut.activated.connect(getattr(self, f"_show_tab_{number + 1}"))
        search = QShortcut(QKeySequence("Ctrl+K"), self)
        search.activated.connect(self._focus_search)
        search_messages = QShortcut(QKeySequence(SEARCH_SHORTCUT), self)
        search_messages.activated.connect(self.open_search)
        help_keys = QShortcut(QKeySequence(HELP_SHORTCUT), self)
        help_keys.activated.connect(self.open_shortcuts)

        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = QSystemTrayIcon(app_icon(), self)
            self.tray.setToolTip(translate("MainWindow", "WhatsApp shared inbox"))
            self.tray.show()

        self._conversation_timer = self._debounce(self._refresh_pending_conversations)
        self._thread_timer = self._debounce(self.inbox.refresh_thread)
        self._work_queue_timer = self._debounce(self.work_queue.refresh)
        self._supervisor_timer = self._debounce(self._refresh_supervisor)
        self._labels_timer = self._debounce(self.inbox.refresh_labels)
        self.canned_replies_changed.connect(self.inbox.composer.canned_replies.reload)
        self._tick = QTimer(self)
        self._tick.setInterval(30_000)
        self._tick.timeout.connect(self.inbox.conversations.tick)
        self._tick.start()

        self.feed: EventFeed | None = None
        if api is not None and runner is not None and live:
            self.feed = EventFeed(api, runner, self, wait_seconds=wait_seconds)
            self.feed.events_arrived.connect(self.handle_events)
            self.feed.connection_lost.connect(self._connection_lost)
            self.feed.connection_restored.connect(self._connection_restored)
            self.feed.started.connect(self._feed_started)

    def _debounce(self, slot: object) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(REFRESH_DELAY_MS)
        timer.timeout.connect(slot)
        return timer

    # -- start -------------------------------------------------------------------------------
    def start(self) -> None:
        """Load every tab and start listening for changes."""
        self.inbox.start()
        self.work_queue.start()
        self.health.start()
        if self._api is None or self._runner is None:
            return
        self._runner.submit(self._api.identity, self._identity_known, self._probe_failed)
        self._load_templates()
        self._runner.submit(
            partial(_conversations_page, self._api, "mine"), self._mine_loaded, self._probe_failed
        )
        if self.feed is not None:
            self.feed.start()

    def stop(self) -> None:
        """Stop listening and leave the open conversation; called when the window closes."""
        if self.feed is not None:
            self.feed.stop()
        self.inbox.leave()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Stop the live feed before the window goes."""
        self.stop()
        if self.tray is not None:
            self.tray.hide()
        super().closeEvent(event)

    @property
    def user_name(self) -> str | None:
        """The signed-in user's name, once known."""
        return self._user_name

    def open_shortcuts(self) -> None:
        """Show every keyboard shortcut (F1)."""
        if self.shortcuts_dialog is None:
            self.shortcuts_dialog = ShortcutsDialog(self)
        self.shortcuts_dialog.show()
        self.shortcuts_dialog.activateWindow()

    def _preferences_changed(self, _index: int) -> None:
        language = self.language_choice.currentData()
        theme = self.theme_choice.currentData()
        if language != current_language() or theme != theme_choice():
            self.preferences_chosen.emit(language, theme)

    def _identity_known(self, identity: Identity) -> None:
        self._user_name = identity.name
        self._is_supervisor = identity.is_supervisor
        self.inbox.set_user(identity.name, is_supervisor=identity.is_supervisor)
        self.tabs.setTabVisible(SUPERVISOR_TAB, identity.is_supervisor)
        self.tabs.setTabVisible(REPORTS_TAB, identity.is_supervisor)
        if identity.is_supervisor:
            self.supervisor.start()
            if self.tabs.currentIndex() == REPORTS_TAB:
                self._load_reports_once()

    def _load_templates(self) -> None:
        # Again whenever Meta changes a template's status, so the picker greys it at once.
        if self._api is not None and self._runner is not None:
            self._runner.submit(self._api.templates, self._templates_loaded, self._probe_failed)

    def _templates_loaded(self, templates: list[TemplateInfo]) -> None:
        self.inbox.composer.set_templates(templates)

    def _mine_loaded(self, page: Page[Conversation]) -> None:
        self._my_conversations = {conversation.id for conversation in page.items}

    def _probe_failed(self, error: Exception) -> None:
        self.show_status(translate("MainWindow", "Could not load: {reason}").format(reason=error))

    def _feed_started(self, seq: int) -> None:
        self.show_status(translate("MainWindow", "Connected: live updates on."))
        self.health.load_history(seq)

    # -- tabs and shortcuts ------------------------------------------------------------------
    @property
    def is_supervisor(self) -> bool:
        """Whether the signed-in user sees the supervisor tab."""
        return self._is_supervisor

    def show_tab(self, name: str) -> None:
        """Switch to a tab by name: inbox, work-queue, supervisor, health or reports."""
        self.tabs.setCurrentIndex(TAB_NAMES[name])

    def _show_tab_number(self, index: int) -> None:
        if self.tabs.isTabVisible(index):
            self.tabs.setCurrentIndex(index)

    def _show_tab_1(self) -> None:
        self._show_tab_number(INBOX_TAB)

    def _show_tab_2(self) -> None:
        self._show_tab_number(WORK_QUEUE_TAB)

    def _show_tab_3(self) -> None:
        self._show_tab_number(SUPERVISOR_TAB)

    def _show_tab_4(self) -> None:
        self._show_tab_number(HEALTH_TAB)

    def _show_tab_5(self) -> None:
        self._show_tab_number(REPORTS_TAB)

    def _load_reports_once(self) -> None:
        # Reports are read when first looked at, then on request: they are queries, not live views.
        if not self._reports_loaded:
            self._reports_loaded = True
            self.reports.refresh()

    def _focus_search(self) -> None:
        self.tabs.setCurrentIndex(INBOX_TAB)
        self.inbox.focus_search()

    def open_search(self) -> None:
        """Search words in every conversation; a chosen result opens its conversation at that message."""
        if self.search_dialog is None:
            self.search_dialog = SearchDialog(self._api, self._runner, self)
            self.search_dialog.message_chosen.connect(self.show_message)
        if self.search_dialog.isVisible():
            self.search_dialog.raise_()
            self.search_dialog.activateWindow()
        else:
            self.search_dialog.show()
        self.search_dialog.view.focus_search()

    def show_message(self, conversation_id: int, wamid_or_key: str) -> None:
        """Open a conversation in the inbox at one of its messages."""
        self.tabs.setCurrentIndex(INBOX_TAB)
        self.inbox.show_message(conversation_id, wamid_or_key)

    def open_canned_replies(self) -> None:
        """The team's canned replies; supervisors may change them."""
        if self.canned_dialog is None:
            self.canned_dialog = CannedRepliesDialog(
                self._api, self._runner, self, editable=self._is_supervisor
            )
            self.canned_dialog.replies_changed.connect(self.canned_replies_changed)
        if self.canned_dialog.isVisible():
            self.canned_dialog.raise_()
        else:
            self.canned_dialog.show()

    def _tab_changed(self, index: int) -> None:
        if index == HEALTH_TAB:
            self.health.refresh_metrics()
            self.health.redraw()
        elif index == REPORTS_TAB and self._is_supervisor:
            self._load_reports_once()

    def _work_queue_count(self, text: str) -> None:
        self.tabs.setTabText(
            WORK_QUEUE_TAB, translate("MainWindow", "Work queue ({count})").format(count=text)
        )

    def _supervisor_count(self, text: str) -> None:
        self.tabs.setTabText(
            SUPERVISOR_TAB, translate("MainWindow", "Supervisor ({count})").format(count=text)
        )

    def show_status(self, text: str) -> None:
        """A line in the status bar."""
        self.statusBar().showMessage(text, 8000)

    # -- connection --------------------------------------------------------------------------
    def _connection_lost(self, reason: str) -> None:
        self.banner.setText(
            translate("MainWindow", "Connection to the backend lost — reconnecting…  ({reason})").format(
                reason=reason
            )
        )
        self.banner.show()

    def _connection_restored(self) -> None:
        self.banner.hide()
        self.show_status(translate("MainWindow", "Reconnected; nothing was missed."))
        self.inbox.conversations.merge_first_page()
        self.work_queue.refresh()
        self._refresh_supervisor()

    def _reload_after_restore(self) -> None:
        self.show_status(
            translate(
                "MainWindow", "The inbox was restored from a backup; everything shown was loaded again."
            )
        )
        self.inbox.conversations.merge_first_page()
        self.work_queue.refresh()
        self._refresh_supervisor()

    # -- live events -------------------------------------------------------------------------
    def handle_events(self, events: list[Event]) -> None:
        """Route a batch of journal events to the panes that show what changed."""
        selected = self.inbox.selected_conversation
        current = selected.id if selected else None
        for event in events:
            conversation_id = event.conversation_id
            if event.type == MESSAGE_STATE_CHANGED:
                # A message not loaded in the open thread shows its state when its page is fetched.
                if event.key is not None and event.state is not None:
                    self.inbox.message_state_changed(event.key, event.state)
                if event.state in _SUPERVISOR_STATES or event.previous_state in _SUPERVISOR_STATES:
                    self._supervisor_timer.start()
            elif event.type == MESSAGE_QUEUED:
                self._conversation_changed(conversation_id)
                if conversation_id is not None and conversation_id == current:
                    self._thread_timer.start()
            elif event.type == INBOUND_RECEIVED:
                self._conversation_changed(conversation_id)
                if conversation_id is not None and conversation_id == current:
                    self._thread_timer.start()
                if not event.attributed:
                    self._work_queue_timer.start()
                if (
                    conversation_id is not None
                    and conversation_id in self._my_conversations
                    and event.message_type != "reaction"
                ):
                    self._notify_reply(conversation_id)
            elif event.type == MEDIA_UPDATED:
                if conversation_id is not None and conversation_id == current:
                    self._thread_timer.start()
            elif event.type == INBOUND_ATTRIBUTED:
                self._work_queue_timer.start()
                if conversation_id is not None and conversation_id == current:
                    self._thread_timer.start()
            elif event.type == CONVERSATION_ASSIGNED:
                self._conversation_changed(conversation_id)
                if conversation_id is not None:
                    if self._user_name is not None and event.assignee == self._user_name:
                        self._my_conversations.add(conversation_id)
                    else:
                        self._my_conversations.discard(conversation_id)
            elif event.type == WINDOW_CLOSING:
                self._conversation_changed(conversation_id)
                if (
                    conversation_id is not None
                    and event.unanswered
                    and self._user_name is not None
                    and event.assignee == self._user_name
                ):
                    self._notify_window_closing(conversation_id)
            elif event.type == WINDOW_CLOSED:
                self._conversation_changed(conversation_id)
            elif event.type == SUPERVISOR_DECISION:
                self._supervisor_timer.start()
            elif event.type == CONVERSATION_STATUS_CHANGED:
                self._conversation_changed(conversation_id)
            elif event.type == PRESENCE_CHANGED:
                if conversation_id is not None:
                    self.inbox.viewers_changed(conversation_id, event.viewers)
            elif event.type == NOTE_ADDED:
                if conversation_id is not None and conversation_id == current:
                    self._thread_timer.start()
                if (
                    conversation_id is not None
                    and event.author != self._user_name
                    and mentions_me(event.mentions, self._user_name)
                ):
                    self._notify_mention(
                        conversation_id, event.author or translate("MainWindow", "A colleague")
                    )
            elif event.type == CONVERSATION_LABELS_CHANGED:
                self._conversation_changed(conversation_id)
                self._labels_timer.start()
            elif event.type == CANNED_REPLIES_CHANGED:
                self.canned_replies_changed.emit()
            elif event.type in (CONTACT_OPTED_OUT, CONTACT_OPTED_IN):
                self._conversation_changed(conversation_id)
            elif event.type == TEMPLATE_STATUS_CHANGED:
                self._load_templates()
            elif event.type == DATABASE_RESTORED:
                self._reload_after_restore()
        self.health.add_events(events)

    def _conversation_changed(self, conversation_id: int | None) -> None:
        if conversation_id is not None:
            self._pending_conversations.add(conversation_id)
            if not self._conversation_timer.isActive():
                self._conversation_timer.start()

    def _refresh_pending_conversations(self) -> None:
        pending, self._pending_conversations = self._pending_conversations, set()
        if self._api is None or self._runner is None or not pending:
            return
        if len(pending) > MAX_ROWS_REFRESHED_ONE_BY_ONE:
            # Busy: one request for the newest page costs less than a request per conversation.
            self.inbox.conversations.merge_first_page()
            return
        for conversation_id in pending:
            call = partial(self._api.conversation, conversation_id)
            self._runner.submit(call, self.inbox.conversation_updated, self._probe_failed)

    def _refresh_supervisor(self) -> None:
        if self._is_supervisor:
            self.supervisor.refresh()

    def _known_contact(self, conversation_id: int) -> Conversation | None:
        row = self.inbox.conversations.row_of(conversation_id)
        conversation = self.inbox.conversations.item_at(row) if row is not None else None
        selected = self.inbox.selected_conversation
        if conversation is None and selected is not None and selected.id == conversation_id:
            conversation = selected
        return conversation

    def _notify_about(self, conversation_id: int, words: Callable[[str], str]) -> None:
        """A notification naming the customer; one not in the list is looked up first."""
        conversation = self._known_contact(conversation_id)
        if conversation is not None or self._api is None or self._runner is None:
            name = (
                notification_name(conversation.contact)
                if conversation
                else translate("MainWindow", "a customer")
            )
            self._notify(words(name))
            return
        waiting = self._notifications_waiting.setdefault(conversation_id, [])
        waiting.append(words)
        if len(waiting) == 1:
            call = partial(self._api.conversation, conversation_id)
            self._runner.submit(call, self._notification_contact_loaded, self._notification_contact_failed)

    def _notification_contact_loaded(self, conversation: Conversation) -> None:
        for words in self._notifications_waiting.pop(conversation.id, []):
            self._notify(words(notification_name(conversation.contact)))

    def _notification_contact_failed(self, _error: Exception) -> None:
        waiting, self._notifications_waiting = self._notifications_waiting, {}
        for notifications in waiting.values():
            for words in notifications:
                self._notify(words(translate("MainWindow", "a customer")))

    def _notify_reply(self, conversation_id: int) -> None:
        self._notify_about(conversation_id, _reply_words)

    def _notify_window_closing(self, conversation_id: int) -> None:
        self._notify_about(conversation_id, _closing_words)

    def _notify_mention(self, conversation_id: int, author: str) -> None:
        # A user name is the team's own text, but a notification body may be read as markup.
        who = (
            author
            if not any(character in author for character in "<>&")
            else translate("MainWindow", "A colleague")
        )
        self._notify_about(conversation_id, partial(_mention_words, who))

    def _notify(self, text: str) -> None:
        if self.tray is not None:
            self.tray.showMessage(
                translate("MainWindow", "WhatsApp shared inbox"),
                text,
                QSystemTrayIcon.MessageIcon.Information,
                5000,
            )
        self.show_status(text)
        self.notified.emit(text)

    def _reply_placed(self, _wamid: str, conversation_id: int, _key: str) -> None:
        selected = self.inbox.selected_conversation
        if selected is not None and selected.id == conversation_id:
            self._thread_timer.start()

    def _supervisor_resolved(self, _message: object) -> None:
        if self.inbox.selected_conversation is not None:
            self._thread_timer.start()
