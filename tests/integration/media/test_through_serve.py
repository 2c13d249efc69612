"""Customers' files through the real `inbox serve`: the sandbox's webhooks reach its HTTP process, the
background process fetches and keeps each file, and the API serves the same bytes, the voice note with
its length."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from backend.sandbox.pictures import cracked_mug
from bench.harness import Rig
from tests.media_files import opus_voice_note

pytestmark = [pytest.mark.processes, pytest.mark.slow, pytest.mark.timeout(60)]

CUSTOMER = "+16505550133"


@pytest.fixture
def rig(database_url: str, tmp_path: Path) -> Iterator[Rig]:
    running = Rig(database_url, tmp_path)
    yield running
    running.close()


def _media_items(api: httpx.Client) -> dict[str, dict[str, Any]]:
    """Every thread item's `media`, by the wamid of its message."""
    found: dict[str, dict[str, Any]] = {}
    for conversation in api.get("/v1/conversations", params={"status": "all"}).json()["conversations"]:
        thread = api.get(f"/v1/conversations/{conversation['id']}/thread").json()["messages"]
        found.update({item["wamid"]: item["media"] for item in thread if item.get("media")})
    return found


def test_a_voice_note_and_a_photo_sent_by_a_customer_are_kept_and_served_by_inbox_serve(rig: Rig) -> None:
    began = time.monotonic()
    serve = rig.start_serve()
    note, photo = opus_voice_note(7.0), cracked_mug()
    sent = {
        "audio": ("audio/ogg; codecs=opus", note),
        "image": ("image/png", photo),
    }
    wamids: dict[str, str] = {}
    with httpx.Client(base_url=rig.sandbox.url, timeout=10) as control:
        for kind, (mime_type, content) in sent.items():
            media = {"type": kind, "mime_type": mime_type, "content_b64": base64.b64encode(content).decode()}
            answer = control.post("/_sandbox/inbound", json={"from": CUSTOMER, "media": media})
            assert answer.status_code == 200, answer.text
            wamids[kind] = answer.json()["wamid"]

    headers = {"Authorization": f"Bearer {rig.token}"}
    with httpx.Client(base_url=f"http://127.0.0.1:{serve.port}", headers=headers, timeout=10) as api:
        deadline = time.monotonic() + 20
        while True:
            items = _media_items(api)
            if all(items.get(wamid, {}).get("state") == "stored" for wamid in wamids.values()):
                break
            assert time.monotonic() < deadline, f"not kept in time: {items}\n{serve.log()[-2000:]}"
            time.sleep(0.1)
        voice, picture = items[wamids["audio"]], items[wamids["image"]]
        assert voice["duration_seconds"] == pytest.approx(7.0, abs=0.02)
        assert picture["duration_seconds"] is None
        for media, (mime_type, content) in ((voice, sent["audio"]), (picture, sent["image"])):
            assert media["size"] == len(content) and media["error"] is None
            download = api.get(f"/v1/media/{media['id']}")
            assert download.status_code == 200
            assert download.content == content
            assert download.headers["Content-Type"].startswith(mime_type.split(";", 1)[0])
    assert time.monotonic() - began < 20
