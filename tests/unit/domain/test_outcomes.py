"""Each Graph answer maps to one outcome class."""

from __future__ import annotations

import pytest

from backend.domain.outcomes import OutcomeKind, not_sent, outcome_of_answer, unknown

K = OutcomeKind


def _error(code: object, status_details: str = "d") -> dict[str, object]:
    return {
        "error": {
            "message": f"(#{code})",
            "type": "OAuthException",
            "code": code,
            "error_data": {"details": status_details},
        }
    }


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (200, {"messages": [{"id": "wamid.1"}]}, K.ACCEPTED),
        (200, {"messages": []}, K.UNKNOWN),
        (200, None, K.UNKNOWN),
        (400, _error(130429), K.RETRY),
        (429, _error(130429), K.RETRY),
        (400, _error(131056), K.RETRY_CUSTOMER),
        (400, _error(131047), K.HOLD_WINDOW),
        (400, _error(131026), K.FAIL),
        (404, _error(132001), K.FAIL),
        (400, _error(100), K.FAIL),
        (500, _error(131000), K.RETRY),
        (503, _error(2), K.RETRY),
        (500, _error(131045), K.FAIL),
        (500, None, K.UNKNOWN),
        (502, "<html>bad gateway</html>", K.UNKNOWN),
        (504, _error(987654), K.UNKNOWN),
        (429, None, K.RETRY),
        (400, _error(987654), K.FAIL),
        (401, None, K.FAIL),
    ],
)
def test_answers_are_classified(status: int, body: object, kind: OutcomeKind) -> None:
    assert outcome_of_answer(status, body).kind is kind


def test_accepted_keeps_the_wamid_and_failures_keep_code_title_details() -> None:
    assert outcome_of_answer(200, {"messages": [{"id": "wamid.X"}]}).wamid == "wamid.X"
    failed = outcome_of_answer(400, _error(131026, "not a WhatsApp user"))
    assert (failed.code, failed.title, failed.details) == (
        131026,
        "Message undeliverable",
        "not a WhatsApp user",
    )


def test_spam_limit_carries_its_minimum_wait() -> None:
    assert outcome_of_answer(400, _error(131048)).minimum_delay_seconds == 3600


def test_transport_failures() -> None:
    assert not_sent("ConnectError").kind is K.RETRY
    assert unknown("ReadTimeout").kind is K.UNKNOWN
