"""Reads from Meta what decides whether the number may send: its templates and their review status
(every page of `message_templates`), and the number's quality rating and messaging limit.

`AccountSync` is the worker inside `inbox serve`: templates hourly (sooner when a send failed as if
they changed), the number at start and daily. `inbox templates sync` runs the template step once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx

from backend.clock import Clock
from backend.database import Database
from backend.domain.account_events import QUALITY_ORDER
from backend.journal import journal
from backend.outbox.number_health import record_reading
from backend.outbox.template_store import SyncedTemplate, replace_templates, sync_requests
from backend.settings import Settings

log = logging.getLogger(__name__)

TEMPLATE_FIELDS = "name,language,status,category,components,id,rejected_reason"
# The deprecated messaging_limit_tier is read when an answer still has it, but never asked for: a field
# Meta has removed would make the whole read an error.
NUMBER_FIELDS = "quality_rating,whatsapp_business_manager_messaging_limit"
PAGE_SIZE = 100
# A business has at most a few thousand templates; more pages than this means the paging loops.
MAX_PAGES = 1000
RETRY_AFTER_FAILURE = timedelta(minutes=1)
IDLE_SECONDS = 5.0
TEMPLATES_SYNCED = "templates.synced"


class AccountSyncError(Exception):
    """Meta could not be read (no answer, an error answer, or a body we cannot use); the message says why."""


@dataclass(frozen=True)
class NumberReading:
    """The phone number's quality rating and messaging limit as Meta answers them."""

    quality_rating: str | None
    tier: str | None


def template_from_graph(item: dict[str, Any]) -> SyncedTemplate | None:
    """One template of a `message_templates` page, or None when it lacks a name, language or status."""
    name, language, status = item.get("name"), item.get("language"), item.get("status")
    if not all(isinstance(value, str) and value for value in (name, language, status)):
        return None
    body = ""
    components = item.get("components")
    for component in components if isinstance(components, list) else []:
        if (
            isinstance(component, dict)
            and component.get("type") == "BODY"
            and isinstance(component.get("text"), str)
        ):
            body = component["text"]
    category = item.get("category")
    reason = item.get("rejected_reason")
    return SyncedTemplate(
        name=str(name)[:512],
        language=str(language)[:20],
        status=str(status).upper()[:40],
        category=str(category).upper()[:40] if isinstance(category, str) and category else None,
        body=body,
        meta_id=str(item["id"])[:64] if isinstance(item.get("id"), str | int) else None,
        status_reason=reason if isinstance(reason, str) and reason not in {"", "NONE"} else None,
    )


class GraphAccountClient:
    """The two reads of the Graph API this product makes about the account, on an injected client."""

    def __init__(self, settings: Settings, client: httpx.Client, *, page_size: int = PAGE_SIZE) -> None:
        self._settings = settings
        self._client = client
        self._page_size = page_size
        self._base = settings.graph_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {settings.whatsapp_token or ''}"}

    def list_templates(self) -> list[SyncedTemplate]:
        """Every template of the business account, following `paging.next` to the last page."""
        account = self._settings.whatsapp_business_account_id
        if not account:
            raise AccountSyncError(
                "WHATSAPP_BUSINESS_ACCOUNT_ID is not set: the templates file is the source"
            )
        url: str | None = f"{self._base}/{account}/message_templates"
        params: dict[str, Any] | None = {"fields": TEMPLATE_FIELDS, "limit": self._page_size}
        seen: set[str] = set()
        found: list[SyncedTemplate] = []
        for _ in range(MAX_PAGES):
            if url is None:
                return found
            page = self._get(url, params)
            data = page.get("data")
            if not isinstance(data, list):
                raise AccountSyncError("a message_templates page without a data list")
            found += [
                t for t in (template_from_graph(i) for i in data if isinstance(i, dict)) if t is not None
            ]
            paging = page.get("paging")
            following = paging.get("next") if isinstance(paging, dict) else None
            # The next page's URL carries the cursor and the fields already.
            url, params = (following, None) if isinstance(following, str) and following else (None, None)
            if url is not None:
                if url in seen:
                    raise AccountSyncError("message_templates paging came back to a page already read")
                seen.add(url)
        raise AccountSyncError(f"message_templates has more than {MAX_PAGES} pages")

    def read_number(self) -> NumberReading:
        """The business number's quality rating and messaging limit."""
        number = self._settings.whatsapp_phone_number_id
        if not number:
            raise AccountSyncError("WHATSAPP_PHONE_NUMBER_ID is not set")
        answer = self._get(f"{self._base}/{number}", {"fields": NUMBER_FIELDS})
        rating = answer.get("quality_rating")
        tier = answer.get("whatsapp_business_manager_messaging_limit") or answer.get("messaging_limit_tier")
        return NumberReading(
            quality_rating=rating.upper()
            if isinstance(rating, str) and rating.upper() in {*QUALITY_ORDER, "UNKNOWN"}
            else None,
            tier=tier.upper()[:40] if isinstance(tier, str) and tier else None,
        )

    def _get(self, url: str, params: dict[str, Any] | None) -> dict[str, Any]:
        try:
            response = self._client.get(url, params=params, headers=self._headers)
        except httpx.HTTPError as error:
            raise AccountSyncError(f"no answer from the Graph API: {type(error).__name__}: {error}") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code != 200 or not isinstance(body, dict):
            message = ""
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                message = f": {body['error'].get('message')}"
            raise AccountSyncError(f"the Graph API answered HTTP {response.status_code}{message}")
        return body


