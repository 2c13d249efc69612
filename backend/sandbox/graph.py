"""The send call checked the way Meta checks it: Graph error envelopes and message validation."""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from typing import Any, Final

from backend.domain.phone import InvalidNumberError, normalize_number
from backend.domain.templates import TemplateCatalog, TemplateError

MAX_TEXT_BODY: Final = 4096
MAX_CAPTION: Final = 1024
MAX_CALLBACK_DATA: Final = 512
MEDIA_TYPES: Final = frozenset({"image", "audio", "video", "document", "sticker"})
CAPTIONED_MEDIA: Final = frozenset({"image", "video", "document"})
MESSAGE_TYPES: Final = MEDIA_TYPES | {"text", "location", "contacts", "template", "interactive", "reaction"}
INTERACTIVE_TYPES: Final = frozenset(
    {
        "button",
        "list",
        "product",
        "product_list",
        "catalog_message",
        "flow",
        "cta_url",
        "order_details",
        "order_status",
        "location_request_message",
        "address_message",
        "call_permission_request",
    }
)
BODY_PARAMETER_TYPES: Final = frozenset({"text", "currency", "date_time", "image", "video", "document"})


def trace_id() -> str:
    """A fresh fbtrace_id-looking string (23 URL-safe characters)."""
    return base64.urlsafe_b64encode(os.urandom(18)).decode()[:23]


class GraphError(Exception):
    """A Graph API error answer: HTTP status plus Meta's error envelope fields."""

    def __init__(
        self,
        http_status: int,
        code: int,
        title: str,
        details: str | None,
        *,
        error_type: str = "OAuthException",
        subcode: int | None = None,
        whole_message: str | None = None,
    ) -> None:
        super().__init__(whole_message or f"(#{code}) {title}")
        self.http_status = http_status
        self.code = code
        self.title = title
        self.details = details
        self.error_type = error_type
        self.subcode = subcode
        self.message = whole_message or f"(#{code}) {title}"

    def envelope(self, fbtrace_id: str | None = None) -> dict[str, Any]:
        """The body Meta answers with: {"error": {message, type, code, error_data, fbtrace_id}}."""
        error: dict[str, Any] = {"message": self.message, "type": self.error_type, "code": self.code}
        if self.details is not None:
            error["error_data"] = {"messaging_product": "whatsapp", "details": self.details}
        if self.subcode is not None:
            error["error_subcode"] = self.subcode
        error["fbtrace_id"] = fbtrace_id or trace_id()
        return {"error": error}

    def body(self) -> bytes:
        """The envelope serialised like Graph does (slashes escaped)."""
        return json.dumps(self.envelope(), separators=(",", ":")).replace("/", "\\/").encode()


def invalid_parameter(details: str) -> GraphError:
    """Meta's generic 400 for a malformed request: (#100) Invalid parameter."""
    return GraphError(400, 100, "Invalid parameter", details)


def invalid_token() -> GraphError:
    """401 for a missing or wrong access token."""
    return GraphError(
        401,
        190,
        "",
        None,
        whole_message="Invalid OAuth access token - Cannot parse access token",
    )


def unknown_object(object_id: str) -> GraphError:
    """400 for a phone number id this account does not have (as recorded from Graph)."""
    return GraphError(
        400,
        100,
        "",
        None,
        error_type="GraphMethodException",
        subcode=33,
        whole_message=(
            f"Unsupported post request. Object with ID '{object_id}' does not exist, cannot be loaded due "
            "to missing permissions, or does not support this operation. Please read the Graph API "
            "documentation at https://developers.facebook.com/docs/graph-api"
        ),
    )


def unknown_path() -> GraphError:
    """400 for a path Graph does not serve."""
    return GraphError(400, 2500, "", None, whole_message="Unknown path components")


RE_ENGAGEMENT: Final = GraphError(
    400,
    131047,
    "Re-engagement message",
    "Message failed to send because more than 24 hours have passed since the customer last replied "
    "to this number.",
)
PAIR_RATE_LIMIT: Final = GraphError(
    400,
    131056,
    "(Business Account, Consumer Account) pair rate limit hit",
    "Message failed to send because there were too many messages sent from this phone number to the "
    "same phone number in a short period of time.",
)
THROUGHPUT_LIMIT: Final = GraphError(
    400,
    130429,
    "Rate limit hit",
    "Message failed to send because there were too many messages sent from this phone number in a "
    "short period of time.",
)
SERVICE_UNAVAILABLE: Final = GraphError(
    503, 131016, "Service unavailable", "A service is temporarily unavailable. Please try again later."
)


