"""The conversation list: Mine / Unassigned / All, filtered by window and search, newest first."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, Qt

from ui.api.client import ApiClient
from ui.api.resources import Conversation, Page
from ui.models.paged import AnyIndex, PagedListModel
from ui.presentation import window_text
from ui.runner import BackgroundRunner

PAGE_SIZE = 100
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
        self.page_size = PAGE_SIZE

    def item_key(self, item: Conversation) -> Hashable:
        """Conversations are keyed by id."""
        return item.id

    def display_text(self, item: Conversation) -> str:
        """Name, window state and unread count, for screen readers and tooltips."""
        window = window_text(item.window_closes_at, datetime.now(UTC)).text
        unread = f", {item.unread} unread" if item.unread else ""
        return f"{item.contact.display_name}, window {window}{unread}"

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Adds the contact name as the edit role so keyboard search finds it."""
        if role == Qt.ItemDataRole.EditRole:
            item = self.item_at(index.row()) if index.isValid() else None
            return item.contact.display_name if item else None
        return super().data(index, role)

    def set_filter(
        self, *, view: str | None = None, window: str | None = "", query: str | None = None
    ) -> None:
        """Change Mine/Unassigned/All, open/closed (None for both) or the search text, and reload."""
        if view is not None:
            self.view = view
        if window != "":
            self.window = window
        if query is not None:
            self.query = query
        self.start()

    def start(self) -> None:
        """Load the first page for the current filters."""
        if self._api is None:
            return
        loader = partial(
            self._api.conversations,
            view=self.view,
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

    def _fits_window(self, conversation: Conversation) -> bool:
        if self.window is None:
            return True
        is_open = window_text(conversation.window_closes_at, datetime.now(UTC)).is_open
        return is_open == (self.window == "open")

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
