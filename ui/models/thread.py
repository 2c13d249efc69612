"""One conversation's thread as a tree: our messages in time order, each reply under what it answers."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, Qt, Signal

from ui.api.client import ApiClient, ApiError
from ui.api.resources import InboundMessage, Note, OutboundMessage, Page, ThreadItem, ThreadPage, item_time
from ui.i18n import translate
from ui.models.paged import AnyIndex, ItemRole
from ui.presentation import placement_text, plain_error, short_time, status_mark
from ui.runner import BackgroundRunner

PAGE_SIZE = 100
# The API's largest page: a refresh reloads at most this many entries from the start.
MAX_REFRESH = 1000
# internalId 0 marks a top-level row; a reply stores its parent's row + 1.
_TOP_LEVEL = 0


def _load_thread(
    generation: int, api: ApiClient, conversation_id: int, cursor: str | None, limit: int
) -> tuple[int, int, Page[ThreadItem]]:
    """Runs on a worker thread: one page of a thread, tagged with who asked."""
    return generation, conversation_id, api.thread(conversation_id, cursor=cursor, limit=limit)


def describe(item: ThreadItem, answered: bool | None = None) -> str:
    """One line for screen readers: who wrote what, when, and its state (answered: we wrote since)."""
    now = datetime.now(UTC)
    if isinstance(item, OutboundMessage):
        return translate("ThreadModel", "We sent, {time}, {state}: {text}").format(
            time=short_time(item.created_at, now),
            state=status_mark(item.state).label,
            text=item.body or item.purpose,
        )
    if isinstance(item, Note):
        return translate("ThreadModel", "Note by {author}, {time}: {text}").format(
            author=item.author, time=short_time(item.created_at, now), text=item.text
        )
    when = short_time(item.received_at, now)
    if item.choice:
        return translate("ThreadModel", "Customer, {time}, chose: {choice}").format(
            time=when, choice=item.choice
        )
    if item.needs_placing:
        return translate("ThreadModel", "Customer, {time}, not linked to a message: {text}").format(
            time=when, text=item.text or item.type
        )
    if answered is False:
        return translate("ThreadModel", "Customer, {time}, not answered: {text}").format(
            time=when, text=item.text or item.type
        )
    return translate("ThreadModel", "Customer, {time}: {text}").format(time=when, text=item.text or item.type)


def description(item: ThreadItem) -> str:
    """What a screen reader adds after the name: where a message sits, or what happened to ours."""
    if isinstance(item, OutboundMessage):
        return plain_error(item.error) or status_mark(item.state).label
    if isinstance(item, Note):
        return translate("ThreadModel", "internal note, never sent to the customer")
    return placement_text(item.placement)


class ThreadModel(QAbstractItemModel):
    """The thread of the selected conversation; replies are children of the message they answer."""

    # The first page of the selected conversation arrived.
    loaded = Signal()
    # The thread could not be loaded; the text says why.
    load_failed = Signal(str)
    # A page said who has the conversation on screen: a tuple of ui.api.resources.Viewer.
    viewers_seen = Signal(tuple)

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._items: list[ThreadItem] = []
        self._rows_by_key: dict[str, int] = {}
        self._conversation_id: int | None = None
        # ((id, length) of the entries, when we last wrote): screen readers ask per row.
        self._last_sent_cache: tuple[tuple[int, int] | None, datetime | None] = (None, None)
        self._next_cursor: str | None = None
        self._loading = False
        self._refresh_pending = False
        self._generation = 0

    @property
    def conversation_id(self) -> int | None:
        """The conversation shown, if any."""
        return self._conversation_id

    @property
    def items(self) -> list[ThreadItem]:
        """Top-level entries loaded so far."""
        return self._items

    def _last_sent_at(self) -> datetime | None:
        """When we last wrote in the loaded thread (cached until the entries change)."""
        shape = (id(self._items), len(self._items))
        if self._last_sent_cache[0] != shape:
            times = [item.created_at for item in self._items if isinstance(item, OutboundMessage)]
            self._last_sent_cache = (shape, max(times, default=None))
        return self._last_sent_cache[1]

    def outbound_messages(self) -> list[OutboundMessage]:
        """Our messages loaded so far, oldest first."""
        return [item for item in self._items if isinstance(item, OutboundMessage)]

    def newest_time(self) -> datetime | None:
        """When the newest loaded entry (replies included) was written: what the agent has seen."""
        newest: datetime | None = None
        for item in self._items:
            moments = [item_time(item)]
            if isinstance(item, OutboundMessage):
                moments += [reply.received_at for reply in (*item.replies, *item.reactions)]
            for moment in moments:
                if newest is None or moment > newest:
                    newest = moment
        return newest

    # -- loading ------------------------------------------------------------------------------
    def show_conversation(self, conversation_id: int | None) -> None:
        """Switch to another conversation (None clears the pane)."""
        self._generation += 1
        self.beginResetModel()
        self._items = []
        self._rows_by_key = {}
        self._conversation_id = conversation_id
        self._next_cursor = None
        self._loading = False
        self._refresh_pending = False
        self.endResetModel()
        if conversation_id is not None:
            self._request(None, self._on_page)

    def refresh(self) -> None:
        """Load what is shown again and apply the differences when it arrives."""
        if self._conversation_id is None:
            return
        if self._loading:
            # A page is on its way; refresh right after it, so this change is not lost.
            self._refresh_pending = True
            return
        self._refresh_pending = False
        self._generation += 1
        self._request(None, self._on_refreshed, limit=min(MAX_REFRESH, max(PAGE_SIZE, len(self._items) + 50)))

    def show_page(self, conversation_id: int, page: Page[ThreadItem]) -> None:
        """Show a page already at hand (tests and benchmarks)."""
        self._generation += 1
        self._conversation_id = conversation_id
        self._replace(page)

    def _request(self, cursor: str | None, on_done: Any, *, limit: int = PAGE_SIZE) -> None:
        if self._api is None or self._runner is None or self._conversation_id is None:
            return
        self._loading = True
        call = partial(_load_thread, self._generation, self._api, self._conversation_id, cursor, limit)
        self._runner.submit(call, on_done, self._on_failed)

    def _on_page(self, tagged: tuple[int, int, Page[ThreadItem]]) -> None:
        generation, _conversation_id, page = tagged
        if generation != self._generation:
            return
        self._loading = False
        self._announce_viewers(page)
        first = not self._items
        self._next_cursor = page.next_cursor
        fresh = [item for item in page.items if self._key(item) not in self._rows_by_key]
        if fresh:
            start = len(self._items)
            self.beginInsertRows(QModelIndex(), start, start + len(fresh) - 1)
            for item in fresh:
                self._rows_by_key[self._key(item)] = len(self._items)
                self._items.append(item)
            self.endInsertRows()
        if first:
            self.loaded.emit()
        if self._refresh_pending:
            self.refresh()

    def _on_refreshed(self, tagged: tuple[int, int, Page[ThreadItem]]) -> None:
        generation, _conversation_id, page = tagged
        if generation != self._generation:
            return
        self._loading = False
        self._announce_viewers(page)
        if not self._apply_differences(page):
            self._replace(page)

    def _announce_viewers(self, page: Page[ThreadItem]) -> None:
        if isinstance(page, ThreadPage):
            self.viewers_seen.emit(page.viewers)

    def _apply_differences(self, page: Page[ThreadItem]) -> bool:
        """Update changed rows and append new ones in place; False when the order changed (reset instead)."""
        fresh = page.items
        for row, item in enumerate(fresh[: len(self._items)]):
            old = self._items[row]
            if self._key(old) != self._key(item):
                return False
            old_replies = len(old.replies) if isinstance(old, OutboundMessage) else 0
            new_replies = len(item.replies) if isinstance(item, OutboundMessage) else 0
            if new_replies < old_replies:
                return False
        for row, item in enumerate(fresh[: len(self._items)]):
            old = self._items[row]
            if old == item:
                continue
            old_replies = len(old.replies) if isinstance(old, OutboundMessage) else 0
            new_replies = len(item.replies) if isinstance(item, OutboundMessage) else 0
            parent = self.index(row, 0)
            if new_replies > old_replies:
                self.beginInsertRows(parent, old_replies, new_replies - 1)
                self._items[row] = item
                self.endInsertRows()
            else:
                self._items[row] = item
            self.dataChanged.emit(parent, parent)
            if new_replies:
                self.dataChanged.emit(self.index(0, 0, parent), self.index(new_replies - 1, 0, parent))
        if len(fresh) > len(self._items):
            extra = fresh[len(self._items) :]
            start = len(self._items)
            self.beginInsertRows(QModelIndex(), start, start + len(extra) - 1)
            for item in extra:
                self._rows_by_key[self._key(item)] = len(self._items)
                self._items.append(item)
            self.endInsertRows()
            self._next_cursor = page.next_cursor
        return True

    def _replace(self, page: Page[ThreadItem]) -> None:
        self._loading = False
        self.beginResetModel()
        self._items = list(page.items)
        self._rows_by_key = {self._key(item): row for row, item in enumerate(self._items)}
        self._next_cursor = page.next_cursor
        self.endResetModel()
        self.loaded.emit()

    def _on_failed(self, error: Exception) -> None:
        self._loading = False
        self.load_failed.emit(error.message if isinstance(error, ApiError) else str(error))

    @staticmethod
    def _key(item: ThreadItem) -> str:
        if isinstance(item, OutboundMessage):
            return item.key
        if isinstance(item, Note):
            return f"note:{item.id}"
        return f"in:{item.wamid}"

    # -- live changes -------------------------------------------------------------------------
    def update_state(self, key: str, state: str) -> bool:
        """Show a message's new state in place; False when it is not loaded here."""
        row = self._rows_by_key.get(key)
        if row is None:
            return False
        item = self._items[row]
        assert isinstance(item, OutboundMessage)
        self._items[row] = replace(item, state=state)
        index = self.index(row, 0)
        self.dataChanged.emit(index, index)
        return True

    def index_of_key(self, key: str) -> QModelIndex:
        """The index of one of our messages, or an invalid index."""
        row = self._rows_by_key.get(key)
        return self.index(row, 0) if row is not None else QModelIndex()

    def index_of_inbound(self, wamid: str) -> QModelIndex:
        """The index of a customer's message wherever it sits, or an invalid index."""
        row = self._rows_by_key.get(f"in:{wamid}")
        if row is not None:
            return self.index(row, 0)
        for parent_row, item in enumerate(self._items):
            if isinstance(item, OutboundMessage):
                for child_row, reply in enumerate(item.replies):
                    if reply.wamid == wamid:
                        return self.index(child_row, 0, self.index(parent_row, 0))
        return QModelIndex()

    def index_of_message(self, wamid_or_key: str) -> QModelIndex:
        """The index of our message by key, or of a customer's by wamid, or an invalid index."""
        index = self.index_of_key(wamid_or_key)
        return index if index.isValid() else self.index_of_inbound(wamid_or_key)

    @property
    def has_more(self) -> bool:
        """Whether later pages of the thread exist that are not loaded yet."""
        return self._next_cursor is not None

    @property
    def is_loading(self) -> bool:
        """Whether a page is on its way."""
        return self._loading

    # -- Qt's model interface -----------------------------------------------------------------
    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Top-level rows carry id 0; replies carry their parent's row + 1."""
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, _TOP_LEVEL) if row < len(self._items) else QModelIndex()
        if parent.internalId() != _TOP_LEVEL or parent.row() >= len(self._items):
            return QModelIndex()
        owner = self._items[parent.row()]
        if isinstance(owner, OutboundMessage) and row < len(owner.replies):
            return self.createIndex(row, 0, parent.row() + 1)
        return QModelIndex()

    def parent(self, child: AnyIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """A reply's parent is the message it answers; top-level rows have none."""
        if not child.isValid() or child.internalId() == _TOP_LEVEL:
            return QModelIndex()
        return self.createIndex(child.internalId() - 1, 0, _TOP_LEVEL)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        """Top-level entries, or the replies of one of our messages."""
        if not parent.isValid():
            return len(self._items)
        if parent.internalId() != _TOP_LEVEL or parent.column() != 0:
            return 0
        owner = self._items[parent.row()] if parent.row() < len(self._items) else None
        return len(owner.replies) if isinstance(owner, OutboundMessage) else 0

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        """One column; the delegate draws each message."""
        return 1

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008
        """Only our messages with replies have children."""
        return self.rowCount(parent) > 0

    def item(self, index: AnyIndex) -> ThreadItem | None:
        """The message at an index."""
        if not index.isValid():
            return None
        if index.internalId() == _TOP_LEVEL:
            return self._items[index.row()] if index.row() < len(self._items) else None
        owner = self._items[index.internalId() - 1]
        if isinstance(owner, OutboundMessage) and index.row() < len(owner.replies):
            return owner.replies[index.row()]
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """The message (ItemRole) or a one-line description of it."""
        item = self.item(index)
        if item is None:
            return None
        if role == ItemRole:
            return item
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            return description(item)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if isinstance(item, InboundMessage):
                last_sent = self._last_sent_at()
                return describe(item, answered=last_sent is not None and last_sent > item.received_at)
            return describe(item)
        return None

    def canFetchMore(self, parent: AnyIndex) -> bool:
        """Whether more of the thread can be loaded now."""
        return not parent.isValid() and self._next_cursor is not None and not self._loading

    def fetchMore(self, parent: AnyIndex) -> None:
        """Load the next page of the thread."""
        if self.canFetchMore(parent):
            self._request(self._next_cursor, self._on_page)


def unattributed(item: ThreadItem | None) -> InboundMessage | None:
    """The customer's message if it is waiting to be linked, else None."""
    if isinstance(item, InboundMessage) and item.needs_placing:
        return item
    return None
