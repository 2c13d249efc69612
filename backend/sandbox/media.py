"""The sandbox's media: files customers send and files the business uploads, served as Meta serves them.

`GET /{version}/{MEDIA_ID}` gives a download URL that needs the access token and expires after
`DOWNLOAD_URL_SECONDS`, as Meta's do; uploads arrive as multipart bodies on `/{PHONE_NUMBER_ID}/media`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Final

DOWNLOAD_URL_SECONDS: Final = 300
DOWNLOAD_PATH_PREFIX: Final = "/_media/"


@dataclass(frozen=True)
class SandboxFile:
    """One file the sandbox holds."""

    content: bytes
    mime_type: str
    filename: str | None

    @property
    def sha256_hex(self) -> str:
        """Lower-case hex SHA-256 of the bytes (what the ledger shows)."""
        return hashlib.sha256(self.content).hexdigest()


@dataclass(frozen=True)
class UploadedPart:
    """The `file` field of an upload and the `type` field beside it."""

    content: bytes
    mime_type: str
    filename: str | None


class UploadError(ValueError):
    """A body that is not a multipart upload with a `file` field."""


def parse_upload(content_type: str, body: bytes) -> UploadedPart:
    """The file of a multipart/form-data upload body, or UploadError saying what is wrong."""
    if not content_type.lower().startswith("multipart/form-data"):
        raise UploadError("Param file must be sent as multipart/form-data")
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise UploadError("The multipart body could not be read")
    fields: dict[str, Message] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if isinstance(name, str):
            fields[name] = part
    file_part = fields.get("file")
    if file_part is None:
        raise UploadError("Param file is required")
    content = file_part.get_payload(decode=True)
    if not isinstance(content, bytes):
        content = b""
    declared = fields.get("type")
    mime_type = file_part.get_content_type()
    if declared is not None:
        declared_value = declared.get_payload(decode=True)
        if isinstance(declared_value, bytes) and declared_value.strip():
            mime_type = declared_value.decode("utf-8", "replace").strip()
    filename = file_part.get_filename()
    return UploadedPart(content, mime_type, filename if isinstance(filename, str) else None)


class DownloadSigner:
    """Signs download URLs with an expiry, as Meta's lookaside links carry one."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def signature(self, media_id: str, expires: int) -> str:
        """The signature a URL for this file and expiry carries."""
        return hmac.new(self._key, f"{media_id}:{expires}".encode(), hashlib.sha256).hexdigest()[:32]

    def path(self, media_id: str, expires: int) -> str:
        """The download path and query for this file, good until `expires` (unix seconds)."""
        signature = self.signature(media_id, expires)
        return f"{DOWNLOAD_PATH_PREFIX}{media_id}?expires={expires}&signature={signature}"

    def valid(self, media_id: str, expires: str | None, signature: str | None, now: float) -> bool:
        """Whether a download URL is one of ours and not expired."""
        if not expires or not signature or not expires.isdigit():
            return False
        if not hmac.compare_digest(self.signature(media_id, int(expires)), signature):
            return False
        return now <= int(expires)
