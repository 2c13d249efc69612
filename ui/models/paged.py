"""A list model that loads API pages on demand through the background runner."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from ui.api.client import ApiError
from ui.api.resources import Page
from ui.presentation import tooltip_text
from ui.runner import BackgroundRunner

T = TypeVar("T")
ItemRole = Qt.ItemDataRole.UserRole + 1
AnyIndex = QModelIndex | QPersistentModelIndex


def _load_tagged(generation: int, loader: Callable[[str | None], Page[Any]], cursor: str | None) -> Any:
    """Runs on a worker thread: one page, tagged with the generation that asked for it."""
    return generation, loader(cursor)


class PagedListModel(QAbstractListModel, Generic[T]):
    """Rows from a paged API list; Qt asks for more pages with canFetchMore/fetchMore as views scroll."""

    # The first page of a (re)load arrived.
    loaded = Signal()
    # A page could not be loaded; the text says why.
    load_failed = Signal(str)
    # The number of rows, or whether more pages exist, changed.
    count_changed = Signal()

    def __init__(self, runner: BackgroundRunner | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._loader: Callable[[str | None], Page[T]] | None = None
        self._items: list[T] = []
        self._rows_by_key: dict[Hashable, int] = {}
        self._next_cursor: str | None = None
        self._has_more = False
        self._loading = False
        self._generation = 0

    # -- what subclasses say ------------------------------------------------------------------
    def item_key(self, item: T) -> Hashable:
        """The identity of an item, used to update or remove it in place."""
        raise NotImplementedError

    def display_text(self, item: T) -> str:
        """The text of the item for Qt's display role."""
        return str(item)

    # -- loading ------------------------------------------------------------------------------
    def set_loader(self, loader: Callable[[str | None], Page[T]] | None) -> None:
        """Start over with a new source of pages (None empties the model)."""
        self._loader = loader
        self.reload()

    def reload(self) -> None:
        """Drop every row and load the first page again."""
        self._generation += 1
        self.beginResetModel()
        self._items = []
        self._rows_by_key = {}
        self._next_cursor = None
        self._has_more = self._loader is not None
        self._loading = False
        self.endResetModel()
        self.count_changed.emit()
        if self._loader is not None:
            self._request_page(None)

    def merge_first_page(self) -> None:
        """Load the first page again and move its rows to the top, keeping selections (live lists)."""
        if self._loader is None or self._runner is None or self._loading:
            return
        self._generation += 1
        self._loading = True
        call = partial(_load_tagged, self._generation, self._loader, None)
        self._runner.submit(call, self._on_merged, self._on_failed)

    def _on_merged(self, tagged: tuple[int, Page[T]]) -> None:
        generation, page = tagged
        if generation != self._generation:
            return
        self._loading = False
        if not self._items:
            self._replace(page)
            return
        fresh_keys = {self.item_key(item) for item in page.items}
        persistent = self.persistentIndexList()
        persistent_keys = [
            self.item_key(self._items[index.row()]) if 0 <= index.row() < len(self._items) else None
            for index in persistent
        ]
        self.layoutAboutToBeChanged.emit()
        self._items = list(page.items) + [
            item for item in self._items if self.item_key(item) not in fresh_keys
        ]
        self._reindex()
        moved = [
            self.index(self._rows_by_key[key], 0) if key in self._rows_by_key else QModelIndex()
            for key in persistent_keys
        ]
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()
        self.count_changed.emit()

    def refresh(self) -> None:
        """Load the first page again; the rows are replaced once it arrives."""
        if self._loader is None or self._runner is None:
            return
        self._generation += 1
        self._loading = True
        call = partial(_load_tagged, self._generation, self._loader, None)
        self._runner.submit(call, self._on_refreshed, self._on_failed)

    def show_page(self, page: Page[T]) -> None:
        """Show a page already at hand (tests and benchmarks), replacing the rows."""
        self._generation += 1
        self._loading = False
        self._replace(page)

    def _request_page(self, cursor: str | None) -> None:
        if self._loader is None or self._runner is None:
            return
        self._loading = True
        call = partial(_load_tagged, self._generation, self._loader, cursor)
        self._runner.submit(call, self._on_page, self._on_failed)

    def _on_page(self, tagged: tuple[int, Page[T]]) -> None:
        generation, page = tagged
        if generation != self._generation:
            return
        self._loading = False
        first = not self._items
        fresh = [item for item in page.items if self.item_key(item) not in self._rows_by_key]
        self._next_cursor = page.next_cursor
        self._has_more = page.next_cursor is not None
        if fresh:
            start = len(self._items)
            self.beginInsertRows(QModelIndex(), start, start + len(fresh) - 1)
            for item in fresh:
                self._rows_by_key[self.item_key(item)] = len(self._items)
                self._items.append(item)
            self.endInsertRows()
        self.count_changed.emit()
        if first:
            self.loaded.emit()

    def _on_refreshed(self, tagged: tuple[int, Page[T]]) -> None:
        generation, page = tagged
        if generation != self._generation:
            return
        self._loading = False
        self._replace(page)

    def _replace(self, page: Page[T]) -> None:
        self.beginResetModel()
        self._items = list(page.items)
        self._rows_by_key = {self.item_key(item): row for row, item in enumerate(self._items)}
        self._next_cursor = page.next_cursor
        self._has_more = page.next_cursor is not None
        self.endResetModel()
        self.count_changed.emit()
        self.loaded.emit()

    def _on_failed(self, error: Exception) -> None:
        self._loading = False
        if not self._items:
            # Nothing to show and nothing known to follow: views should not keep asking.
            self._has_more = False
            self.count_changed.emit()
        self.load_failed.emit(error.message if isinstance(error, ApiError) else str(error))

    # -- Qt's model interface -----------------------------------------------------------------
    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's default argument
        """Rows loaded so far (a list has no children)."""
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """The item (ItemRole), its text (DisplayRole, AccessibleTextRole) or that text as a tooltip."""
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role == ItemRole:
            return item
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.display_text(item)
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip_text(self.display_text(item))
        return None

    def canFetchMore(self, parent: AnyIndex) -> bool:
        """Whether another page can be asked for now."""
        return not parent.isValid() and self._has_more and not self._loading

    def fetchMore(self, parent: AnyIndex) -> None:
        """Ask for the next page; rows are appended when it arrives."""
        if self.canFetchMore(parent):
            self._request_page(self._next_cursor)

    # -- reading and editing rows -------------------------------------------------------------
    @property
    def items(self) -> list[T]:
        """The rows loaded so far (do not change the list)."""
        return self._items

    @property
    def has_more(self) -> bool:
        """Whether more pages exist beyond the loaded rows."""
        return self._has_more

    @property
    def is_loading(self) -> bool:
        """Whether a page is on its way."""
        return self._loading

    def row_of(self, key: Hashable) -> int | None:
        """The row holding the item with this key, if loaded."""
        return self._rows_by_key.get(key)

    def item_at(self, row: int) -> T | None:
        """The item at a row, or None."""
        return self._items[row] if 0 <= row < len(self._items) else None

    def replace_item(self, item: T) -> bool:
        """Replace a loaded item with a newer copy of it; False when it is not loaded."""
        row = self._rows_by_key.get(self.item_key(item))
        if row is None:
            return False
        self._items[row] = item
        index = self.index(row, 0)
        self.dataChanged.emit(index, index)
        return True

    def insert_item(self, row: int, item: T) -> None:
        """Insert an item at a row (it must not be loaded already)."""
        row = max(0, min(row, len(self._items)))
        self.beginInsertRows(QModelIndex(), row, row)
        self._items.insert(row, item)
        self.endInsertRows()
        self._reindex()
        self.count_changed.emit()

    def move_item(self, source_row: int, target_row: int) -> None:
        """Move a loaded row to another position."""
        if source_row == target_row or not 0 <= source_row < len(self._items):
            return
        target_row = max(0, min(target_row, len(self._items) - 1))
        # Qt counts the destination before the move; moving down names the row after the target.
        destination = target_row + 1 if target_row > source_row else target_row
        if not self.beginMoveRows(QModelIndex(), source_row, source_row, QModelIndex(), destination):
            return
        item = self._items.pop(source_row)
        self._items.insert(target_row, item)
        self.endMoveRows()
        self._reindex()

    def remove_key(self, key: Hashable) -> bool:
        """Remove the item with this key; False when it is not loaded."""
        row = self._rows_by_key.get(key)
        if row is None:
            return False
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._items[row]
        self.endRemoveRows()
        self._reindex()
        self.count_changed.emit()
        return True

    def _reindex(self) -> None:
        self._rows_by_key = {self.item_key(item): row for row, item in enumerate(self._items)}