def sync_templates(database: Database, client: GraphAccountClient, now: datetime) -> int:
    """Read every template from Meta and make the table match; how many there are."""
    templates = client.list_templates()
    with database.transaction() as session:
        count = replace_templates(session, templates, now)
        journal(session, TEMPLATES_SYNCED, {"count": count}, now)
    return count


def read_number_health(database: Database, client: GraphAccountClient, now: datetime) -> NumberReading:
    """Read the number's rating and limit from Meta and record the reading."""
    reading = client.read_number()
    with database.transaction() as session:
        kind, data = record_reading(
            session,
            quality_rating=reading.quality_rating,
            tier=reading.tier,
            source="read",
            event=None,
            now=now,
        )
        journal(session, kind, data, now)
    return reading


class AccountSync:
    """Worker: templates every hour (or when asked), the number's health at start and every day."""

    name = "account-sync"

    def __init__(
        self,
        database: Database,
        settings: Settings,
        clock: Clock,
        client_factory: Callable[[], httpx.Client],
    ) -> None:
        self._database = database
        self._settings = settings
        self._clock = clock
        self._client_factory = client_factory
        self._templates_due: datetime | None = None
        self._health_due: datetime | None = None
        self._requests_seen: int | None = None

    def run_once(self) -> list[str]:
        """The steps that were due, each done once; names of the steps that ran (failures are logged)."""
        now = self._clock()
        ran = []
        with self._client_factory() as http:
            client = GraphAccountClient(self._settings, http)
            if self._settings.whatsapp_business_account_id and self._templates_wanted(now):
                ran.append("templates")
                self._templates_due = self._step(
                    "template sync",
                    lambda: sync_templates(self._database, client, now),
                    now,
                    timedelta(seconds=self._settings.template_sync_interval_seconds),
                )
            if self._settings.whatsapp_phone_number_id and (
                self._health_due is None or now >= self._health_due
            ):
                ran.append("number_health")
                self._health_due = self._step(
                    "number health read",
                    lambda: read_number_health(self._database, client, now),
                    now,
                    timedelta(seconds=self._settings.number_health_interval_seconds),
                )
        return ran

    def run(self, stop: threading.Event) -> None:
        """Work until stop is set."""
        while not stop.is_set():
            self.run_once()
            stop.wait(IDLE_SECONDS)

    def _templates_wanted(self, now: datetime) -> bool:
        with self._database.reader() as session:
            requests = sync_requests(session)
        asked = self._requests_seen is not None and requests != self._requests_seen
        self._requests_seen = requests
        return asked or self._templates_due is None or now >= self._templates_due

    def _step(self, what: str, step: Callable[[], object], now: datetime, interval: timedelta) -> datetime:
        try:
            step()
        except AccountSyncError as error:
            log.warning("%s failed, trying again in a minute: %s", what, error)
            return now + RETRY_AFTER_FAILURE
        except Exception:
            # The database away, a bug: the loop goes on and tries again later.
            log.exception("%s failed, trying again in a minute", what)
            return now + RETRY_AFTER_FAILURE
        return now + interval
