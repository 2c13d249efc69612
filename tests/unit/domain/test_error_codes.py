"""The error table covers every code of the reference and classes each as the outbox must treat it."""

from __future__ import annotations

import pytest

from backend.domain.error_codes import ERROR_TABLE, ERRORS_BY_CODE, Action, lookup, parse_graph_error

R, C, H, F = Action.RETRY, Action.RETRY_CUSTOMER, Action.HOLD_WINDOW, Action.FAIL

# Every code of the reference's error table (§4) and the action the outbox takes for it.
EXPECTED = {
    0: F, 1: R, 2: R, 3: F, 4: R, 10: F, 17: R, 100: F, 190: F, 341: R, 368: F,
    80007: R, 130429: R, 130472: F, 130497: F,
    131000: R, 131005: F, 131008: F, 131009: F, 131016: R, 131021: F, 131026: F, 131030: F,
    131031: F, 131037: F, 131042: F, 131045: F, 131047: H, 131048: R, 131049: R, 131050: F,
    131051: F, 131052: F, 131053: F, 131056: C, 131057: R, 131060: F, 131064: R,
    132000: F, 132001: F, 132005: F, 132007: F, 132012: F, 132015: F, 132016: F,
    133010: F, 133016: R, 135000: F,
}  # fmt: skip


@pytest.mark.parametrize(("code", "action"), sorted(EXPECTED.items()))
def test_each_reference_code_has_its_action(code: int, action: Action) -> None:
    entry = lookup(code)
    assert entry is not None, f"code {code} missing from the table"
    assert entry.action is action
    assert entry.title


def test_the_table_has_no_code_twice_and_nothing_outside_the_reference() -> None:
    assert len(ERRORS_BY_CODE) == len(ERROR_TABLE)
    assert set(ERRORS_BY_CODE) == set(EXPECTED)


def test_the_issue_retry_list_is_retryable() -> None:
    for code in (2, 4, 80007, 130429, 131000, 131016, 131056, 131057):
        assert ERRORS_BY_CODE[code].action in {R, C}


def test_long_waits_are_data() -> None:
    assert ERRORS_BY_CODE[131049].minimum_delay_seconds >= 24 * 3600
    assert ERRORS_BY_CODE[131048].minimum_delay_seconds >= 3600
    assert ERRORS_BY_CODE[130429].minimum_delay_seconds == 0


def test_unknown_codes_have_no_row() -> None:
    assert lookup(999999) is None
    assert lookup(None) is None


@pytest.mark.parametrize(
    ("body", "code", "title", "details"),
    [
        (
            {
                "error": {
                    "message": "(#131026) Message undeliverable",
                    "type": "OAuthException",
                    "code": 131026,
                    "error_data": {"messaging_product": "whatsapp", "details": "not on WhatsApp"},
                }
            },
            131026,
            "Message undeliverable",
            "not on WhatsApp",
        ),
        (
            {"error": {"message": "(#100) Invalid parameter", "code": "100"}},
            100,
            "Invalid parameter",
            "(#100) Invalid parameter",
        ),
        ({"error": {"code": 5555, "error_user_title": "Odd", "message": "m"}}, 5555, "Odd", "m"),
        ({"error": {"code": "x"}}, None, "", ""),
    ],
)
def test_graph_error_bodies_are_parsed(body: object, code: int | None, title: str, details: str) -> None:
    error = parse_graph_error(body)
    assert error is not None
    assert (error.code, error.title, error.details) == (code, title, details)


@pytest.mark.parametrize("body", [None, [], "text", {"messages": []}, {"error": "flat"}])
def test_bodies_without_an_error_object_give_none(body: object) -> None:
    assert parse_graph_error(body) is None
