"""The inbox tab: conversations on the left, the thread and composer in the middle, details on the right."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QItemSelection, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListView,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError
from ui.api.resources import Conversation, InboundMessage, OutboundMessage
from ui.models.conversations import ConversationListModel
from ui.models.paged import ItemRole
from ui.models.thread import ThreadModel
from ui.runner import BackgroundRunner
from ui.views.composer import Composer
from ui.views.delegates import ConversationDelegate, ThreadDelegate
from ui.views.details import DetailsPane
from ui.views.linking import LinkDialog
from ui.views.plain_text import plain_label

VIEWS = (("Mine", "mine"), ("Unassigned", "unassigned"), ("All", "all"))
WINDOW_FILTERS = (("Any window", None), ("Window open", "open"), ("Window closed", "closed"))
SEARCH_DELAY_MS = 250


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
        self.link_dialog: LinkDialog | None = None

        # -- left: conversations --
        self.conversations = ConversationListModel(api, runner, self)
        self.view_buttons = QButtonGroup(self)
        view_row = QHBoxLayout()
        view_row.setSpacing(2)
        for number, (title, view) in enumerate(VIEWS):
            button = QPushButton(title)
            button.setCheckable(True)
            button.setObjectName("segment")
            button.setAccessibleName(f"Show {title.lower()} conversations")
            button.setProperty("view", view)
            self.view_buttons.addButton(button, number)
            view_row.addWidget(button)
        self.view_buttons.button(2).setChecked(True)
        self.view_buttons.idClicked.connect(self._view_chosen)
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search name or number  (Ctrl+K)")
        self.search_box.setAccessibleName("Search conversations")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.textChanged.connect(self._search_changed)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._apply_search)
        self.window_filter = QComboBox()
        self.window_filter.setAccessibleName("Filter by window")
        for title, _value in WINDOW_FILTERS:
            self.window_filter.addItem(title)
        self.window_filter.currentIndexChanged.connect(self._window_filter_chosen)
        self.conversation_list = QListView()
        self.conversation_list.setObjectName("conversationList")
        self.conversation_list.setAccessibleName("Conversations")
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
        left_layout.addWidget(self.window_filter)
        left_layout.addWidget(self.conversation_list, 1)

        # -- middle: thread and composer --
        self.thread_model = ThreadModel(api, runner, self)
        self.thread_header = plain_label("Select a conversation")
        self.thread_header.setObjectName("threadHeader")
        self.thread_view = QTreeView()
        self.thread_view.setObjectName("threadView")
        self.thread_view.setAccessibleName("Thread")
        self.thread_view.setHeaderHidden(True)
        self.thread_view.setRootIsDecorated(False)
        self.thread_view.setItemsExpandable(False)
        self.thread_view.setIndentation(0)
        self.thread_view.setExpandsOnDoubleClick(False)
        self.thread_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.thread_view.setModel(self.thread_model)
        self.thread_delegate = ThreadDelegate(self.thread_view)
        self.thread_view.setItemDelegate(self.thread_delegate)
        self.thread_delegate.link_requested.connect(self.open_link_dialog)
        self.thread_view.selectionModel().selectionChanged.connect(self._message_selection_changed)
        self.thread_model.modelReset.connect(self._thread_reset)
        self.thread_model.rowsInserted.connect(self._thread_rows_inserted)
        self.thread_model.loaded.connect(self._thread_loaded)
        self.composer = Composer(api, runner)
        self.composer.reply_sent.connect(self._reply_sent)
        middle = QWidget()
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 8, 0, 0)
        middle_layout.addWidget(self.thread_header)
        middle_layout.addWidget(self.thread_view, 1)
        middle_layout.addWidget(self.composer)

        # -- right: details --
        self.details = DetailsPane()
        self.details.assign_to_me_requested.connect(self.assign_to_me)
        self.details.assign_to_other_requested.connect(self.assign_to_other)
        self.details.link_requested.connect(self.open_link_dialog)

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

    def set_user(self, name: str | None, *, is_supervisor: bool) -> None:
        """The signed-in user's name and role, as the backend knows them (for assignment and Mine)."""
        self._user_name = name
        self.details.set_user(name, is_supervisor=is_supervisor)

    # -- loading and filters -----------------------------------------------------------------
    def start(self) -> None:
        """Load the conversation list."""
        self.conversations.start()

    def focus_search(self) -> None:
        """Ctrl+K: put the cursor in the search box."""
        self.search_box.setFocus()
        self.search_box.selectAll()

    def _view_chosen(self, number: int) -> None:
        self.conversations.set_filter(view=VIEWS[number][1])

    def _window_filter_chosen(self, row: int) -> None:
        self.conversations.set_filter(window=WINDOW_FILTERS[row][1])

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
        self._selected = conversation
        self.thread_delegate.clear_cache()
        self.thread_model.show_conversation(conversation.id if conversation else None)
        self.details.show_conversation(conversation)
        self.details.show_message(None)
        self.composer.set_conversation(
            conversation.id if conversation else None, conversation.window_closes_at if conversation else None
        )
        self.thread_header.setText(
            f"{conversation.contact.display_name}  ·  {conversation.contact.number or ''}"
            if conversation
            else "Select a conversation"
        )
        if conversation is not None and conversation.unread and self._api and self._runner:
            self._runner.submit(
                partial(self._api.mark_read, conversation.id), self._conversation_changed, self._action_failed
            )

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

    # -- live changes ------------------------------------------------------------------------
    def conversation_updated(self, conversation: Conversation) -> None:
        """A conversation changed on the server: update its row and, if shown, the panes."""
        self._conversation_changed(conversation)

    def _conversation_changed(self, conversation: Conversation) -> None:
        belongs = True
        if self.conversations.view == "mine" and self._user_name:
            belongs = conversation.assignee == self._user_name
        elif self.conversations.view == "unassigned":
            belongs = conversation.assignee is None
        self.conversations.upsert(conversation, belongs=belongs)
        if self._selected is not None and self._selected.id == conversation.id:
            self._selected = conversation
            self.details.show_conversation(conversation)
            self.composer.set_window(conversation.window_closes_at)

    def message_state_changed(self, key: str, state: str) -> bool:
        """Show a new state on one of our messages if it is in the open thread."""
        return self.thread_model.update_state(key, state)

    def refresh_thread(self) -> None:
        """Load the open thread again (a reply or a new message arrived)."""
        self.thread_delegate.clear_cache()
        self.thread_model.refresh()

    def _reply_sent(self, _message: object) -> None:
        self.status_message.emit("Reply queued.")
        self.refresh_thread()

    # -- assignment and linking --------------------------------------------------------------
    def assign_to_me(self) -> None:
        """Take the selected conversation, or give it back when it is already ours."""
        if self._user_name is None:
            self.status_message.emit("Your user name is not known yet: try again in a moment.")
            return
        self._assign(None if self.details.holds_selected else self._user_name)

    def assign_to_other(self) -> None:
        """Give the selected conversation to another user, by name."""
        if self._selected is None:
            return
        name, accepted = QInputDialog.getText(
            self, "Assign conversation", "Assign to user (empty to unassign):"
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
        self.status_message.emit(f"Assigned to {conversation.assignee or 'nobody'}.")

    def _action_failed(self, error: Exception) -> None:
        self.status_message.emit(error.message if isinstance(error, ApiError) else str(error))

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
        self.status_message.emit("Reply linked.")
        self.refresh_thread()

    def outbound_keys(self) -> list[str]:
        """Keys of our messages in the open thread (tests and status)."""
        return [item.key for item in self.thread_model.items if isinstance(item, OutboundMessage)]
