"""A backend on a fresh database wired to a real sandbox: webhooks go into the delivery store, media
comes from the sandbox's Graph endpoints, and one hand-moved clock drives both."""

from __future__ import annotations

import struct
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from app.composition import build_parts
from backend.database import Database
from backend.database.models import InboundMessage
from backend.media.fetcher import MediaFetcher
from backend.parts import BackendParts
from backend.sandbox.server import Sandbox, SandboxConfig
from backend.settings import Settings
from backend.users import create_user
from backend.web import create_app
from backend.webhooks.processor import WebhookProcessor
from tests.integration.web.conftest import FakeClock

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
GRAPH_TOKEN = "media-test-token"
PHONE_NUMBER_ID = "100000000000001"
CUSTOMER = "+16505551234"


def png_bytes(width: int = 3, height: int = 2, seed: int = 0) -> bytes:
    """A small valid PNG made here (RGB, no compression tricks), different for each seed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(
        b"\x00" + bytes((seed + x * 40 + y * 7) % 256 for x in range(width * 3)) for y in range(height)
    )
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@dataclass
class MediaStack:
    """The sandbox, the backend's parts, its app, the fetcher and a token for the API."""

    sandbox: Sandbox
    parts: BackendParts
    app: Flask
    clock: FakeClock
    fetcher: MediaFetcher
    token: str
    bodies: list[bytes]

    @property
    def database(self) -> Database:
        return self.parts.database

    def client(self) -> FlaskClient:
        return self.app.test_client()

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def wait_for_webhooks(self, count: int) -> None:
        """Until the sandbox has delivered `count` webhook bodies into the store."""
        deadline = time.monotonic() + 10
        while len(self.bodies) < count:
            assert time.monotonic() < deadline, f"only {len(self.bodies)} of {count} webhooks arrived"
            time.sleep(0.01)

    def receive_messages(self, *wamids: str) -> None:
        """Wait until the sandbox delivered the webhooks of these customer messages, and process them.

        A count of bodies cannot tell: status webhooks of earlier sends arrive among them.
        """
        deadline = time.monotonic() + 10
        while not all(any(wamid.encode() in body for body in self.bodies) for wamid in wamids):
            assert time.monotonic() < deadline, f"not every one of {wamids} arrived"
            time.sleep(0.01)
        result = WebhookProcessor(self.parts).drain()
        assert result.failed_deliveries == 0

    def media_id_of(self, wamid: str) -> str:
        """The media id the customer's message `wamid` carries."""
        with self.database.reader() as session:
            media_id = session.scalars(
                select(InboundMessage.media_id).where(InboundMessage.wamid == wamid)
            ).one()
        assert media_id is not None
        return media_id

    def receive(self, count: int = 1) -> None:
        """Wait for the webhooks and process them (as the background process would)."""
        self.wait_for_webhooks(count)
        result = WebhookProcessor(self.parts).drain()
        assert result.failed_deliveries == 0

    def thread_items(self) -> list[dict[str, Any]]:
        """The customer's conversation's thread as the API gives it."""
        client = self.client()
        conversations = client.get("/v1/conversations?limit=10&status=all", headers=self.headers()).get_json()
        items: list[dict[str, Any]] = []
        for conversation in conversations["conversations"]:
            page = client.get(
                f"/v1/conversations/{conversation['id']}/thread", headers=self.headers()
            ).get_json()
            items.extend(page["messages"])
        return items

    def download(self, media_id: str) -> Any:
        """GET /v1/media/{id}, its body read and the file closed."""
        response = self.client().get(f"/v1/media/{media_id}", headers=self.headers())
        response.get_data()
        response.close()
        return response

    def media_item(self, media_id: str) -> dict[str, Any]:
        """The `media` field of the thread item showing this media id."""
        for item in self.thread_items():
            media = item.get("media")
            if media and media["id"] == media_id:
                return dict(media)
        raise AssertionError(f"no thread item shows {media_id}")


@pytest.fixture
def media_stack(database: Database, database_url: str, tmp_path: Path) -> Iterator[MediaStack]:
    clock = FakeClock(START)
    bodies: list[bytes] = []
    holder: list[BackendParts] = []

    async def accept_webhook(request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        assert holder[0].delivery_store.store(body, request.headers.get("x-hub-signature-256"))
        bodies.append(body)
        return httpx.Response(200)

    sandbox = Sandbox(
        SandboxConfig(
            token=GRAPH_TOKEN,
            phone_number_id=PHONE_NUMBER_ID,
            webhook_url="http://backend.test/webhooks/whatsapp",
            webhook_transport=httpx.MockTransport(accept_webhook),
            status_delay=0.0,
            clock=clock,
            seed=7,
        )
    ).start()
    settings = Settings(
        data_dir=tmp_path,
        database_url=database_url,
        graph_url=sandbox.graph_url,
        whatsapp_token=GRAPH_TOKEN,
        whatsapp_phone_number_id=PHONE_NUMBER_ID,
    )
    parts = build_parts(settings, database, clock=clock)
    holder.append(parts)
    with database.transaction() as session:
        token = create_user(session, "alice", "agent", START)
    app = create_app(parts)
    app.config["TESTING"] = True
    fetcher = MediaFetcher(parts, concurrency=4)
    try:
        yield MediaStack(sandbox, parts, app, clock, fetcher, token, bodies)
    finally:
        fetcher.close()
        sandbox.stop()
