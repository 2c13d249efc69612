"""A customer's photo, voice note or document: stored pending with the message, fetched from the sandbox
after processing, checked against Meta's hash and size, kept once by content, served by GET /v1/media."""

from __future__ import annotations

import base64
import hashlib

import httpx
from sqlalchemy import func, select

from backend.database.models import MediaFile
from backend.media.fetcher import MediaFetcher
from backend.media.records import retry_media
from backend.media.store import MediaStore
from tests.integration.media.conftest import CUSTOMER, MediaStack, png_bytes

VOICE_NOTE = b"OggS\x00\x02" + bytes(range(200))
INVOICE = b"%PDF-1.4\n" + b"invoice line\n" * 50 + b"%%EOF\n"


def test_a_photo_is_pending_with_its_message_then_stored_and_served_with_equal_bytes(
    media_stack: MediaStack,
) -> None:
    photo = png_bytes(seed=1)
    wamid = media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", photo, caption="Cracked mug")
    media_stack.receive()
    media_id = media_stack.media_id_of(wamid)

    pending = media_stack.media_item(media_id)
    assert pending["state"] == "pending" and pending["caption"] == "Cracked mug"
    assert pending["mime_type"] == "image/png" and pending["error"] is None
    early = media_stack.download(media_id)
    assert early.status_code == 409 and early.get_json()["error"]["code"] == "media_not_ready"

    result = media_stack.fetcher.drain()
    assert (result.stored, result.failed) == (1, 0)
    stored = media_stack.media_item(media_id)
    assert stored["state"] == "stored" and stored["size"] == len(photo)

    answer = media_stack.download(media_id)
    assert answer.status_code == 200
    assert answer.data == photo
    assert answer.headers["Content-Type"] == "image/png"
    assert "filename=" in answer.headers["Content-Disposition"]
    with media_stack.database.reader() as session:
        row = session.scalars(select(MediaFile).where(MediaFile.media_id == media_id)).one()
    assert row.content_hash == hashlib.sha256(photo).hexdigest()
    assert row.sha256 == base64.b64encode(hashlib.sha256(photo).digest()).decode()


def test_a_voice_note_and_a_document_keep_their_type_and_file_name(media_stack: MediaStack) -> None:
    voice = media_stack.sandbox.inbound_media(CUSTOMER, "audio", "audio/ogg; codecs=opus", VOICE_NOTE)
    document = media_stack.sandbox.inbound_media(
        CUSTOMER, "document", "application/pdf", INVOICE, filename="invoice-42.pdf", caption="My invoice"
    )
    media_stack.receive(2)
    media_stack.fetcher.drain()
    voice_id, document_id = media_stack.media_id_of(voice), media_stack.media_id_of(document)
    assert media_stack.media_item(document_id)["filename"] == "invoice-42.pdf"
    audio = media_stack.download(voice_id)
    assert audio.data == VOICE_NOTE and audio.headers["Content-Type"].startswith("audio/ogg")
    pdf = media_stack.download(document_id)
    assert pdf.data == INVOICE
    assert pdf.headers["Content-Disposition"] == "attachment; filename=invoice-42.pdf"


def test_a_file_sent_twice_is_kept_once(media_stack: MediaStack) -> None:
    photo = png_bytes(seed=2)
    media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", photo)
    media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", photo)
    media_stack.receive(2)
    assert media_stack.fetcher.drain().stored == 2
    store = MediaStore.for_settings(media_stack.parts.settings)
    assert store.disk_use() == (1, len(photo))
    with media_stack.database.reader() as session:
        assert session.scalar(select(func.count()).select_from(MediaFile)) == 2


def test_a_corrupted_download_is_refused_retried_and_then_stored(media_stack: MediaStack) -> None:
    media_stack.sandbox.set_faults(media_corruption_rate=1.0)
    wamid = media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", png_bytes(seed=3))
    media_stack.receive()
    media_id = media_stack.media_id_of(wamid)
    first = media_stack.fetcher.run_once()
    assert first.retrying == 1 and "SHA-256" in first.errors[media_id]
    assert media_stack.media_item(media_id)["state"] == "pending"
    assert not MediaStore.for_settings(media_stack.parts.settings).root.exists() or (
        MediaStore.for_settings(media_stack.parts.settings).disk_use() == (0, 0)
    )
    # Not due again before its backoff has passed.
    assert media_stack.fetcher.run_once().claimed == 0
    media_stack.sandbox.set_faults(media_corruption_rate=0.0)
    media_stack.clock.advance(6)
    assert media_stack.fetcher.run_once().stored == 1
    assert media_stack.media_item(media_id)["state"] == "stored"


def test_after_the_last_try_the_failure_stays_visible_with_its_reason_and_retry_brings_it_back(
    media_stack: MediaStack,
) -> None:
    media_stack.sandbox.set_faults(media_download_failure_rate=1.0)
    wamid = media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", png_bytes(seed=4))
    media_stack.receive()
    media_id = media_stack.media_id_of(wamid)
    for _ in range(10):
        media_stack.fetcher.run_once()
        media_stack.clock.advance(3600)
    failed = media_stack.media_item(media_id)
    assert failed["state"] == "failed"
    assert failed["error"] == "the download failed (HTTP 500)"
    answer = media_stack.download(media_id)
    assert answer.status_code == 409 and "could not be downloaded" in answer.get_json()["error"]["message"]
    # The message itself was never held up: it is in the thread with its caption-less text.
    assert any(item.get("wamid") == wamid for item in media_stack.thread_items())

    media_stack.sandbox.set_faults(media_download_failure_rate=0.0)
    with media_stack.database.transaction() as session:
        assert retry_media(session, media_stack.clock()) == [media_id]
    assert media_stack.fetcher.drain().stored == 1
    restored = media_stack.media_item(media_id)
    assert restored["state"] == "stored" and restored["error"] is None


def test_an_expired_download_url_is_refused_by_the_sandbox_and_resolved_again(
    media_stack: MediaStack,
) -> None:
    photo = png_bytes(seed=5)
    wamid = media_stack.sandbox.inbound_media(CUSTOMER, "image", "image/png", photo)
    media_stack.receive()
    media_id = media_stack.media_id_of(wamid)
    auth = {"Authorization": f"Bearer {media_stack.parts.settings.whatsapp_token}"}
    url = httpx.get(f"{media_stack.sandbox.graph_url}/{media_id}", headers=auth).json()["url"]
    assert httpx.get(url, headers=auth).content == photo
    assert httpx.get(url).status_code == 401
    media_stack.clock.advance(301)
    assert httpx.get(url, headers=auth).status_code == 404

    # The fetcher is handed that old URL by a resolve answered before it expired: it asks again.
    calls: list[str] = []
    real = httpx.HTTPTransport()

    def stale_first(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if request.url.path.endswith(f"/{media_id}") and len(calls) == 1:
            return httpx.Response(200, json={"url": url, "mime_type": "image/png", "id": media_id})
        return real.handle_request(request)

    fetcher = MediaFetcher(media_stack.parts, transport=httpx.MockTransport(stale_first))
    try:
        assert fetcher.drain().stored == 1
    finally:
        fetcher.close()
        real.close()
    assert len(calls) == 4  # resolve, expired download, resolve again, download
    answer = media_stack.download(media_id)
    assert answer.data == photo


def test_unknown_media_is_404(media_stack: MediaStack) -> None:
    answer = media_stack.download("123456")
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "not_found"
