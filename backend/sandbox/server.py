"""The sandbox: Meta's send endpoint, signed webhooks, customers, faults and a ledger, on one asyncio loop."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import ipaddress
import itertools
import json
import logging
import random
import re
import secrets
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, Final, NamedTuple, TypeVar

import httpx

from backend.clock import Clock, utc_now
from backend.domain.account_events import QUALITY_FIELD, TEMPLATE_STATUS_FIELD
from backend.domain.phone import InvalidNumberError, normalize_number
from backend.sandbox.account import STOPPED_MARKETING, AccountError, SandboxAccount
from backend.sandbox.customers import (
    CustomerSettings,
    SimulatedCustomers,
)
from backend.sandbox.faults import FaultError, Faults
from backend.sandbox.graph import (
    MEDIA_TYPES,
    PAIR_RATE_LIMIT,
    RE_ENGAGEMENT,
    SERVICE_UNAVAILABLE,
    THROUGHPUT_LIMIT,
    GraphError,
    NumberCache,
    ReadRequest,
    SendRequest,
    invalid_parameter,
    invalid_token,
    parse_request,
    trace_id,
    unknown_object,
    unknown_path,
)
from backend.sandbox.http import HttpServer, Request, Response
from backend.sandbox.media import (
    DOWNLOAD_PATH_PREFIX,
    DOWNLOAD_URL_SECONDS,
    DownloadSigner,
    SandboxFile,
    UploadError,
    parse_upload,
)
from backend.sandbox.policy import CustomerWindows, PairLimiter, ThroughputLimiter
from backend.sandbox.webhooks import Business, EmitterSettings, Event, WebhookEmitter
from backend.templates import load_templates

log = logging.getLogger(__name__)

T = TypeVar("T")

SEND_PATH: Final = re.compile(r"^/(v\d+(?:\.\d+)?)/([^/]+)/messages/?$")
UPLOAD_PATH: Final = re.compile(r"^/(v\d+(?:\.\d+)?)/([^/]+)/media/?$")
MEDIA_PATH: Final = re.compile(r"^/(v\d+(?:\.\d+)?)/(\d+)/?$")
TEMPLATES_PATH: Final = re.compile(r"^/(v\d+(?:\.\d+)?)/([^/]+)/message_templates/?$")
MAX_REMEMBERED_BUTTONS: Final = 100_000
MAX_PROFILE_NAME_LENGTH: Final = 100
# What `POST /_sandbox/inbound` can make a customer send (exactly one per call).
INBOUND_KINDS: Final = ("text", "button_payload", "interactive_reply_id", "image", "reaction", "media")
OUTGOING_MARK: Final = b"\x15\x02\x00\x11\x18\x12"
INCOMING_MARK: Final = b"\x15\x02\x00\x12\x18\x14"
FAILED_UNKNOWN_MEDIA: Final = {
    "code": 131053,
    "title": "Media upload error",
    "message": "Media upload error",
    "error_data": {"details": "Unable to retrieve the media: upload it to /PHONE_NUMBER_ID/media first."},
}
# What `_media_shown` answers for a send naming a media id the sandbox never held.
UNKNOWN_MEDIA: Final = "unknown"
PROXY_502: Final = (
    b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center>"
    b"</body></html>"
)
FAILED_UNDELIVERABLE: Final = {
    "code": 131026,
    "title": "Message undeliverable",
    "message": "Message undeliverable",
    "error_data": {"details": "Message Undeliverable."},
    "href": "/documentation/business-messaging/whatsapp/support/error-codes",
}


# Pricing by (template?, outside the customer's window?): service replies and templates inside the
# window are free; a template that opens a conversation is billed.
_PRICING: Final = {
    (False, False): {
        "billable": False,
        "pricing_model": "PMP",
        "type": "free_customer_service",
        "category": "service",
    },
    (True, False): {
        "billable": False,
        "pricing_model": "PMP",
        "type": "free_customer_service",
        "category": "utility",
    },
    (True, True): {"billable": True, "pricing_model": "PMP", "type": "regular", "category": "utility"},
}


@dataclass
class SandboxConfig:
    """How a sandbox runs: where it listens and sends webhooks, its secrets, pace, customers and faults."""

    port: int = 0
    webhook_url: str | None = None
    app_secret: str = "sandbox-app-secret"
    token: str = "sandbox-token"
    phone_number_id: str = "100000000000001"
    customers: int = 0
    read_rate: float = 1.0
    throughput: int = 80
    status_delay: float = 0.5
    templates_file: Path | None = None
    # Faults at start (the same names as the control API).
    latency_ms: float = 0.0
    read_timeout_rate: float = 0.0
    retryable_error_rate: float = 0.0
    accepted_then_502_rate: float = 0.0
    drop_rate: float = 0.0
    webhook_duplicate_rate: float = 0.0
    webhook_shuffle: bool = False
    webhook_failure_rate: float = 0.0
    webhooks_paused: bool = False
    message_failure_rate: float = 0.0
    media_download_failure_rate: float = 0.0
    media_upload_failure_rate: float = 0.0
    media_corruption_rate: float = 0.0
    # Finer knobs, mostly for tests and benchmarks.
    host: str = "127.0.0.1"
    business_account_id: str = "100000000000000"
    display_phone_number: str = "15550783881"
    skip_delivered_rate: float = 0.1
    pair_burst: int = 45
    pair_interval_seconds: float = 6.0
    read_timeout_hold_seconds: float = 60.0
    webhook_batch_size: int = 100
    webhook_concurrency: int = 16
    webhook_retry_base_seconds: float = 0.5
    webhook_retry_max_seconds: float = 15.0
    webhook_give_up_seconds: float = 3600.0
    customer_reply_rate: float = 0.7
    customer_think_seconds: float = 2.0
    customer_interval_seconds: float = 30.0
    seed: int | None = None
    clock: Clock = field(default=utc_now)
    webhook_transport: httpx.AsyncBaseTransport | None = None

    def faults(self) -> Faults:
        """The fault set this config starts with."""
        return Faults(**{f.name: getattr(self, f.name) for f in fields(Faults)})


# A ledger entry as kept: wamid, to, type, body, callback data, received at, requested at, sha256.
LedgerRow = tuple[str, str, str, str, str | None, datetime, datetime, str | None]


class LedgerEntry(NamedTuple):
    """One message a customer received."""

    wamid: str
    to: str
    type: str
    body: str
    biz_opaque_callback_data: str | None
    received_at: datetime
    # When the send call arrived, before any injected latency: pacing is judged on this time.
    requested_at: datetime
    # Hex SHA-256 of the file a media message showed the customer.
    sha256: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The control API form."""
        extra: dict[str, Any] = {} if self.sha256 is None else {"sha256": self.sha256}
        return {
            **extra,
            "wamid": self.wamid,
            "to": self.to,
            "type": self.type,
            "body": self.body,
            "biz_opaque_callback_data": self.biz_opaque_callback_data,
            "received_at": self.received_at.isoformat(timespec="microseconds"),
            "requested_at": self.requested_at.isoformat(timespec="microseconds"),
        }


