"""Painted rows: conversations and thread messages are drawn by delegates, never a widget per row."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from ui.api.resources import Conversation, InboundMessage, MediaInfo, Note, OutboundMessage, ThreadItem
from ui.i18n import QT_TRANSLATE_NOOP, translate
from ui.media import THUMBNAIL_HEIGHT, THUMBNAIL_WIDTH, ThumbnailCache
from ui.models.paged import ItemRole
from ui.presentation import (
    clock_text,
    length_text,
    plain_error,
    short_time,
    size_text,
    status_mark,
    text_direction,
    window_text,
)
from ui.theme import surface_qcolor, text_qcolor
from ui.views.media_actions import MediaActions, NowPlaying

AnyIndex = QModelIndex | QPersistentModelIndex

PADDING = 8
BUBBLE_RADIUS = 8
REPLY_INDENT = 28
MAX_BUBBLE_FRACTION = 0.72
LINK_TEXT = QT_TRANSLATE_NOOP("delegates", "Link to message…")

OUTBOUND_FILL = "#dcf8c6"
INBOUND_FILL = "#ffffff"
UNATTRIBUTED_FILL = "#fff7e6"
UNATTRIBUTED_BORDER = "#f59e0b"
CHOICE_FILL = "#e0f2fe"
# Notes are for the team only: pale yellow with an amber edge, so nobody takes one for a message.
NOTE_FILL = "#fef9c3"
NOTE_BORDER = "#ca8a04"
NOTE_CAPTION = "#854d0e"
MUTED = "#4b5563"
URGENT = "#b91c1c"
LINK = "#2563eb"
SELECTED_BORDER = "#2563eb"
PLAYING = "#15803d"
PROGRESS_TRACK = "#d1d5db"


MEDIA_LABELS = {
    "image": QT_TRANSLATE_NOOP("delegates", "Photo"),
    "sticker": QT_TRANSLATE_NOOP("delegates", "Sticker"),
    "audio": QT_TRANSLATE_NOOP("delegates", "Voice note"),
    "video": QT_TRANSLATE_NOOP("delegates", "Video"),
    "document": QT_TRANSLATE_NOOP("delegates", "Document"),
}
_MEDIA_ACTIONS = {
    "image": QT_TRANSLATE_NOOP("delegates", "click to view"),
    "sticker": QT_TRANSLATE_NOOP("delegates", "click to view"),
    "audio": QT_TRANSLATE_NOOP("delegates", "click to play"),
    "video": QT_TRANSLATE_NOOP("delegates", "click to save"),
    "document": QT_TRANSLATE_NOOP("delegates", "click to save"),
}


def media_label(kind: str) -> str:
    """A kind of file in words: Photo, Voice note, Document…"""
    return translate("delegates", MEDIA_LABELS.get(kind, QT_TRANSLATE_NOOP("delegates", "File")))


def playing_line(media: MediaInfo, playing: NowPlaying) -> str:
    """What the bubble of the voice note playing says: how far it is, and that a click stops it."""
    length = playing.length_seconds or media.duration_seconds
    position = clock_text(playing.position_seconds)
    progress = (
        translate("delegates", "playing {position} / {length}").format(
            position=position, length=length_text(length)
        )
        if length
        else translate("delegates", "playing {position}").format(position=position)
    )
    return "  ·  ".join((media_label(media.kind), progress, translate("delegates", "click to stop")))


def media_line(media: MediaInfo, playing: NowPlaying | None = None) -> str:
    """What the bubble says about a file: downloading, could not download (Retry), or what a click does.

    A voice note, audio or video says how long it lasts (a voice note says that instead of its size),
    and the one playing says how far it is.
    """
    label = media_label(media.kind)
    if media.state == "pending":
        return translate("delegates", "{kind}  ·  downloading…").format(kind=label)
    if media.state == "failed":
        reason = media.error or translate("delegates", "unknown reason")
        return translate("delegates", "could not download: {reason}  ·  Retry").format(reason=reason)
    if playing is not None and playing.media_id == media.id:
        return playing_line(media, playing)
    timed = media.kind in ("audio", "video") and bool(media.duration_seconds)
    length = length_text(media.duration_seconds or 0) if timed else ""
    size = "" if timed and media.kind == "audio" else size_text(media.size)
    action = translate(
        "delegates", _MEDIA_ACTIONS.get(media.kind, QT_TRANSLATE_NOOP("delegates", "click to save"))
    )
    name = media.filename if media.kind == "document" and media.filename else label
    return "  ·  ".join(part for part in (name, length, size, action) if part)


class ConversationDelegate(QStyledItemDelegate):
    """Two lines per conversation: contact and time; last message and window countdown; unread badge."""

    ROW_HEIGHT = 58

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        """Every row has the same height."""
        return QSize(option.rect.width(), self.ROW_HEIGHT)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        """Draw one conversation row."""
        conversation = index.data(ItemRole)
        if not isinstance(conversation, Conversation):
            return
        painter.save()
        rect = option.rect
        state = option.state
        if state & QStyle.StateFlag.State_Selected:
            painter.fillRect(rect, surface_qcolor("#e8f0fe"))
        elif state & QStyle.StateFlag.State_MouseOver:
            painter.fillRect(rect, surface_qcolor("#f5f7fa"))
        painter.setPen(surface_qcolor("#e5e7eb"))
        painter.drawLine(rect.bottomLeft(), rect.bottomRight())

        now = datetime.now(UTC)
        inner = rect.adjusted(PADDING + 2, 6, -PADDING - 2, -6)
        base_font = QFont(option.font)
        bold = QFont(base_font)
        bold.setBold(True)
        small = QFont(base_font)
        small.setPointSizeF(max(7.0, base_font.pointSizeF() - 1))
        top_half = QRect(inner.left(), inner.top(), inner.width(), inner.height() // 2)
        bottom_half = QRect(
            inner.left(), inner.top() + inner.height() // 2, inner.width(), inner.height() // 2
        )

        time_text = short_time(conversation.last_message_at, now)
        painter.setFont(small)
        painter.setPen(text_qcolor(MUTED))
        time_width = QFontMetrics(small).horizontalAdvance(time_text) + 4
        painter.drawText(
            top_half, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), time_text
        )

        painter.setFont(bold if conversation.unread else base_font)
        painter.setPen(text_qcolor("#111827"))
        name_rect = top_half.adjusted(0, 0, -time_width - 8, 0)
        # A customer who opted out of marketing carries the mark in the list too.
        shown_name = ("⊘ " if conversation.contact.opted_out else "") + conversation.contact.display_name
        name = QFontMetrics(painter.font()).elidedText(
            shown_name, Qt.TextElideMode.ElideRight, name_rect.width()
        )
        name_rect = QStyle.visualRect(option.direction, rect, name_rect)
        painter.setLayoutDirection(text_direction(name, option.direction))
        painter.drawText(name_rect, int(Qt.AlignmentFlag.AlignVCenter) | _leading(option.direction), name)
        painter.setLayoutDirection(option.direction)

        window = window_text(conversation.window_closes_at, now)
        painter.setFont(small)
        metrics = QFontMetrics(small)
        right = bottom_half.right()
        if conversation.unread:
            badge_text = str(conversation.unread) if conversation.unread < 100 else "99+"
            badge_width = max(20, metrics.horizontalAdvance(badge_text) + 10)
            badge = QRect(right - badge_width, bottom_half.center().y() - 9, badge_width, 18)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setBrush(surface_qcolor("#15803d"))
            painter.setPen(Qt.PenStyle.NoPen)
            shown_badge = QStyle.visualRect(option.direction, rect, badge)
            painter.drawRoundedRect(shown_badge, 9, 9)
            painter.setPen(text_qcolor("#ffffff"))
            painter.drawText(shown_badge, int(Qt.AlignmentFlag.AlignCenter), badge_text)
            right = badge.left() - 8
        window_width = metrics.horizontalAdvance(window.text) + 4
        window_rect = QRect(right - window_width, bottom_half.top(), window_width, bottom_half.height())
        painter.setPen(
            text_qcolor(URGENT)
            if window.urgent
            else (text_qcolor(MUTED) if not window.is_open else text_qcolor("#15803d"))
        )
        painter.drawText(
            QStyle.visualRect(option.direction, rect, window_rect),
            int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            window.text,
        )

        preview = conversation.last_message or (conversation.contact.number or "")
        preview_rect = QRect(
            bottom_half.left(),
            bottom_half.top(),
            window_rect.left() - bottom_half.left() - 8,
            bottom_half.height(),
        )
        painter.setPen(text_qcolor(MUTED))
        # The preview reads in its own direction but stays on the side the window's language starts from.
        painter.setLayoutDirection(text_direction(preview, option.direction))
        painter.drawText(
            QStyle.visualRect(option.direction, rect, preview_rect),
            int(Qt.AlignmentFlag.AlignVCenter) | _leading(option.direction),
            metrics.elidedText(preview, Qt.TextElideMode.ElideRight, max(0, preview_rect.width())),
        )
        painter.setLayoutDirection(option.direction)
        painter.restore()


def _leading(direction: Qt.LayoutDirection) -> int:
    """The side a line starts from in the window's language, whatever the text's own direction."""
    side = (
        Qt.AlignmentFlag.AlignLeft
        if direction == Qt.LayoutDirection.LeftToRight
        else Qt.AlignmentFlag.AlignRight
    )
    return int(side | Qt.AlignmentFlag.AlignAbsolute)


class ThreadDelegate(QStyledItemDelegate):
    """Message bubbles: ours on the right with a status mark, the customer's under what they answer."""

    # The agent clicked "Link to message…" on an unattributed reply: its wamid.
    link_requested = Signal(str)
    # The agent clicked a customer's file (to view, play, save or retry it): the InboundMessage.
    media_activated = Signal(object)

    def __init__(
        self,
        view: QWidget,
        thumbnails: ThumbnailCache | None = None,
        playback: MediaActions | None = None,
    ) -> None:
        super().__init__(view)
        self._view = view
        self._thumbnails = thumbnails
        self._playback = playback
        if thumbnails is not None:
            thumbnails.thumbnail_ready.connect(self._media_changed)
            thumbnails.thumbnail_failed.connect(self._media_changed)
        if playback is not None:
            # Each second a voice note plays, and when it stops, its bubble says so.
            playback.playback_changed.connect(self._playback_moved)
        self._viewport: QWidget | None = None
        self._size_cache: dict[tuple[str, int], QSize] = {}
        self._lines_cache: dict[str, tuple[str, str, str]] = {}

    def clear_cache(self) -> None:
        """Forget measured sizes (after the model changed wholesale)."""
        self._size_cache.clear()
        self._lines_cache.clear()

    def _media_changed(self, _media_id: str) -> None:
        """A picture is ready (or cannot be shown): rows are measured and painted again."""
        self._size_cache.clear()
        self._lay_out_again()

    def _playback_moved(self, _media_id: str) -> None:
        """A voice note started, played a second on or stopped: its row (alone new to the caches) again."""
        self._lay_out_again()

    def _lay_out_again(self) -> None:
        viewport = getattr(self._view, "viewport", None)
        if viewport is not None:
            viewport().update()
        doc_items_layout = getattr(self._view, "doItemsLayout", None)
        if doc_items_layout is not None:
            doc_items_layout()

    def _now_playing(self, item: ThreadItem) -> NowPlaying | None:
        """How far this message's voice note has played, while it plays."""
        if self._playback is None or not isinstance(item, InboundMessage) or item.media is None:
            return None
        playing = self._playback.now_playing()
        return playing if playing is not None and playing.media_id == item.media.id else None

    def _picture(self, item: ThreadItem) -> MediaInfo | None:
        """The stored photo or sticker an inbound message shows as a thumbnail, if any."""
        media = item.media if isinstance(item, InboundMessage) else None
        if media is not None and media.state == "stored" and media.kind in ("image", "sticker"):
            return media
        return None

    # -- layout ------------------------------------------------------------------------------
    def _available_width(self, option: QStyleOptionViewItem) -> int:
        # The viewport's width, not the option's: a tree view asks for sizes before it lays rows out.
        if self._viewport is None:
            viewport = getattr(self._view, "viewport", None)
            self._viewport = viewport() if viewport is not None else None
        width = self._viewport.width() if self._viewport is not None else option.rect.width()
        return max(200, width - 24)

    def _lines(self, item: ThreadItem) -> tuple[str, str, str]:
        """(main text, caption under it, extra line in colour), cached per message version."""
        playing = self._now_playing(item)
        cache_key = self._version(item, playing)
        lines = self._lines_cache.get(cache_key)
        if lines is None:
            lines = self._compose_lines(item, playing)
            self._lines_cache[cache_key] = lines
        return lines

    @staticmethod
    def _version(item: ThreadItem, playing: NowPlaying | None = None) -> str:
        if isinstance(item, OutboundMessage):
            return f"{item.key}|{item.state}|{len(item.replies)}|{len(item.reactions)}"
        if isinstance(item, Note):
            return f"note|{item.id}"
        media = f"|{item.media.state}" if item.media is not None else ""
        if playing is not None:
            media += f"|playing {int(playing.position_seconds)}"
        return f"in|{item.wamid}|{item.placement}{media}"

    @staticmethod
    def _compose_lines(item: ThreadItem, playing: NowPlaying | None = None) -> tuple[str, str, str]:
        """(main text, caption under it, extra line in colour) for a message or note."""
        if isinstance(item, Note):
            when = short_time(item.created_at, datetime.now(UTC))
            return (
                item.text,
                translate("delegates", "Note by {author}  ·  {time}").format(author=item.author, time=when),
                "",
            )
        if isinstance(item, OutboundMessage):
            mark = status_mark(item.state)
            when = short_time(item.created_at, datetime.now(UTC))
            caption = f"{item.purpose or ''}  {when}  {mark.mark} {mark.label}"
            extra = ""
            if item.state == "failed":
                extra = plain_error(item.error) or translate("delegates", "Failed.")
            elif item.state == "unknown":
                extra = translate(
                    "delegates",
                    "⚠ WhatsApp did not confirm this send: a supervisor decides whether to resend.",
                )
            elif item.state == "held":
                extra = translate(
                    "delegates", "Held: the customer's 24-hour window is closed; a template is needed."
                )
            if item.reactions:
                caption += "   " + " ".join(reaction.emoji or "" for reaction in item.reactions)
            return item.body or "", caption.strip(), extra
        when = short_time(item.received_at, datetime.now(UTC))
        if item.choice:
            return translate("delegates", "Chose: {choice}").format(choice=item.choice), when, ""
        if item.is_reaction:
            return translate("delegates", "Reacted {emoji}").format(emoji=item.emoji or ""), when, ""
        text = item.text or f"({item.type})"
        extra = (
            translate("delegates", "Not linked to a message") + "  ·  " + translate("delegates", LINK_TEXT)
            if item.needs_placing
            else ""
        )
        if item.media is not None:
            text = item.media.caption or item.media.filename or media_label(item.media.kind)
            line = media_line(item.media, playing)
            if extra:
                when = f"{line}  ·  {when}"
            else:
                extra = line
        return text, when, extra

    def _bubble_geometry(
        self, option: QStyleOptionViewItem, item: ThreadItem, is_reply: bool
    ) -> tuple[QRect, QRect, int]:
        """The bubble rect in the row, the text rect inside it, and the row height."""
        width = self._available_width(option)
        bubble_width = int(width * MAX_BUBBLE_FRACTION)
        text, caption, extra = self._lines(item)
        metrics = QFontMetrics(option.font)
        inner_width = bubble_width - 2 * PADDING
        text_height = metrics.boundingRect(
            QRect(0, 0, inner_width, 10000), int(Qt.TextFlag.TextWordWrap), text
        ).height()
        extra_height = (
            metrics.boundingRect(
                QRect(0, 0, inner_width, 10000), int(Qt.TextFlag.TextWordWrap), extra
            ).height()
            if extra
            else 0
        )
        height = text_height + metrics.height() + extra_height + 2 * PADDING + 4
        natural = max(
            metrics.horizontalAdvance(caption) + 16,
            min(inner_width, metrics.horizontalAdvance(text)),
            min(inner_width, metrics.horizontalAdvance(extra)) if extra else 0,
        )
        bubble_width = min(bubble_width, natural + 2 * PADDING + 2)
        # Measure again at the width the bubble really gets, so wrapping never cuts a line off.
        text_height = metrics.boundingRect(
            QRect(0, 0, bubble_width - 2 * PADDING, 10000), int(Qt.TextFlag.TextWordWrap), text
        ).height()
        if extra:
            extra_height = metrics.boundingRect(
                QRect(0, 0, bubble_width - 2 * PADDING, 10000), int(Qt.TextFlag.TextWordWrap), extra
            ).height()
        height = text_height + metrics.height() + extra_height + 2 * PADDING + 4
        if self._picture(item) is not None:
            # Room for the thumbnail above the caption.
            height += THUMBNAIL_HEIGHT + 6
            bubble_width = max(
                bubble_width, min(int(width * MAX_BUBBLE_FRACTION), THUMBNAIL_WIDTH + 2 * PADDING)
            )
        return (
            QRect(0, 0, bubble_width, height),
            QRect(0, 0, bubble_width - 2 * PADDING, text_height),
            height + 8,
        )

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        """The bubble's height for the view's width (cached per message and width)."""
        item = index.data(ItemRole)
        if not isinstance(item, OutboundMessage | InboundMessage | Note):
            return QSize(0, 0)
        width = self._available_width(option)
        cache_key = (self._version(item, self._now_playing(item)), width)
        cached = self._size_cache.get(cache_key)
        if cached is None:
            _bubble, _text, height = self._bubble_geometry(option, item, index.parent().isValid())
            cached = QSize(width, height)
            self._size_cache[cache_key] = cached
        return cached

    # -- painting ----------------------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        """Draw one message bubble."""
        item = index.data(ItemRole)
        if not isinstance(item, OutboundMessage | InboundMessage | Note):
            return
        is_reply = index.parent().isValid()
        rect: QRect = option.rect
        bubble, text_rect, _height = self._bubble_geometry(option, item, is_reply)
        viewport_left = 12
        if isinstance(item, OutboundMessage):
            left = viewport_left + self._available_width(option) - bubble.width()
            fill = surface_qcolor(OUTBOUND_FILL)
        elif isinstance(item, Note):
            # Centred, between the customer's side and ours: it belongs to neither.
            left = viewport_left + (self._available_width(option) - bubble.width()) // 2
            fill = surface_qcolor(NOTE_FILL)
        else:
            left = viewport_left + (REPLY_INDENT if is_reply else 0)
            fill = (
                surface_qcolor(CHOICE_FILL)
                if item.choice
                else (
                    surface_qcolor(UNATTRIBUTED_FILL) if item.needs_placing else surface_qcolor(INBOUND_FILL)
                )
            )
        bubble.moveTo(left, rect.top() + 4)
        # Under a right-to-left language the thread mirrors: ours on the left, the customer's on the right.
        bubble = QStyle.visualRect(option.direction, rect, bubble)
        text, caption, extra = self._lines(item)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        border = surface_qcolor("#d1d5db")
        if isinstance(item, InboundMessage) and item.needs_placing:
            border = surface_qcolor(UNATTRIBUTED_BORDER)
        elif isinstance(item, Note):
            border = surface_qcolor(NOTE_BORDER)
        if option.state & QStyle.StateFlag.State_Selected:
            border = text_qcolor(SELECTED_BORDER)
        painter.setPen(QPen(border, 1.5 if border != surface_qcolor("#d1d5db") else 1))
        painter.setBrush(fill)
        painter.drawRoundedRect(bubble, BUBBLE_RADIUS, BUBBLE_RADIUS)
        if is_reply:
            # A short connector shows which message the reply answers.
            painter.setPen(QPen(text_qcolor("#9ca3af"), 1))
            stem = QStyle.visualPos(option.direction, rect, QPoint(viewport_left + 10, 0)).x()
            left_to_right = option.direction == Qt.LayoutDirection.LeftToRight
            near_edge = bubble.left() if left_to_right else bubble.right()
            painter.drawLine(stem, rect.top(), stem, bubble.center().y())
            painter.drawLine(stem, bubble.center().y(), near_edge, bubble.center().y())

        metrics = QFontMetrics(option.font)
        inner = bubble.adjusted(PADDING, PADDING, -PADDING, -PADDING)
        picture = self._picture(item)
        if picture is not None:
            # Fetched and decoded off the GUI thread; until then a placeholder holds its place.
            image = self._thumbnails.thumbnail(picture.id) if self._thumbnails is not None else None
            frame = QRect(inner.left(), inner.top(), THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT)
            if image is not None:
                painter.drawImage(QPoint(frame.left(), frame.top()), image)
            else:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(surface_qcolor("#e5e7eb"))
                painter.drawRect(frame)
                painter.setPen(text_qcolor(MUTED))
                painter.drawText(
                    frame, int(Qt.AlignmentFlag.AlignCenter), translate("delegates", "Loading picture…")
                )
            inner.setTop(inner.top() + THUMBNAIL_HEIGHT + 6)
        painter.setPen(text_qcolor("#111827"))
        text_area = QRect(inner.left(), inner.top(), inner.width(), text_rect.height())
        # A message reads in its own direction (an English reply in the Arabic client, or the reverse).
        painter.setLayoutDirection(text_direction(text, option.direction))
        painter.drawText(text_area, int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), text)
        painter.setLayoutDirection(option.direction)
        y = text_area.bottom() + 2
        caption_rect = QRect(inner.left(), y, inner.width(), metrics.height())
        if isinstance(item, OutboundMessage):
            mark = status_mark(item.state)
            painter.setPen(
                text_qcolor(mark.colour)
                if item.state in ("read", "failed", "unknown", "held")
                else text_qcolor(MUTED)
            )
            painter.drawText(caption_rect, int(Qt.AlignmentFlag.AlignRight), caption)
        elif isinstance(item, Note):
            painter.setPen(text_qcolor(NOTE_CAPTION))
            painter.drawText(caption_rect, int(Qt.AlignmentFlag.AlignLeft), caption)
        else:
            painter.setPen(text_qcolor(MUTED))
            painter.drawText(caption_rect, int(Qt.AlignmentFlag.AlignLeft), caption)
        if extra:
            extra_rect = QRect(
                inner.left(), caption_rect.bottom() + 2, inner.width(), inner.bottom() - caption_rect.bottom()
            )
            if isinstance(item, InboundMessage) and not item.needs_placing:
                failed = item.media is not None and item.media.state == "failed"
                playing = self._now_playing(item)
                colour = URGENT if failed else PLAYING if playing is not None else MUTED
                painter.setPen(text_qcolor(colour))
                painter.drawText(extra_rect, int(Qt.TextFlag.TextWordWrap), extra)
                if playing is not None:
                    self._paint_progress(painter, option, bubble, playing)
            elif isinstance(item, InboundMessage):
                painter.setPen(surface_qcolor(UNATTRIBUTED_BORDER).darker(130))
                link_words = translate("delegates", LINK_TEXT)
                prefix = extra[: -len(link_words)]
                painter.drawText(extra_rect, int(Qt.AlignmentFlag.AlignLeft), prefix)
                link = QFont(option.font)
                link.setUnderline(True)
                painter.setFont(link)
                painter.setPen(text_qcolor(LINK))
                shift = metrics.horizontalAdvance(prefix)
                painter.drawText(
                    extra_rect.adjusted(shift, 0, 0, 0)
                    if option.direction == Qt.LayoutDirection.LeftToRight
                    else extra_rect.adjusted(0, 0, -shift, 0),
                    int(Qt.AlignmentFlag.AlignLeft),
                    link_words,
                )
            elif isinstance(item, OutboundMessage):
                painter.setPen(text_qcolor(URGENT) if item.state == "failed" else text_qcolor("#92400e"))
                painter.drawText(extra_rect, int(Qt.TextFlag.TextWordWrap), extra)
        painter.restore()

    @staticmethod
    def _paint_progress(
        painter: QPainter, option: QStyleOptionViewItem, bubble: QRect, playing: NowPlaying
    ) -> None:
        """A thin bar along the bubble's foot: how much of the voice note has played."""
        if not playing.length_seconds:
            return
        track = QRect(bubble.left() + PADDING, bubble.bottom() - 5, bubble.width() - 2 * PADDING, 3)
        fraction = min(1.0, max(0.0, playing.position_seconds / playing.length_seconds))
        done = QRect(track.left(), track.top(), round(track.width() * fraction), track.height())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.fillRect(track, surface_qcolor(PROGRESS_TRACK))
        # It fills from where a line starts in the window's language.
        painter.fillRect(QStyle.visualRect(option.direction, track, done), text_qcolor(PLAYING))

    def editorEvent(
        self, event: QEvent, model: QAbstractItemModel, option: QStyleOptionViewItem, index: AnyIndex
    ) -> bool:
        """A click on an unattributed reply asks to link it; a click on a customer's file opens it."""
        item = index.data(ItemRole)
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(item, InboundMessage)
            and item.media is not None
            and not item.needs_placing
        ):
            self.media_activated.emit(item)
            return True
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(item, InboundMessage)
            and item.needs_placing
            and isinstance(event, QMouseEvent)
        ):
            bubble, _text, _height = self._bubble_geometry(option, item, index.parent().isValid())
            bubble.moveTo(12 + (REPLY_INDENT if index.parent().isValid() else 0), option.rect.top() + 4)
            bubble = QStyle.visualRect(option.direction, option.rect, bubble)
            lower_half = QRect(bubble.left(), bubble.center().y(), bubble.width(), bubble.height() // 2 + 1)
            if lower_half.contains(QPoint(int(event.position().x()), int(event.position().y()))):
                self.link_requested.emit(item.wamid)
                return True
        return False
