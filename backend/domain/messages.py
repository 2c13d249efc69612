"""What a business message may contain, checked before anything is stored."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from backend.domain.phone import InvalidNumberError, normalize_number
from backend.domain.templates import TemplateCatalog, TemplateError

PURPOSE_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
MAX_TEXT_LENGTH = 4096
MAX_BUTTONS_BODY_LENGTH = 1024
MAX_BUTTON_ID_LENGTH = 256
MAX_BUTTON_TITLE_LENGTH = 20
MAX_DEDUPE_KEY_LENGTH = 255
MAX_TRIGGER_REF_LENGTH = 255

KIND_TEXT = "text"
KIND_TEMPLATE = "template"
KIND_BUTTONS = "buttons"
# A photo, voice note, video or document uploaded through POST /v1/media, sent by Meta's media id.
KIND_MEDIA = "media"
MEDIA_SEND_KINDS = ("image", "audio", "video", "document")
MAX_CAPTION_LENGTH = 1024
MAX_MEDIA_FILENAME_LENGTH = 240
MAX_MEDIA_ID_LENGTH = 255


TEMPLATE_NOT_APPROVED = "template_not_approved"
RECIPIENT_OPTED_OUT = "recipient_opted_out"
# Refusals that are not a malformed request but a state of the world the caller must know of.
STATUS_OF_CODE = {TEMPLATE_NOT_APPROVED: 422, RECIPIENT_OPTED_OUT: 409}


class MessageError(ValueError):
    """A message request we refuse; `code` is the API error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        """The HTTP status of this refusal: 400 for a malformed request."""
        return STATUS_OF_CODE.get(self.code, 400)


@dataclass(frozen=True)
class TemplateRequest:
    """A template to send: name, language and its body parameters."""

    name: str
    language: str
    parameters: tuple[str, ...] = ()


@dataclass(frozen=True)
class Button:
    """One reply button: the id comes back when tapped, the title is shown."""

    id: str
    title: str


