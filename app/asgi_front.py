"""The HTTP process's ASGI face: webhook bodies are taken on the event loop, the rest runs the WSGI app.

A webhook is read, checked and handed to the body store's group commit without a thread of its own;
the answer goes out when the commit's future resolves. Every other request runs the product's WSGI
app on a pool of threads (a2wsgi), with the raw request target passed on as RAW_URI so that routing
can tell "%2F" inside a key from a "/" between segments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from a2wsgi import WSGIMiddleware

from backend.web.factory import MAX_UPLOAD_BODY_BYTES, MAX_WEBHOOK_BYTES, UPLOAD_PATH
from backend.webhooks.receiver import SIGNATURE_HEADER, WEBHOOK_PATH, WebhookReceiver, error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_SIGNATURE_HEADER = SIGNATURE_HEADER.lower().encode("ascii")  # ASGI header names are lower case
_JSON = [(b"content-type", b"application/json")]


_TOO_LARGE_MESSAGES = {
    MAX_WEBHOOK_BYTES: "Request bodies may be at most 3 MB.",
    MAX_UPLOAD_BODY_BYTES: "A file may be at most 100 MB.",
}


def body_limit(path: str, method: str) -> int:
    """The largest body a request may announce: a media upload's, or the 3 MB of everything else."""
    return MAX_UPLOAD_BODY_BYTES if method == "POST" and path == UPLOAD_PATH else MAX_WEBHOOK_BYTES


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


async def _answer(send: Send, status: int, body: bytes, *, close: bool = False) -> None:
    headers = [*_JSON, (b"content-length", str(len(body)).encode("ascii"))]
    if close:
        # The request's body was left unread: it must not be taken for the next request.
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _BodyTracking:
    """The WSGI bridge's receive and send; a body the app left unread is read before the answer.

    An app may answer before reading the body (a 413 for a body it will not take, say). The unread rest
    would be taken for the next request on the connection, and closing the connection with it unread
    makes the kernel reset it, which can drop the answer on its way. So, as waitress did by reading
    every body first, the rest is read and dropped before the answer goes, up to the 3 MB every route
    but the upload takes; a longer rest closes the connection after the answer instead.
    """

    def __init__(self, receive: Receive, send: Send, *, length: int | None) -> None:
        """`length`: the announced Content-Length, or None for a chunked body (or one without a length)."""
        self._receive = receive
        self._send = send
        self._unread = length
        self._body_read = length == 0

    def pair(self) -> tuple[Callable[[], Awaitable[Message]], Send]:
        """receive (a coroutine function, as a2wsgi needs) and send."""
        return self.receive, self.send

    async def receive(self) -> Message:
        """The next message of the request; a2wsgi hands this to run_coroutine_threadsafe."""
        message = await self._receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            self._body_read = True
        elif self._unread is not None:
            # A server may say "no more" only in a message after the last bytes, which an app that
            # reads exactly Content-Length bytes never asks for.
            self._unread -= len(message.get("body", b""))
            self._body_read = self._unread <= 0
        return message

    async def send(self, message: Message) -> None:
        """Pass a message of the answer on, once the request's body is read or the connection is to close."""
        if message["type"] == "http.response.start" and not self._body_read and not await self._read_rest():
            message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
        await self._send(message)

    async def _read_rest(self) -> bool:
        """Read and drop what is left of the body, up to MAX_WEBHOOK_BYTES; whether all of it was read."""
        if self._unread is not None and self._unread > MAX_WEBHOOK_BYTES:
            return False
        dropped = 0
        while not self._body_read and dropped <= MAX_WEBHOOK_BYTES:
            message = await self.receive()
            dropped += len(message.get("body", b""))
        return self._body_read and dropped <= MAX_WEBHOOK_BYTES


class InboxAsgi:
    """The product's app behind an ASGI server: webhooks on the loop, the rest on `threads` threads."""

    def __init__(self, app: WsgiApp, *, threads: int, receiver: WebhookReceiver | None) -> None:
        self._receiver = receiver
        self._wsgi = WSGIMiddleware(self._with_raw_target(app), workers=threads)  # type: ignore[arg-type]

    def close(self, *, wait: bool = False) -> None:
        """Let the app's threads end once their requests are answered (waiting for that with `wait`).

        Requests still queued for a thread are dropped.
        """
        self._wsgi.executor.shutdown(wait=wait, cancel_futures=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one connection's request."""
        if scope["type"] != "http":
            # No websockets and no lifespan here: the server is run without either.
            return
        path, method = scope["path"], scope["method"]
        length_header = _header(scope, b"content-length")
        length: int | None = None
        if length_header is None:
            if _header(scope, b"transfer-encoding") is None:
                length = 0
        else:
            try:
                length = int(length_header)
            except ValueError:
                await _answer(
                    send, 400, error_body("bad_request", "Content-Length is not a number."), close=True
                )
                return
            limit = body_limit(path, method)
            if length > limit:
                # Refused from the head: a huge announced body is never read.
                message = _TOO_LARGE_MESSAGES[limit]
                await _answer(send, 413, error_body("payload_too_large", message), close=True)
                return
        if self._receiver is not None and method == "POST" and path == WEBHOOK_PATH:
            await self._take_webhook(self._receiver, scope, receive, send)
            return
        tracking = _BodyTracking(receive, send, length=length)
        await self._wsgi(scope, *tracking.pair())  # type: ignore[arg-type]

    @staticmethod
    async def _take_webhook(receiver: WebhookReceiver, scope: Scope, receive: Receive, send: Send) -> None:
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the sender gave up: nothing was answered, so Meta delivers again
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_WEBHOOK_BYTES:
                # A chunked body is cut here, never buffered past the limit.
                await _answer(send, *WebhookReceiver.refuse("too_large"), close=True)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        signature_bytes = _header(scope, _SIGNATURE_HEADER)
        signature = signature_bytes.decode("latin-1") if signature_bytes is not None else None
        status, body = await receiver.receive_async(b"".join(chunks), signature)
        await _answer(send, status, body)

    @staticmethod
    def _with_raw_target(app: WsgiApp) -> WsgiApp:
        """`app` with RAW_URI (the request target as sent) and a terminated input in each environ."""

        def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            scope = environ["asgi.scope"]
            raw_path = scope.get("raw_path")
            if isinstance(raw_path, bytes):
                query = scope.get("query_string", b"")
                target = raw_path + b"?" + query if query else raw_path
                environ["RAW_URI"] = target.decode("latin-1")
            # The body stream ends where the request's body ends (chunked uploads included).
            environ["wsgi.input_terminated"] = True
            return app(environ, start_response)

        return serve
