"""What a click on a customer's file does: view a picture, play a voice note, save a document, retry."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QUrl, Signal, Slot
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QDialog, QFileDialog, QLabel, QScrollArea, QVBoxLayout, QWidget

from ui.api.resources import InboundMessage, MediaInfo
from ui.i18n import translate
from ui.runner import BackgroundRunner


class MediaApi(Protocol):
    """The calls these actions make (the API client)."""

    def media_content(self, media_id: str) -> bytes:
        """A file's bytes."""

    def retry_media(self, media_id: str) -> str:
        """Ask for a failed download again; the new state."""


class AudioPlayer(Protocol):
    """Plays one local file (QtMultimedia's QMediaPlayer in the application)."""

    def play_file(self, path: Path) -> None:
        """Start playing `path`."""


class QtAudioPlayer(QObject):
    """QtMultimedia's player with an audio output, made on first use; reports the length once known."""

    # The length of what plays, in seconds, once the player knows it.
    length_known = Signal(float)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._player: QObject | None = None

    def play_file(self, path: Path) -> None:
        """Start playing `path`."""
        from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer

        if self._player is None:
            player = QMediaPlayer(self)
            player.setAudioOutput(QAudioOutput(player))
            player.durationChanged.connect(self._duration_changed)
            self._player = player
        assert isinstance(self._player, QMediaPlayer)
        self._player.setSource(QUrl.fromLocalFile(str(path)))
        self._player.play()

    @Slot("qint64")
    def _duration_changed(self, milliseconds: int) -> None:
        if milliseconds > 0:
            self.length_known.emit(milliseconds / 1000)


def _save(api: MediaApi, media_id: str, target: Path) -> Path:
    target.write_bytes(api.media_content(media_id))
    return target


def _picture(api: MediaApi, media_id: str) -> QImage:
    image = QImage.fromData(api.media_content(media_id))
    if image.isNull():
        raise ValueError("the file is not a picture this client can show")
    return image


def _to_temporary_file(api: MediaApi, media: MediaInfo) -> Path:
    suffix = (
        ".ogg" if "ogg" in (media.mime_type or "") else ".m4a" if "mp4" in (media.mime_type or "") else ""
    )
    with tempfile.NamedTemporaryFile(prefix="voice-", suffix=suffix, delete=False) as file:
        file.write(api.media_content(media.id))
        return Path(file.name)


class PictureViewer(QDialog):
    """A picture at its own size (scrolling when larger than the screen)."""

    def __init__(self, image: QImage, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.picture = QLabel()
        self.picture.setPixmap(QPixmap.fromImage(image))
        self.picture.setAccessibleName(translate("PictureViewer", "Picture"))
        scroll = QScrollArea()
        scroll.setWidget(self.picture)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        self.resize(min(900, image.width() + 40), min(700, image.height() + 40))


def choose_save_path(parent: QWidget | None, suggested: str) -> Path | None:
    """Ask where to save a file (the platform's save dialog)."""
    chosen, _ = QFileDialog.getSaveFileName(parent, translate("MediaActions", "Save file"), suggested)
    return Path(chosen) if chosen else None


class MediaActions(QObject):
    """Opens what a click on a file asks for; every download runs off the GUI thread."""

    # Something worth a line in the status bar.
    status_message = Signal(str)
    # A failed download was asked for again: its media id (the thread shows it downloading).
    retry_started = Signal(str)
    # A picture viewer opened (tests and the demo watch it).
    viewer_opened = Signal(object)

    def __init__(
        self,
        api: MediaApi | None,
        runner: BackgroundRunner | None,
        parent: QWidget | None = None,
        *,
        player: AudioPlayer | None = None,
        save_path: Callable[[QWidget | None, str], Path | None] = choose_save_path,
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._parent = parent
        self._player = player
        self._save_path = save_path
        self._titles: dict[str, str] = {}
        # The media id of the last retry asked for, announced once the backend took it.
        self._pending_retry = ""

    def open(self, message: InboundMessage) -> None:
        """Do what a click on this message's file means in its state."""
        media = message.media
        if media is None or self._api is None or self._runner is None:
            return
        if media.state == "pending":
            self.status_message.emit(
                translate("MediaActions", "The file is still downloading from WhatsApp.")
            )
        elif media.state == "failed":
            self._pending_retry = media.id
            self._runner.submit(partial(self._api.retry_media, media.id), self._retrying, self._failed)
        elif media.kind in ("image", "sticker"):
            self._titles[media.id] = media.caption or translate("MediaActions", "Photo")
            self._runner.submit(partial(_picture, self._api, media.id), self._show_picture, self._failed)
        elif media.kind == "audio":
            self._runner.submit(partial(_to_temporary_file, self._api, media), self._play, self._failed)
        else:
            suggested = media.filename or f"{media.kind}-{media.id}"
            target = self._save_path(self._parent, suggested)
            if target is not None:
                self._runner.submit(partial(_save, self._api, media.id, target), self._saved, self._failed)

    @Slot(object)
    def _retrying(self, _state: str) -> None:
        self.status_message.emit(translate("MediaActions", "Downloading the file again…"))
        self.retry_started.emit(self._pending_retry)

    @Slot(object)
    def _show_picture(self, image: QImage) -> None:
        viewer = PictureViewer(image, translate("MediaActions", "Photo"), self._parent)
        viewer.setModal(False)
        viewer.show()
        self.viewer_opened.emit(viewer)

    @Slot(object)
    def _play(self, path: Path) -> None:
        if self._player is None:
            self._player = QtAudioPlayer(self)
            self._player.length_known.connect(self._length_known)
        self._player.play_file(path)
        self.status_message.emit(translate("MediaActions", "Playing the voice note…"))

    @Slot(float)
    def _length_known(self, seconds: float) -> None:
        self.status_message.emit(
            translate("MediaActions", "Playing the voice note ({length}).").format(
                length=f"{int(seconds) // 60}:{int(seconds) % 60:02d}"
            )
        )

    @Slot(object)
    def _saved(self, path: Path) -> None:
        self.status_message.emit(translate("MediaActions", "Saved {name}.").format(name=path.name))

    @Slot(object)
    def _failed(self, error: Exception) -> None:
        self.status_message.emit(
            translate("MediaActions", "Could not open the file: {reason}").format(reason=error)
        )
