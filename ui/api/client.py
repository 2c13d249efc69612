"""A blocking HTTP client for the backend's /v1 API; call it only from the background runner."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from http import HTTPStatus
from typing import Any, TypeVar

import httpx

from ui.api.library import LibraryCalls
from ui.api.paths import api_path
from ui.api.pinning import MISMATCH_CODE, MISMATCH_MESSAGE, PinnedContext, certificate_mismatch_in
from ui.api.reports import ReportCalls
from ui.api.resources import (
    CONVERSATION_CHANGED,
    ColleagueMessage,
    Conversation,
    EventBatch,
    Identity,
    InboundMessage,
    LabelCount,
    MessageStatus,
    Metrics,
    Note,
    Page,
    SupervisorItem,
    TemplateInfo,
    ThreadPage,
    UploadedMedia,
    Viewer,
    WireFormatError,
    WorkItem,
    parse_colleague_messages,
    parse_conversation_page,
    parse_error_answer,
    parse_event_batch,
    parse_health,
    parse_identity,
    parse_labels,
    parse_media_state,
    parse_supervisor_page,
    parse_templates,
    parse_thread_page,
    parse_viewers,
    parse_work_queue_page,
)

R = TypeVar("R")

# A customer's file can be up to 100 MB: its download gets longer than an API call.
MEDIA_TIMEOUT = httpx.Timeout(120.0, connect=5.0)
# Uploads go in pieces this large, so their progress bar moves.
UPLOAD_CHUNK = 64 * 1024

DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)
# A long poll may take `wait` seconds to answer; allow that plus a margin.
LONG_POLL_MARGIN_SECONDS = 5.0
# The code of an ApiError raised when an answer does not have the shape this client reads.
BAD_RESPONSE = "bad_response"


class ApiError(Exception):
    """The backend refused, could not be reached (status 0), or answered in a shape it never sends."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    @property
    def unreachable(self) -> bool:
        """Whether the backend could not be reached at all."""
        return self.status == 0


class ConversationChangedError(ApiError):
    """A reply refused because other users wrote in the conversation since its author last looked."""

    def __init__(self, status: int, message: str, messages: list[ColleagueMessage]) -> None:
        super().__init__(status, CONVERSATION_CHANGED, message)
        self.messages = messages


def _iso(moment: datetime) -> str:
    """An aware time as the API writes it."""
    return moment.isoformat().replace("+00:00", "Z")


