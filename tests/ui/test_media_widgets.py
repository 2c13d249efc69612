"""Customers' files in the client, through a real sandbox and backend: the thumbnail decoded off the GUI
thread, the picture viewer, a voice note handed to the player, a document saved, a failure retried."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.commands.demo import DemoStack
from backend.sandbox.pictures import cracked_mug
from tests.ui.conftest import conversation_id_for, wait_for
from ui.api.client import ApiClient
from ui.api.resources import InboundMessage, MediaInfo
from ui.media import THUMBNAIL_HEIGHT, THUMBNAIL_WIDTH, ThumbnailCache, decode_thumbnail
from ui.runner import BackgroundRunner
from ui.views.delegates import ThreadDelegate, media_line
from ui.views.main_window import MainWindow
from ui.views.media_actions import MediaActions, PictureViewer

CUSTOMER = "+16505550177"
VOICE_NOTE = b"OggS\x00\x02" + bytes(range(120))
INVOICE = b"%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n"


def small_png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x10\x80\xf0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _inbound_media(
    stack: DemoStack, api: ApiClient, kind: str, mime: str, content: bytes, **extra: str
) -> InboundMessage:
    """The customer sends a file; the thread's item for it once the backend kept the file."""
    wamid = stack.sandbox.inbound_media(CUSTOMER, kind, mime, content, **extra)
    conversation = conversation_id_for(stack, CUSTOMER)

    def stored() -> InboundMessage | None:
        for item in api.thread(conversation).items:
            if (
                isinstance(item, InboundMessage)
                and item.wamid == wamid
                and item.media
                and item.media.state == "stored"
            ):
                return item
        return None

    return wait_for(stored)  # type: ignore[no-any-return]


