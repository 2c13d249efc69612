"""A voice note's length before it plays, playing in its bubble and stopping with a second click, a
video's length, and a sticker shown as a thumbnail, through a real sandbox and backend."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QColor, QImage

from app.commands.demo import DemoStack
from tests.media_files import mp4_video, opus_voice_note, webp_sized
from tests.ui.conftest import conversation_id_for
from tests.ui.test_media_widgets import FakePlayer, _inbound_media
from ui.api.client import ApiClient, ApiError
from ui.api.resources import InboundMessage, MediaInfo
from ui.presentation import clock_text, length_text
from ui.views.delegates import PLAYING, media_line
from ui.views.inbox import InboxView
from ui.views.main_window import MainWindow
from ui.views.media_actions import NowPlaying

CUSTOMER = "+16505550188"
STICKER_COLOUR = "#f59e0b"


def _stored_in_window(qtbot: Any, inbox: InboxView, wamid: str) -> InboundMessage:
    """The thread's item for a customer's file, once the window shows it kept."""

    def stored_item() -> InboundMessage | None:
        for item in inbox.thread_model.items:
            if (
                isinstance(item, InboundMessage)
                and item.wamid == wamid
                and item.media is not None
                and item.media.state == "stored"
            ):
                return item
        inbox.thread_model.refresh()
        return None

    qtbot.waitUntil(lambda: stored_item() is not None, timeout=15000)
    item = stored_item()
    assert item is not None
    return item


def _has_colour(image: QImage, colour: str) -> bool:
    return any(
        image.pixelColor(x, y).name() == colour for x in range(image.width()) for y in range(image.height())
    )


def test_a_voice_note_shows_its_length_plays_in_its_bubble_and_a_second_click_stops_it(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    note = opus_voice_note(7.0)
    inbox = window.inbox
    # The length comes from the backend's record, not from the player (this one never finds it).
    player = FakePlayer(length=None)
    inbox.media_actions.use_player(player)
    wamid = stack.sandbox.inbound_media(CUSTOMER, "audio", "audio/ogg; codecs=opus", note)
    conversation = conversation_id_for(stack, CUSTOMER)
    qtbot.waitUntil(lambda: inbox.select_conversation_id(conversation), timeout=10000)
    item = _stored_in_window(qtbot, inbox, wamid)
    assert item.media is not None and item.media.duration_seconds == pytest.approx(7.0, abs=0.02)
    delegate = inbox.thread_delegate
    assert delegate._lines(item)[2] == "Voice note  ·  0:07  ·  click to play"
    index = inbox.thread_model.index_of_inbound(wamid)
    rect = inbox.thread_view.visualRect(index)
    viewport = inbox.thread_view.viewport()
    assert not _has_colour(viewport.grab(rect).toImage(), PLAYING)

    with qtbot.waitSignal(inbox.media_actions.playback_changed, timeout=10000) as started:
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    assert started.args == [item.media.id]
    assert len(player.played) == 1 and player.played[0].read_bytes() == note
    assert inbox.media_actions.now_playing() == NowPlaying(item.media.id, 0.0, pytest.approx(7.0, abs=0.02))
    assert delegate._lines(item)[2] == "Voice note  ·  playing 0:00 / 0:07  ·  click to stop"

    # While it plays the bubble follows it, a second at a time, with a bar along its foot.
    player.position = 3.4
    with qtbot.waitSignal(inbox.media_actions.playback_changed, timeout=3000):
        pass
    assert delegate._lines(item)[2] == "Voice note  ·  playing 0:03 / 0:07  ·  click to stop"
    rect = inbox.thread_view.visualRect(index)
    assert _has_colour(viewport.grab(rect).toImage(), PLAYING)

    with qtbot.waitSignal(inbox.media_actions.playback_changed, timeout=3000) as stopped:
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    assert stopped.args == [item.media.id]
    assert player.stops >= 1 and not player.playing
    assert inbox.media_actions.now_playing() is None
    assert delegate._lines(item)[2] == "Voice note  ·  0:07  ·  click to play"
    qtbot.waitUntil(
        lambda: not _has_colour(viewport.grab(inbox.thread_view.visualRect(index)).toImage(), PLAYING)
    )

    # Played again: the file fetched the first time is played again, with no second download.
    with qtbot.waitSignal(inbox.media_actions.playback_changed, timeout=3000):
        qtbot.mouseClick(
            viewport, Qt.MouseButton.LeftButton, pos=inbox.thread_view.visualRect(index).center()
        )
    assert player.played == [player.played[0]] * 2
    # It ends by itself: the bubble shows its length again.
    player.playing = False
    with qtbot.waitSignal(inbox.media_actions.playback_changed, timeout=3000):
        pass
    assert inbox.media_actions.now_playing() is None
    inbox.media_actions.remove_files()
    assert not player.played[0].exists()


def test_a_voice_note_the_player_cannot_play_says_why(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: Any
) -> None:
    from ui.views.media_actions import MediaActions

    item = _inbound_media(stack, api, "audio", "audio/ogg; codecs=opus", opus_voice_note(2.0))
    player = FakePlayer(length=2.0)
    actions = MediaActions(api, runner, player=player)
    with qtbot.waitSignal(actions.playback_changed, timeout=10000):
        actions.open(item)
    player.playing = False
    player.error = "no audio device"
    with qtbot.waitSignal(actions.status_message, timeout=3000) as said:
        pass
    assert said.args == ["Could not play the voice note: no audio device"]
    assert actions.now_playing() is None
    actions.remove_files()


def test_a_video_shows_its_length_beside_its_size(stack: DemoStack, api: ApiClient) -> None:
    item = _inbound_media(stack, api, "video", "video/mp4", mp4_video(12.5))
    assert item.media is not None and item.media.duration_seconds == 12.5
    assert media_line(item.media) == "Video  ·  0:13  ·  1 KB  ·  click to save"


@pytest.mark.parametrize(
    ("media", "playing", "line"),
    [
        # An AMR voice note (or a backend that does not say): its size, as before.
        (
            MediaInfo("1", "audio/amr", None, None, 2048, "stored", None),
            None,
            "Voice note  ·  2 KB  ·  click to play",
        ),
        (
            MediaInfo("1", "audio/ogg", None, None, 2048, "stored", None, 65.4),
            None,
            "Voice note  ·  1:05  ·  click to play",
        ),
        (
            MediaInfo("1", "audio/ogg", None, None, 2048, "stored", None, None),
            NowPlaying("1", 3.9, None),
            "Voice note  ·  playing 0:03  ·  click to stop",
        ),
        (
            MediaInfo("1", "audio/ogg", None, None, 2048, "stored", None, 4.0),
            NowPlaying("2", 3.9, 9.0),
            "Voice note  ·  0:04  ·  click to play",
        ),
        (
            MediaInfo("1", "image/png", None, None, 2048, "stored", None, None),
            None,
            "Photo  ·  2 KB  ·  click to view",
        ),
    ],
)
def test_what_a_file_s_bubble_says(media: MediaInfo, playing: NowPlaying | None, line: str) -> None:
    assert media_line(media, playing) == line


def test_lengths_read_as_a_clock() -> None:
    assert [clock_text(s) for s in (0, 3.9, 59.99, 60, 605, 3723)] == [
        "0:00",
        "0:03",
        "0:59",
        "1:00",
        "10:05",
        "1:02:03",
    ]
    assert [length_text(s) for s in (0.2, 6.5, 6.49, 7.0)] == ["0:01", "0:07", "0:06", "0:07"]


def _webp(width: int, height: int) -> bytes:
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor(STICKER_COLOUR))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "WEBP")
    buffer.close()
    return bytes(data.data())


def test_a_sticker_shows_as_a_thumbnail_and_one_past_500_kb_cannot_be_uploaded(
    qtbot: Any, stack: DemoStack, window: MainWindow, api: ApiClient
) -> None:
    sticker = _webp(160, 160)
    assert sticker.startswith(b"RIFF") and sticker[8:12] == b"WEBP"
    wamid = stack.sandbox.inbound_media(CUSTOMER, "sticker", "image/webp", sticker)
    inbox = window.inbox
    conversation = conversation_id_for(stack, CUSTOMER)
    qtbot.waitUntil(lambda: inbox.select_conversation_id(conversation), timeout=10000)
    item = _stored_in_window(qtbot, inbox, wamid)
    assert item.media is not None and item.media.kind == "sticker" and item.media.mime_type == "image/webp"
    assert item.type == "sticker"
    assert api.media_content(item.media.id) == sticker
    qtbot.waitUntil(lambda: inbox.thumbnails.thumbnail(item.media.id) is not None, timeout=10000)
    thumbnail = inbox.thumbnails.thumbnail(item.media.id)
    assert thumbnail is not None and thumbnail.height() == 150
    index = inbox.thread_model.index_of_inbound(wamid)
    qtbot.waitUntil(lambda: inbox.thread_view.visualRect(index).height() > 150, timeout=5000)
    picture = inbox.thread_view.viewport().grab(inbox.thread_view.visualRect(index)).toImage()
    assert _has_colour(picture, STICKER_COLOUR)
    assert inbox.thread_delegate._lines(item)[2].startswith("Sticker  ·  ")

    # Meta takes stickers of 500 KB at most.
    accepted = api.upload_media("ok.webp", webp_sized(500 * 1024), "image/webp")
    assert accepted.size == 500 * 1024 and accepted.duration_seconds is None
    with pytest.raises(ApiError) as refused:
        api.upload_media("big.webp", webp_sized(500 * 1024 + 1), "image/webp")
    assert refused.value.status == 413 and refused.value.code == "media_too_large"
    assert "sticker may be at most 500 KB" in refused.value.message
