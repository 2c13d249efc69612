"""Search in what was said: words typed in a box find messages in every thread; choosing one opens it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QPainter, QTextCharFormat, QTextLayout
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QListView,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from ui.api.library import LibraryCalls, SearchHit
from ui.api.resources import Page
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.models.paged import ItemRole, PagedListModel
from ui.presentation import short_time
from ui.runner import BackgroundRunner
from ui.theme import surface_qcolor, text_qcolor
from ui.views.plain_text import plain_label

AnyIndex = QModelIndex | QPersistentModelIndex

# Typing pauses this long before a search goes out, so each keystroke does not cost a request.
SEARCH_DELAY_MS = 300
PAGE_SIZE = 50
# The backend refuses longer queries; saying so here saves a round trip.
MAX_QUERY_LENGTH = 200
# Characters of a message shown around its first matched word.
SNIPPET_LENGTH = 160
SNIPPET_LEAD = 40
SNIPPET_LINES = 2
ELLIPSIS = "…"
# The role that gives a row's snippet and the spans of its matched words.
SnippetRole = ItemRole + 1

HINT_TEXT = QT_TRANSLATE_NOOP(
    "SearchDialog", "Type words to find them in every conversation: any case, accents optional."
)
PADDING = 8
MUTED = "#4b5563"
MATCH_FILL = "#fef08a"


def _fold(character: str) -> str:
    """One character without accents and case, as the search compares them ("É" → "e")."""
    decomposed = unicodedata.normalize("NFKD", character)
    return "".join(part for part in decomposed if not unicodedata.combining(part)).casefold()


def query_words(query: str) -> list[str]:
    """The words of a query, folded, in the order typed."""
    return re.findall(r"\w+", "".join(_fold(character) for character in query))


def match_spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Where the words occur in `text` as (start, end) of whole words that begin with one of them."""
    if not words:
        return []
    folded_parts = [_fold(character) for character in text]
    folded = "".join(folded_parts)
    # Each folded character remembers the original character it came from.
    origin = [index for index, part in enumerate(folded_parts) for _ in part]
    alternatives = "|".join(re.escape(word) for word in sorted(set(words), key=len, reverse=True))
    spans: list[tuple[int, int]] = []
    for found in re.finditer(rf"(?<!\w)(?:{alternatives})\w*", folded):
        start, end = origin[found.start()], origin[found.end() - 1] + 1
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


@dataclass(frozen=True)
class Snippet:
    """A piece of a message on one line, and where the searched words are in it."""

    text: str
    spans: tuple[tuple[int, int], ...]


def snippet(text: str, words: list[str], length: int = SNIPPET_LENGTH) -> Snippet:
    """The part of `text` around its first matched word, on one line, with the matches' positions."""
    flat = re.sub(r"\s", " ", text)
    spans = match_spans(flat, words)
    if len(flat) <= length:
        return Snippet(flat, tuple(spans))
    first = spans[0][0] if spans else 0
    start = max(0, first - SNIPPET_LEAD)
    if start > 0:
        # Start at a word, not in the middle of one.
        space = flat.find(" ", start, first)
        start = space + 1 if space != -1 else start
    end = min(len(flat), start + length)
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(flat) else ""
    shift = len(prefix) - start
    shown = tuple(
        (max(span_start, start) + shift, min(span_end, end) + shift)
        for span_start, span_end in spans
        if span_start < end and span_end > start
    )
    return Snippet(prefix + flat[start:end] + suffix, shown)


def direction_text(hit: SearchHit) -> str:
    """Who wrote the message, in words."""
    return (
        translate("SearchDialog", "customer wrote") if hit.inbound else translate("SearchDialog", "we sent")
    )


class SearchResultsModel(PagedListModel[SearchHit]):
    """The messages found, newest first, paged as the API pages them."""

    def __init__(
        self, api: LibraryCalls | None, runner: BackgroundRunner | None, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, parent)
        self._api = api
        self._words: list[str] = []
        self._snippets: dict[Hashable, Snippet] = {}
        self.query = ""

    def search(self, query: str) -> None:
        """Find the messages holding every word of `query` (an empty query shows nothing)."""
        self.query = query
        self._words = query_words(query)
        self._snippets = {}
        loader = partial(_search_page, self._api, query) if query and self._api is not None else None
        self.set_loader(loader)

    def item_key(self, item: SearchHit) -> Hashable:
        """A message is its direction and its wamid or key."""
        return (item.direction, item.ref)

    def snippet_of(self, item: SearchHit) -> Snippet:
        """The row's snippet, computed once per search."""
        key = self.item_key(item)
        cached = self._snippets.get(key)
        if cached is None:
            cached = self._snippets[key] = snippet(item.text, self._words)
        return cached

    def display_text(self, item: SearchHit) -> str:
        """Who, which way, when and the words around the match, as plain text."""
        when = short_time(item.at, datetime.now(UTC))
        return f"{item.contact.display_name} · {direction_text(item)} · {when}\n{self.snippet_of(item).text}"

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """The snippet (SnippetRole) besides what every paged list gives."""
        if role == SnippetRole:
            item = self.item_at(index.row()) if index.isValid() else None
            return None if item is None else self.snippet_of(item)
        return super().data(index, role)


