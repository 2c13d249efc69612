"""The send call is checked like Meta checks it: auth, shape, templates, then policy."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from backend.sandbox.policy import PairLimiter, ThroughputLimiter
from backend.sandbox.server import Sandbox

from .conftest import CUSTOMER, PHONE_NUMBER_ID, FakeClock, graph_client, template_message, text_message

pytestmark = pytest.mark.timeout(30)


def buttons(count: int, *, title: str = "Yes", button_id: str = "yes") -> dict[str, Any]:
    """An interactive reply-buttons body with `count` buttons."""
    return {
        "messaging_product": "whatsapp",
        "to": CUSTOMER,
        "type": "interactive",
        "interactive": {
            "type": "button",
            "body": {"text": "Pick one"},
            "action": {
                "buttons": [
                    {"type": "reply", "reply": {"id": f"{button_id}{n}", "title": f"{title}{n}"}}
                    for n in range(count)
                ]
            },
        },
    }


def with_template(**template: Any) -> dict[str, Any]:
    body = template_message()
    body["template"].update(template)
    return body


BAD_SENDS: list[tuple[str, Any, int, int]] = [
    ("not an object", [1, 2], 400, 100),
    ("no messaging_product", {"to": CUSTOMER, "type": "text", "text": {"body": "x"}}, 400, 100),
    ("wrong messaging_product", {**text_message(), "messaging_product": "sms"}, 400, 100),
    ("no to", {k: v for k, v in text_message().items() if k != "to"}, 400, 100),
    ("invalid number", text_message(to="+97250"), 400, 100),
    ("unknown type", {**text_message(), "type": "hologram", "hologram": {}}, 400, 131051),
    ("text without its object", {"messaging_product": "whatsapp", "to": CUSTOMER, "type": "text"}, 400, 100),
    ("empty text", text_message(""), 400, 100),
    ("text over 4096", text_message("x" * 4097), 400, 100),
    ("no buttons", buttons(0), 400, 100),
    ("four buttons", buttons(4), 400, 100),
    ("button title over 20", buttons(1, title="t" * 21), 400, 100),
    ("button id over 256", buttons(1, button_id="i" * 257), 400, 100),
    ("callback data over 512", text_message(biz_opaque_callback_data="k" * 513), 400, 100),
    ("image with neither id nor link", {**text_message(), "type": "image", "image": {}}, 400, 100),
    (
        "reaction as a reply",
        {
            **text_message(),
            "type": "reaction",
            "reaction": {"message_id": "wamid.X"},
            "context": {"message_id": "wamid.Y"},
        },
        400,
        100,
    ),
    ("unknown template", with_template(name="nope"), 404, 132001),
    ("template in another language", with_template(language={"code": "pt_BR"}), 404, 132001),
    ("too few template parameters", with_template(components=[]), 400, 132000),
    (
        "too many template parameters",
        with_template(components=[{"type": "body", "parameters": [{"type": "text", "text": "a"}] * 2}]),
        400,
        132000,
    ),
]


@pytest.fixture
def sandbox(start_sandbox: Callable[..., Sandbox]) -> Sandbox:
    sandbox = start_sandbox()
    sandbox.inbound(CUSTOMER, "hi")
    return sandbox


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[httpx.Client]:
    with graph_client(sandbox) as client:
        yield client


@pytest.mark.parametrize("case", BAD_SENDS, ids=[case[0] for case in BAD_SENDS])
def test_a_bad_send_gets_meta_s_error_and_reaches_nobody(
    sandbox: Sandbox, client: httpx.Client, case: tuple[str, Any, int, int]
) -> None:
    _name, body, status, code = case
    response = client.post("/messages", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["type"] == "OAuthException"
    assert error["message"].startswith(f"(#{code}) ")
    assert error["error_data"]["messaging_product"] == "whatsapp"
    assert error["error_data"]["details"]
    assert len(error["fbtrace_id"]) >= 10
    assert sandbox.ledger() == []


def test_limits_are_inclusive(client: httpx.Client) -> None:
    assert client.post("/messages", json=text_message("x" * 4096)).status_code == 200
    assert client.post("/messages", json=buttons(3, title="t" * 19)).status_code == 200
    assert client.post("/messages", json=buttons(1, button_id="i" * 255)).status_code == 200
    assert client.post("/messages", json=text_message(biz_opaque_callback_data="k" * 512)).status_code == 200


def test_wrong_or_missing_token_is_401_code_190(sandbox: Sandbox) -> None:
    url = f"{sandbox.graph_url}/{PHONE_NUMBER_ID}/messages"
    for headers in ({"Authorization": "Bearer wrong"}, {}):
        response = httpx.post(url, json=text_message(), headers=headers)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == 190
    assert sandbox.ledger() == []


def test_an_unknown_phone_number_id_is_an_unknown_object(sandbox: Sandbox) -> None:
    response = httpx.post(
        f"{sandbox.graph_url}/999/messages",
        json=text_message(),
        headers={"Authorization": f"Bearer {sandbox.config.token}"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["error_subcode"], error["type"]) == (100, 33, "GraphMethodException")


def test_success_has_message_status_only_for_templates(client: httpx.Client) -> None:
    text = client.post("/messages", json=text_message()).json()
    template = client.post("/messages", json=template_message()).json()
    assert text["contacts"] == [{"input": CUSTOMER, "wa_id": CUSTOMER[1:]}]
    assert set(text["messages"][0]) == {"id"}
    assert template["messages"][0]["message_status"] == "accepted"


def test_to_is_echoed_as_given_and_ledger_keeps_it(sandbox: Sandbox, client: httpx.Client) -> None:
    answer = client.post("/messages", json=template_message(to="1 (650) 555-1234")).json()
    assert answer["contacts"] == [{"input": "1 (650) 555-1234", "wa_id": "16505551234"}]
    assert sandbox.ledger()[-1]["to"] == "1 (650) 555-1234"


def test_read_receipt_and_typing_need_an_incoming_message(sandbox: Sandbox, client: httpx.Client) -> None:
    incoming = sandbox.inbound(CUSTOMER, "are you there?")
    outgoing = client.post("/messages", json=text_message()).json()["messages"][0]["id"]
    read = {"messaging_product": "whatsapp", "status": "read", "message_id": incoming}
    assert client.post("/messages", json=read).json() == {"success": True}
    typing = {**read, "typing_indicator": {"type": "text"}}
    assert client.post("/messages", json=typing).json() == {"success": True}
    wrong = client.post("/messages", json={**read, "message_id": outgoing})
    assert wrong.status_code == 400
    assert "is outgoing" in wrong.json()["error"]["error_data"]["details"]
    assert client.post("/messages", json={**read, "message_id": "12345"}).status_code == 400
    assert sandbox.stats()["read_receipts"] == 1
    assert sandbox.stats()["typing_indicators"] == 1


# ------------------------------------------------------------------------------- policy


def test_free_text_needs_the_24_hour_window_but_templates_do_not(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    clock = FakeClock()
    sandbox = start_sandbox(clock=clock)
    with graph_client(sandbox) as client:
        assert client.post("/messages", json=text_message()).json()["error"]["code"] == 131047
        assert client.post("/messages", json=template_message()).status_code == 200
        sandbox.inbound(CUSTOMER, "hello")
        clock.advance(24 * 3600 - 1)
        assert client.post("/messages", json=text_message()).status_code == 200
        clock.advance(1)
        closed = client.post("/messages", json=text_message())
        assert (closed.status_code, closed.json()["error"]["code"]) == (400, 131047)
        assert client.post("/messages", json=template_message()).status_code == 200
    assert [entry["type"] for entry in sandbox.ledger()] == ["template", "text", "template"]
    assert sandbox.stats()["rejected"] == {"131047": 2}


def test_shape_is_checked_before_policy(start_sandbox: Callable[..., Sandbox]) -> None:
    sandbox = start_sandbox()
    with graph_client(sandbox) as client:
        # The window is closed too, but the malformed body is what Meta reports.
        assert client.post("/messages", json=text_message("x" * 5000)).json()["error"]["code"] == 100


def test_pair_limit_allows_a_burst_of_45_then_one_every_6_seconds(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    clock = FakeClock()
    sandbox = start_sandbox(clock=clock, throughput=1000)
    other = "+447911123456"
    with graph_client(sandbox) as client:
        codes = [client.post("/messages", json=template_message(str(n))).status_code for n in range(45)]
        assert codes == [200] * 45
        refused = client.post("/messages", json=template_message("46"))
        assert (refused.status_code, refused.json()["error"]["code"]) == (400, 131056)
        assert client.post("/messages", json=template_message(to=other)).status_code == 200
        clock.advance(5.9)
        assert client.post("/messages", json=template_message("47")).status_code == 400
        clock.advance(0.1)
        assert client.post("/messages", json=template_message("48")).status_code == 200
        assert client.post("/messages", json=template_message("49")).status_code == 400
    assert len(sandbox.ledger()) == 47


def test_throughput_beyond_the_limit_is_130429(start_sandbox: Callable[..., Sandbox]) -> None:
    clock = FakeClock()
    sandbox = start_sandbox(clock=clock, throughput=5)
    numbers = [f"+1650555{1200 + n}" for n in range(8)]
    with graph_client(sandbox) as client:
        codes = [client.post("/messages", json=template_message(to=to)).status_code for to in numbers[:6]]
        assert codes == [200] * 5 + [400]
        clock.advance(0.999)
        assert (
            client.post("/messages", json=template_message(to=numbers[6])).json()["error"]["code"] == 130429
        )
        clock.advance(0.001)
        assert client.post("/messages", json=template_message(to=numbers[7])).status_code == 200
    assert sandbox.stats()["rejected"] == {"130429": 2}


@pytest.mark.parametrize(
    ("times", "expected"),
    [
        ([0.0] * 46, [True] * 45 + [False]),
        ([0.0] * 45 + [6.0, 6.0], [True] * 46 + [False]),
        ([0.0] * 45 + [270.0] * 46, [True] * 45 + [True] * 45 + [False]),
        ([0.0, 1.0, 2.0], [True, True, True]),
    ],
)
def test_pair_limiter_table(times: list[float], expected: list[bool]) -> None:
    limiter = PairLimiter(burst=45, interval=6.0)
    outcomes = []
    for now in times:
        allowed = limiter.allows("1", now)
        if allowed:
            limiter.take("1", now)
        outcomes.append(allowed)
    assert outcomes == expected


def test_throughput_limiter_is_a_sliding_second() -> None:
    limiter = ThroughputLimiter(per_second=2)
    for now in (0.0, 0.5):
        assert limiter.allows(now)
        limiter.take(now)
    assert not limiter.allows(0.99)
    assert limiter.allows(1.0)
    limiter.take(1.0)
    assert not limiter.allows(1.4)
    assert limiter.allows(1.5)


def test_media_a_customer_sent_can_be_looked_up_and_downloaded(sandbox: Sandbox) -> None:
    headers = {"Authorization": f"Bearer {sandbox.config.token}"}
    media_id = sandbox.keep_media(b"\x89PNG-not-really", "image/png")
    info = httpx.get(f"{sandbox.graph_url}/{media_id}", headers=headers)
    assert info.status_code == 200
    described = info.json()
    assert set(described) == {"url", "mime_type", "sha256", "file_size", "id", "messaging_product"}
    image = httpx.get(described["url"], headers=headers)
    assert image.content == b"\x89PNG-not-really" and len(image.content) == described["file_size"]
    assert httpx.get(described["url"]).status_code == 401
    assert httpx.get(f"{sandbox.graph_url}/{media_id}").status_code == 401
    unknown = httpx.get(f"{sandbox.graph_url}/1234567890", headers=headers)
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == 100


def test_unknown_graph_paths_get_a_graph_error(sandbox: Sandbox) -> None:
    headers = {"Authorization": f"Bearer {sandbox.config.token}"}
    assert httpx.get(f"{sandbox.graph_url}/{PHONE_NUMBER_ID}/messages", headers=headers).status_code == 400
    response = httpx.post(f"{sandbox.url}/nothing/here", headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == 2500


def test_the_ledger_is_left_out_of_garbage_collection(sandbox: Sandbox, client: httpx.Client) -> None:
    # The ledger gains an entry a send and is never emptied: entries the collector tracked would make
    # every full collection, which holds the loop stamping arrivals, longer as a bench goes on.
    for order in range(3):
        assert client.post("/messages", json=template_message(f"A-{order}")).status_code == 200
    gc.collect()
    assert len(sandbox._ledger) == 3
    assert not any(gc.is_tracked(row) for row in sandbox._ledger)
    # Read back entry by entry, as before.
    assert [entry["body"] for entry in sandbox.ledger()] == [
        f"Good news! Your order A-{order} has shipped and is on its way." for order in range(3)
    ]
