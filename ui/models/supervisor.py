"""Sends that need a supervisor: unknown outcome, stuck in sending, or held."""

from __future__ import annotations

from collections.abc import Hashable
from datetime import UTC, datetime
from functools import partial

from PySide6.QtCore import QObject

from ui.api.client import ApiClient
from ui.api.resources import Page, SupervisorItem
from ui.i18n import translate
from ui.models.paged import PagedListModel
from ui.presentation import age_text, status_mark
from ui.runner import BackgroundRunner

PAGE_SIZE = 100


class SupervisorQueueModel(PagedListModel[SupervisorItem]):
    """The supervisor queue, one send per row."""

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runner, parent)
        self._api = api

    def item_key(self, item: SupervisorItem) -> Hashable:
        """Sends are keyed by their dedupe key."""
        return item.key

    def display_text(self, item: SupervisorItem) -> str:
        """State, customer, purpose and age."""
        who = item.contact_name or item.to or translate("SupervisorModel", "customer")
        mark = status_mark(item.state)
        age = age_text(item.age(datetime.now(UTC)))
        return translate("SupervisorModel", "{mark} {state}  ·  {who}  ·  {purpose}  ·  {age} old").format(
            mark=mark.mark, state=mark.label, who=who, purpose=item.purpose or "", age=age
        )

    def start(self) -> None:
        """Load the first page."""
        if self._api is not None:
            self.set_loader(partial(_supervisor_page, self._api))


def _supervisor_page(api: ApiClient, cursor: str | None) -> Page[SupervisorItem]:
    return api.supervisor_queue(cursor=cursor, limit=PAGE_SIZE)