def _template_key(content: dict[str, Any]) -> tuple[str, str]:
    """(name, language) of a checked template send."""
    return str(content.get("name")), str(content.get("language", {}).get("code"))


def is_loopback(host: str) -> bool:
    """Whether a peer address is this machine."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def wamid_direction(wamid: str) -> str | None:
    """'outgoing' or 'incoming' for a well-formed wamid, None for anything else."""
    if not wamid.startswith("wamid."):
        return None
    try:
        raw = base64.b64decode(wamid[6:] + "=" * (-len(wamid[6:]) % 4))
    except ValueError:
        return None
    if len(raw) < 3 or raw[:2] != b"\x1c\x18":
        return None
    marker = raw[3 + raw[2] : 9 + raw[2]]
    if marker[:5] == OUTGOING_MARK[:5]:
        return "outgoing"
    if marker[:5] == INCOMING_MARK[:5]:
        return "incoming"
    return None


def _new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where it is installed (it roughly halves the cost of each request), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _release(future: asyncio.Future[Any]) -> None:
    """Let a withheld answer go (if nobody cancelled it meanwhile)."""
    if not future.done():
        future.set_result(None)


def _json(status: int, payload: Any, headers: list[tuple[str, str]] | None = None) -> Response:
    return Response(status, json.dumps(payload, separators=(",", ":")).encode(), headers=headers or [])


def _control_error(status: int, code: str, message: str) -> Response:
    return _json(status, {"error": {"code": code, "message": message}})


class Sandbox:
    """A local stand-in for Meta's Cloud API, served on a background thread."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()
        self.catalog = load_templates(self.config.templates_file)
        self.faults = self.config.faults()
        self._rng = random.Random(self.config.seed)
        self._numbers = NumberCache()
        self._windows = CustomerWindows()
        self._pairs = PairLimiter(float(self.config.pair_burst), self.config.pair_interval_seconds)
        self._throughput = ThroughputLimiter(self.config.throughput)
        # Plain tuples of strings and datetimes, which the garbage collector stops tracking (it does so
        # only for exact tuples, not a named tuple's instances): the ledger grows by one entry a send,
        # and walking tens of thousands of entries held the loop for 100-150 ms in a full collection,
        # which then stamped the calls that waited meanwhile as arriving together.
        self._ledger: list[LedgerRow] = []
        self._counts: Counter[str] = Counter()
        self._rejected: Counter[str] = Counter()
        run = secrets.token_hex(4).upper()
        self._outgoing_ids = (f"{run[:6]}{n:012X}" for n in itertools.count(1))
        self._incoming_ids = (f"{run}{n:012X}" for n in itertools.count(1))
        self._media_ids = (f"{secrets.randbelow(9 * 10**8) + 10**8}{n:07d}" for n in itertools.count(1))
        self._files: dict[str, SandboxFile] = {}
        self._signer = DownloadSigner()
        self._interactive_titles: dict[str, dict[str, str]] = {}
        self._business = Business(
            self.config.business_account_id, self.config.phone_number_id, self.config.display_phone_number
        )
        self._emitter = WebhookEmitter(
            self._business,
            app_secret=self.config.app_secret,
            webhook_url=self.config.webhook_url,
            settings=EmitterSettings(
                batch_size=self.config.webhook_batch_size,
                concurrency=self.config.webhook_concurrency,
                retry_base_seconds=self.config.webhook_retry_base_seconds,
                retry_max_seconds=self.config.webhook_retry_max_seconds,
                give_up_seconds=self.config.webhook_give_up_seconds,
            ),
            faults=lambda: self.faults,
            timestamp=self._timestamp,
            rng=self._rng,
            transport=self.config.webhook_transport,
        )
        self._customers = SimulatedCustomers(
            CustomerSettings(
                count=self.config.customers,
                reply_rate=self.config.customer_reply_rate,
                think_seconds=self.config.customer_think_seconds,
                interval_seconds=self.config.customer_interval_seconds,
            ),
            self._deliver_inbound,
            self._rng,
            self._keep_media,
        )
        self._account = SandboxAccount(
            self.catalog, self.config.phone_number_id, self.config.display_phone_number
        )
        self._http = HttpServer(self._handle)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._held: set[asyncio.Future[Any]] = set()

    # ----------------------------------------------------------------- lifecycle (any thread)

    def start(self) -> Sandbox:
        """Serve on a background thread; returns once it listens."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = _new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._start_inside())
            except BaseException as error:
                failure.append(error)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self._stop_inside())
                loop.close()

        self._thread = threading.Thread(target=run, name="sandbox", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        """Stop serving and delivering; safe to call twice."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)

    async def _start_inside(self) -> None:
        await self._http.start(self.config.host, self.config.port)
        await self._emitter.start()
        self._customers.start()

    async def _stop_inside(self) -> None:
        for future in list(self._held):
            future.cancel()
        await self._customers.stop()
        await self._http.stop()
        await self._emitter.stop()

    @property
    def port(self) -> int:
        """The port it listens on."""
        return self._http.port

    @property
    def url(self) -> str:
        """Base URL, e.g. http://127.0.0.1:PORT."""
        return f"http://{self.config.host}:{self.port}"

    @property
    def graph_url(self) -> str:
        """The Graph API base the backend should use: {url}/v23.0."""
        return f"{self.url}/v23.0"

    @property
    def customer_numbers(self) -> list[str]:
        """E.164 numbers of the simulated customers (empty without --customers)."""
        return list(self._customers.numbers)

    def set_webhook_url(self, url: str | None) -> None:
        """Send webhooks to `url` from now on (deliveries waiting for it go at once)."""
        self._call(lambda: self._emitter.set_webhook_url(url))

    def set_faults(self, **changes: Any) -> dict[str, Any]:
        """Change faults as the control API does; returns the full set."""
        return self._call(lambda: self._apply_faults(changes))

    def ledger(self) -> list[dict[str, Any]]:
        """What customers received, as the control API reports it."""
        return self._call(lambda: [entry.as_dict() for entry in self._entries()])

    def stats(self) -> dict[str, Any]:
        """Counts by outcome, as the control API reports them."""
        return self._call(self._stats)

    def inbound(self, sender: str, text: str, context_id: str | None = None) -> str:
        """A customer writes `text` (optionally quoting a wamid); returns the inbound wamid."""
        e164 = normalize_number(sender)
        return self._call(
            lambda: self._deliver_inbound(e164, {"type": "text", "text": {"body": text}}, context_id)
        )

    def add_customer(self, number: str, name: str, *, scripted: bool = True) -> None:
        """Name a customer; a scripted one writes only through the control API (as the control API does)."""
        e164 = normalize_number(number)
        self._call(lambda: self._customers.add_customer(e164, name, scripted=scripted))

    def _call(self, function: Callable[[], T]) -> T:
        loop = self._loop
        if loop is None:
            return function()

        async def inside() -> T:
            return function()

        return asyncio.run_coroutine_threadsafe(inside(), loop).result(timeout=30)

    # ----------------------------------------------------------------- HTTP (loop thread)

    def _handle(self, request: Request) -> Response | Awaitable[Response]:
        path = request.path
        if path.startswith("/_sandbox/"):
            if not is_loopback(request.peer_host):
                return _control_error(403, "forbidden", "the control API only answers this machine")
            return self._control(request, path)
        match = SEND_PATH.match(path)
        if match is not None:
            if request.method != "POST":
                return self._graph_error(unknown_path(), match.group(1))
            return self._send(request, match.group(1), match.group(2))
        if path.startswith(DOWNLOAD_PATH_PREFIX) and request.method == "GET":
            return self._download(request, path[len(DOWNLOAD_PATH_PREFIX) :])
        match = UPLOAD_PATH.match(path)
        if match is not None and request.method == "POST":
            return self._upload(request, match.group(1), match.group(2))
        match = TEMPLATES_PATH.match(path)
        if match is not None and request.method == "GET":
            return self._templates_page(request, match.group(1), match.group(2))
        match = MEDIA_PATH.match(path)
        if match is not None and request.method == "GET":
            if match.group(2) == self.config.phone_number_id:
                return self._number_info(request, match.group(1))
            return self._media_info(request, match.group(1), match.group(2))
        return self._graph_error(unknown_path(), "v23.0")

    def _templates_page(self, request: Request, version: str, account_id: str) -> Response:
        if request.headers.get("authorization") != f"Bearer {self.config.token}":
            return self._graph_error(invalid_token(), version)
        if account_id != self.config.business_account_id:
            return self._graph_error(unknown_object(account_id), version)
        base = f"{self.url}/{version}/{account_id}/message_templates"
        try:
            page = self._account.templates_page(base, request.query.get("limit"), request.query.get("after"))
        except GraphError as error:
            return self._graph_error(error, version)
        return Response(200, json.dumps(page).encode(), headers=self._graph_headers(version))

    def _number_info(self, request: Request, version: str) -> Response:
        if request.headers.get("authorization") != f"Bearer {self.config.token}":
            return self._graph_error(invalid_token(), version)
        body = json.dumps(self._account.number_info()).encode()
        return Response(200, body, headers=self._graph_headers(version))

    def _graph_headers(self, version: str) -> list[tuple[str, str]]:
        return [
            ("facebook-api-version", version),
            ("x-fb-trace-id", trace_id()[:11]),
            ("Cache-Control", "no-store"),
        ]

    def _graph_error(self, error: GraphError, version: str) -> Response:
        self._rejected[str(error.code)] += 1
        headers = self._graph_headers(version)
        headers.append(("WWW-Authenticate", f'OAuth "Facebook Platform" "invalid_request" "{error.message}"'))
        return Response(error.http_status, error.body(), headers=headers)

    def _send(self, request: Request, version: str, phone_number_id: str) -> Response | Awaitable[Response]:
        if request.headers.get("authorization") != f"Bearer {self.config.token}":
            return self._graph_error(invalid_token(), version)
        if phone_number_id != self.config.phone_number_id:
            return self._graph_error(unknown_object(phone_number_id), version)
        requested_at = self.config.clock()
        faults = self.faults
        if faults.latency_ms > 0:
            return self._send_later(request, version, faults, requested_at)
        return self._send_now(request, version, faults, requested_at)

    async def _send_later(
        self, request: Request, version: str, faults: Faults, requested_at: datetime
    ) -> Response:
        await asyncio.sleep(faults.latency_ms * self._rng.uniform(0.8, 1.2) / 1000.0)
        outcome = self._send_now(request, version, faults, requested_at)
        if isinstance(outcome, Response):
            return outcome
        return await outcome

    def _send_now(
        self, request: Request, version: str, faults: Faults, requested_at: datetime
    ) -> Response | Awaitable[Response]:
        rng = self._rng
        if faults.drop_rate and rng.random() < faults.drop_rate:
            self._counts["drops_injected"] += 1
            return Response(drop=True)
        if faults.retryable_error_rate and rng.random() < faults.retryable_error_rate:
            self._counts["retryable_errors_injected"] += 1
            return self._graph_error(SERVICE_UNAVAILABLE, version)
        try:
            payload = json.loads(request.body)
        except (ValueError, UnicodeDecodeError):
            return self._graph_error(invalid_parameter("The request body is not valid JSON"), version)
        try:
            parsed = parse_request(payload, self.catalog, self._numbers)
            if isinstance(parsed, ReadRequest):
                return self._mark_read(parsed, version)
            if parsed.message_type == "template":
                self._account.check_template(*_template_key(parsed.content))
            now = self.config.clock()
            shown = self._media_shown(parsed)
            self._check_policy(parsed, now.timestamp())
        except GraphError as error:
            return self._graph_error(error, version)
        wamid = self._accept(parsed, now, requested_at, shown)
        body = self._success_body(parsed, wamid)
        headers = self._graph_headers(version)
        if faults.read_timeout_rate and rng.random() < faults.read_timeout_rate:
            self._counts["timeouts_injected"] += 1
            return self._withhold(Response(200, body, headers=headers))
        if faults.accepted_then_502_rate and rng.random() < faults.accepted_then_502_rate:
            self._counts["accepted_then_502_injected"] += 1
            return Response(502, PROXY_502, "text/html")
        return Response(200, body, headers=headers)

    async def _withhold(self, response: Response) -> Response:
        loop = asyncio.get_running_loop()
        held: asyncio.Future[None] = loop.create_future()
        self._held.add(held)
        loop.call_later(self.config.read_timeout_hold_seconds, _release, held)
        try:
            await held
        finally:
            self._held.discard(held)
        return response

    def _check_policy(self, request: SendRequest, now: float) -> None:
        wa_id = request.wa_id
        if request.message_type != "template" and not self._windows.is_open(wa_id, now):
            raise RE_ENGAGEMENT
        if not self._pairs.allows(wa_id, now):
            raise PAIR_RATE_LIMIT
        if not self._throughput.allows(now):
            raise THROUGHPUT_LIMIT
        self._pairs.take(wa_id, now)
        self._throughput.take(now)

    def _success_body(self, request: SendRequest, wamid: str) -> bytes:
        to = json.dumps(request.to_input)
        status = ',"message_status":"accepted"' if request.message_type == "template" else ""
        return (
            f'{{"messaging_product":"whatsapp","contacts":[{{"input":{to},"wa_id":"{request.wa_id}"}}],'
            f'"messages":[{{"id":"{wamid}"{status}}}]}}'
        ).encode()

    def _new_wamid(self, wa_id: str, outgoing: bool) -> str:
        digits = wa_id.encode()
        tail = next(self._outgoing_ids if outgoing else self._incoming_ids).encode()
        raw = (
            b"\x1c\x18"
            + bytes([len(digits)])
            + digits
            + (OUTGOING_MARK if outgoing else INCOMING_MARK)
            + tail
        )
        return "wamid." + base64.b64encode(raw + b"\x00").decode()

    def _media_shown(self, request: SendRequest) -> str | None:
        """The hex SHA-256 of the file a media send shows; UNKNOWN_MEDIA for a media id never uploaded."""
        if request.message_type not in MEDIA_TYPES:
            return None
        media_id = request.content.get("id")
        if not isinstance(media_id, str):
            # Sent by link: the sandbox cannot fetch public links, so it records no hash.
            return None
        stored = self._files.get(media_id)
        return UNKNOWN_MEDIA if stored is None else stored.sha256_hex

    def _accept(
        self, request: SendRequest, now: datetime, requested_at: datetime, shown: str | None = None
    ) -> str:
        """Record the message as received (before answering) and schedule its statuses."""
        self._counts["accepted"] += 1
        wamid = self._new_wamid(request.wa_id, outgoing=True)
        faults = self.faults
        delay = self.config.status_delay
        unknown_media = shown == UNKNOWN_MEDIA
        stopped = (
            request.message_type == "template"
            and request.wa_id in self._account.stopped
            and self._account.is_marketing(*_template_key(request.content))
        )
        if (
            unknown_media
            or stopped
            or (faults.message_failure_rate and self._rng.random() < faults.message_failure_rate)
        ):
            # Meta accepts a send naming a media id it does not have, then reports it failed (131053);
            # marketing to a customer who sent STOP is reported failed with 131050.
            if unknown_media:
                self._counts["media_sends_refused"] += 1
            elif stopped:
                self._counts["stopped_marketing"] += 1
            else:
                self._counts["message_failures_injected"] += 1
            failed: dict[str, Any] = {
                "id": wamid,
                "status": "failed",
                "timestamp": "",
                "recipient_id": request.wa_id,
            }
            if request.callback_data is not None:
                failed["biz_opaque_callback_data"] = request.callback_data
            if unknown_media:
                failed["errors"] = [FAILED_UNKNOWN_MEDIA]
            elif stopped:
                failed["errors"] = [STOPPED_MARKETING]
            else:
                failed["errors"] = [FAILED_UNDELIVERABLE]
            self._emitter.schedule(Event("status", failed), delay)
            return wamid
        self._ledger.append(
            (
                wamid,
                request.to_input,
                request.message_type,
                request.body_text,
                request.callback_data,
                now,
                requested_at,
                shown,
            )
        )
        if request.message_type == "interactive" and request.content.get("type") == "button":
            if len(self._interactive_titles) >= MAX_REMEMBERED_BUTTONS:
                # Forget the oldest: a tap on a message that old gets its id as its title.
                del self._interactive_titles[next(iter(self._interactive_titles))]
            self._interactive_titles[wamid] = {
                b["reply"]["id"]: b["reply"]["title"] for b in request.content["action"]["buttons"]
            }
        rng = self._rng
        read = rng.random() < self.config.read_rate
        steps = ["sent"]
        if not (read and rng.random() < self.config.skip_delivered_rate):
            steps.append("delivered")
        if read:
            steps.append("read")
        delays = [delay, delay * 2, delay * 3][: len(steps)]
        if faults.webhook_shuffle:
            rng.shuffle(delays)
        seconds = int(now.timestamp())
        template = request.message_type == "template"
        pricing = _PRICING[(template, template and not self._windows.is_open(request.wa_id, seconds))]
        category = pricing["category"]
        conversation_id = f"{request.wa_id}{seconds // 86400:x}"
        callback = request.callback_data
        schedule = self._emitter.schedule
        for index, step in enumerate(steps):
            # Built in Meta's field order; the emitter fills in the timestamp when it sends.
            status: dict[str, Any] = {
                "id": wamid,
                "status": step,
                "timestamp": "",
                "recipient_id": request.wa_id,
            }
            if callback is not None:
                status["biz_opaque_callback_data"] = callback
            if index < 2:
                conversation: dict[str, Any] = {"id": conversation_id}
                if index == 0:
                    conversation["expiration_timestamp"] = str(seconds + 86400)
                conversation["origin"] = {"type": category}
                status["conversation"] = conversation
                status["pricing"] = pricing
            schedule(Event("status", status), delays[index])
        if read:
            self._customers.message_read(request, wamid, delays[-1])
        return wamid

    def _mark_read(self, request: ReadRequest, version: str) -> Response:
        direction = wamid_direction(request.message_id)
        if direction == "outgoing":
            raise invalid_parameter(
                f"Message supplied to mark message as read API with message ID: {request.message_id} "
                "is outgoing. Please use an incoming message ID."
            )
        if direction is None:
            raise invalid_parameter("Please check the message ID you have provided.")
        self._counts["typing_indicators" if request.typing else "read_receipts"] += 1
        return Response(200, b'{"success":true}', headers=self._graph_headers(version))

    def _media_info(self, request: Request, version: str, media_id: str) -> Response:
        if request.headers.get("authorization") != f"Bearer {self.config.token}":
            return self._graph_error(invalid_token(), version)
        stored = self._files.get(media_id)
        if stored is None:
            return self._graph_error(unknown_object(media_id), version)
        expires = int(self.config.clock().timestamp()) + DOWNLOAD_URL_SECONDS
        return _json(
            200,
            {
                "url": f"{self.url}{self._signer.path(media_id, expires)}",
                "mime_type": stored.mime_type,
                "sha256": base64.b64encode(hashlib.sha256(stored.content).digest()).decode(),
                "file_size": len(stored.content),
                "id": media_id,
                "messaging_product": "whatsapp",
            },
            self._graph_headers(version),
        )

    def _download(self, request: Request, media_id: str) -> Response:
        """A media download: the token and an unexpired signed URL, as Meta's lookaside links need."""
        if request.headers.get("authorization") != f"Bearer {self.config.token}":
            return _control_error(401, "invalid_token", "the download needs the access token")
        query = request.query
        stored = self._files.get(media_id)
        now = self.config.clock().timestamp()
        signed = self._signer.valid(media_id, query.get("expires"), query.get("signature"), now)
        if stored is None or not signed:
            self._counts["media_downloads_refused"] += 1
            return _control_error(404, "not_found", "this download link is unknown or has expired")
        faults = self.faults
        if faults.media_download_failure_rate and self._rng.random() < faults.media_download_failure_rate:
            self._counts["media_download_failures_injected"] += 1
            return _control_error(500, "download_failed", "the download failed")
        content = stored.content
        if faults.media_corruption_rate and self._rng.random() < faults.media_corruption_rate:
            self._counts["media_corruptions_injected"] += 1
            content = bytes([content[0] ^ 0xFF]) + content[1:] if content else b"\x00"
        self._counts["media_downloads"] += 1
        return Response(200, content, stored.mime_type)

    def _upload(self, request: Request, version: str, phone_number_id: str) -> Response:
        """`POST /{PHONE_NUMBER_ID}/media`: keep the file, answer its media id."""
        if request.headers.get("authorization") != f"Bearer {self.config.token}":
            return self._graph_error(invalid_token(), version)
        if phone_number_id != self.config.phone_number_id:
            return self._graph_error(unknown_object(phone_number_id), version)
        faults = self.faults
        if faults.media_upload_failure_rate and self._rng.random() < faults.media_upload_failure_rate:
            self._counts["media_upload_failures_injected"] += 1
            return self._graph_error(SERVICE_UNAVAILABLE, version)
        try:
            part = parse_upload(request.headers.get("content-type", ""), request.body)
        except UploadError as error:
            return self._graph_error(invalid_parameter(str(error)), version)
        if not part.content:
            return self._graph_error(invalid_parameter("Param file must not be empty"), version)
        media_id = self._keep_media(part.content, part.mime_type, part.filename)
        self._counts["media_uploads"] += 1
        return _json(200, {"id": media_id}, self._graph_headers(version))

    def _keep_media(self, content: bytes, mime_type: str, filename: str | None) -> str:
        """Hold a file under a fresh media id (a customer's, or the business's upload)."""
        media_id = next(self._media_ids)
        self._files[media_id] = SandboxFile(content, mime_type, filename)
        return media_id

    def keep_media(self, content: bytes, mime_type: str, filename: str | None = None) -> str:
        """Hold a file as if a customer had sent it; its media id."""
        return self._call(lambda: self._keep_media(content, mime_type, filename))

    def media_file(self, media_id: str) -> SandboxFile | None:
        """The file held under a media id (tests compare bytes with it)."""
        return self._call(lambda: self._files.get(media_id))

    def inbound_media(
        self,
        sender: str,
        kind: str,
        mime_type: str,
        content: bytes,
        *,
        caption: str | None = None,
        filename: str | None = None,
        context_id: str | None = None,
    ) -> str:
        """A customer sends a file; returns the inbound wamid."""
        e164 = normalize_number(sender)
        return self._call(
            lambda: self._deliver_inbound(
                e164,
                self._customers.media_fields(kind, mime_type, content, caption=caption, filename=filename),
                context_id,
            )
        )

    # ----------------------------------------------------------------- inbound (loop thread)

    def _timestamp(self) -> str:
        return str(int(self.config.clock().timestamp()))

    def _deliver_inbound(self, e164: str, fields_: dict[str, Any], context_id: str | None) -> str:
        wa_id = e164.lstrip("+")
        wamid = self._new_wamid(wa_id, outgoing=False)
        now = self.config.clock()
        self._windows.customer_wrote(wa_id, now.timestamp())
        message: dict[str, Any] = {"from": wa_id, "id": wamid, "timestamp": str(int(now.timestamp()))}
        if context_id is not None:
            message["context"] = {"from": self.config.display_phone_number, "id": context_id}
        message.update(fields_)
        text = fields_.get("text")
        self._account.customer_wrote(wa_id, text.get("body") if isinstance(text, dict) else None)
        contact = {"profile": {"name": self._customers.name_of(e164)}, "wa_id": wa_id}
        self._emitter.schedule(Event("message", message, contact), 0.0)
        self._counts["inbound"] += 1
        return wamid

    # ----------------------------------------------------------------- control API (loop thread)

    def _entries(self) -> Iterator[LedgerEntry]:
        """The ledger, entry by entry."""
        return map(LedgerEntry._make, self._ledger)

    def _control(self, request: Request, path: str) -> Response:
        method = request.method
        if path == "/_sandbox/ledger" and method == "GET":
            # Optional exact-match filters keep answers small when the ledger is large.
            query = request.query
            entries = [
                entry.as_dict()
                for entry in self._entries()
                if ("to" not in query or entry.to == query["to"])
                and (
                    "biz_opaque_callback_data" not in query
                    or entry.biz_opaque_callback_data == query["biz_opaque_callback_data"]
                )
            ]
            return _json(200, {"messages": entries})
        if path == "/_sandbox/stats" and method == "GET":
            return _json(200, self._stats())
        if path == "/_sandbox/faults" and method == "GET":
            return _json(200, self.faults.as_dict())
        if path == "/_sandbox/faults" and method == "POST":
            payload = self._control_json(request)
            if not isinstance(payload, dict):
                return _control_error(400, "invalid_json", "send a JSON object of fault settings")
            try:
                return _json(200, self._apply_faults(payload))
            except FaultError as error:
                return _control_error(400, "invalid_fault", str(error))
        if path == "/_sandbox/inbound" and method == "POST":
            return self._control_inbound(request)
        if path == "/_sandbox/customers" and method == "GET":
            return _json(200, {"customers": self._customers.known_customers()})
        if path == "/_sandbox/customers" and method == "POST":
            return self._control_customer(request)
        if path in {"/_sandbox/templates", "/_sandbox/quality"} and method == "GET":
            return _json(200, self._account.as_dict())
        if path == "/_sandbox/templates" and method == "POST":
            return self._account_change(request, TEMPLATE_STATUS_FIELD, self._account.set_template_status)
        if path == "/_sandbox/quality" and method == "POST":
            return self._account_change(request, QUALITY_FIELD, self._account.set_quality)
        if path in {
            "/_sandbox/ledger",
            "/_sandbox/stats",
            "/_sandbox/faults",
            "/_sandbox/inbound",
            "/_sandbox/customers",
            "/_sandbox/templates",
            "/_sandbox/quality",
        }:
            return _control_error(405, "method_not_allowed", f"{method} is not allowed on {path}")
        return _control_error(404, "not_found", f"no control endpoint {path}")

    def _account_change(
        self, request: Request, field_name: str, change: Callable[[Any], dict[str, Any]]
    ) -> Response:
        try:
            value = change(self._control_json(request))
        except AccountError as error:
            return _control_error(400, "invalid_change", str(error))
        self._emitter.schedule(Event("account", value, field=field_name), 0.0)
        self._counts[f"{field_name}_sent"] += 1
        return _json(200, {**self._account.as_dict(), "webhook": value})

    @staticmethod
    def _control_json(request: Request) -> Any:
        try:
            return json.loads(request.body or b"null")
        except (ValueError, UnicodeDecodeError):
            return None

    def _apply_faults(self, changes: dict[str, Any]) -> dict[str, Any]:
        changes = dict(changes)
        if changes.pop("reset", False) is True:
            self.faults = Faults()
            for future in list(self._held):
                _release(future)
        self.faults = self.faults.updated(changes)
        self._emitter.release()
        return self.faults.as_dict()

    def _control_inbound(self, request: Request) -> Response:
        payload = self._control_json(request)
        if not isinstance(payload, dict):
            return _control_error(400, "invalid_json", "send a JSON object")
        sender = payload.get("from")
        if not isinstance(sender, str):
            return _control_error(400, "invalid_inbound", "from (the customer's number) is required")
        try:
            e164 = normalize_number(sender)
        except InvalidNumberError as error:
            return _control_error(400, "invalid_number", str(error))
        context_id = payload.get("context_id")
        if context_id is not None and not isinstance(context_id, str):
            return _control_error(400, "invalid_inbound", "context_id must be a wamid")
        kinds = [key for key in INBOUND_KINDS if key in payload]
        if kinds == ["media"]:
            return self._control_inbound_media(e164, payload["media"], context_id)
        if len(kinds) != 1 or not isinstance(payload[kinds[0]], str):
            return _control_error(
                400,
                "invalid_inbound",
                "give exactly one of text, button_payload, interactive_reply_id, image, reaction or media",
            )
        value: str = payload[kinds[0]]
        if kinds[0] == "reaction":
            # A reaction names the message it is on; it quotes nothing.
            if context_id is None or not value:
                return _control_error(
                    400, "invalid_inbound", "a reaction needs an emoji and context_id (the message it is on)"
                )
            reaction = {"message_id": context_id, "emoji": value}
            wamid = self._deliver_inbound(e164, {"type": "reaction", "reaction": reaction}, None)
            return _json(200, {"wamid": wamid})
        if kinds[0] == "text":
            message: dict[str, Any] = {"type": "text", "text": {"body": value}}
        elif kinds[0] == "image":
            message = self._customers.image_fields(value or None)
        elif kinds[0] == "button_payload":
            message = {"type": "button", "button": {"payload": value, "text": value}}
        else:
            title = self._interactive_titles.get(context_id or "", {}).get(value, value)
            message = {
                "type": "interactive",
                "interactive": {"type": "button_reply", "button_reply": {"id": value, "title": title}},
            }
        return _json(200, {"wamid": self._deliver_inbound(e164, message, context_id)})

    def _control_inbound_media(self, e164: str, media: Any, context_id: str | None) -> Response:
        """`{"media": {"type", "mime_type", "content_b64", "caption"?, "filename"?}}`: a customer's file."""
        if not isinstance(media, dict):
            return _control_error(400, "invalid_inbound", "media must be an object")
        kind, mime_type = media.get("type"), media.get("mime_type")
        if kind not in MEDIA_TYPES:
            return _control_error(
                400, "invalid_inbound", f"media.type must be one of {', '.join(sorted(MEDIA_TYPES))}"
            )
        if not isinstance(mime_type, str) or "/" not in mime_type:
            return _control_error(400, "invalid_inbound", "media.mime_type must be a MIME type")
        encoded = media.get("content_b64")
        try:
            content = base64.b64decode(encoded, validate=True) if isinstance(encoded, str) else None
        except ValueError:
            content = None
        if not content:
            return _control_error(
                400, "invalid_inbound", "media.content_b64 must be the file's bytes in base64"
            )
        caption, filename = media.get("caption"), media.get("filename")
        for name, value in (("caption", caption), ("filename", filename)):
            if value is not None and not isinstance(value, str):
                return _control_error(400, "invalid_inbound", f"media.{name} must be text")
        fields_ = self._customers.media_fields(kind, mime_type, content, caption=caption, filename=filename)
        return _json(200, {"wamid": self._deliver_inbound(e164, fields_, context_id)})

    def _control_customer(self, request: Request) -> Response:
        payload = self._control_json(request)
        if not isinstance(payload, dict):
            return _control_error(400, "invalid_json", "send a JSON object")
        number, name, scripted = payload.get("number"), payload.get("name"), payload.get("scripted", True)
        if not isinstance(number, str):
            return _control_error(400, "invalid_customer", "number (the customer's phone number) is required")
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= MAX_PROFILE_NAME_LENGTH:
            return _control_error(
                400, "invalid_customer", f"name must be 1 to {MAX_PROFILE_NAME_LENGTH} characters"
            )
        if not isinstance(scripted, bool):
            return _control_error(400, "invalid_customer", "scripted must be true or false")
        try:
            e164 = normalize_number(number)
        except InvalidNumberError as error:
            return _control_error(400, "invalid_number", str(error))
        self._customers.add_customer(e164, name.strip(), scripted=scripted)
        return _json(200, {"number": e164, "name": name.strip(), "scripted": scripted})

    def _stats(self) -> dict[str, Any]:
        webhooks = self._emitter.stats
        counts = self._counts
        return {
            "accepted": counts["accepted"],
            "rejected": dict(self._rejected),
            "timeouts_injected": counts["timeouts_injected"],
            "retryable_errors_injected": counts["retryable_errors_injected"],
            "accepted_then_502_injected": counts["accepted_then_502_injected"],
            "drops_injected": counts["drops_injected"],
            "message_failures_injected": counts["message_failures_injected"],
            "read_receipts": counts["read_receipts"],
            "typing_indicators": counts["typing_indicators"],
            "inbound": counts["inbound"],
            "media_uploads": counts["media_uploads"],
            "media_downloads": counts["media_downloads"],
            "media_downloads_refused": counts["media_downloads_refused"],
            "media_download_failures_injected": counts["media_download_failures_injected"],
            "media_upload_failures_injected": counts["media_upload_failures_injected"],
            "media_corruptions_injected": counts["media_corruptions_injected"],
            "media_sends_refused": counts["media_sends_refused"],
            "ledger": len(self._ledger),
            "webhooks_sent": webhooks.sent,
            "webhook_events_sent": webhooks.events_sent,
            "webhooks_retried": webhooks.retried,
            "webhooks_duplicated": webhooks.duplicated,
            "webhook_failures_injected": webhooks.failures_injected,
            "webhooks_non_200": webhooks.non_200,
            "webhooks_given_up": webhooks.given_up,
            "webhooks_pending": self._emitter.pending,
        }


__all__ = ["LedgerEntry", "Sandbox", "SandboxConfig", "is_loopback", "wamid_direction"]
