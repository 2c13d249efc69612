"""The inbox tab: conversations on the left, the thread and composer in the middle, details on the right."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

from PySide6.QtCore import (
    QItemSelection,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError
from ui.api.resources import (
    OPEN,
    PENDING,
    RESOLVED,
    SNOOZED,
    Conversation,
    InboundMessage,
    LabelCount,
    OutboundMessage,
    Viewer,
)
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.media import ThumbnailCache
from ui.models.conversations import DEFAULT_STATUSES, ConversationListModel
from ui.models.paged import ItemRole
from ui.models.thread import ThreadModel
from ui.presentation import (
    SNOOZE_PRESETS,
    snooze_preset_text,
    snooze_until,
    status_text,
    thread_header_text,
    viewers_text,
)
from ui.runner import BackgroundRunner
from ui.theme import themed_stylesheet
from ui.views.composer import Composer
from ui.views.delegates import ConversationDelegate, ThreadDelegate
from ui.views.details import DetailsPane
from ui.views.linking import LinkDialog
from ui.views.media_actions import MediaActions
from ui.views.plain_text import plain_label

VIEWS = (
    (QT_TRANSLATE_NOOP("InboxView", "Mine"), "mine"),
    (QT_TRANSLATE_NOOP("InboxView", "Unassigned"), "unassigned"),
    (QT_TRANSLATE_NOOP("InboxView", "All"), "all"),
)
STATUS_VIEWS = (
    (QT_TRANSLATE_NOOP("InboxView", "Open and pending"), DEFAULT_STATUSES),
    (QT_TRANSLATE_NOOP("InboxView", "Open"), OPEN),
    (QT_TRANSLATE_NOOP("InboxView", "Pending"), PENDING),
    (QT_TRANSLATE_NOOP("InboxView", "Snoozed"), SNOOZED),
    (QT_TRANSLATE_NOOP("InboxView", "Resolved"), RESOLVED),
    (QT_TRANSLATE_NOOP("InboxView", "All statuses"), "all"),
)
WINDOW_FILTERS = (
    (QT_TRANSLATE_NOOP("InboxView", "Any window"), None),
    (QT_TRANSLATE_NOOP("InboxView", "Window open"), "open"),
    (QT_TRANSLATE_NOOP("InboxView", "Window closing within the hour"), "closing"),
    (QT_TRANSLATE_NOOP("InboxView", "Window closed"), "closed"),
)
ANY_LABEL = QT_TRANSLATE_NOOP("InboxView", "Any label")
SEARCH_DELAY_MS = 250
# Shortcuts of the status buttons; Ctrl+Shift keeps them clear of the text box's own keys.
RESOLVE_SHORTCUT = "Ctrl+Shift+R"
SNOOZE_SHORTCUT = "Ctrl+Shift+S"
PENDING_SHORTCUT = "Ctrl+Shift+P"
REOPEN_SHORTCUT = "Ctrl+Shift+O"
# A desk refreshes its presence well inside the backend's 30 s lifetime of a presence row.
PRESENCE_INTERVAL_MS = 10_000
# Typing stops counting this long after the last keystroke.
TYPING_IDLE_MS = 5_000
VIEWERS_STYLE = "color: #15803d; font-style: italic; padding: 0 8px;"


def _report_presence(
    api: ApiClient, conversation_id: int, typing: bool, viewing: bool
) -> tuple[int, tuple[Viewer, ...]]:
    """Runs on a worker thread: tell the backend who looks at what; who is there now."""
    return conversation_id, api.presence(conversation_id, typing, viewing)


class PresenceReporter(QObject):
    """Tells the backend which conversation this desk has on screen, and whether the agent is typing."""

    # The backend said who has a conversation on screen: its id and a tuple of Viewer.
    viewers_received = Signal(int, tuple)

    def __init__(
        self, api: ApiClient | None, runner: BackgroundRunner | None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._conversation_id: int | None = None
        self._typing = False
        self.heartbeat = QTimer(self)
        self.heartbeat.setInterval(PRESENCE_INTERVAL_MS)
        self.heartbeat.timeout.connect(self._refresh)
        self.typing_idle = QTimer(self)
        self.typing_idle.setSingleShot(True)
        self.typing_idle.setInterval(TYPING_IDLE_MS)
        self.typing_idle.timeout.connect(self._stopped_typing)

    @property
    def typing(self) -> bool:
        """Whether the agent typed in the reply in the last few seconds."""
        return self._typing

    def watch(self, conversation_id: int | None) -> None:
        """The desk now shows this conversation (None: none); the one left is told at once."""
        if conversation_id == self._conversation_id:
            return
        self.leave()
        self._conversation_id = conversation_id
        if conversation_id is not None:
            self._send(conversation_id, typing=False, viewing=True)
            self.heartbeat.start()

    def leave(self) -> None:
        """Stop showing the current conversation, and say so."""
        previous, self._conversation_id = self._conversation_id, None
        self.heartbeat.stop()
        self.typing_idle.stop()
        self._typing = False
        if previous is not None:
            self._send(previous, typing=False, viewing=False)

    def typed(self) -> None:
        """The agent changed the reply draft: typing now, until a few quiet seconds pass."""
        if self._conversation_id is None:
            return
        self.typing_idle.start()
        if not self._typing:
            self._typing = True
            self._send(self._conversation_id, typing=True, viewing=True)

    def _stopped_typing(self) -> None:
        if self._typing and self._conversation_id is not None:
            self._typing = False
            self._send(self._conversation_id, typing=False, viewing=True)

    def _refresh(self) -> None:
        if self._conversation_id is not None:
            self._send(self._conversation_id, typing=self._typing, viewing=True)

    def _send(self, conversation_id: int, *, typing: bool, viewing: bool) -> None:
        if self._api is None or self._runner is None:
            return
        call = partial(_report_presence, self._api, conversation_id, typing, viewing)
        if viewing:
            self._runner.submit(call, self._answered, self._failed)
        else:
            self._runner.submit(call, self._left, self._failed)

    def _answered(self, answer: tuple[int, tuple[Viewer, ...]]) -> None:
        conversation_id, viewers = answer
        self.viewers_received.emit(conversation_id, viewers)

    def _left(self, _answer: object) -> None:
        """Nothing to show once the desk has left a conversation."""

    def _failed(self, _error: Exception) -> None:
        """Presence is a courtesy to colleagues: a missed refresh is retried by the next heartbeat."""


class InboxView(QWidget):
    """Three panes: conversation list, thread with composer, details."""

    # Something worth a line in the status bar happened.
    status_message = Signal(str)

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        user_name: str | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._user_name = user_name
        self._selected: Conversation | None = None
        self._viewers: tuple[Viewer, ...] = ()
        # A message to select once its thread has loaded: (conversation id, wamid or key).
        self._pending_jump: tuple[int, str] | None = None
        self.link_dialog: LinkDialog | None = None

        # -- left: conversations --
        self.conversations = ConversationListModel(api, runner, self)
        self.view_buttons = QButtonGroup(self)
        view_row = QHBoxLayout()
        view_row.setSpacing(2)
        for number, (title, view) in enumerate(VIEWS):
            button = QPushButton(translate("InboxView", title))
            button.setCheckable(True)
            button.setObjectName("segment")
            button.setAccessibleName(
                translate("InboxView", "Show the conversations: {view}").format(
                    view=translate("InboxView", title)
                )
            )
            button.setProperty("view", view)
            self.view_buttons.addButton(button, number)
            view_row.addWidget(button)
        self.view_buttons.button(2).setChecked(True)
        self.view_buttons.idClicked.connect(self._view_chosen)
        self.status_filter = QComboBox()
        self.status_filter.setAccessibleName(translate("InboxView", "Show conversations by status"))
        for title, _statuses in STATUS_VIEWS:
            self.status_filter.addItem(translate("InboxView", title))
        self.status_filter.currentIndexChanged.connect(self._status_filter_chosen)
        view_row.addSpacing(6)
        view_row.addWidget(self.status_filter, 1)
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText(translate("InboxView", "Search name or number  (Ctrl+K)"))
        self.search_box.setAccessibleName(translate("InboxView", "Search conversations"))
        self.search_box.setClearButtonEnabled(True)
        self.search_box.textChanged.connect(self._search_changed)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._apply_search)
        self.window_filter = QComboBox()
        self.window_filter.setAccessibleName(translate("InboxView", "Filter by window"))
        for title, _value in WINDOW_FILTERS:
            self.window_filter.addItem(translate("InboxView", title))
        self.window_filter.currentIndexChanged.connect(self._window_filter_chosen)
        self.label_filter = QComboBox()
        self.label_filter.setAccessibleName(translate("InboxView", "Filter by label"))
        self.label_filter.addItem(translate("InboxView", ANY_LABEL), None)
        self.label_filter.currentIndexChanged.connect(self._label_filter_chosen)
        filter_row = QHBoxLayout()
        filter_row.addWidget(self.window_filter, 1)
        filter_row.addWidget(self.label_filter, 1)
        self.conversation_list = QListView()
        self.conversation_list.setObjectName("conversationList")
        self.conversation_list.setAccessibleName(translate("InboxView", "Conversations"))
        self.conversation_list.setModel(self.conversations)
        self.conversation_list.setItemDelegate(ConversationDelegate(self.conversation_list))
        self.conversation_list.setUniformItemSizes(True)
        self.conversation_list.setMouseTracking(True)
        self.conversation_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.conversation_list.selectionModel().selectionChanged.connect(self._conversation_selection_changed)
        self.conversations.modelReset.connect(self._conversations_reset)
        left = QWidget()
        left.setObjectName("conversationPane")
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(8, 8, 0, 8)
        left_layout.addLayout(view_row)
        left_layout.addWidget(self.search_box)
        left_layout.addLayout(filter_row)
        left_layout.addWidget(self.conversation_list, 1)

        # -- middle: thread and composer --
        self.thread_model = ThreadModel(api, runner, self)
        self.thread_header = plain_label(translate("InboxView", "Select a conversation"))
        self.thread_header.setObjectName("threadHeader")
        self.viewers_label = plain_label("")
        self.viewers_label.setObjectName("viewers")
        self.viewers_label.setAccessibleName(translate("InboxView", "Colleagues in this conversation"))
        self.viewers_label.setStyleSheet(themed_stylesheet(VIEWERS_STYLE))
        self.status_badge = plain_label("")
        self.status_badge.setAccessibleName(translate("InboxView", "Conversation status"))
        self.resolve_button = self._status_button(
            translate("InboxView", "Resolve"), RESOLVE_SHORTCUT, RESOLVED
        )
        self.pending_button = self._status_button(
            translate("InboxView", "Mark pending"), PENDING_SHORTCUT, PENDING
        )
        self.reopen_button = self._status_button(translate("InboxView", "Reopen"), REOPEN_SHORTCUT, OPEN)
        self.snooze_menu = QMenu(self)
        for preset in SNOOZE_PRESETS:
            action = QAction(snooze_preset_text(preset), self.snooze_menu)
            action.setData(preset)
            action.triggered.connect(partial(self.snooze, preset))
            self.snooze_menu.addAction(action)
        self.snooze_button = QPushButton(translate("InboxView", "Snooze"))
        self.snooze_button.setAccessibleName(translate("InboxView", "Snooze the conversation"))
        self.snooze_button.setToolTip(
            translate("InboxView", "Snooze until later  ({shortcut})").format(shortcut=SNOOZE_SHORTCUT)
        )
        self.snooze_button.setMenu(self.snooze_menu)
        snooze_shortcut = QShortcut(QKeySequence(SNOOZE_SHORTCUT), self)
        snooze_shortcut.activated.connect(self.open_snooze_menu)
        status_row = QHBoxLayout()
        status_row.setContentsMargins(8, 0, 8, 4)
        status_row.addWidget(self.status_badge)
        status_row.addStretch(1)
        status_row.addWidget(self.resolve_button)
        status_row.addWidget(self.snooze_button)
        status_row.addWidget(self.pending_button)
        status_row.addWidget(self.reopen_button)
        self.thread_view = QTreeView()
        self.thread_view.setObjectName("threadView")
        self.thread_view.setAccessibleName(translate("InboxView", "Thread"))
        self.thread_view.setHeaderHidden(True)
        self.thread_view.setRootIsDecorated(False)
        self.thread_view.setItemsExpandable(False)
        self.thread_view.setIndentation(0)
        self.thread_view.setExpandsOnDoubleClick(False)
        self.thread_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.thread_view.setModel(self.thread_model)
        # Customers' pictures: fetched and decoded off the GUI thread, kept while the client runs.
        self.thumbnails = ThumbnailCache(api, runner, self)
        # Voice notes play in their bubble: the delegate shows the one playing and how far it is.
        self.media_actions = MediaActions(api, runner, self)
        self.thread_delegate = ThreadDelegate(self.thread_view, self.thumbnails, self.media_actions)
        self.thread_view.setItemDelegate(self.thread_delegate)
        self.thread_delegate.link_requested.connect(self.open_link_dialog)
        self.thread_delegate.media_activated.connect(self.media_actions.open)
        self.media_actions.status_message.connect(self.status_message)
        self.media_actions.retry_started.connect(self._media_retry_started)
        self.thread_view.selectionModel().selectionChanged.connect(self._message_selection_changed)
        self.thread_model.modelReset.connect(self._thread_reset)
        self.thread_model.rowsInserted.connect(self._thread_rows_inserted)
        self.thread_model.loaded.connect(self._thread_loaded)
        self.thread_model.viewers_seen.connect(self._thread_viewers_seen)
        self.composer = Composer(api, runner, newest_seen=self.thread_model.newest_time)
        self.composer.reply_sent.connect(self._reply_sent)
        self.composer.note_added.connect(self._note_added)
        self.composer.thread_outdated.connect(self.refresh_thread)
        self.presence = PresenceReporter(api, runner, self)
        self.presence.viewers_received.connect(self.viewers_changed)
        self.composer.draft_edited.connect(self.presence.typed)
        middle = QWidget()
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 8, 0, 0)
        middle_layout.setSpacing(2)
        middle_layout.addWidget(self.thread_header)
        middle_layout.addWidget(self.viewers_label)
        middle_layout.addLayout(status_row)
        middle_layout.addWidget(self.thread_view, 1)
        middle_layout.addWidget(self.composer)

        # -- right: details --
        self.details = DetailsPane()
        self.details.assign_to_me_requested.connect(self.assign_to_me)
        self.details.assign_to_other_requested.connect(self.assign_to_other)
        self.details.link_requested.connect(self.open_link_dialog)
        self.details.labels_change_requested.connect(self.change_labels)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(middle)
        splitter.addWidget(self.details)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setStretchFactor(2, 0)
        splitter.setSizes([330, 640, 290])
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self._show_status_controls(None)

    def _status_button(self, title: str, shortcut: str, status: str) -> QPushButton:
        button = QPushButton(title)
        button.setAccessibleName(
            translate("InboxView", "Mark the conversation pending")
            if status == PENDING
            else translate("InboxView", "{action} the conversation").format(action=title)
        )
        button.setToolTip(f"{title}  ({shortcut})")
        button.clicked.connect(partial(self.set_status, status))
        # A shortcut of the inbox page: it only works while the inbox is on screen.
        key = QShortcut(QKeySequence(shortcut), self)
        key.activated.connect(button.click)
        return button

    def set_user(self, name: str | None, *, is_supervisor: bool) -> None:
        """The signed-in user's name and role, as the backend knows them (for assignment and Mine)."""
        self._user_name = name
        self.details.set_user(name, is_supervisor=is_supervisor)
        self._show_viewers(self._viewers)

    # -- loading and filters -----------------------------------------------------------------
    def start(self) -> None:
        """Load the conversation list and the labels in use."""
        self.conversations.start()
        self.refresh_labels()

    def focus_search(self) -> None:
        """Ctrl+K: put the cursor in the search box."""
        self.search_box.setFocus()
        self.search_box.selectAll()

    def _view_chosen(self, number: int) -> None:
        self.conversations.set_filter(view=VIEWS[number][1])

    def _status_filter_chosen(self, row: int) -> None:
        self.conversations.set_filter(status=STATUS_VIEWS[row][1])

    def _window_filter_chosen(self, row: int) -> None:
        self.conversations.set_filter(window=WINDOW_FILTERS[row][1])

    def _label_filter_chosen(self, row: int) -> None:
        label = self.label_filter.itemData(row)
        self.conversations.set_filter(label=label if isinstance(label, str) else None)

    def choose_status_view(self, statuses: str) -> None:
        """Show the conversations of a status view: 'open,pending', 'open', …, or 'all'."""
        for row, (_title, value) in enumerate(STATUS_VIEWS):
            if value == statuses:
                self.status_filter.setCurrentIndex(row)
                return
        raise ValueError(f"no status view {statuses!r}")

    def choose_label(self, label: str | None) -> None:
        """Show only the conversations with this label (None: any)."""
        if label is None:
            self.label_filter.setCurrentIndex(0)
            return
        row = self.label_filter.findData(label)
        if row < 0:
            self.label_filter.addItem(label, label)
            row = self.label_filter.count() - 1
        self.label_filter.setCurrentIndex(row)

    def refresh_labels(self) -> None:
        """Load the labels in use again, for the filter and the details pane's suggestions."""
        if self._api is not None and self._runner is not None:
            self._runner.submit(self._api.all_labels, self._labels_loaded, self._labels_failed)

    def _labels_loaded(self, labels: list[LabelCount]) -> None:
        chosen = self.label_filter.currentData()
        self.label_filter.blockSignals(True)
        self.label_filter.clear()
        self.label_filter.addItem(translate("InboxView", ANY_LABEL), None)
        for label in labels:
            self.label_filter.addItem(f"{label.name}  ({label.count})", label.name)
        row = self.label_filter.findData(chosen) if isinstance(chosen, str) else 0
        if row < 0:
            # The chosen label went out of use; it stays chosen until the agent picks another.
            self.label_filter.addItem(f"{chosen}  (0)", chosen)
            row = self.label_filter.count() - 1
        self.label_filter.setCurrentIndex(row)
        self.label_filter.blockSignals(False)
        self.details.set_known_labels([label.name for label in labels])

    def _labels_failed(self, _error: Exception) -> None:
        """The label filter keeps what it had; the next change of labels loads them again."""

    def _search_changed(self, _text: str) -> None:
        self._search_timer.start()

    def _apply_search(self) -> None:
        self.conversations.set_filter(query=self.search_box.text().strip())

    def _conversations_reset(self) -> None:
        # The thread stays on screen; the row is selected again if the new list has it.
        if self._selected is not None:
            self.select_conversation_id(self._selected.id)

    # -- selection ---------------------------------------------------------------------------
    @property
    def selected_conversation(self) -> Conversation | None:
        """The conversation shown in the thread pane."""
        return self._selected

    def select_conversation_id(self, conversation_id: int) -> bool:
        """Select a loaded conversation by id; False when it is not in the list."""
        row = self.conversations.row_of(conversation_id)
        if row is None:
            return False
        self.conversation_list.setCurrentIndex(self.conversations.index(row, 0))
        return True

    def _conversation_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        conversation = indexes[0].data(ItemRole) if indexes else None
        if isinstance(conversation, Conversation) and (
            self._selected is None or self._selected.id != conversation.id
        ):
            self.select_conversation(conversation)

    def select_conversation(self, conversation: Conversation | None) -> None:
        """Show a conversation's thread, details and composer."""
        if self._selected is not None and (conversation is None or conversation.id != self._selected.id):
            # A voice note plays in its bubble: it stops when its thread leaves the screen.
            self.media_actions.stop_playing()
        self._selected = conversation
        self.thread_delegate.clear_cache()
        self.thread_model.show_conversation(conversation.id if conversation else None)
        self.details.show_conversation(conversation)
        self.details.show_message(None)
        self.composer.set_conversation(
            conversation.id if conversation else None, conversation.window_closes_at if conversation else None
        )
        self.composer.set_marketing_allowed(not (conversation and conversation.contact.opted_out))
        self.thread_header.setText(thread_header_text(conversation))
        self._show_status_controls(conversation)
        self._show_viewers(conversation.viewers if conversation else ())
        self.presence.watch(conversation.id if conversation else None)
        if conversation is not None and conversation.unread and self._api and self._runner:
            self._runner.submit(
                partial(self._api.mark_read, conversation.id), self._conversation_changed, self._action_failed
            )

    def leave(self) -> None:
        """The desk closes: colleagues should stop seeing it in the conversation."""
        self.presence.leave()

    def _message_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        self.details.show_message(self.thread_model.item(indexes[0]) if indexes else None)

    def _thread_reset(self) -> None:
        self.thread_delegate.clear_cache()
        self._expand_replies(0, self.thread_model.rowCount() - 1)

    def _thread_rows_inserted(
        self, parent: QModelIndex | QPersistentModelIndex, first: int, last: int
    ) -> None:
        if parent.isValid():
            self.thread_view.setExpanded(parent, True)
        else:
            self._expand_replies(first, last)
        if self._pending_jump is not None:
            self._try_jump()

    def _expand_replies(self, first: int, last: int) -> None:
        # Only messages with replies need expanding; expanding every row would lay the view out each time.
        model = self.thread_model
        for row in range(first, last + 1):
            index = model.index(row, 0)
            if model.rowCount(index):
                self.thread_view.setExpanded(index, True)

    def _thread_loaded(self) -> None:
        if not self.thread_model.canFetchMore(QModelIndex()):
            self.thread_view.scrollToBottom()
        if self._pending_jump is not None:
            self._try_jump()

    # -- jumping to a message (search results) -------------------------------------------------
    def show_message(self, conversation_id: int, wamid_or_key: str) -> None:
        """Open a conversation and select one of its messages (by our key or the customer's wamid)."""
        self._pending_jump = (conversation_id, wamid_or_key)
        if self._selected is not None and self._selected.id == conversation_id:
            self._try_jump()
        elif not self.select_conversation_id(conversation_id) and self._api and self._runner:
            # Not in the list as filtered now: open it all the same.
            call = partial(self._api.conversation, conversation_id)
            self._runner.submit(call, self._jump_conversation_loaded, self._jump_failed)

    def _jump_conversation_loaded(self, conversation: Conversation) -> None:
        if self._pending_jump is not None and self._pending_jump[0] == conversation.id:
            self.conversation_list.clearSelection()
            self.select_conversation(conversation)

    def _jump_failed(self, error: Exception) -> None:
        self._pending_jump = None
        self._action_failed(error)

    def _try_jump(self) -> None:
        jump = self._pending_jump
        if jump is None or self._selected is None or self._selected.id != jump[0]:
            return
        model = self.thread_model
        index = model.index_of_message(jump[1])
        if index.isValid():
            self._pending_jump = None
            if index.parent().isValid():
                self.thread_view.setExpanded(index.parent(), True)
            self.thread_view.setCurrentIndex(index)
            self.thread_view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        elif model.canFetchMore(QModelIndex()):
            model.fetchMore(QModelIndex())
        elif not model.is_loading and model.conversation_id == jump[0]:
            self._pending_jump = None
            self.status_message.emit(
                translate("InboxView", "That message is no longer in this conversation's thread.")
            )

    # -- status ------------------------------------------------------------------------------
    def _show_status_controls(self, conversation: Conversation | None) -> None:
        status = conversation.status if conversation else None
        self.resolve_button.setEnabled(status is not None and status != RESOLVED)
        self.pending_button.setEnabled(status is not None and status != PENDING)
        self.reopen_button.setEnabled(status is not None and status != OPEN)
        self.snooze_button.setEnabled(conversation is not None)
        self.status_badge.setText(
            status_text(conversation.status, conversation.snoozed_until, datetime.now(UTC))
            if conversation
            else ""
        )

    def set_status(self, status: str) -> None:
        """Open, mark pending or resolve the selected conversation."""
        self._request_status(status, None)

    def snooze(self, preset: str) -> None:
        """Snooze the selected conversation until a preset's time: '1 hour', 'Tomorrow 9:00'…"""
        self._request_status(SNOOZED, snooze_until(preset, datetime.now(UTC)))

    def open_snooze_menu(self) -> None:
        """Show the snooze presets under the Snooze button (its keyboard shortcut)."""
        if self.snooze_button.isEnabled():
            self.snooze_menu.popup(self.snooze_button.mapToGlobal(self.snooze_button.rect().bottomLeft()))

    def _request_status(self, status: str, until: datetime | None) -> None:
        if self._selected is None or self._api is None or self._runner is None:
            return
        call = partial(self._api.set_status, self._selected.id, status, until)
        self._runner.submit(call, self._status_set, self._action_failed)

    def _status_set(self, conversation: Conversation) -> None:
        self._conversation_changed(conversation)
        status = status_text(conversation.status, conversation.snoozed_until, datetime.now(UTC))
        self.status_message.emit(f"{conversation.contact.display_name}: {status}.")

    # -- labels ------------------------------------------------------------------------------
    def change_labels(self, add: list[str], remove: list[str]) -> None:
        """Add and remove labels on the selected conversation."""
        if self._selected is None or self._api is None or self._runner is None:
            return
        call = partial(self._api.labels, self._selected.id, add, remove)
        self._runner.submit(call, self._labels_changed, self._action_failed)

    def _labels_changed(self, conversation: Conversation) -> None:
        self._conversation_changed(conversation)
        self.refresh_labels()

    # -- colleagues --------------------------------------------------------------------------
    def viewers_changed(self, conversation_id: int, viewers: tuple[Viewer, ...]) -> None:
        """Who has a conversation on screen changed: its row, and the line over the thread if shown."""
        self.conversations.show_viewers(conversation_id, viewers)
        if self._selected is not None and self._selected.id == conversation_id:
            self._show_viewers(viewers)

    def _thread_viewers_seen(self, viewers: tuple[Viewer, ...]) -> None:
        if self._selected is not None and self.thread_model.conversation_id == self._selected.id:
            self._show_viewers(viewers)

    def _show_viewers(self, viewers: tuple[Viewer, ...]) -> None:
        self._viewers = viewers
        text = viewers_text(viewers, self._user_name)
        self.viewers_label.setText(text)
        self.viewers_label.setVisible(bool(text))

    # -- live changes ------------------------------------------------------------------------
    def conversation_updated(self, conversation: Conversation) -> None:
        """A conversation changed on the server: update its row and, if shown, the panes."""
        self._conversation_changed(conversation)

    def _conversation_changed(self, conversation: Conversation) -> None:
        belongs = self.conversations.fits_status_and_label(conversation)
        if self.conversations.view == "mine" and self._user_name:
            belongs = belongs and conversation.assignee == self._user_name
        elif self.conversations.view == "unassigned":
            belongs = belongs and conversation.assignee is None
        current = self.conversation_list.currentIndex()
        if not belongs and current.isValid() and current.row() == self.conversations.row_of(conversation.id):
            # A list with one selected row selects the next when that row goes: the agent would be
            # moved to another customer mid-sentence. The thread stays; the list just loses the row.
            self.conversation_list.selectionModel().clear()
        self.conversations.upsert(conversation, belongs=belongs)
        if self._selected is not None and self._selected.id == conversation.id:
            self._selected = conversation
            self.details.show_conversation(conversation)
            self.composer.set_window(conversation.window_closes_at)
            self.composer.set_marketing_allowed(not conversation.contact.opted_out)
            self.thread_header.setText(thread_header_text(conversation))
            self._show_status_controls(conversation)
            self._show_viewers(conversation.viewers)

    def message_state_changed(self, key: str, state: str) -> bool:
        """Show a new state on one of our messages if it is in the open thread."""
        return self.thread_model.update_state(key, state)

    def refresh_thread(self) -> None:
        """Load the open thread again (a reply or a new message arrived)."""
        self.thread_delegate.clear_cache()
        self.thread_model.refresh()

    def _reply_sent(self, _message: object) -> None:
        self.status_message.emit(translate("InboxView", "Reply queued."))
        self.refresh_thread()

    def _note_added(self, _note: object) -> None:
        self.status_message.emit(translate("InboxView", "Note added."))
        self.refresh_thread()

    # -- assignment and linking --------------------------------------------------------------
    def assign_to_me(self) -> None:
        """Take the selected conversation, or give it back when it is already ours."""
        if self._user_name is None:
            self.status_message.emit(
                translate("InboxView", "Your user name is not known yet: try again in a moment.")
            )
            return
        self._assign(None if self.details.holds_selected else self._user_name)

    def assign_to_other(self) -> None:
        """Give the selected conversation to another user, by name."""
        if self._selected is None:
            return
        name, accepted = QInputDialog.getText(
            self,
            translate("InboxView", "Assign conversation"),
            translate("InboxView", "Assign to user (empty to unassign):"),
        )
        if accepted:
            self._assign(name.strip() or None)

    def _assign(self, user: str | None) -> None:
        if self._selected is None or self._api is None or self._runner is None:
            return
        call = partial(self._api.assign, self._selected.id, user)
        self._runner.submit(call, self._assigned, self._action_failed)

    def _assigned(self, conversation: Conversation) -> None:
        self._conversation_changed(conversation)
        self.status_message.emit(
            translate("InboxView", "Assigned to {name}.").format(
                name=conversation.assignee or translate("InboxView", "nobody")
            )
        )

    def _action_failed(self, error: Exception) -> None:
        self.status_message.emit(error.message if isinstance(error, ApiError) else str(error))

    def _media_retry_started(self, media_id: str) -> None:
        """A failed file is downloading again: the thread shows it so, then the picture once kept."""
        self.thumbnails.forget(media_id)
        self.thread_model.refresh()

    def open_link_dialog(self, wamid: str) -> None:
        """Ask which recent message an unattributed reply answers."""
        if self._selected is None:
            return
        index = self.thread_model.index_of_inbound(wamid)
        item = self.thread_model.item(index)
        text = item.text if isinstance(item, InboundMessage) else ""
        self.link_dialog = LinkDialog(
            self._api,
            self._runner,
            wamid=wamid,
            conversation_id=self._selected.id,
            reply_text=text or "",
            parent=self,
        )
        self.link_dialog.chooser.attributed.connect(self._reply_linked)
        self.link_dialog.open()

    def _reply_linked(self, _wamid: str, _key: str) -> None:
        self.status_message.emit(translate("InboxView", "Reply linked."))
        self.refresh_thread()

    def outbound_keys(self) -> list[str]:
        """Keys of our messages in the open thread (tests and status)."""
        return [item.key for item in self.thread_model.items if isinstance(item, OutboundMessage)]
