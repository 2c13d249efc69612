"""Simulated customers: they write first, read what they get, and answer in the ways real people do."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import random
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from backend.domain.phone import InvalidNumberError, normalize_number
from backend.sandbox.graph import SendRequest
from backend.sandbox.pictures import voice_note

NAMES: Final = (
    "Ana Souza",
    "José Ramos",
    "Mei Chen",
    "Olivia Brown",
    "Noah Müller",
    "Zoë Martin",
    "Liam O'Brien",
    "Aarav Shah",
    "Fatima Zahra",
    "Lucas Dubois",
    "Søren Lund",
    "Chloé Bernard",
)
OPENERS: Final = (
    "Hi! Is my order on its way?",
    "Do you open on Sundays?",
    "Hello, I'd like to change my delivery address.",
    "Can I return an item I bought last week?",
    "Is the blue one back in stock?",
    "Thanks for the quick help yesterday!",
    "¿Hacen envíos internacionales?",
)
# What a customer says back to an answer: short, so a chat comes to a natural end.
ANSWERS: Final = (
    "Thanks!",
    "Great, thank you 😊",
    "That works for me.",
    "Perfect, thanks a lot!",
    "OK, good to know.",
)
REACTIONS: Final = ("❤️", "😂", "😊", "😮")


def _tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x80\x00\x00\x80\xff" + b"\x00\x00\x80\xff\xff\x80\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


IMAGE_BYTES: Final = _tiny_png()
IMAGE_SHA256: Final = base64.b64encode(hashlib.sha256(IMAGE_BYTES).digest()).decode()


def name_for(wa_id: str) -> str:
    """A stable profile name for a customer number."""
    return NAMES[int(hashlib.sha1(wa_id.encode()).hexdigest(), 16) % len(NAMES)]


def customer_numbers(count: int) -> list[str]:
    """`count` valid, distinct E.164 numbers for simulated customers."""
    numbers: list[str] = []
    candidate = 0
    while len(numbers) < count:
        raw = f"+1650555{1000 + candidate % 9000:04d}" if candidate < 9000 else f"+4479111{candidate:05d}"
        candidate += 1
        try:
            numbers.append(normalize_number(raw))
        except InvalidNumberError:
            continue
    return numbers


# (from E.164, message fields without from/id/timestamp, context wamid or None) -> the new wamid
SendInbound = Callable[[str, dict[str, Any], str | None], str]
# (bytes, MIME type, file name or None) -> a media id the sandbox serves them under
KeepMedia = Callable[[bytes, str, str | None], str]
# How often a customer who writes first sends a photo, or a voice note, instead of words.
PHOTO_RATE: Final = 0.1
VOICE_NOTE_RATE: Final = 0.05
PHOTO_CAPTIONS: Final = ("Here's a photo", "This one arrived broken", "Is this the right one?")


@dataclass
class CustomerSettings:
    """How chatty the simulated customers are."""

    count: int = 0
    reply_rate: float = 0.7
    think_seconds: float = 2.0
    interval_seconds: float = 30.0


class SimulatedCustomers:
    """Drives customer behaviour on the sandbox's event loop."""

    def __init__(
        self,
        settings: CustomerSettings,
        send_inbound: SendInbound,
        rng: random.Random,
        keep_media: KeepMedia,
    ) -> None:
        self.settings = settings
        self.numbers = customer_numbers(settings.count)
        self._send_inbound = send_inbound
        self._rng = rng
        self._keep_media = keep_media
        self._task: asyncio.Task[None] | None = None
        self._timers: set[asyncio.TimerHandle] = set()
        # Each simulated customer gets a name of their own, so an inbox never shows two Lucases.
        self._names = {number: NAMES[index % len(NAMES)] for index, number in enumerate(self.numbers)}
        # Customers someone else speaks for (a demo's story, a test) through the control API.
        self._scripted: set[str] = set()
        # Loop time of each customer's last message either way: one chat at a time per customer.
        self._last_active: dict[str, float] = {}

    @property
    def enabled(self) -> bool:
        """Only with --customers N."""
        return self.settings.count > 0

    def name_of(self, e164: str) -> str:
        """The profile name a customer writes under."""
        return self._names.get(e164) or name_for(e164.lstrip("+"))

    def add_customer(self, e164: str, name: str, *, scripted: bool) -> None:
        """Give a number a profile name; a scripted customer only writes when told to."""
        self._names[e164] = name
        if scripted:
            self._scripted.add(e164)
        else:
            self._scripted.discard(e164)

    def known_customers(self) -> list[dict[str, Any]]:
        """Every named customer, as the control API reports them."""
        return [
            {"number": number, "name": name, "scripted": number in self._scripted}
            for number, name in self._names.items()
        ]

    def image_fields(self, caption: str | None) -> dict[str, Any]:
        """An inbound image message's fields: the sandbox's PNG under a fresh media id."""
        return self.media_fields("image", "image/png", IMAGE_BYTES, caption=caption)

    def media_fields(
        self,
        kind: str,
        mime_type: str,
        content: bytes,
        *,
        caption: str | None = None,
        filename: str | None = None,
    ) -> dict[str, Any]:
        """An inbound media message's fields, as Meta sends them, its bytes kept under a fresh media id."""
        media: dict[str, Any] = {
            "mime_type": mime_type,
            "sha256": base64.b64encode(hashlib.sha256(content).digest()).decode(),
            "id": self._keep_media(content, mime_type, filename),
        }
        if caption and kind in {"image", "video", "document"}:
            media["caption"] = caption
        if filename and kind == "document":
            media["filename"] = filename
        if kind == "audio":
            media["voice"] = mime_type.startswith("audio/ogg")
        if kind == "sticker":
            media["animated"] = False
        return {"type": kind, kind: media}

    def start(self) -> None:
        """Begin writing first, now and then."""
        if self.enabled:
            self._task = asyncio.get_running_loop().create_task(self._write_first(), name="sandbox-customers")

    async def stop(self) -> None:
        """Stop all customer activity."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _is_idle(self, number: str, now: float) -> bool:
        last = self._last_active.get(number)
        return last is None or now - last >= self.settings.interval_seconds

    async def _write_first(self) -> None:
        mean_gap = max(0.05, self.settings.interval_seconds / max(1, len(self.numbers)))
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._rng.expovariate(1.0 / mean_gap))
            now = loop.time()
            # Someone in the middle of a chat does not start another topic.
            idle = [n for n in self.numbers if n not in self._scripted and self._is_idle(n, now)]
            if not idle:
                continue
            number = self._rng.choice(idle)
            self._last_active[number] = now
            roll = self._rng.random()
            if roll < PHOTO_RATE:
                self._send_inbound(number, self.image_fields(self._rng.choice(PHOTO_CAPTIONS)), None)
                continue
            if roll > 1.0 - VOICE_NOTE_RATE:
                note = voice_note(self._rng.uniform(1.0, 4.0))
                self._send_inbound(number, self.media_fields("audio", "audio/amr", note), None)
                continue
            self._send_inbound(number, {"type": "text", "text": {"body": self._rng.choice(OPENERS)}}, None)

    def message_read(self, request: SendRequest, wamid: str, read_after: float) -> None:
        """The customer read our message `read_after` seconds from now; maybe they answer."""
        if not self.enabled or request.e164 in self._scripted:
            return
        loop = asyncio.get_running_loop()
        self._last_active[request.e164] = loop.time() + read_after
        if self._rng.random() >= self.settings.reply_rate:
            return
        delay = read_after + self.settings.think_seconds * self._rng.uniform(0.5, 1.5)
        if len(self._timers) > 1000:
            now = loop.time()
            self._timers = {timer for timer in self._timers if timer.when() > now}
        self._timers.add(loop.call_later(delay, self._answer, request, wamid))

    def _answer(self, request: SendRequest, wamid: str) -> None:
        rng = self._rng
        content = request.content
        self._last_active[request.e164] = asyncio.get_running_loop().time()
        if request.message_type == "template":
            # A template is a business message: the customer answers it by its button or by quoting
            # it, so nobody has to guess which message they mean.
            if request.template_buttons and rng.random() < 0.7:
                index = rng.randrange(len(request.template_buttons))
                text = request.template_buttons[index]
                button = {"payload": request.button_payloads.get(index, text), "text": text}
                self._send_inbound(request.e164, {"type": "button", "button": button}, wamid)
            else:
                self._send_inbound(
                    request.e164, {"type": "text", "text": {"body": rng.choice(ANSWERS)}}, wamid
                )
            return
        if request.message_type == "interactive" and content.get("type") == "button":
            choice = rng.choice(content["action"]["buttons"])["reply"]
            reply = {"type": "button_reply", "button_reply": {"id": choice["id"], "title": choice["title"]}}
            self._send_inbound(request.e164, {"type": "interactive", "interactive": reply}, wamid)
            return
        if request.message_type == "interactive" and content.get("type") == "list":
            rows = [row for section in content["action"]["sections"] for row in section["rows"]]
            row = rng.choice(rows)
            picked: dict[str, Any] = {"id": row["id"], "title": row["title"]}
            if row.get("description"):
                picked["description"] = row["description"]
            reply = {"type": "list_reply", "list_reply": picked}
            self._send_inbound(request.e164, {"type": "interactive", "interactive": reply}, wamid)
            return
        # Anything else reads as chat: people answer it plainly, by quoting it, or with a reaction.
        roll = rng.random()
        if roll < 0.4:
            self._send_inbound(request.e164, {"type": "text", "text": {"body": rng.choice(ANSWERS)}}, wamid)
        elif roll < 0.85:
            self._send_inbound(request.e164, {"type": "text", "text": {"body": rng.choice(ANSWERS)}}, None)
        else:
            reaction = {"message_id": wamid, "emoji": rng.choice(REACTIONS)}
            self._send_inbound(request.e164, {"type": "reaction", "reaction": reaction}, None)