def test_a_thumbnail_is_fetched_and_decoded_off_the_gui_thread_then_cached(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    photo = small_png(640, 480)
    item = _inbound_media(stack, api, "image", "image/png", photo, caption="Cracked")
    assert item.media is not None and item.media.kind == "image" and item.media.size == len(photo)
    cache = ThumbnailCache(api, runner)
    with qtbot.waitSignal(cache.thumbnail_ready, timeout=10000) as ready:
        assert cache.thumbnail(item.media.id) is None
    assert ready.args == [item.media.id]
    image = cache.thumbnail(item.media.id)
    assert image is not None
    assert (image.width(), image.height()) == (THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT)  # 4:3 kept
    assert runner.pending_count == 0


def test_a_file_that_is_no_picture_is_reported_not_drawn(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    item = _inbound_media(stack, api, "image", "image/png", b"not a png at all")
    assert item.media is not None
    cache = ThumbnailCache(api, runner)
    with qtbot.waitSignal(cache.thumbnail_failed, timeout=10000):
        cache.thumbnail(item.media.id)
    assert cache.thumbnail(item.media.id) is None
    with pytest.raises(ValueError, match="not a picture"):
        decode_thumbnail(b"nope")


def test_the_thread_paints_the_photo_and_a_click_opens_the_viewer(
    qtbot: Any, stack: DemoStack, window: MainWindow
) -> None:
    stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", cracked_mug(), caption="The crack")
    inbox = window.inbox
    conversation = conversation_id_for(stack, CUSTOMER)
    qtbot.waitUntil(lambda: inbox.select_conversation_id(conversation), timeout=10000)

    def stored_item() -> InboundMessage | None:
        for item in inbox.thread_model.items:
            if isinstance(item, InboundMessage) and item.media and item.media.state == "stored":
                return item
        inbox.thread_model.refresh()
        return None

    qtbot.waitUntil(lambda: stored_item() is not None, timeout=15000)
    item = stored_item()
    assert item is not None and item.media is not None
    qtbot.waitUntil(lambda: inbox.thumbnails.thumbnail(item.media.id) is not None, timeout=10000)
    index = inbox.thread_model.index_of_inbound(item.wamid)
    rect = inbox.thread_view.visualRect(index)
    assert rect.height() > THUMBNAIL_HEIGHT
    picture = inbox.thread_view.viewport().grab(rect).toImage()
    # The mug's white body is painted in the bubble, where a text-only bubble has none.
    assert any(
        picture.pixelColor(x, y).name() == "#f5f5f0"
        for x in range(picture.width())
        for y in range(0, picture.height(), 3)
    )
    with qtbot.waitSignal(inbox.media_actions.viewer_opened, timeout=10000) as opened:
        qtbot.mouseClick(inbox.thread_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    viewer = opened.args[0]
    assert isinstance(viewer, PictureViewer)
    assert viewer.picture.pixmap().width() == 240
    viewer.close()


class FakePlayer:
    """Stands in for QtMultimedia's player (this machine has no sound card): records what it is given,
    and plays for as long as the test says, from the position the test sets."""

    def __init__(self, length: float | None = None) -> None:
        self.played: list[Path] = []
        self.stops = 0
        self.playing = False
        self.position = 0.0
        self.length = length
        self.error = ""

    def play_file(self, path: Path) -> None:
        self.played.append(path)
        self.playing = True
        self.position = 0.0

    def stop(self) -> None:
        self.stops += 1
        self.playing = False

    def is_playing(self) -> bool:
        return self.playing

    def position_seconds(self) -> float:
        return self.position

    def length_seconds(self) -> float | None:
        return self.length

    def error_text(self) -> str:
        return self.error


def test_a_voice_note_is_written_to_a_file_and_played(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    item = _inbound_media(stack, api, "audio", "audio/ogg; codecs=opus", VOICE_NOTE)
    assert item.media is not None and item.media.kind == "audio"
    assert media_line(item.media) == "Voice note  ·  1 KB  ·  click to play"
    player = FakePlayer()
    actions = MediaActions(api, runner, player=player)
    with qtbot.waitSignal(actions.status_message, timeout=10000) as said:
        actions.open(item)
    assert said.args == ["Playing the voice note…"]
    assert len(player.played) == 1 and player.played[0].read_bytes() == VOICE_NOTE
    actions.remove_files()
    assert not player.played[0].exists() and actions.now_playing() is None


def test_a_document_shows_its_name_and_size_and_is_saved_with_one_click(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner, tmp_path: Path
) -> None:
    item = _inbound_media(stack, api, "document", "application/pdf", INVOICE, filename="invoice-7.pdf")
    assert item.media is not None
    assert media_line(item.media) == "invoice-7.pdf  ·  1 KB  ·  click to save"
    target = tmp_path / "saved.pdf"
    asked: list[str] = []

    def choose(_parent: object, suggested: str) -> Path:
        asked.append(suggested)
        return target

    actions = MediaActions(api, runner, save_path=choose)
    with qtbot.waitSignal(actions.status_message, timeout=10000) as said:
        actions.open(item)
    assert asked == ["invoice-7.pdf"] and said.args == ["Saved saved.pdf."]
    assert target.read_bytes() == INVOICE


def test_a_failed_download_says_why_and_retry_fetches_it(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    failed = MediaInfo("1", "image/png", None, None, None, "failed", "the download failed (HTTP 500)")
    assert media_line(failed) == "could not download: the download failed (HTTP 500)  ·  Retry"
    pending = MediaInfo("1", "image/png", None, None, None, "pending", None)
    assert media_line(pending) == "Photo  ·  downloading…"
    stack.sandbox.set_faults(media_download_failure_rate=1.0)
    wamid = stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", small_png(4, 3))
    conversation = conversation_id_for(stack, CUSTOMER)
    # Every try fails at once; the fetcher waits between them, so hurry it with the command's rule.
    from sqlalchemy import update

    from backend.database.models import MediaFile

    def failed_item() -> InboundMessage | None:
        with stack.database.transaction() as session:
            session.execute(update(MediaFile).where(MediaFile.state == "pending").values(attempts=5))
        for item in api.thread(conversation).items:
            if (
                isinstance(item, InboundMessage)
                and item.wamid == wamid
                and item.media
                and item.media.state == "failed"
            ):
                return item
        return None

    item = wait_for(failed_item)
    assert item.media.error == "the download failed (HTTP 500)"
    _text, _when, extra = ThreadDelegate._compose_lines(item)
    assert extra.startswith("could not download:") and extra.endswith("Retry")
    stack.sandbox.set_faults(media_download_failure_rate=0.0)
    actions = MediaActions(api, runner)
    with qtbot.waitSignal(actions.retry_started, timeout=10000) as retried:
        actions.open(item)
    assert retried.args == [item.media.id]

    def stored() -> bool:
        return any(
            isinstance(i, InboundMessage)
            and i.wamid == wamid
            and i.media is not None
            and i.media.state == "stored"
            for i in api.thread(conversation).items
        )

    wait_for(stored)


def test_an_attachment_is_uploaded_with_progress_and_sent_with_its_caption(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner, tmp_path: Path
) -> None:
    from datetime import UTC, datetime, timedelta

    from tests.ui.conftest import customer_writes
    from ui.views.composer import Composer

    customer_writes(stack, CUSTOMER, "Can you send me the invoice?")
    conversation = conversation_id_for(stack, CUSTOMER)
    invoice = tmp_path / "invoice-9.pdf"
    invoice.write_bytes(INVOICE * 3000)  # about 100 KB: several pieces, so progress moves
    composer = Composer(api, runner, file_chooser=lambda _parent: invoice)
    qtbot.addWidget(composer)
    composer.set_conversation(conversation, datetime.now(UTC) + timedelta(hours=5))
    composer.choose_attachment()
    qtbot.waitUntil(lambda: composer.attachment is not None, timeout=5000)
    assert composer.attachment_label.text().startswith("Attached: invoice-9.pdf")
    composer.text_box.setPlainText("Here it is")
    progress: list[tuple[int, int]] = []
    composer.upload_progressed.connect(lambda sent, total: progress.append((sent, total)))
    with qtbot.waitSignal(composer.reply_sent, timeout=15000):
        composer.send()
    assert len(progress) > 2 and progress[-1][0] == progress[-1][1]
    assert composer.upload_bar.value() == composer.upload_bar.maximum()
    assert composer.attachment is None and not composer.attachment_row.isVisible()

    def delivered() -> dict[str, Any] | None:
        for entry in stack.sandbox.ledger():
            if entry["type"] == "document":
                return entry
        return None

    entry = wait_for(delivered)
    import hashlib

    assert entry["sha256"] == hashlib.sha256(INVOICE * 3000).hexdigest()
    assert entry["body"] == "Here it is"


def test_a_pasted_picture_becomes_an_attachment_and_a_dropped_file_too(
    qtbot: Any, api: ApiClient, runner: BackgroundRunner, tmp_path: Path
) -> None:
    from datetime import UTC, datetime, timedelta

    from PySide6.QtCore import QMimeData, QUrl
    from PySide6.QtGui import QColor, QImage

    from ui.views.composer import Composer

    composer = Composer(api, runner)
    qtbot.addWidget(composer)
    composer.set_conversation(1, datetime.now(UTC) + timedelta(hours=1))
    image = QImage(32, 24, QImage.Format.Format_RGB32)
    image.fill(QColor("#336699"))
    pasted = QMimeData()
    pasted.setImageData(image)
    composer.text_box.insertFromMimeData(pasted)
    assert composer.attachment is not None and composer.attachment.kind == "image"
    assert composer.attachment.content.startswith(b"\x89PNG")
    assert composer.text_box.toPlainText() == ""
    note = tmp_path / "note.ogg"
    note.write_bytes(VOICE_NOTE)
    dropped = QMimeData()
    dropped.setUrls([QUrl.fromLocalFile(str(note))])
    composer.text_box.insertFromMimeData(dropped)
    qtbot.waitUntil(
        lambda: composer.attachment is not None and composer.attachment.name == "note.ogg", timeout=5000
    )
    assert composer.attachment.kind == "audio"
    words = QMimeData()
    words.setText("just words")
    composer.remove_attachment()
    composer.text_box.insertFromMimeData(words)
    assert composer.attachment is None and composer.text_box.toPlainText() == "just words"


def test_the_health_tab_shows_the_media_store_s_disk_use() -> None:
    from ui.api.resources import Metrics
    from ui.views.health import media_disk_use_text

    metrics = Metrics.from_json(
        {
            "sending_over_1m": 0,
            "dedupe_rejections": 0,
            "duplicate_webhooks": 0,
            "unattributed_inbound": 0,
            "webhook_parse_failures": 0,
            "sent_to_delivered_seconds": {"p50": None, "p95": None},
            "queue_depth": {},
            "webhook_subscriptions_disabled": 0,
            "outgoing_deliveries_pending": 0,
            "outgoing_deliveries_failed": 0,
            "last_backup_at": None,
            "data_folder_free_bytes": None,
            "media": {"files": 12, "bytes": 3 * 1024 * 1024 + 400 * 1024, "pending": 1, "failed": 2},
        }
    )
    assert (
        media_disk_use_text(metrics)
        == "Media kept: 12 files, 3.4 MB (1 downloading, 2 could not be downloaded)"
    )
