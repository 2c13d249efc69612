"""Templates as Meta knows them, kept in the database: the sync's result, status webhooks, the catalog read.

With WHATSAPP_BUSINESS_ACCOUNT_ID set, this table is the source of templates for every process; without
it the templates file is, and the table stays empty.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from backend import counters
from backend.database import Database
from backend.database.models import MessageTemplate
from backend.domain.account_events import TemplateStatusEvent
from backend.domain.templates import PLACEHOLDER, Template, TemplateCatalog

# Bumped whenever a send fails as if our templates were out of date; the sync worker watches it.
TEMPLATE_SYNC_REQUESTS = "template_sync_requests"
TEMPLATE_STATUS_CHANGED = "template.status_changed"
# How long a process trusts its copy of the table before looking whether it changed.
REFRESH_SECONDS = 1.0


@dataclass(frozen=True)
class SyncedTemplate:
    """One template as Meta's message_templates list gives it."""

    name: str
    language: str
    status: str
    category: str | None
    body: str
    meta_id: str | None
    status_reason: str | None = None

    @property
    def parameter_count(self) -> int:
        """The highest {{n}} placeholder of the body."""
        return max((int(n) for n in PLACEHOLDER.findall(self.body)), default=0)


def request_template_sync(session: Session) -> None:
    """Ask the sync worker for a sync soon (a send failed as if a template changed at Meta)."""
    counters.bump(session, TEMPLATE_SYNC_REQUESTS)


def sync_requests(session: Session) -> int:
    """How many syncs were asked for since the database was created."""
    return counters.read(session, TEMPLATE_SYNC_REQUESTS)


def replace_templates(session: Session, templates: Sequence[SyncedTemplate], now: datetime) -> int:
    """Make the table what Meta listed: rows updated or added, templates Meta no longer has removed."""
    existing = {(row.name, row.language): row for row in session.scalars(select(MessageTemplate))}
    listed = set()
    for template in templates:
        key = (template.name, template.language)
        listed.add(key)
        row = existing.get(key)
        if row is None:
            row = MessageTemplate(name=template.name, language=template.language, updated_at=now)
            session.add(row)
        changed = (
            row.status != template.status
            or row.category != template.category
            or row.body != template.body
            or row.meta_id != template.meta_id
        )
        row.status = template.status
        row.category = template.category
        row.body = template.body
        row.parameter_count = template.parameter_count
        row.meta_id = template.meta_id
        row.status_reason = template.status_reason
        if changed:
            row.updated_at = now
    gone = [row.id for key, row in existing.items() if key not in listed]
    if gone:
        session.execute(delete(MessageTemplate).where(MessageTemplate.id.in_(gone)))
    session.flush()
    return len(listed)


def apply_status_update(
    session: Session, event: TemplateStatusEvent, now: datetime
) -> tuple[str, dict[str, Any]]:
    """Set one template's status from Meta's webhook (a template the sync has not seen yet is added)."""
    row = session.scalar(
        select(MessageTemplate).where(
            MessageTemplate.name == event.name, MessageTemplate.language == event.language
        )
    )
    previous = row.status if row is not None else None
    if row is None:
        # Its body comes with the next sync, which this asks for.
        row = MessageTemplate(
            name=event.name,
            language=event.language,
            status=event.status,
            body="",
            parameter_count=0,
            updated_at=now,
        )
        session.add(row)
        session.flush()
        request_template_sync(session)
    row.status = event.status
    if event.category:
        row.category = event.category
    row.meta_id = event.meta_id or row.meta_id
    row.status_reason = event.reason
    row.updated_at = now
    session.flush()
    return (
        TEMPLATE_STATUS_CHANGED,
        {"name": event.name, "language": event.language, "status": event.status, "previous": previous},
    )


def stored_status(session: Session, name: str, language: str) -> str | None:
    """Meta's status of one template as last heard, or None when the table does not hold it."""
    return session.scalar(
        select(MessageTemplate.status).where(
            MessageTemplate.name == name, MessageTemplate.language == language
        )
    )


def stored_catalog(session: Session) -> TemplateCatalog:
    """Every stored template, in name and language order."""
    rows = session.scalars(select(MessageTemplate).order_by(MessageTemplate.name, MessageTemplate.language))
    return TemplateCatalog([_template(row) for row in rows])


def _template(row: MessageTemplate) -> Template:
    return Template(
        name=row.name,
        language=row.language,
        body=row.body,
        parameters=tuple(f"parameter {n}" for n in range(1, row.parameter_count + 1)),
        category=(row.category or "UTILITY").upper(),
        status=row.status,
        status_reason=row.status_reason,
    )


class StoredTemplateCatalog(TemplateCatalog):
    """The templates table as a catalog, looked at again when it changed (at most once a second)."""

    def __init__(self, database: Database, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        super().__init__([])
        self._database = database
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._checked_at: float | None = None
        self._version: tuple[int, Any] | None = None

    def refresh(self, *, check_now: bool = False) -> None:
        """Reload the templates when the table changed since the last look (at most once a second
        unless `check_now`)."""
        with self._lock:
            moment = self._monotonic()
            recent = self._checked_at is not None and moment - self._checked_at < REFRESH_SECONDS
            if recent and not check_now:
                return
            self._checked_at = moment
            with self._database.reader() as session:
                count, newest = session.execute(
                    select(func.count(), func.max(MessageTemplate.updated_at))
                ).one()
                version = (int(count), newest)
                if version == self._version:
                    return
                catalog = stored_catalog(session)
            self._by_key = {(t.name, t.language): t for t in catalog}
            self._version = version

    def __iter__(self) -> Iterator[Template]:
        """Every template, in name and language order."""
        self.refresh()
        return iter(list(self._by_key.values()))

    def __len__(self) -> int:
        """How many templates there are."""
        self.refresh()
        return len(self._by_key)

    def find(self, name: str, language: str) -> Template:
        """The template with this name and language, or TemplateError."""
        self.refresh()
        return super().find(name, language)
