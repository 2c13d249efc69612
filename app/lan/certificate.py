"""The LAN listener's certificate: self-signed ECDSA P-256, made once, kept in `<data folder>/tls/`."""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from backend.settings import PRIVATE_FILE_MODE, make_private_folder, tighten

log = logging.getLogger(__name__)

TLS_FOLDER = "tls"
CERTIFICATE_FILE = "certificate.pem"
KEY_FILE = "key.pem"
# Desks pin the certificate itself, so it needs no renewal to stay trusted; it lasts until rotated.
VALID_DAYS = 3650


@dataclass(frozen=True)
class LanCertificate:
    """Where the certificate and its key are, and the fingerprint desks pin."""

    certificate_path: Path
    key_path: Path
    # 64 lowercase hex digits: the SHA-256 of the certificate in DER form.
    fingerprint: str


def fingerprint_of(der: bytes) -> str:
    """The pinned form of a certificate: SHA-256 of its DER bytes, lowercase hex."""
    return hashlib.sha256(der).hexdigest()


def tls_folder(data_dir: Path) -> Path:
    """The folder holding the LAN listener's certificate and key."""
    return data_dir / TLS_FOLDER


def _subject_alternative_name(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def load_certificate(data_dir: Path) -> tuple[LanCertificate, x509.Certificate] | None:
    """The kept certificate, or None when there is none (or it cannot be read)."""
    folder = tls_folder(data_dir)
    certificate_path, key_path = folder / CERTIFICATE_FILE, folder / KEY_FILE
    try:
        certificate = x509.load_pem_x509_certificate(certificate_path.read_bytes())
        if not key_path.is_file():
            return None
    except (OSError, ValueError):
        return None
    tighten(key_path, PRIVATE_FILE_MODE)
    der = certificate.public_bytes(serialization.Encoding.DER)
    return LanCertificate(certificate_path, key_path, fingerprint_of(der)), certificate


def _covers(certificate: x509.Certificate, host: str) -> bool:
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    return _subject_alternative_name(host) in list(names)


def ensure_certificate(data_dir: Path, host: str) -> LanCertificate:
    """The kept certificate if it names `host`, else a new one (made, written and returned)."""
    kept = load_certificate(data_dir)
    if kept is not None:
        lan_certificate, certificate = kept
        if _covers(certificate, host):
            return lan_certificate
        log.warning("the LAN certificate does not name %s; making a new one (desks need new invites)", host)
    return make_certificate(data_dir, host)


def _write_private(path: Path, content: bytes, mode: int) -> None:
    """Write `content` to `path` through a fresh file that has `mode` from the moment it exists."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if os.name == "posix":
                os.fchmod(handle.fileno(), mode)  # the umask cannot change it either way
            handle.write(content)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def make_certificate(data_dir: Path, host: str, *, now: datetime.datetime | None = None) -> LanCertificate:
    """A new key and self-signed certificate for `host`, replacing any kept one."""
    now = now or datetime.datetime.now(datetime.UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"shared inbox on {host}")])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName([_subject_alternative_name(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    folder = tls_folder(data_dir)
    make_private_folder(data_dir)
    make_private_folder(folder)
    key_path, certificate_path = folder / KEY_FILE, folder / CERTIFICATE_FILE
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    # The key first: a certificate on disk always has its key beside it.
    _write_private(key_path, key_pem, PRIVATE_FILE_MODE)
    _write_private(certificate_path, certificate.public_bytes(serialization.Encoding.PEM), 0o644)
    der = certificate.public_bytes(serialization.Encoding.DER)
    return LanCertificate(certificate_path, key_path, fingerprint_of(der))