def _search_page(api: LibraryCalls, query: str, cursor: str | None) -> Page[SearchHit]:
    """Runs on a worker thread: one page of results."""
    return api.search(query, cursor=cursor, limit=PAGE_SIZE)


class SearchHitDelegate(QStyledItemDelegate):
    """A contact line (name, direction, time) over the snippet, with the matched words highlighted."""

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        """A header line and the snippet's lines."""
        lines = 1 + SNIPPET_LINES
        return QSize(option.rect.width(), QFontMetrics(option.font).lineSpacing() * lines + 2 * PADDING)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        """Draw one result; every text is drawn as plain text."""
        hit = index.data(ItemRole)
        shown = index.data(SnippetRole)
        if not isinstance(hit, SearchHit) or not isinstance(shown, Snippet):
            return
        painter.save()
        rect = option.rect
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(rect, surface_qcolor("#e8f0fe"))
        elif option.state & QStyle.StateFlag.State_MouseOver:
            painter.fillRect(rect, surface_qcolor("#f5f7fa"))
        painter.setPen(surface_qcolor("#e5e7eb"))
        painter.drawLine(rect.bottomLeft(), rect.bottomRight())

        inner = rect.adjusted(PADDING, PADDING, -PADDING, -PADDING)
        metrics = QFontMetrics(option.font)
        line_height = metrics.lineSpacing()
        header = QRect(inner.left(), inner.top(), inner.width(), line_height)
        when = short_time(hit.at, datetime.now(UTC))
        painter.setFont(option.font)
        painter.setPen(text_qcolor(MUTED))
        painter.drawText(header, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), when)
        about = f"  · {direction_text(hit)}"
        about_width = metrics.horizontalAdvance(about)
        bold = QFont(option.font)
        bold.setBold(True)
        name_width = max(0, header.width() - metrics.horizontalAdvance(when) - about_width - 16)
        name = QFontMetrics(bold).elidedText(
            hit.contact.display_name, Qt.TextElideMode.ElideRight, name_width
        )
        painter.setFont(bold)
        painter.setPen(text_qcolor("#111827"))
        painter.drawText(header, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), name)
        name_advance = QFontMetrics(bold).horizontalAdvance(name)
        painter.setFont(option.font)
        painter.setPen(text_qcolor(MUTED))
        painter.drawText(
            header.adjusted(name_advance, 0, 0, 0),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            about,
        )

        highlight = QTextCharFormat()
        highlight.setFontWeight(QFont.Weight.Bold)
        highlight.setBackground(surface_qcolor(MATCH_FILL))
        ranges = []
        for start, end in shown.spans:
            matched = QTextLayout.FormatRange()
            matched.start, matched.length, matched.format = start, end - start, highlight
            ranges.append(matched)
        layout = QTextLayout(shown.text, option.font)
        layout.setFormats(ranges)
        layout.beginLayout()
        top = 0.0
        for _ in range(SNIPPET_LINES):
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(inner.width())
            line.setPosition(QPointF(0, top))
            top += line.height()
        layout.endLayout()
        painter.setPen(text_qcolor("#111827"))
        painter.setClipRect(inner)
        layout.draw(painter, QPointF(inner.left(), inner.top() + line_height))
        painter.restore()


