"""A blocking HTTP client for the backend's /v1 API; call it only from the background runner."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from ui.api.resources import (
    Conversation,
    Event,
    EventBatch,
    Identity,
    InboundMessage,
    MessageStatus,
    Metrics,
    Page,
    SupervisorItem,
    TemplateInfo,
    ThreadItem,
    WorkItem,
    parse_thread_item,
)

DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)
# A long poll may take `wait` seconds to answer; allow that plus a margin.
LONG_POLL_MARGIN_SECONDS = 5.0


class ApiError(Exception):
    """The backend answered with an error, or could not be reached (status 0)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    @property
    def unreachable(self) -> bool:
        """Whether the backend could not be reached at all."""
        return self.status == 0


class ApiClient:
    """The backend's HTTP API as methods returning typed resources."""

    def __init__(self, base_url: str, token: str, *, transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=DEFAULT_TIMEOUT,
            transport=transport,
            limits=httpx.Limits(max_connections=32, max_keepalive_connections=16),
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
    ) -> Any:
        clean_params = {name: value for name, value in (params or {}).items() if value is not None}
        try:
            response = self._http.request(
                method,
                path,
                params=clean_params,
                json=json,
                headers=headers,
                timeout=timeout or DEFAULT_TIMEOUT,
            )
        except httpx.HTTPError as error:
            raise ApiError(
                0, "unreachable", f"cannot reach the backend at {self.base_url}: {error}"
            ) from None
        if response.status_code >= 400:
            code, message = "http_error", f"HTTP {response.status_code}"
            try:
                body = response.json()
                code = str(body["error"]["code"])
                message = str(body["error"]["message"])
            except (ValueError, KeyError, TypeError):
                pass
            raise ApiError(response.status_code, code, message)
        if not response.content:
            return {}
        return response.json()

    def health(self) -> bool:
        """Whether the backend and its database answer."""
        try:
            self._request("GET", "/healthz")
        except ApiError:
            return False
        return True

    def identity(self) -> Identity:
        """Who the token belongs to; name and role are None when the API cannot tell."""
        try:
            body = self._request("GET", "/v1/me")
        except ApiError as error:
            if error.status in (404, 405):
                return Identity(name=None, role=None)
            raise
        user = body.get("user", body)
        return Identity(name=user.get("name"), role=user.get("role"))

    def is_supervisor(self) -> bool:
        """Whether the supervisor queue is open to this token."""
        try:
            self._request("GET", "/v1/supervisor/queue", params={"limit": 1})
        except ApiError as error:
            if error.status in (403, 404):
                return False
            raise
        return True

    def conversations(
        self,
        *,
        view: str = "all",
        window: str | None = None,
        query: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> Page[Conversation]:
        """One page of conversations, newest activity first."""
        body = self._request(
            "GET",
            "/v1/conversations",
            params={"view": view, "window": window, "q": query or None, "cursor": cursor, "limit": limit},
        )
        items = [Conversation.from_json(entry) for entry in body.get("conversations", [])]
        return Page(items, body.get("next_cursor"))

    def conversation(self, conversation_id: int) -> Conversation:
        """One conversation."""
        body = self._request("GET", f"/v1/conversations/{conversation_id}")
        return Conversation.from_json(body.get("conversation", body))

    def thread(
        self, conversation_id: int, *, cursor: str | None = None, limit: int = 200
    ) -> Page[ThreadItem]:
        """One page of a conversation's thread in time order."""
        body = self._request(
            "GET",
            f"/v1/conversations/{conversation_id}/thread",
            params={"cursor": cursor, "limit": limit},
        )
        return Page([parse_thread_item(entry) for entry in body.get("messages", [])], body.get("next_cursor"))

    def assign(self, conversation_id: int, user: str | None) -> Conversation | None:
        """Assign a conversation to a user (None to unassign)."""
        body = self._request("POST", f"/v1/conversations/{conversation_id}/assign", json={"user": user})
        conversation = body.get("conversation", body)
        return Conversation.from_json(conversation) if "id" in conversation else None

    def mark_read(self, conversation_id: int) -> Conversation:
        """Clear a conversation's unread count."""
        body = self._request("POST", f"/v1/conversations/{conversation_id}/read")
        return Conversation.from_json(body.get("conversation", body))

    def reply(
        self,
        conversation_id: int,
        idempotency_key: str,
        *,
        text: str | None = None,
        template: Mapping[str, Any] | None = None,
    ) -> MessageStatus:
        """Send free text (window open) or a template in a conversation, once per key."""
        payload: dict[str, Any] = {"text": text} if template is None else {"template": dict(template)}
        body = self._request(
            "POST",
            f"/v1/conversations/{conversation_id}/reply",
            json=payload,
            headers={"Idempotency-Key": idempotency_key},
        )
        return MessageStatus.from_json(body.get("message", body))

    def message(self, key: str) -> MessageStatus:
        """The state of one message."""
        return MessageStatus.from_json(self._request("GET", f"/v1/messages/{key}"))

    def work_queue(self, *, cursor: str | None = None, limit: int = 50) -> Page[WorkItem]:
        """One page of unattributed replies."""
        body = self._request("GET", "/v1/work-queue", params={"cursor": cursor, "limit": limit})
        return Page([WorkItem.from_json(entry) for entry in body.get("items", [])], body.get("next_cursor"))

    def attribute(self, wamid: str, *, message_key: str | None = None, new_topic: bool = False) -> None:
        """Link a reply to one of our messages, or mark it a new topic."""
        payload: dict[str, Any] = {"new_topic": True} if new_topic else {"message_key": message_key}
        self._request("POST", f"/v1/inbound/{wamid}/attribute", json=payload)

    def supervisor_queue(self, *, cursor: str | None = None, limit: int = 50) -> Page[SupervisorItem]:
        """One page of unknown, stuck and held sends."""
        body = self._request("GET", "/v1/supervisor/queue", params={"cursor": cursor, "limit": limit})
        entries = body.get("items", body.get("messages", []))
        return Page([SupervisorItem.from_json(entry) for entry in entries], body.get("next_cursor"))

    def resolve(self, key: str, action: str) -> MessageStatus | None:
        """Decide what happens to an unknown, stuck or held send: mark_sent, resend or cancel."""
        body = self._request("POST", f"/v1/messages/{key}/resolve", json={"action": action})
        message = body.get("message", body)
        return MessageStatus.from_json(message) if "key" in message else None

    def templates(self) -> list[TemplateInfo]:
        """The templates the business may send."""
        body = self._request("GET", "/v1/templates")
        return [TemplateInfo.from_json(entry) for entry in body.get("templates", [])]

    def metrics(self) -> Metrics:
        """The five measures and the queue depth."""
        return Metrics.from_json(self._request("GET", "/v1/metrics"))

    def events(self, *, after: int, wait: float = 0, limit: int = 500) -> EventBatch:
        """Events after `after`, waiting up to `wait` seconds for one to appear."""
        timeout = httpx.Timeout(wait + LONG_POLL_MARGIN_SECONDS, connect=5.0)
        body = self._request(
            "GET",
            "/v1/events",
            params={"after": after, "wait": int(wait), "limit": limit},
            timeout=timeout,
        )
        events = [Event.from_json(entry) for entry in body.get("events", [])]
        return EventBatch(events, int(body.get("next", events[-1].seq if events else after)))


__all__ = ["ApiClient", "ApiError", "InboundMessage"]
