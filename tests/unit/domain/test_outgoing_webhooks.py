"""Standard Webhooks rules: the published signature example, secrets, the retry schedule, URLs."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest

from backend.domain.outgoing_webhooks import (
    RETRY_PERIOD,
    events_problem,
    new_secret,
    next_attempt,
    secret_key,
    sign,
    url_problem,
    wants,
)


def test_the_signature_of_the_specifications_example() -> None:
    # The example of the Standard Webhooks reference libraries' tests.
    signature = sign(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330,
        b'{"test": 2432232314}',
    )
    assert signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_secrets_are_whsec_and_base64_of_random_bytes() -> None:
    first, second = new_secret(), new_secret()
    assert first != second
    assert len(secret_key(first)) == 32
    assert base64.b64encode(secret_key(first)).decode() == first.removeprefix("whsec_")


def test_the_first_retry_is_within_ten_seconds_and_retries_stop_after_three_days() -> None:
    start = datetime(2026, 12, 1, tzinfo=UTC)
    first = next_attempt(1, start, start)
    assert first is not None and first - start <= timedelta(seconds=10)
    moment, attempts, delays = start, 1, []
    while (following := next_attempt(attempts, moment, start)) is not None:
        delays.append(following - moment)
        moment, attempts = following, attempts + 1
    assert delays == sorted(delays) and delays[-1] >= timedelta(hours=1)
    assert moment <= start + RETRY_PERIOD < moment + delays[-1]


@pytest.mark.parametrize(
    ("url", "fine"),
    [
        ("https://shop.example/hooks?x=1", True),
        ("http://127.0.0.1:9000/", True),
        ("HTTPS://shop.example/", True),
        ("javascript:alert(1)", False),
        ("https://a@b/", False),
        ("https://shop.example/#top", False),
        ("https://shop.example/ hooks", False),
    ],
)
def test_urls(url: str, fine: bool) -> None:
    assert (url_problem(url) is None) is fine


def test_events() -> None:
    assert events_problem(["*"]) is None
    assert events_problem(["message.state_changed", "contact.opted_out"]) is None
    assert events_problem(["message.*"]) is not None
    assert wants(["*"], "anything") and wants(["inbound.received"], "inbound.received")
    assert not wants(["inbound.received"], "conversation.assigned")
