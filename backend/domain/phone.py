"""Phone numbers normalised to E.164 once, on entry."""

from __future__ import annotations

import phonenumbers


class InvalidNumberError(ValueError):
    """A phone number that is not a valid, dialable number."""


def normalize_number(raw: str, default_region: str | None = None) -> str:
    """The E.164 form (+972501234567) of a number, or InvalidNumberError saying why."""
    text = (raw or "").strip()
    if not text:
        raise InvalidNumberError("the phone number is empty")
    if not text.startswith("+") and default_region is None:
        # WhatsApp ids are digits with the country code; read them as international.
        text = "+" + text.lstrip("0") if text[:1].isdigit() else text
    try:
        parsed = phonenumbers.parse(text, default_region)
    except phonenumbers.NumberParseException as error:
        raise InvalidNumberError(f"{raw!r} is not a phone number: {error._msg}") from None
    if not phonenumbers.is_valid_number(parsed):
        raise InvalidNumberError(f"{raw!r} is not a valid phone number")
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def wa_id_for(e164: str) -> str:
    """The WhatsApp id of an E.164 number: its digits."""
    return e164.lstrip("+")