@dataclass(frozen=True, slots=True)
class SendRequest:
    """A send that passed the shape checks."""

    to_input: str
    e164: str
    wa_id: str
    message_type: str
    content: dict[str, Any]
    body_text: str
    callback_data: str | None
    context_id: str | None
    template_buttons: tuple[str, ...]
    button_payloads: dict[int, str]


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """A mark-as-read (optionally with a typing indicator) call."""

    message_id: str
    typing: bool


class NumberCache:
    """Remembers normalised numbers: parsing is the dearest step of a send."""

    def __init__(self, limit: int = 200_000) -> None:
        self._limit = limit
        self._known: dict[str, str | None] = {}

    def e164(self, raw: str) -> str | None:
        """The E.164 form of `raw`, or None if it is not a valid number."""
        found = self._known.get(raw, "")
        if found != "":
            return found
        try:
            value: str | None = normalize_number(raw)
        except InvalidNumberError:
            value = None
        if len(self._known) >= self._limit:
            self._known.clear()
        self._known[raw] = value
        return value


def _require_object(payload: dict[str, Any], name: str) -> dict[str, Any]:
    value = payload.get(name)
    if not isinstance(value, dict):
        raise invalid_parameter(f"Param {name} is required and must be an object")
    return value


def _text_at_most(value: Any, limit: int, where: str, *, required: bool) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise invalid_parameter(f"Param {where} is required and must be a non-empty string")
    if len(value) > limit:
        raise invalid_parameter(f"Param {where} must be at most {limit} characters long")
    return value


def parse_request(payload: Any, catalog: TemplateCatalog, numbers: NumberCache) -> SendRequest | ReadRequest:
    """Check a /messages body like Meta and return what it asks for, or raise GraphError."""
    if not isinstance(payload, dict):
        raise invalid_parameter("The request body must be a JSON object")
    if payload.get("messaging_product") != "whatsapp":
        raise GraphError(
            400,
            100,
            "",
            "messaging_product must be whatsapp",
            whole_message="(#100) The parameter messaging_product is required.",
        )
    if "status" in payload:
        return _parse_read(payload)
    recipient_type = payload.get("recipient_type", "individual")
    if recipient_type != "individual":
        raise invalid_parameter("recipient_type must be individual for this phone number")
    to = payload.get("to")
    if isinstance(to, bool) or not isinstance(to, str | int) or to == "":
        raise GraphError(400, 100, "", "to is required", whole_message="(#100) The parameter to is required.")
    to_input = str(to)
    e164 = numbers.e164(to_input)
    if e164 is None:
        raise invalid_parameter(f"The recipient phone number {to_input} is not a valid phone number")
    message_type = payload.get("type")
    if message_type is None:
        # Graph takes the message object present when `type` is left out (text when none is).
        message_type = next((name for name in sorted(MESSAGE_TYPES) if name in payload), "text")
    if message_type not in MESSAGE_TYPES:
        raise GraphError(
            400, 131051, "Unsupported message type", f"Message type {message_type} is not supported."
        )
    callback = payload.get("biz_opaque_callback_data")
    if callback is not None and (not isinstance(callback, str) or len(callback) > MAX_CALLBACK_DATA):
        raise invalid_parameter(
            f"Param biz_opaque_callback_data must be a string of at most {MAX_CALLBACK_DATA} characters"
        )
    context = payload.get("context")
    context_id: str | None = None
    if context is not None:
        if not isinstance(context, dict) or not isinstance(context.get("message_id"), str):
            raise invalid_parameter("Param context['message_id'] must be a message id")
        if message_type == "reaction":
            raise invalid_parameter("Reactions cannot be sent as a reply")
        context_id = context["message_id"]
    content = _require_object(payload, message_type) if message_type != "contacts" else {}
    buttons: tuple[str, ...] = ()
    payloads: dict[int, str] = {}
    if message_type == "text":
        body = _text_at_most(content.get("body"), MAX_TEXT_BODY, "text['body']", required=True)
        if "preview_url" in content and not isinstance(content["preview_url"], bool):
            raise invalid_parameter("Param text['preview_url'] must be a boolean")
    elif message_type in MEDIA_TYPES:
        body = _check_media(message_type, content)
    elif message_type == "location":
        body = _check_location(content)
    elif message_type == "contacts":
        body = _check_contacts(payload.get("contacts"))
    elif message_type == "reaction":
        if not isinstance(content.get("message_id"), str) or not content["message_id"]:
            raise invalid_parameter("Param reaction['message_id'] is required")
        emoji = content.get("emoji", "")
        if not isinstance(emoji, str):
            raise invalid_parameter("Param reaction['emoji'] must be a string")
        body = emoji
    elif message_type == "interactive":
        body = _check_interactive(content)
    else:
        body, buttons, payloads = _check_template(content, catalog)
    return SendRequest(
        to_input=to_input,
        e164=e164,
        wa_id=e164[1:],
        message_type=message_type,
        content=payload.get("contacts") if message_type == "contacts" else content,  # type: ignore[arg-type]
        body_text=body,
        callback_data=callback,
        context_id=context_id,
        template_buttons=buttons,
        button_payloads=payloads,
    )


