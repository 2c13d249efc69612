"""Customers' files in the client: thumbnails fetched and decoded off the GUI thread, kept in a cache."""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QImage

from ui.runner import BackgroundRunner

THUMBNAIL_WIDTH = 200
THUMBNAIL_HEIGHT = 150
MAX_CACHED = 200


class MediaSource(Protocol):
    """Where file bytes come from (the API client)."""

    def media_content(self, media_id: str) -> bytes:
        """The bytes of one file."""


def decode_thumbnail(content: bytes) -> QImage:
    """A picture's bytes as a small image (on a worker thread: QImage needs no GUI thread)."""
    image = QImage.fromData(content)
    if image.isNull():
        raise ValueError("the file is not a picture this client can show")
    return image.scaled(
        THUMBNAIL_WIDTH,
        THUMBNAIL_HEIGHT,
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )


class _Load:
    """One thumbnail to fetch and decode off the GUI thread."""

    def __init__(self, source: MediaSource, media_id: str) -> None:
        self.source = source
        self.media_id = media_id

    def __call__(self) -> tuple[str, QImage | None]:
        # A failure is data: which thumbnail it was must reach the GUI thread with it.
        try:
            return self.media_id, decode_thumbnail(self.source.media_content(self.media_id))
        except Exception:
            return self.media_id, None


class ThumbnailCache(QObject):
    """Thumbnails by media id, loaded once each in the background."""

    # A thumbnail arrived: its media id (rows showing it repaint).
    thumbnail_ready = Signal(str)
    # A thumbnail could not be made: its media id.
    thumbnail_failed = Signal(str)

    def __init__(
        self, source: MediaSource | None, runner: BackgroundRunner | None, parent: QObject | None = None
    ):
        super().__init__(parent)
        self._source = source
        self._runner = runner
        self._images: OrderedDict[str, QImage] = OrderedDict()
        self._loading: set[str] = set()
        self._failed: set[str] = set()

    def thumbnail(self, media_id: str) -> QImage | None:
        """The thumbnail if it is loaded; otherwise starts loading it (once) and answers None."""
        image = self._images.get(media_id)
        if image is not None:
            self._images.move_to_end(media_id)
            return image
        if media_id not in self._loading and media_id not in self._failed and self._runner and self._source:
            self._loading.add(media_id)
            self._runner.submit(_Load(self._source, media_id), self._loaded)
        return None

    def forget(self, media_id: str) -> None:
        """Try again next time (after a retry stored the file)."""
        self._failed.discard(media_id)
        self._images.pop(media_id, None)

    @Slot(object)
    def _loaded(self, result: tuple[str, QImage | None]) -> None:
        media_id, image = result
        self._loading.discard(media_id)
        if image is None:
            self._failed.add(media_id)
            self.thumbnail_failed.emit(media_id)
            return
        self._images[media_id] = image
        while len(self._images) > MAX_CACHED:
            self._images.popitem(last=False)
        self.thumbnail_ready.emit(media_id)
