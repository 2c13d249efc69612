"""Files sent to customers: POST /v1/media with Meta's limits, sends and replies by id, the upload made
once before the claim (never a second message when it fails), and idempotent replays."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from backend.database.models import MediaFile, OutboxMessage
from backend.outbox.media_uploads import MediaUploader
from backend.outbox.sender import OutboxSender
from tests.integration.media.conftest import CUSTOMER, MediaStack, png_bytes

OTHER_CUSTOMER = "+16505551299"
MB = 1024 * 1024


BOUNDARY = "media-test-boundary"


def multipart(content: bytes, mime_type: str, filename: str) -> bytes:
    """A multipart/form-data body with one `file` field (made here: the test client spools large ones)."""
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        f"Content-Type: {mime_type}\r\n\r\n"
    ).encode()
    return head + content + f"\r\n--{BOUNDARY}--\r\n".encode()


def upload(stack: MediaStack, content: bytes, mime_type: str, filename: str = "file.bin") -> Any:
    return stack.client().post(
        "/v1/media",
        data=multipart(content, mime_type, filename),
        headers=stack.headers(),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )


def send(stack: MediaStack, key: str, body: dict[str, Any]) -> Any:
    return stack.client().post("/v1/messages", json=body, headers={**stack.headers(), "Idempotency-Key": key})


def open_windows(stack: MediaStack, *numbers: str) -> None:
    """Each customer writes first, so free-form messages (files included) may go to them."""
    stack.receive_messages(*(stack.sandbox.inbound(number, "Hello") for number in numbers))


@pytest.mark.parametrize(
    ("mime_type", "size", "status", "code"),
    [
        ("image/png", 5 * MB + 1, 413, "media_too_large"),
        ("image/jpeg", 5 * MB, 201, None),
        ("image/gif", 10, 400, "unsupported_media_type"),
        ("audio/ogg", 16 * MB + 1, 413, "media_too_large"),
        ("audio/mpeg", 100, 201, None),
        ("video/mp4", 16 * MB + 1, 413, "media_too_large"),
        ("video/3gpp", 100, 201, None),
        ("video/quicktime", 100, 400, "unsupported_media_type"),
        ("image/webp", 500 * 1024 + 1, 413, "media_too_large"),
        ("image/webp", 500 * 1024, 201, None),
        ("application/pdf", 1000, 201, None),
        ("text/html", 1000, 400, "unsupported_media_type"),
        ("application/x-msdownload", 1000, 400, "unsupported_media_type"),
    ],
)
def test_uploads_keep_meta_s_types_and_limits(
    media_stack: MediaStack, mime_type: str, size: int, status: int, code: str | None
) -> None:
    answer = upload(media_stack, b"\x01" * size, mime_type)
    assert answer.status_code == status, answer.get_json()
    if code is None:
        body = answer.get_json()
        # The four fields, and the length (null: these bytes are no recording).
        assert set(body) == {"id", "mime_type", "size", "sha256", "duration_seconds"}
        assert body["duration_seconds"] is None
        assert body["size"] == size and body["mime_type"] == mime_type
        assert body["sha256"] == hashlib.sha256(b"\x01" * size).hexdigest()
    else:
        error = answer.get_json()["error"]
        assert error["code"] == code and error["message"]


def test_a_document_past_100_mb_is_refused_from_its_length(media_stack: MediaStack) -> None:
    answer = media_stack.client().post(
        "/v1/media",
        data=b"x",
        headers=media_stack.headers(),
        content_type="multipart/form-data; boundary=x",
        environ_overrides={"CONTENT_LENGTH": str(101 * MB + 2)},
    )
    assert answer.status_code == 413 and answer.get_json()["error"]["code"] == "media_too_large"


def test_an_upload_without_a_file_field_is_400(media_stack: MediaStack) -> None:
    answer = media_stack.client().post("/v1/media", data={"other": "x"}, headers=media_stack.headers())
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "invalid_media"


def test_a_file_is_uploaded_once_and_both_messages_go_by_meta_s_id(media_stack: MediaStack) -> None:
    open_windows(media_stack, CUSTOMER, OTHER_CUSTOMER)
    photo = png_bytes(seed=11)
    media_id = upload(media_stack, photo, "image/png", "mug.png").get_json()["id"]
    for key, to in (("photo-1", CUSTOMER), ("photo-2", OTHER_CUSTOMER)):
        answer = send(
            media_stack,
            key,
            {"to": to, "purpose": "support", "image": {"media": media_id, "caption": "Ours"}},
        )
        assert answer.status_code == 202, answer.get_json()
    sender = OutboxSender(media_stack.parts)
    # Not claimable before Meta holds the file.
    assert sender.run_once() == 0
    assert MediaUploader(media_stack.parts).run_once().uploaded == 1
    assert MediaUploader(media_stack.parts).run_once().tried == 0
    media_stack.clock.advance(1)  # the claim looks again a second after deferring
    assert sender.run_once() == 2
    ledger = media_stack.sandbox.ledger()
    images = [entry for entry in ledger if entry["type"] == "image"]
    assert sorted(entry["biz_opaque_callback_data"] for entry in images) == ["photo-1", "photo-2"]
    assert {entry["sha256"] for entry in images} == {hashlib.sha256(photo).hexdigest()}
    assert media_stack.sandbox.stats()["media_uploads"] == 1
    with media_stack.database.reader() as session:
        row = session.scalars(select(MediaFile).where(MediaFile.media_id == media_id)).one()
    assert row.graph_media_id is not None and row.graph_uploaded_at == media_stack.clock() - timedelta(
        seconds=1
    )

    # Thirty days on, Meta no longer holds it: the next message uploads it again.
    media_stack.clock.advance(30 * 86400)
    open_windows(media_stack, CUSTOMER)
    assert (
        send(
            media_stack, "photo-3", {"to": CUSTOMER, "purpose": "support", "image": {"media": media_id}}
        ).status_code
        == 202
    )
    assert sender.run_once() == 0
    assert MediaUploader(media_stack.parts).run_once().uploaded == 1
    media_stack.clock.advance(1)  # the claim looks again a second after deferring
    assert sender.run_once() == 1
    assert media_stack.sandbox.stats()["media_uploads"] == 2


def test_a_failed_upload_is_retried_and_never_makes_a_second_message(media_stack: MediaStack) -> None:
    open_windows(media_stack, CUSTOMER)
    invoice = b"%PDF-1.4 invoice %%EOF"
    media_id = upload(media_stack, invoice, "application/pdf", "invoice.pdf").get_json()["id"]
    body = {"to": CUSTOMER, "purpose": "support", "document": {"media": media_id, "filename": "invoice.pdf"}}
    assert send(media_stack, "invoice-1", body).status_code == 202
    media_stack.sandbox.set_faults(media_upload_failure_rate=1.0)
    uploader, sender = MediaUploader(media_stack.parts), OutboxSender(media_stack.parts)
    for _ in range(3):
        result = uploader.run_once()
        assert result.failed == 1 and "503" in result.errors[media_id]
        assert sender.run_once() == 0
        media_stack.clock.advance(60)
    with media_stack.database.reader() as session:
        row = session.scalars(select(OutboxMessage).where(OutboxMessage.dedupe_key == "invoice-1")).one()
        assert (row.state, row.attempts) == ("queued", 0)
    media_stack.sandbox.set_faults(media_upload_failure_rate=0.0)
    assert uploader.run_once().uploaded == 1
    media_stack.clock.advance(1)  # the claim looks again a second after deferring
    assert sender.run_once() == 1
    assert sender.run_once() == 0
    sent = [
        entry for entry in media_stack.sandbox.ledger() if entry["biz_opaque_callback_data"] == "invoice-1"
    ]
    assert len(sent) == 1 and sent[0]["type"] == "document"
    assert sent[0]["sha256"] == hashlib.sha256(invoice).hexdigest()


def test_media_sends_replay_under_their_key_and_refuse_another_file_under_it(media_stack: MediaStack) -> None:
    first = upload(media_stack, png_bytes(seed=12), "image/png").get_json()["id"]
    second = upload(media_stack, png_bytes(seed=13), "image/png").get_json()["id"]
    body = {"to": CUSTOMER, "purpose": "support", "image": {"media": first, "caption": "Here"}}
    created = send(media_stack, "same-key", body)
    replayed = send(media_stack, "same-key", body)
    assert created.status_code == replayed.status_code == 202
    assert replayed.get_json() == created.get_json()
    other = send(media_stack, "same-key", {**body, "image": {"media": second, "caption": "Here"}})
    assert other.status_code == 422
    with media_stack.database.reader() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"image": {"media": "up_nothing"}}, "unknown_media"),
        ({"audio": {"media": "MEDIA"}}, "media_kind_mismatch"),
        ({"audio": {"media": "MEDIA", "caption": "no"}}, "invalid_message"),
        ({"image": {"media": "MEDIA", "filename": "a.png"}}, "invalid_message"),
        ({"image": {"media": "MEDIA"}, "text": "and words"}, "invalid_message"),
        ({"image": "MEDIA"}, "invalid_message"),
    ],
)
def test_bad_media_sends_are_precise_400s(media_stack: MediaStack, body: dict[str, Any], code: str) -> None:
    media_id = upload(media_stack, png_bytes(seed=14), "image/png").get_json()["id"]
    filled = {
        name: (
            {**value, "media": media_id}
            if isinstance(value, dict) and value.get("media") == "MEDIA"
            else value
        )
        for name, value in body.items()
    }
    if filled.get("image") == "MEDIA":
        filled["image"] = media_id
    answer = send(media_stack, "bad", {"to": CUSTOMER, "purpose": "support", **filled})
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == code


def test_an_agent_replies_with_a_photo_in_the_conversation(media_stack: MediaStack) -> None:
    open_windows(media_stack, CUSTOMER)
    media_id = upload(media_stack, png_bytes(seed=15), "image/png").get_json()["id"]
    conversations = media_stack.client().get("/v1/conversations", headers=media_stack.headers()).get_json()
    conversation_id = conversations["conversations"][0]["id"]
    answer = media_stack.client().post(
        f"/v1/conversations/{conversation_id}/reply",
        json={"image": {"media": media_id, "caption": "Is it this one?"}},
        headers={**media_stack.headers(), "Idempotency-Key": "reply-photo"},
    )
    assert answer.status_code == 202, answer.get_json()
    MediaUploader(media_stack.parts).run_once()
    media_stack.clock.advance(1)  # the claim looks again a second after deferring
    assert OutboxSender(media_stack.parts).run_once() == 1
    entry = next(e for e in media_stack.sandbox.ledger() if e["biz_opaque_callback_data"] == "reply-photo")
    assert entry["type"] == "image" and entry["body"] == "Is it this one?"
    thread = media_stack.thread_items()
    outbound = [item for item in thread if item["direction"] == "outbound"]
    assert outbound[-1]["body"] == "Is it this one?"