def _parse_read(payload: dict[str, Any]) -> ReadRequest:
    if payload.get("status") != "read":
        raise invalid_parameter("Param status must be read")
    message_id = payload.get("message_id")
    if not isinstance(message_id, str) or not message_id:
        raise GraphError(
            400,
            100,
            "",
            "message_id is required",
            whole_message="(#100) The parameter message_id is required.",
        )
    typing = payload.get("typing_indicator")
    if typing is not None and (not isinstance(typing, dict) or typing.get("type") != "text"):
        raise invalid_parameter("Param typing_indicator['type'] must be text")
    return ReadRequest(message_id=message_id, typing=typing is not None)


def _check_media(message_type: str, content: dict[str, Any]) -> str:
    has_id = isinstance(content.get("id"), str) and bool(content["id"])
    has_link = isinstance(content.get("link"), str) and bool(content["link"])
    if has_id == has_link:
        raise invalid_parameter(f"Param {message_type} must have exactly one of id or link")
    caption = content.get("caption")
    if caption is not None:
        if message_type not in CAPTIONED_MEDIA:
            raise invalid_parameter(f"Param {message_type}['caption'] is not allowed")
        _text_at_most(caption, MAX_CAPTION, f"{message_type}['caption']", required=False)
    return str(caption or content.get("filename") or content.get("id") or content.get("link"))


def _check_location(content: dict[str, Any]) -> str:
    for axis, bound in (("latitude", 90), ("longitude", 180)):
        value = content.get(axis)
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise invalid_parameter(f"Param location['{axis}'] is required")
        try:
            number = float(value)
        except ValueError:
            raise invalid_parameter(f"Param location['{axis}'] must be a number") from None
        if not -bound <= number <= bound:
            raise invalid_parameter(f"Param location['{axis}'] is out of range")
    return " ".join(str(content.get(part, "")) for part in ("name", "address")).strip() or "location"


def _check_contacts(contacts: Any) -> str:
    if not isinstance(contacts, list) or not contacts:
        raise invalid_parameter("Param contacts must be a non-empty list")
    names = []
    for contact in contacts:
        if not isinstance(contact, dict) or not isinstance(contact.get("name"), dict):
            raise invalid_parameter("Param contacts[]['name'] is required")
        formatted = contact["name"].get("formatted_name") or contact["name"].get("first_name")
        if not isinstance(formatted, str) or not formatted:
            raise invalid_parameter("Param contacts[]['name']['formatted_name'] is required")
        names.append(formatted)
    return ", ".join(names)


def _check_interactive(content: dict[str, Any]) -> str:
    kind = content.get("type")
    if kind not in INTERACTIVE_TYPES:
        raise invalid_parameter(f"Param interactive['type'] {kind!r} is not supported")
    body = content.get("body")
    body_text = ""
    if body is not None:
        if not isinstance(body, dict):
            raise invalid_parameter("Param interactive['body'] must be an object")
        body_text = _text_at_most(body.get("text"), 1024, "interactive['body']['text']", required=True)
    elif kind in {"button", "list", "product_list", "catalog_message", "flow"}:
        raise invalid_parameter("Param interactive['body'] is required")
    footer = content.get("footer")
    if footer is not None:
        if not isinstance(footer, dict):
            raise invalid_parameter("Param interactive['footer'] must be an object")
        _text_at_most(footer.get("text"), 60, "interactive['footer']['text']", required=True)
    header = content.get("header")
    if header is not None:
        if not isinstance(header, dict) or header.get("type") not in {"text", "image", "video", "document"}:
            raise invalid_parameter(
                "Param interactive['header']['type'] must be text, image, video or document"
            )
        if header["type"] == "text":
            _text_at_most(header.get("text"), 60, "interactive['header']['text']", required=True)
    action = content.get("action")
    if not isinstance(action, dict) and kind not in {"order_status"}:
        raise invalid_parameter("Param interactive['action'] is required")
    if kind == "button":
        assert isinstance(action, dict)
        _check_reply_buttons(action.get("buttons"))
    elif kind == "list":
        assert isinstance(action, dict)
        _check_list(action)
    return body_text