class ApiClient(LibraryCalls, ReportCalls):
    """The backend's HTTP API as methods returning typed resources."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        transport: httpx.BaseTransport | None = None,
        fingerprint: str | None = None,
    ) -> None:
        """A client of `base_url`; with `fingerprint`, TLS is trusted only with that certificate."""
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.base_url,
            verify=PinnedContext(fingerprint) if fingerprint else True,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=DEFAULT_TIMEOUT,
            transport=transport,
            limits=httpx.Limits(max_connections=32, max_keepalive_connections=16),
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _call(
        self,
        method: str,
        path: str,
        parse: Callable[[Any], R],
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        content: Iterator[bytes] | None = None,
    ) -> R:
        """Send one request and parse its body; every failure becomes an ApiError."""
        return self._call_with_headers(
            method,
            path,
            lambda body, _headers: parse(body),
            params=params,
            json=json,
            headers=headers,
            timeout=timeout,
            content=content,
        )

    def _call_with_headers(
        self,
        method: str,
        path: str,
        parse: Callable[[Any, httpx.Headers], R],
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        content: Iterator[bytes] | None = None,
    ) -> R:
        """Send one request and parse its body and headers; every failure becomes an ApiError."""
        clean_params = {name: value for name, value in (params or {}).items() if value is not None}
        try:
            response = self._http.request(
                method,
                path,
                params=clean_params,
                json=json,
                content=content,
                headers=headers,
                timeout=timeout or DEFAULT_TIMEOUT,
            )
        except httpx.HTTPError as error:
            raise self._unreachable(error) from None
        body: Any = None
        problem = ""
        # 204 No Content (a deletion) has no body to read; every other answer carries JSON.
        if response.status_code != HTTPStatus.NO_CONTENT:
            try:
                body = response.json()
            except ValueError:
                problem = "its body is not JSON"
        try:
            if problem:
                raise WireFormatError(problem)
            if response.status_code >= 400:
                code, message = parse_error_answer(body)
                if code == CONVERSATION_CHANGED:
                    raise ConversationChangedError(
                        response.status_code, message, parse_colleague_messages(body)
                    )
                raise ApiError(response.status_code, code, message)
            return parse(body, response.headers)
        except WireFormatError as error:
            raise ApiError(
                response.status_code,
                BAD_RESPONSE,
                f"The backend's answer to {method} {path} (HTTP {response.status_code}) is not one "
                f"this client understands: {error}",
            ) from None

    def _unreachable(self, error: httpx.HTTPError) -> ApiError:
        """The error for a request that got no answer: a pinned certificate that differs, or no backend."""
        if certificate_mismatch_in(error) is not None:
            return ApiError(0, MISMATCH_CODE, MISMATCH_MESSAGE)
        return ApiError(0, "unreachable", f"cannot reach the backend at {self.base_url}: {error}")

    def _get_text(self, path: str, params: Mapping[str, Any]) -> str:
        """GET an answer that is text, not JSON (a CSV file); refusals become an ApiError."""
        try:
            response = self._http.get(path, params=dict(params), headers={"Accept": "text/csv"})
        except httpx.HTTPError as error:
            raise self._unreachable(error) from None
        if response.status_code >= 400:
            try:
                code, message = parse_error_answer(response.json())
            except (ValueError, WireFormatError):
                code, message = BAD_RESPONSE, f"HTTP {response.status_code} without an error body"
            raise ApiError(response.status_code, code, message)
        return response.content.decode("utf-8-sig")

    def health(self) -> bool:
        """Whether the backend and its database answer."""
        try:
            return self._call("GET", api_path("healthz"), parse_health)
        except ApiError:
            return False

    def identity(self) -> Identity:
        """Who the token belongs to."""
        return self._call("GET", api_path("v1", "me"), parse_identity)

    def conversations(
        self,
        *,
        view: str = "all",
        status: str | Iterable[str] | None = None,
        label: str | None = None,
        window: str | None = None,
        query: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> Page[Conversation]:
        """One page of conversations, newest activity first; status None means open and pending."""
        statuses = status if status is None or isinstance(status, str) else ",".join(status)
        return self._call(
            "GET",
            api_path("v1", "conversations"),
            parse_conversation_page,
            params={
                "view": view,
                "status": statuses,
                "label": label or None,
                "window": window,
                "q": query or None,
                "cursor": cursor,
                "limit": limit,
            },
        )

    def conversation(self, conversation_id: int) -> Conversation:
        """One conversation."""
        return self._call("GET", api_path("v1", "conversations", conversation_id), Conversation.from_json)

    def thread(self, conversation_id: int, *, cursor: str | None = None, limit: int = 200) -> ThreadPage:
        """One page of a conversation's thread in time order, with who has it on screen."""
        return self._call(
            "GET",
            api_path("v1", "conversations", conversation_id, "thread"),
            parse_thread_page,
            params={"cursor": cursor, "limit": limit},
        )

    def assign(self, conversation_id: int, user: str | None) -> Conversation:
        """Assign a conversation to a user (None to unassign)."""
        return self._call(
            "POST",
            api_path("v1", "conversations", conversation_id, "assign"),
            Conversation.from_json,
            json={"user": user},
        )

    def mark_read(self, conversation_id: int) -> Conversation:
        """Clear a conversation's unread count."""
        return self._call(
            "POST", api_path("v1", "conversations", conversation_id, "read"), Conversation.from_json
        )

    def set_status(self, conversation_id: int, status: str, until: datetime | None = None) -> Conversation:
        """Open, mark pending, resolve, or snooze a conversation until an aware time."""
        payload: dict[str, Any] = {"status": status}
        if until is not None:
            payload["until"] = _iso(until)
        return self._call(
            "POST",
            api_path("v1", "conversations", conversation_id, "status"),
            Conversation.from_json,
            json=payload,
        )

    def presence(self, conversation_id: int, typing: bool, viewing: bool = True) -> tuple[Viewer, ...]:
        """Say the user has the conversation on screen (and is typing), or left it; who is there now."""
        return self._call(
            "POST",
            api_path("v1", "conversations", conversation_id, "presence"),
            parse_viewers,
            json={"typing": typing, "viewing": viewing},
        )

    def add_note(self, conversation_id: int, text: str) -> Note:
        """Add an internal note to a conversation's thread."""
        return self._call(
            "POST",
            api_path("v1", "conversations", conversation_id, "notes"),
            Note.from_json,
            json={"text": text},
        )

    def labels(
        self, conversation_id: int, add: Iterable[str] = (), remove: Iterable[str] = ()
    ) -> Conversation:
        """Add and remove labels on a conversation."""
        return self._call(
            "POST",
            api_path("v1", "conversations", conversation_id, "labels"),
            Conversation.from_json,
            json={"add": list(add), "remove": list(remove)},
        )

    def all_labels(self) -> list[LabelCount]:
        """The labels in use, with how many conversations carry each."""
        return self._call("GET", api_path("v1", "labels"), parse_labels)

    def reply(
        self,
        conversation_id: int,
        idempotency_key: str,
        *,
        text: str | None = None,
        template: Mapping[str, Any] | None = None,
        media: Mapping[str, Any] | None = None,
        seen_up_to: datetime | None = None,
        force: bool = False,
    ) -> MessageStatus:
        """Send text, a template or a file once per key; refused if others wrote after `seen_up_to` unless
        `force`. `media` is {"kind", "media" (the id POST /v1/media gave), "caption"?, "filename"?}."""
        payload: dict[str, Any]
        if media is not None:
            spec = {name: value for name, value in media.items() if name != "kind" and value}
            payload = {str(media["kind"]): spec}
        else:
            payload = {"text": text} if template is None else {"template": dict(template)}
        if seen_up_to is not None:
            payload["seen_up_to"] = _iso(seen_up_to)
        if force:
            payload["force"] = True
        return self._call(
            "POST",
            api_path("v1", "conversations", conversation_id, "reply"),
            MessageStatus.from_json,
            json=payload,
            headers={"Idempotency-Key": idempotency_key},
        )

    def message(self, key: str) -> MessageStatus:
        """The state of one message."""
        return self._call("GET", api_path("v1", "messages", key), MessageStatus.from_json)

    def work_queue(self, *, cursor: str | None = None, limit: int = 50) -> Page[WorkItem]:
        """One page of unattributed replies."""
        return self._call(
            "GET",
            api_path("v1", "work-queue"),
            parse_work_queue_page,
            params={"cursor": cursor, "limit": limit},
        )

    def attribute(
        self, wamid: str, *, message_key: str | None = None, new_topic: bool = False
    ) -> InboundMessage:
        """Link a reply to one of our messages, or mark it a new topic; the reply as now filed."""
        payload: dict[str, Any] = {"new_topic": True} if new_topic else {"message_key": message_key}
        return self._call(
            "POST", api_path("v1", "inbound", wamid, "attribute"), InboundMessage.from_json, json=payload
        )

    def supervisor_queue(self, *, cursor: str | None = None, limit: int = 50) -> Page[SupervisorItem]:
        """One page of unknown, stuck and held sends."""
        return self._call(
            "GET",
            api_path("v1", "supervisor", "queue"),
            parse_supervisor_page,
            params={"cursor": cursor, "limit": limit},
        )

    def resolve(self, key: str, action: str) -> MessageStatus:
        """Decide what happens to an unknown, stuck or held send: mark_sent, resend or cancel."""
        return self._call(
            "POST",
            api_path("v1", "messages", key, "resolve"),
            MessageStatus.from_json,
            json={"action": action},
        )

    def templates(self) -> list[TemplateInfo]:
        """The templates the business may send."""
        return self._call("GET", api_path("v1", "templates"), parse_templates)

    def media_content(self, media_id: str) -> bytes:
        """The bytes of a customer's file (GET /v1/media/{id}); ApiError 409 while it is not kept yet."""
        path = api_path("v1", "media", media_id)
        try:
            response = self._http.get(path, timeout=MEDIA_TIMEOUT)
        except httpx.HTTPError as error:
            raise ApiError(
                0, "unreachable", f"cannot reach the backend at {self.base_url}: {error}"
            ) from None
        if response.status_code >= 400:
            try:
                code, message = parse_error_answer(response.json())
            except (ValueError, WireFormatError):
                code, message = BAD_RESPONSE, f"GET {path} answered HTTP {response.status_code}"
            raise ApiError(response.status_code, code, message)
        return response.content

    def upload_media(
        self,
        filename: str,
        content: bytes,
        mime_type: str,
        progress: Callable[[int, int], None] | None = None,
    ) -> UploadedMedia:
        """POST /v1/media as multipart (field `file`), telling `progress` (sent, total) as bytes leave."""
        boundary = f"inbox-{uuid.uuid4().hex}"
        safe_name = filename.replace('"', "").replace("\r", "").replace("\n", "") or "file"
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{safe_name}"\r\n'
            f"Content-Type: {mime_type}\r\n\r\n"
        ).encode()
        tail = f"\r\n--{boundary}--\r\n".encode()
        total = len(head) + len(content) + len(tail)

        def body() -> Iterator[bytes]:
            sent = 0
            for part in (
                head,
                *(content[i : i + UPLOAD_CHUNK] for i in range(0, len(content), UPLOAD_CHUNK)),
                tail,
            ):
                yield part
                sent += len(part)
                if progress is not None:
                    progress(sent, total)

        return self._call(
            "POST",
            api_path("v1", "media"),
            UploadedMedia.from_json,
            content=body(),
            headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "Content-Length": str(total),
            },
            timeout=MEDIA_TIMEOUT,
        )

    def retry_media(self, media_id: str) -> str:
        """Ask for a failed download to be tried again; the state it is in now."""
        return self._call("POST", api_path("v1", "media", media_id, "retry"), parse_media_state)

    def metrics(self) -> Metrics:
        """The five measures and the queue depth."""
        return self._call("GET", api_path("v1", "metrics"), Metrics.from_json)

    def events(self, *, after: int, wait: float = 0, limit: int = 500) -> EventBatch:
        """Events after `after`, waiting up to `wait` seconds for one to appear."""
        timeout = httpx.Timeout(wait + LONG_POLL_MARGIN_SECONDS, connect=5.0)
        return self._call_with_headers(
            "GET",
            api_path("v1", "events"),
            lambda body, headers: parse_event_batch(body, headers.get("Retry-After")),
            params={"after": after, "wait": int(wait), "limit": limit},
            timeout=timeout,
        )


__all__ = ["BAD_RESPONSE", "ApiClient", "ApiError", "ConversationChangedError", "InboundMessage"]