@dataclass(frozen=True)
class ButtonsRequest:
    """A text with one to three reply buttons."""

    body: str
    buttons: tuple[Button, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class MediaRequest:
    """A file to send: its kind (image, audio, video, document), our media id, a caption, a file name."""

    kind: str
    media_id: str
    caption: str | None = None
    filename: str | None = None


@dataclass(frozen=True)
class CheckedMessage:
    """A message that passed every check: recipient in E.164 and the payload to store."""

    to_number: str
    kind: str
    payload: dict[str, Any]
    # The template's category (MARKETING, UTILITY...), for templates only.
    template_category: str | None = None


def not_approved_message(name: str, language: str, status: str) -> str:
    """The words of a refusal to send a template Meta has not approved."""
    return f"template {name} ({language}) is {status}, not APPROVED: Meta would refuse it"


def check_purpose(purpose: str) -> str:
    """The purpose label, or MessageError if it is not 1-64 letters, digits, `_`, `.` or `-`."""
    if not isinstance(purpose, str) or not PURPOSE_PATTERN.match(purpose):
        raise MessageError("invalid_message", "purpose must be 1 to 64 letters, digits, '_', '.' or '-'")
    return purpose


def check_message(
    *,
    to: str,
    purpose: str,
    templates: TemplateCatalog,
    text: str | None = None,
    template: TemplateRequest | None = None,
    buttons: ButtonsRequest | None = None,
    media: MediaRequest | None = None,
) -> CheckedMessage:
    """Check a message request and build the payload the outbox stores."""
    check_purpose(purpose)
    given = [part for part in (text, template, buttons, media) if part is not None]
    if len(given) != 1:
        raise MessageError(
            "invalid_message", "give exactly one of text, template, buttons, image, audio, video or document"
        )
    try:
        to_number = normalize_number(to)
    except InvalidNumberError as error:
        raise MessageError("invalid_recipient", str(error)) from None

    if text is not None:
        return CheckedMessage(to_number, KIND_TEXT, {"text": _check_text(text)})
    if template is not None:
        try:
            found = templates.find(template.name, template.language)
            found.check(template.parameters)
        except TemplateError as error:
            raise MessageError("invalid_template", str(error)) from None
        payload = {
            "template": {
                "name": found.name,
                "language": found.language,
                "parameters": list(template.parameters),
            }
        }
        return CheckedMessage(to_number, KIND_TEMPLATE, payload, template_category=found.category)
    if media is not None:
        return CheckedMessage(to_number, KIND_MEDIA, {"media": _check_media(media)})
    assert buttons is not None
    return CheckedMessage(to_number, KIND_BUTTONS, {"buttons": _check_buttons(buttons)})


def _check_media(request: MediaRequest) -> dict[str, Any]:
    if request.kind not in MEDIA_SEND_KINDS:
        raise MessageError("invalid_message", f"a file is sent as one of {', '.join(MEDIA_SEND_KINDS)}")
    kind = request.kind
    if not isinstance(request.media_id, str) or not 1 <= len(request.media_id) <= MAX_MEDIA_ID_LENGTH:
        raise MessageError("invalid_message", f"{kind}.media must be the id POST /v1/media answered")
    spec: dict[str, Any] = {"type": kind, "id": request.media_id}
    if request.caption is not None:
        if kind == "audio":
            raise MessageError("invalid_message", "audio takes no caption")
        if not isinstance(request.caption, str) or len(request.caption) > MAX_CAPTION_LENGTH:
            raise MessageError(
                "invalid_message", f"{kind}.caption is at most {MAX_CAPTION_LENGTH} characters"
            )
        if request.caption.strip():
            spec["caption"] = request.caption
    if request.filename is not None:
        if kind != "document":
            raise MessageError("invalid_message", "only a document takes a filename")
        if (
            not isinstance(request.filename, str)
            or not 1 <= len(request.filename) <= MAX_MEDIA_FILENAME_LENGTH
        ):
            raise MessageError(
                "invalid_message", f"document.filename is 1 to {MAX_MEDIA_FILENAME_LENGTH} characters"
            )
        spec["filename"] = request.filename
    return spec


def _check_text(text: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise MessageError("invalid_message", "text must not be empty")
    if len(text) > MAX_TEXT_LENGTH:
        raise MessageError("invalid_message", f"text is longer than {MAX_TEXT_LENGTH} characters")
    return text


def _check_buttons(request: ButtonsRequest) -> dict[str, Any]:
    if not isinstance(request.body, str) or not request.body.strip():
        raise MessageError("invalid_message", "buttons.body must not be empty")
    if len(request.body) > MAX_BUTTONS_BODY_LENGTH:
        raise MessageError(
            "invalid_message", f"buttons.body is longer than {MAX_BUTTONS_BODY_LENGTH} characters"
        )
    if not 1 <= len(request.buttons) <= 3:
        raise MessageError("invalid_message", "give 1 to 3 buttons")
    ids: set[str] = set()
    titles: set[str] = set()
    for button in request.buttons:
        if not button.id or button.id != button.id.strip() or len(button.id) > MAX_BUTTON_ID_LENGTH:
            raise MessageError(
                "invalid_message",
                f"a button id must be 1 to {MAX_BUTTON_ID_LENGTH} characters without outer spaces",
            )
        if not button.title.strip() or len(button.title) > MAX_BUTTON_TITLE_LENGTH:
            raise MessageError(
                "invalid_message", f"a button title must be 1 to {MAX_BUTTON_TITLE_LENGTH} characters"
            )
        if button.id in ids or button.title in titles:
            raise MessageError("invalid_message", "button ids and titles must be unique")
        ids.add(button.id)
        titles.add(button.title)
    return {
        "body": request.body,
        "buttons": [{"id": b.id, "title": b.title} for b in request.buttons],
    }


def check_dedupe_key(key: str) -> str:
    """A dedupe key of 1-255 characters, or MessageError."""
    if not isinstance(key, str) or not key or len(key) > MAX_DEDUPE_KEY_LENGTH:
        raise MessageError("invalid_message", f"a key must be 1 to {MAX_DEDUPE_KEY_LENGTH} characters")
    return key


def preview_text(kind: str, payload: dict[str, Any], templates: TemplateCatalog | None = None) -> str:
    """The text a person would see for a stored payload."""
    if kind == KIND_TEXT:
        return str(payload.get("text", ""))
    if kind == KIND_BUTTONS:
        buttons = payload.get("buttons", {})
        titles = " | ".join(str(b.get("title", "")) for b in buttons.get("buttons", []))
        return f"{buttons.get('body', '')}  [{titles}]"
    if kind == KIND_MEDIA:
        media = payload.get("media", {})
        return str(media.get("caption") or media.get("filename") or f"[{media.get('type', 'file')}]")
    if kind == KIND_TEMPLATE:
        spec = payload.get("template", {})
        parameters = tuple(str(p) for p in spec.get("parameters", []))
        if templates is not None:
            try:
                return templates.find(spec.get("name", ""), spec.get("language", "")).render(parameters)
            except TemplateError:
                pass
        return f"[template {spec.get('name')}] " + ", ".join(parameters)
    return ""