class SearchView(QWidget):
    """A search box over the messages found; choosing one asks to open its conversation at that message."""

    # A result was chosen: its conversation, and the wamid (customer's message) or key (ours).
    message_chosen = Signal(int, str)

    def __init__(
        self, api: LibraryCalls | None, runner: BackgroundRunner | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.model = SearchResultsModel(api, runner, self)
        self.model.loaded.connect(self._results_loaded)
        self.model.load_failed.connect(self._search_failed)
        self.model.count_changed.connect(self._count_changed)
        # Why the last request failed, until the next one goes out.
        self._failure = ""

        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText(translate("SearchView", "Search words in every conversation…"))
        self.search_box.setAccessibleName(translate("SearchView", "Search messages"))
        self.search_box.setClearButtonEnabled(True)
        self.search_box.textChanged.connect(self._text_changed)
        self.search_box.returnPressed.connect(self.search_now)
        self.search_box.installEventFilter(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.search_now)

        self.results = QListView()
        self.results.setAccessibleName(translate("SearchView", "Messages found"))
        self.results.setModel(self.model)
        self.results.setItemDelegate(SearchHitDelegate(self.results))
        self.results.setUniformItemSizes(True)
        self.results.setMouseTracking(True)
        self.results.clicked.connect(self._choose)
        self.results.installEventFilter(self)

        self.status_label = plain_label(translate("SearchDialog", HINT_TEXT))
        self.status_label.setObjectName("hint")
        self.status_label.setWordWrap(True)
        self.more_button = QPushButton(translate("SearchView", "More results"))
        self.more_button.setAccessibleName(translate("SearchView", "Load more results"))
        self.more_button.clicked.connect(self.load_more)
        self.more_button.hide()
        bottom = QHBoxLayout()
        bottom.addWidget(self.status_label, 1)
        bottom.addWidget(self.more_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search_box)
        layout.addWidget(self.results, 1)
        layout.addLayout(bottom)

    def focus_search(self) -> None:
        """Put the cursor in the search box, its text selected."""
        self.search_box.setFocus()
        self.search_box.selectAll()

    def search_now(self) -> None:
        """Search for the box's text at once (Enter, or the pause after typing)."""
        self._timer.stop()
        query = self.search_box.text().strip()
        if query == self.model.query and (self.model.items or self.model.is_loading):
            return
        if len(query) > MAX_QUERY_LENGTH:
            self.model.search("")
            self._update_more_button()
            self.status_label.setText(
                translate("SearchDialog", "Search for at most {count} characters.").format(
                    count=MAX_QUERY_LENGTH
                )
            )
            return
        self._failure = ""
        self.model.search(query)
        self.status_label.setText(
            translate("SearchDialog", "Searching…") if query else translate("SearchDialog", HINT_TEXT)
        )

    def load_more(self) -> None:
        """Ask for the next page of results."""
        if self.model.canFetchMore(QModelIndex()):
            self._failure = ""
            self.model.fetchMore(QModelIndex())
            self._update_more_button()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down in the box moves to the results; Enter on a result chooses it."""
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if watched is self.search_box and key == Qt.Key.Key_Down and self.model.rowCount():
                self.results.setFocus()
                self.results.setCurrentIndex(self.model.index(0, 0))
                return True
            if watched is self.results and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._choose(self.results.currentIndex())
                return True
        return super().eventFilter(watched, event)

    def _text_changed(self, _text: str) -> None:
        self._timer.start()

    def _results_loaded(self) -> None:
        if not self.model.query:
            return
        if not self.model.items:
            self.status_label.setText(
                translate("SearchDialog", "No message contains “{query}”.").format(query=self.model.query)
            )
            return
        count = len(self.model.items)
        if self.model.has_more:
            found = translate("SearchDialog", "%n+ messages found.", None, count)
        else:
            found = translate("SearchDialog", "%n message(s) found.", None, count)
        self.status_label.setText(found)

    def _search_failed(self, reason: str) -> None:
        self._failure = reason
        self.status_label.setText(translate("SearchDialog", "Search failed: {reason}").format(reason=reason))
        self._update_more_button()

    def _count_changed(self) -> None:
        self._update_more_button()
        if self.model.items and not self.model.is_loading and not self._failure:
            self._results_loaded()  # a further page arrived: the count grew

    def _update_more_button(self) -> None:
        self.more_button.setVisible(self.model.has_more)
        self.more_button.setEnabled(not self.model.is_loading)

    def _choose(self, index: QModelIndex) -> None:
        hit = index.data(ItemRole) if index.isValid() else None
        if isinstance(hit, SearchHit):
            self.message_chosen.emit(hit.conversation_id, hit.ref)


class SearchDialog(QDialog):
    """The search view in its own window; choosing a message closes it."""

    # A result was chosen: its conversation, and the wamid (customer's message) or key (ours).
    message_chosen = Signal(int, str)

    def __init__(
        self, api: LibraryCalls | None, runner: BackgroundRunner | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("SearchDialog", "Search messages"))
        self.resize(560, 520)
        self.view = SearchView(api, runner, self)
        self.view.message_chosen.connect(self._chosen)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)

    def _chosen(self, conversation_id: int, ref: str) -> None:
        self.message_chosen.emit(conversation_id, ref)
        self.accept()
