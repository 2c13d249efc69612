"""The LAN listener's certificate on disk: made once, kept, replaced when the host changes or on rotation."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cryptography import x509

from app.lan.certificate import ensure_certificate, load_certificate, make_certificate


def test_a_certificate_is_made_once_and_reused(tmp_path: Path) -> None:
    first = ensure_certificate(tmp_path, "192.168.1.20")
    assert ensure_certificate(tmp_path, "192.168.1.20") == first
    kept = load_certificate(tmp_path)
    assert kept is not None and kept[0] == first
    assert len(first.fingerprint) == 64 and first.fingerprint == first.fingerprint.lower()
    if os.name == "posix":
        assert stat.S_IMODE(first.key_path.stat().st_mode) == 0o600
        assert stat.S_IMODE(first.key_path.parent.stat().st_mode) == 0o700


def test_another_host_or_a_rotation_makes_a_new_one(tmp_path: Path) -> None:
    first = ensure_certificate(tmp_path, "192.168.1.20")
    moved = ensure_certificate(tmp_path, "office-pc.lan")
    assert moved.fingerprint != first.fingerprint
    names = x509.load_pem_x509_certificate(moved.certificate_path.read_bytes()).extensions
    assert names.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName
    ) == ["office-pc.lan"]
    rotated = make_certificate(tmp_path, "office-pc.lan")
    assert rotated.fingerprint not in {first.fingerprint, moved.fingerprint}
    assert sorted(entry.name for entry in rotated.key_path.parent.iterdir()) == ["certificate.pem", "key.pem"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_key_left_readable_by_others_is_restricted_when_loaded(tmp_path: Path) -> None:
    made = ensure_certificate(tmp_path, "192.168.1.20")
    made.key_path.chmod(0o644)
    load_certificate(tmp_path)
    assert stat.S_IMODE(made.key_path.stat().st_mode) == 0o600
