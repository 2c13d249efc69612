"""Every item model passes Qt's model tester, filled from a real backend, and fetches pages on demand."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QModelIndex

from app.commands.demo import DemoStack
from tests.ui.conftest import conversation_id_for, customer_writes, send_text, wait_for, wait_for_state
from ui.api.client import ApiClient
from ui.api.resources import OutboundMessage
from ui.models.conversations import ConversationListModel
from ui.models.supervisor import SupervisorQueueModel
from ui.models.thread import ThreadModel
from ui.models.work_queue import WorkQueueModel
from ui.runner import BackgroundRunner

pytestmark = pytest.mark.timeout(90)

NUMBERS = ("+16505551234", "+16505551235", "+16505551236")


def _work_queue_wamids(stack: DemoStack) -> set[str]:
    """The wamids the work queue holds now."""
    with stack.api() as client:
        response = client.get("/v1/work-queue", params={"limit": 100})
    assert response.status_code == 200, response.text
    return {item["wamid"] for item in response.json()["items"]}


def _busy_backend(stack: DemoStack) -> tuple[int, str]:
    """Three customers who wrote; one sent a business message, then a loose reply and a quoted one."""
    for number in NUMBERS:
        customer_writes(stack, number, f"Hello from {number}")
    conversation_id = conversation_id_for(stack, NUMBERS[0])
    key = send_text(stack, NUMBERS[0], "Your order ships today.")
    sent = wait_for_state(stack, key, {"sent", "delivered", "read"})
    # Unquoted right after a business message nobody answered: nobody can tell what it answers.
    loose = customer_writes(stack, NUMBERS[0], "And the other one?")
    # Stored before the next is written: two webhooks in flight at once may arrive in either order, and
    # a quoted reply stored first, in the same second, would make the loose one plain chat after it.
    wait_for(lambda: loose in _work_queue_wamids(stack))
    customer_writes(stack, NUMBERS[0], "Thanks!", context_id=sent["wamid"])
    return conversation_id, key


def test_conversation_list_model(
    qtbot: Any, qtmodeltester: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    _busy_backend(stack)
    model = ConversationListModel(api, runner)
    with qtbot.waitSignal(model.loaded, timeout=10_000):
        model.start()
    qtbot.waitUntil(lambda: len(model.items) == 3, timeout=10_000)
    qtmodeltester.check(model, force_py=True)
    qtmodeltester.check(model)
    with qtbot.waitSignal(model.loaded, timeout=10_000):
        model.set_filter(query="5551235")
    assert [item.contact.number for item in model.items] == [NUMBERS[1]]
    qtmodeltester.check(model)


def test_conversation_list_fetches_more_pages_on_demand(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    _busy_backend(stack)
    model = ConversationListModel(api, runner)
    model.page_size = 2
    with qtbot.waitSignal(model.loaded, timeout=10_000):
        model.start()
    assert len(model.items) == 2 and model.canFetchMore(QModelIndex())
    with qtbot.waitSignal(model.rowsInserted, timeout=10_000):
        model.fetchMore(QModelIndex())
    assert len(model.items) == 3 and not model.canFetchMore(QModelIndex())


def test_thread_model(
    qtbot: Any, qtmodeltester: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    conversation_id, key = _busy_backend(stack)
    model = ThreadModel(api, runner)

    def loaded_with_reply() -> bool:
        outbound = [item for item in model.items if isinstance(item, OutboundMessage)]
        return bool(outbound and outbound[0].replies)

    with qtbot.waitSignal(model.loaded, timeout=10_000):
        model.show_conversation(conversation_id)
    qtbot.waitUntil(lambda: model.refresh() or loaded_with_reply(), timeout=10_000)
    assert model.rowCount(model.index_of_key(key)) == 1
    qtmodeltester.check(model, force_py=True)
    qtmodeltester.check(model)
    assert model.update_state(key, "read")
    qtmodeltester.check(model)


def test_work_queue_model(
    qtbot: Any, qtmodeltester: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    _busy_backend(stack)
    model = WorkQueueModel(api, runner)
    with qtbot.waitSignal(model.loaded, timeout=10_000):
        model.start()
    qtbot.waitUntil(lambda: model.refresh() or len(model.items) >= 1, timeout=10_000)
    qtmodeltester.check(model, force_py=True)
    qtmodeltester.check(model)
    assert model.count_text() == str(len(model.items))


def test_supervisor_queue_model(
    qtbot: Any, qtmodeltester: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    customer_writes(stack, NUMBERS[0], "Hi")
    conversation_id_for(stack, NUMBERS[0])
    stack.sandbox.set_faults(drop_rate=1.0)
    keys = [send_text(stack, NUMBERS[0], f"Code {number}", purpose="one_time_code") for number in range(2)]
    for key in keys:
        wait_for_state(stack, key, {"unknown"})
    stack.sandbox.set_faults(reset=True)
    model = SupervisorQueueModel(api, runner)
    with qtbot.waitSignal(model.loaded, timeout=10_000):
        model.start()
    assert {item.key for item in model.items} == set(keys)
    assert all(item.state == "unknown" for item in model.items)
    qtmodeltester.check(model, force_py=True)
    qtmodeltester.check(model)
    assert model.remove_key(keys[0])
    qtmodeltester.check(model)
