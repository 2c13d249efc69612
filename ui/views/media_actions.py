"""What a click on a customer's file does: view a picture, play or stop a voice note, save a file, retry."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication, QObject, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QDialog, QFileDialog, QLabel, QScrollArea, QVBoxLayout, QWidget

from ui.api.resources import InboundMessage, MediaInfo
from ui.i18n import translate
from ui.runner import BackgroundRunner

if TYPE_CHECKING:
    # Only for the types: QtMultimedia itself is imported when the first voice note plays.
    from PySide6.QtMultimedia import QMediaPlayer


class MediaApi(Protocol):
    """The calls these actions make (the API client)."""

    def media_content(self, media_id: str) -> bytes:
        """A file's bytes."""

    def retry_media(self, media_id: str) -> str:
        """Ask for a failed download again; the new state."""


class AudioPlayer(Protocol):
    """Plays one local file at a time (QtMultimedia's QMediaPlayer in the application)."""

    def play_file(self, path: Path) -> None:
        """Start playing `path` (whatever played before stops)."""

    def stop(self) -> None:
        """Stop playing."""

    def is_playing(self) -> bool:
        """Whether something plays now (False once it reached its end)."""

    def position_seconds(self) -> float:
        """How far the file has played."""

    def length_seconds(self) -> float | None:
        """How long the file lasts, once the player knows."""

    def error_text(self) -> str:
        """Why the last file could not be played; empty when nothing went wrong."""


class QtAudioPlayer(QObject):
    """QtMultimedia's player with an audio output, made on first use (QtMultimedia loads only then)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._player: QMediaPlayer | None = None

    def play_file(self, path: Path) -> None:
        """Start playing `path`."""
        from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer

        if self._player is None:
            self._player = QMediaPlayer(self)
            self._player.setAudioOutput(QAudioOutput(self._player))
        self._player.setSource(QUrl.fromLocalFile(str(path)))
        self._player.play()

    def stop(self) -> None:
        """Stop playing."""
        if self._player is not None:
            self._player.stop()

    def is_playing(self) -> bool:
        """Whether the player plays now."""
        if self._player is None:
            return False
        from PySide6.QtMultimedia import QMediaPlayer

        return self._player.playbackState() == QMediaPlayer.PlaybackState.PlayingState

    def position_seconds(self) -> float:
        """How far it has played."""
        return 0.0 if self._player is None else self._player.position() / 1000

    def length_seconds(self) -> float | None:
        """The length the player found, if it found one."""
        milliseconds = 0 if self._player is None else self._player.duration()
        return milliseconds / 1000 if milliseconds > 0 else None

    def error_text(self) -> str:
        """The player's last error in its words."""
        return "" if self._player is None else self._player.errorString()


@dataclass(frozen=True)
class NowPlaying:
    """The voice note playing in its bubble: which one, how far it is and how long it lasts (if known)."""

    media_id: str
    position_seconds: float
    length_seconds: float | None


def _save(api: MediaApi, media_id: str, target: Path) -> Path:
    target.write_bytes(api.media_content(media_id))
    return target


def _picture(api: MediaApi, media_id: str) -> QImage:
    image = QImage.fromData(api.media_content(media_id))
    if image.isNull():
        raise ValueError("the file is not a picture this client can show")
    return image