def _check_reply_buttons(buttons: Any) -> None:
    if not isinstance(buttons, list) or not 1 <= len(buttons) <= 3:
        raise invalid_parameter("Param interactive['action']['buttons'] must have 1 to 3 buttons")
    ids: set[str] = set()
    titles: set[str] = set()
    for button in buttons:
        if (
            not isinstance(button, dict)
            or button.get("type") != "reply"
            or not isinstance(button.get("reply"), dict)
        ):
            raise invalid_parameter("Each button must be of type reply with a reply object")
        reply = button["reply"]
        button_id = _text_at_most(reply.get("id"), 256, "button['reply']['id']", required=True)
        title = _text_at_most(reply.get("title"), 20, "button['reply']['title']", required=True)
        if button_id != button_id.strip():
            raise invalid_parameter("Param button['reply']['id'] must not start or end with spaces")
        if button_id in ids or title in titles:
            raise invalid_parameter("Button ids and titles must be unique")
        ids.add(button_id)
        titles.add(title)


def _check_list(action: dict[str, Any]) -> None:
    _text_at_most(action.get("button"), 20, "action['button']", required=True)
    sections = action.get("sections")
    if not isinstance(sections, list) or not 1 <= len(sections) <= 10:
        raise invalid_parameter("Param action['sections'] must have 1 to 10 sections")
    rows_total = 0
    row_ids: set[str] = set()
    for section in sections:
        if not isinstance(section, dict) or not isinstance(section.get("rows"), list):
            raise invalid_parameter("Each section needs rows")
        if len(sections) > 1 or "title" in section:
            _text_at_most(section.get("title"), 24, "section['title']", required=True)
        for row in section["rows"]:
            if not isinstance(row, dict):
                raise invalid_parameter("Each row must be an object")
            row_id = _text_at_most(row.get("id"), 200, "row['id']", required=True)
            _text_at_most(row.get("title"), 24, "row['title']", required=True)
            _text_at_most(row.get("description"), 72, "row['description']", required=False)
            if row_id in row_ids:
                raise invalid_parameter("Row ids must be unique")
            row_ids.add(row_id)
            rows_total += 1
    if not 1 <= rows_total <= 10:
        raise invalid_parameter("A list message has 1 to 10 rows in all")


def _check_template(
    content: dict[str, Any], catalog: TemplateCatalog
) -> tuple[str, tuple[str, ...], dict[int, str]]:
    name = content.get("name")
    language = content.get("language")
    if not isinstance(name, str) or not name:
        raise invalid_parameter("Param template['name'] is required")
    if not isinstance(language, dict) or not isinstance(language.get("code"), str):
        raise invalid_parameter("Param template['language']['code'] is required")
    code = language["code"]
    try:
        template = catalog.find(name, code)
    except TemplateError:
        raise GraphError(
            404,
            132001,
            "Template name does not exist in the translation",
            f"template name ({name}) does not exist in {code}",
        ) from None
    components = content.get("components", [])
    if not isinstance(components, list):
        raise invalid_parameter("Param template['components'] must be a list")
    values: list[str] = []
    payloads: dict[int, str] = {}
    for component in components:
        if not isinstance(component, dict) or component.get("type") not in {"header", "body", "button"}:
            raise invalid_parameter("Param template['components'][]['type'] must be header, body or button")
        parameters = component.get("parameters", [])
        if not isinstance(parameters, list):
            raise invalid_parameter("Param template['components'][]['parameters'] must be a list")
        if component["type"] == "body":
            for parameter in parameters:
                values.append(_template_value(parameter))
        elif component["type"] == "button":
            for parameter in parameters:
                if isinstance(parameter, dict) and isinstance(parameter.get("payload"), str):
                    try:
                        payloads[int(component.get("index", 0))] = parameter["payload"]
                    except (TypeError, ValueError):
                        raise invalid_parameter("Param button['index'] must be a number") from None
    if len(values) != template.parameter_count:
        raise GraphError(
            400,
            132000,
            "Number of parameters does not match the expected number of params",
            f"body: number of localizable_params ({len(values)}) does not match the expected number "
            f"of params ({template.parameter_count})",
        )
    rendered = template.body
    for index, value in enumerate(values, start=1):
        rendered = rendered.replace("{{" + str(index) + "}}", value)
    return rendered, template.buttons, payloads


def _template_value(parameter: Any) -> str:
    if not isinstance(parameter, dict) or not isinstance(parameter.get("type"), str):
        raise invalid_parameter("Each template parameter needs a type")
    kind = parameter["type"].lower()
    if kind not in BODY_PARAMETER_TYPES:
        raise invalid_parameter(f"Template parameter type {kind} is not valid in a body")
    if kind == "text":
        text = parameter.get("text")
        if not isinstance(text, str) or not text:
            raise GraphError(
                400,
                132012,
                "Parameter format does not match format in the created template",
                "Text parameters must be non-empty strings",
            )
        return text
    value = parameter.get(kind)
    if not isinstance(value, dict):
        raise invalid_parameter(f"Template parameter of type {kind} needs a {kind} object")
    return str(value.get("fallback_value") or value.get("link") or value.get("id") or kind)
