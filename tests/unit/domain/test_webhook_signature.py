"""The signature covers the raw bytes exactly as Meta sent them (reference §2.2 test vector)."""

from __future__ import annotations

import json

import pytest

from backend.domain.webhook_signature import SignatureCheck, check_signature, sign

SECRET = "test_app_secret"
VECTOR_BODY = (
    rb'{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":'
    rb'{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881",'
    rb'"phone_number_id":"106540352242922"},"contacts":[{"profile":{"name":"Jos\u00e9"},'
    rb'"wa_id":"16505551234"}],"messages":[{"from":"16505551234","id":"wamid.TEST",'
    rb'"timestamp":"1749416383","type":"text","text":{"body":"Ol\u00e1 \/ hi"}}]},"field":"messages"}]}]}'
)
VECTOR_SIGNATURE = "sha256=fc43996e152c4e5e11e0dc2e6cbe5c302483743b736d2ecbc59659bcf1cd99aa"


def test_the_reference_vector_verifies() -> None:
    assert sign(VECTOR_BODY, SECRET) == VECTOR_SIGNATURE
    assert check_signature(VECTOR_BODY, VECTOR_SIGNATURE, SECRET) is SignatureCheck.VALID


def test_the_same_object_reserialised_without_escapes_does_not_verify() -> None:
    reserialised = json.dumps(json.loads(VECTOR_BODY), ensure_ascii=False, separators=(",", ":")).encode()
    assert reserialised != VECTOR_BODY
    assert sign(reserialised, SECRET).startswith("sha256=485c25cc")
    assert check_signature(reserialised, VECTOR_SIGNATURE, SECRET) is SignatureCheck.INVALID


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, SignatureCheck.MISSING),
        ("", SignatureCheck.MISSING),
        ("sha256=" + "0" * 64, SignatureCheck.INVALID),
        (VECTOR_SIGNATURE[len("sha256=") :], SignatureCheck.INVALID),
        ("sha1=" + VECTOR_SIGNATURE[len("sha256=") :], SignatureCheck.INVALID),
        ("sha256=café", SignatureCheck.INVALID),
        (VECTOR_SIGNATURE.upper().replace("SHA256=", "sha256="), SignatureCheck.VALID),
    ],
)
def test_headers_are_checked(header: str | None, expected: SignatureCheck) -> None:
    assert check_signature(VECTOR_BODY, header, SECRET) is expected


def test_a_different_secret_does_not_verify() -> None:
    assert check_signature(VECTOR_BODY, VECTOR_SIGNATURE, "another_secret") is SignatureCheck.INVALID
