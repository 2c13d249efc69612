"""Every path segment the client builds is percent-encoded: a key can only ever address its own message."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ui.api.client import ApiClient
from ui.api.paths import api_path, path_segment

# Each value and the exact bytes it must be on the wire: nothing reserved survives unencoded.
ENCODED = [
    ("order-1:shipped/resolve#", b"order-1%3Ashipped%2Fresolve%23"),
    ("a?b", b"a%3Fb"),
    ("50%", b"50%25"),
    ("x&y+z w", b"x%26y%2Bz%20w"),
    ("café", b"caf%C3%A9"),
    ("%2F", b"%252F"),
    ("..", b"%2E%2E"),
    (".", b"%2E"),
    ("a.b", b"a.b"),
]

MESSAGE = {
    "key": "k",
    "to": "+16505551234",
    "purpose": "support",
    "state": "cancelled",
    "wamid": None,
    "attempts": 1,
    "error": None,
    "created_at": "2026-05-01T12:00:00Z",
}
INBOUND = {
    "direction": "inbound",
    "wamid": "w",
    "type": "text",
    "text": "hi",
    "choice": None,
    "choice_title": None,
    "context_id": None,
    "attributed": True,
    "placement": "new_topic",
    "reaction": None,
    "received_at": "2026-05-01T12:00:00Z",
}


class Recorder:
    """A fake backend that records the raw path of every request and answers with a valid body."""

    def __init__(self) -> None:
        self.raw_paths: list[bytes] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.raw_paths.append(request.url.raw_path)
        body: dict[str, Any] = INBOUND if request.url.raw_path.endswith(b"/attribute") else MESSAGE
        return httpx.Response(200, json=body)


@pytest.fixture
def recorder() -> Recorder:
    """The fake backend."""
    return Recorder()


@pytest.fixture
def client(recorder: Recorder) -> Iterator[ApiClient]:
    """An ApiClient talking to the fake backend."""
    api = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(recorder))
    yield api
    api.close()


@pytest.mark.parametrize(("value", "wire"), ENCODED)
def test_a_message_key_reaches_the_server_as_one_encoded_segment(
    client: ApiClient, recorder: Recorder, value: str, wire: bytes
) -> None:
    client.message(value)
    client.resolve(value, "cancel")
    client.attribute(value, new_topic=True)
    assert recorder.raw_paths == [
        b"/v1/messages/" + wire,
        b"/v1/messages/" + wire + b"/resolve",
        b"/v1/inbound/" + wire + b"/attribute",
    ]


def test_a_decoy_key_never_addresses_the_message_it_imitates(client: ApiClient, recorder: Recorder) -> None:
    client.resolve("order-1:shipped/resolve#", "cancel")
    client.resolve("order-1:shipped", "cancel")
    decoy, real = recorder.raw_paths
    assert decoy != real
    assert real == b"/v1/messages/order-1%3Ashipped/resolve"


def test_ids_are_segments_too() -> None:
    assert api_path("v1", "conversations", 7, "thread") == "/v1/conversations/7/thread"
    assert path_segment("a/b") == "a%2Fb"


def test_an_empty_segment_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        api_path("v1", "messages", "")
