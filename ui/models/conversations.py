"""The conversation list: Mine / Unassigned / All, by status, label, window and search, newest first."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, Qt

from ui.api.client import ApiClient
from ui.api.resources import OPEN, PENDING, Conversation, Page, Viewer
from ui.i18n import translate
from ui.models.paged import AnyIndex, PagedListModel
from ui.presentation import URGENT_WINDOW, status_text, window_text
from ui.runner import BackgroundRunner

PAGE_SIZE = 100
# The statuses listed when no other is chosen: what still needs someone.
DEFAULT_STATUSES = f"{OPEN},{PENDING}"
ALL_STATUSES = "all"
_OLDEST = datetime.min.replace(tzinfo=UTC)


class ConversationListModel(PagedListModel[Conversation]):
    """Conversations for the left pane, one row each."""

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runner, parent)
        self._api = api
        self.view = "all"
        self.window: str | None = None
        self.query = ""
        # Comma-separated statuses as the API takes them, or "all".
        self.status = DEFAULT_STATUSES
        self.label: str | None = None
        self.page_size = PAGE_SIZE

    def item_key(self, item: Conversation) -> Hashable:
        """Conversations are keyed by id."""
        return item.id

    def display_text(self, item: Conversation) -> str:
        """Name, window state and unread count, for screen readers and tooltips."""
        now = datetime.now(UTC)
        window = window_text(item.window_closes_at, now).text
        parts = [
            item.contact.display_name,
            translate("ConversationListModel", "window {state}").format(state=window),
        ]
        if item.unread:
            parts.append(translate("ConversationListModel", "%n unread", None, item.unread))
        parts.append(status_text(item.status, item.snoozed_until, now))
        if item.labels:
            parts.append(
                translate("ConversationListModel", "labels: {labels}").format(labels=", ".join(item.labels))
            )
        if item.contact.opted_out:
            parts.append(translate("ConversationListModel", "opted out of marketing"))
        return ", ".join(parts)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Adds the contact name as the edit role so keyboard search finds it."""
        if role == Qt.ItemDataRole.EditRole:
            item = self.item_at(index.row()) if index.isValid() else None
            return item.contact.display_name if item else None
        return super().data(index, role)

    def set_filter(
        self,
        *,
        view: str | None = None,
        window: str | None = "",
        query: str | None = None,
        status: str | None = None,
        label: str | None = "",
    ) -> None:
        """Change the view, window (None for any), search text, statuses or label (None for any); reload."""
        if view is not None:
            self.view = view
        if window != "":
            self.window = window
        if query is not None:
            self.query = query
        if status is not None:
            self.status = status
        if label != "":
            self.label = label
        self.start()

    def start(self) -> None:
        """Load the first page for the current filters."""
        if self._api is None:
            return
        loader = partial(
            self._api.conversations,
            view=self.view,
            status=self.status,
            label=self.label,
            window=self.window,
            query=self.query or None,
            limit=self.page_size,
        )
        self.set_loader(_CursorLoader(loader))

    def upsert(self, conversation: Conversation, *, belongs: bool = True) -> None:
        """Show a changed conversation where its newest activity puts it; drop it when it left the filter."""
        row = self.row_of(conversation.id)
        if not belongs:
            if row is not None:
                self.remove_key(conversation.id)
            return
        if row is None:
            if self.query or not self._fits_window(conversation):
                return
            self.insert_item(self._sorted_row(conversation, skip=None), conversation)
            return
        previous = self.items[row]
        if conversation.last_message is None and previous.last_message is not None:
            # A single conversation's resource may lack the preview line the list gave: keep it.
            conversation = replace(conversation, last_message=previous.last_message)
        self.replace_item(conversation)
        target = self._sorted_row(conversation, skip=row)
        self.move_item(row, target)

    def fits_status_and_label(self, conversation: Conversation) -> bool:
        """Whether the conversation's status and labels belong in the chosen status view and label."""
        if self.label is not None and self.label not in conversation.labels:
            return False
        return self.status == ALL_STATUSES or conversation.status in self.status.split(",")

    def _fits_window(self, conversation: Conversation) -> bool:
        if self.window is None:
            return True
        now = datetime.now(UTC)
        window = window_text(conversation.window_closes_at, now)
        if self.window == "closing":
            closes_at = conversation.window_closes_at
            return window.is_open and closes_at is not None and closes_at - now <= URGENT_WINDOW
        return window.is_open == (self.window == "open")

    def show_viewers(self, conversation_id: int, viewers: tuple[Viewer, ...]) -> None:
        """Keep a loaded row's viewers current without asking the backend."""
        row = self.row_of(conversation_id)
        item = self.item_at(row) if row is not None else None
        if item is not None and item.viewers != viewers:
            self.replace_item(replace(item, viewers=viewers))

    def _sorted_row(self, conversation: Conversation, skip: int | None) -> int:
        moment = conversation.last_message_at or _OLDEST
        position = 0
        for row, item in enumerate(self.items):
            if row == skip:
                continue
            if (item.last_message_at or _OLDEST) > moment:
                position += 1
            else:
                break
        return position

    def tick(self) -> None:
        """Repaint every row so window countdowns stay current."""
        if self.items:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.items) - 1, 0))


class _CursorLoader:
    """Adapts `conversations(cursor=…)` to the loader shape the paged model calls."""

    def __init__(self, load: partial[Page[Conversation]]) -> None:
        self._load = load

    def __call__(self, cursor: str | None) -> Page[Conversation]:
        return self._load(cursor=cursor)