def _to_temporary_file(api: MediaApi, media: MediaInfo) -> tuple[str, Path]:
    mime_type = media.mime_type or ""
    suffix = ".ogg" if "ogg" in mime_type else ".m4a" if "mp4" in mime_type else ""
    with tempfile.NamedTemporaryFile(prefix="voice-", suffix=suffix, delete=False) as file:
        file.write(api.media_content(media.id))
        return media.id, Path(file.name)


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
    """Opens what a click on a file asks for; every download runs off the GUI thread.

    A voice note (or any audio) plays in its bubble: a click plays it, a click on the one playing stops
    it, and while it plays the bubble shows how far it is (`now_playing`, announced by
    `playback_changed`).
    """

    # Something worth a line in the status bar.
    status_message = Signal(str)
    # A failed download was asked for again: its media id (the thread shows it downloading).
    retry_started = Signal(str)
    # A picture viewer opened (tests and the demo watch it).
    viewer_opened = Signal(object)
    # A voice note started, moved on a second, or stopped: its media id (its bubble is painted again).
    playback_changed = Signal(str)

    # How often a playing voice note is looked at; its bubble changes only when a whole second passed.
    PLAYBACK_TICK_MS = 200

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
        # Voice notes already fetched, by media id: a second play needs no download.
        self._files: dict[str, Path] = {}
        # The voice note being fetched to play, the one playing, and the length its record gave.
        self._starting: str | None = None
        self._playing: str | None = None
        self._known_lengths: dict[str, float] = {}
        self._shown_second = -1
        self._ticker = QTimer(self)
        self._ticker.setInterval(self.PLAYBACK_TICK_MS)
        self._ticker.timeout.connect(self._tick)
        application = QCoreApplication.instance()
        if application is not None:
            application.aboutToQuit.connect(self.remove_files)

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
            self._toggle(media)
        else:
            suggested = media.filename or f"{media.kind}-{media.id}"
            target = self._save_path(self._parent, suggested)
            if target is not None:
                self._runner.submit(partial(_save, self._api, media.id, target), self._saved, self._failed)

    # -- voice notes -------------------------------------------------------------------------
    def use_player(self, player: AudioPlayer) -> None:
        """Play voice notes through `player` from now on (a machine without sound uses a stand-in)."""
        self.stop_playing()
        self._player = player

    def now_playing(self) -> NowPlaying | None:
        """The voice note playing now, if one is."""
        if self._playing is None or self._player is None:
            return None
        length = self._player.length_seconds() or self._known_lengths.get(self._playing)
        return NowPlaying(self._playing, self._player.position_seconds(), length)

    def stop_playing(self) -> None:
        """Stop the voice note that plays (its bubble shows its length again)."""
        stopped = self._playing
        if stopped is None:
            return
        self._playing = None
        self._ticker.stop()
        if self._player is not None:
            self._player.stop()
        self.playback_changed.emit(stopped)

    def _toggle(self, media: MediaInfo) -> None:
        if media.id == self._playing:
            self.stop_playing()
            self.status_message.emit(translate("MediaActions", "Stopped the voice note."))
            return
        if media.id == self._starting or self._api is None or self._runner is None:
            return  # a second click while it downloads changes nothing
        if media.duration_seconds is not None:
            self._known_lengths[media.id] = media.duration_seconds
        kept = self._files.get(media.id)
        if kept is not None and kept.is_file():
            self._play((media.id, kept))
            return
        self._starting = media.id
        self._runner.submit(partial(_to_temporary_file, self._api, media), self._play, self._play_failed)

    @Slot(object)
    def _play(self, fetched: tuple[str, Path]) -> None:
        media_id, path = fetched
        self._files[media_id] = path
        if self._starting == media_id:
            self._starting = None
        self.stop_playing()
        if self._player is None:
            self._player = QtAudioPlayer(self)
        self._player.play_file(path)
        self._playing = media_id
        self._shown_second = 0
        self._ticker.start()
        self.playback_changed.emit(media_id)
        self.status_message.emit(translate("MediaActions", "Playing the voice note…"))

    @Slot(object)
    def _play_failed(self, error: Exception) -> None:
        self._starting = None
        self._failed(error)

    @Slot()
    def _tick(self) -> None:
        playing = self._playing
        if playing is None or self._player is None:
            self._ticker.stop()
            return
        if not self._player.is_playing():
            # It reached its end, or the player could not play it.
            reason = self._player.error_text()
            self.stop_playing()
            if reason:
                self.status_message.emit(
                    translate("MediaActions", "Could not play the voice note: {reason}").format(reason=reason)
                )
            return
        second = int(self._player.position_seconds())
        if second != self._shown_second:
            self._shown_second = second
            self.playback_changed.emit(playing)

    @Slot()
    def remove_files(self) -> None:
        """Remove the voice notes written to play (the application is quitting)."""
        self.stop_playing()
        for path in self._files.values():
            path.unlink(missing_ok=True)
        self._files.clear()

    # -- outcomes ----------------------------------------------------------------------------
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
    def _saved(self, path: Path) -> None:
        self.status_message.emit(translate("MediaActions", "Saved {name}.").format(name=path.name))

    @Slot(object)
    def _failed(self, error: Exception) -> None:
        self.status_message.emit(
            translate("MediaActions", "Could not open the file: {reason}").format(reason=error)
        )
