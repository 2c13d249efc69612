"""Replies nobody could place, with the messages they may answer, waiting for a person to decide."""

from __future__ import annotations

from collections.abc import Hashable
from datetime import UTC, datetime
from functools import partial

from PySide6.QtCore import QObject

from ui.api.client import ApiClient
from ui.api.resources import Page, WorkItem
from ui.i18n import translate
from ui.models.paged import PagedListModel
from ui.presentation import short_time
from ui.runner import BackgroundRunner

PAGE_SIZE = 100


class WorkQueueModel(PagedListModel[WorkItem]):
    """The work queue, oldest first as the API lists it."""

    def __init__(
        self,
        api: ApiClient | None,
        runner: BackgroundRunner | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runner, parent)
        self._api = api

    def item_key(self, item: WorkItem) -> Hashable:
        """Replies are keyed by wamid."""
        return item.wamid

    def display_text(self, item: WorkItem) -> str:
        """When, who and what, and how many of our messages it may answer when more than one."""
        when = short_time(item.received_at, datetime.now(UTC))
        text = translate("WorkQueueModel", "{time}   {sender}: {text}").format(
            time=when,
            sender=item.sender or translate("WorkQueueModel", "customer"),
            text=item.text or translate("WorkQueueModel", "(no text)"),
        )
        count = len(item.candidates)
        if count > 1:
            return translate("WorkQueueModel", "{text}   (%n messages it may answer)", None, count).format(
                text=text
            )
        return text

    def start(self) -> None:
        """Load the first page."""
        if self._api is not None:
            self.set_loader(partial(_work_queue_page, self._api))

    def count_text(self) -> str:
        """The count for the tab title: '12', or '100+' when more pages exist."""
        return f"{len(self.items)}+" if self.has_more else str(len(self.items))


def _work_queue_page(api: ApiClient, cursor: str | None) -> Page[WorkItem]:
    return api.work_queue(cursor=cursor, limit=PAGE_SIZE)
