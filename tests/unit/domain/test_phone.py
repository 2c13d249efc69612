"""Phone numbers are normalised to E.164 once, on entry."""

from __future__ import annotations

import pytest

from backend.domain.phone import InvalidNumberError, normalize_number


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("+1 650-555-1234", "+16505551234"),
        ("16505551234", "+16505551234"),
        ("+44 7911 123456", "+447911123456"),
        ("(650) 555-1234", None),
    ],
)
def test_numbers_become_e164(raw: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(InvalidNumberError):
            normalize_number(raw)
    else:
        assert normalize_number(raw) == expected


def test_a_national_number_reads_with_a_default_region() -> None:
    assert normalize_number("(650) 555-1234", default_region="US") == "+16505551234"


@pytest.mark.parametrize("raw", ["", "   ", "123", "not a number", "+999 1234"])
def test_invalid_numbers_are_refused(raw: str) -> None:
    with pytest.raises(InvalidNumberError):
        normalize_number(raw)
