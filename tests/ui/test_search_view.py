"""The search box: it waits for a pause in typing, shows hits as plain text, pages, and opens a hit."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QModelIndex, Qt

from app.commands.demo import DemoStack
from tests.ui.conftest import conversation_id_for, customer_writes
from ui.api.client import BAD_RESPONSE, ApiClient, ApiError
from ui.api.library import SearchHit, parse_search_page
from ui.api.resources import Page
from ui.runner import BackgroundRunner
from ui.views.search import (
    MAX_QUERY_LENGTH,
    SEARCH_DELAY_MS,
    SearchDialog,
    SearchView,
    Snippet,
    SnippetRole,
    match_spans,
    query_words,
    snippet,
)

MARKUP = "<b style='color:#ff0000'>José</b> <i>says</i> yes"
CUSTOMER = "+16505551234"


def _hit(
    number: int, *, direction: str = "inbound", text: str = "hello José", **fields: Any
) -> dict[str, Any]:
    """One search result as the backend writes it."""
    body: dict[str, Any] = {
        "conversation_id": 7,
        "direction": direction,
        "text": text,
        "at": f"2026-05-01T12:{number % 60:02d}:00Z",
        "contact": {"name": "Ana <b>García</b>", "number": "+34600111222"},
    }
    body["wamid" if direction == "inbound" else "key"] = f"ref-{number}"
    body.update(fields)
    return body


class FakeSearchBackend:
    """Answers GET /v1/search from pages keyed by cursor, and remembers every request."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.pages: dict[str | None, dict[str, Any]] = {None: {"results": [], "next_cursor": None}}
        self.refusal: tuple[int, dict[str, Any]] | None = None
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        with self.lock:
            self.requests.append(request)
        if self.refusal is not None:
            status, body = self.refusal
            return httpx.Response(status, json=body)
        assert request.url.path == "/v1/search"
        return httpx.Response(200, json=self.pages[request.url.params.get("cursor")])

    def queries(self) -> list[tuple[str | None, str | None]]:
        """The q and cursor of each request so far."""
        with self.lock:
            return [
                (request.url.params.get("q"), request.url.params.get("cursor")) for request in self.requests
            ]


@pytest.fixture
def backend() -> FakeSearchBackend:
    """A fake backend that answers searches."""
    return FakeSearchBackend()


@pytest.fixture
def view(qtbot: Any, backend: FakeSearchBackend, runner: BackgroundRunner) -> Iterator[SearchView]:
    """The search view on the fake backend, shown."""
    api = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(backend))
    search = SearchView(api, runner)
    qtbot.addWidget(search)
    search.resize(520, 420)
    search.show()
    yield search
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=10_000)
    api.close()


def _search(qtbot: Any, view: SearchView, text: str) -> None:
    """Type into the box and wait for the results or the failure to show."""
    qtbot.keyClicks(view.search_box, text)
    qtbot.waitUntil(lambda: view.model.query == text.strip() and not view.model.is_loading, timeout=10_000)


def test_typing_searches_once_after_a_pause(qtbot: Any, view: SearchView, backend: FakeSearchBackend) -> None:
    backend.pages[None] = {"results": [_hit(1)], "next_cursor": None}
    qtbot.keyClicks(view.search_box, "jose")
    # Nothing goes out while the user types.
    assert backend.queries() == []
    qtbot.wait(SEARCH_DELAY_MS // 3)
    assert backend.queries() == []
    qtbot.waitUntil(lambda: len(view.model.items) == 1, timeout=10_000)
    assert backend.queries() == [("jose", None)]
    assert view.status_label.text() == "1 message found."


def test_results_show_as_plain_text_with_the_matched_words_found(
    qtbot: Any, view: SearchView, backend: FakeSearchBackend
) -> None:
    backend.pages[None] = {"results": [_hit(1, text=MARKUP)], "next_cursor": None}
    _search(qtbot, view, "jose yes")
    index = view.model.index(0, 0)
    shown = index.data(Qt.ItemDataRole.DisplayRole)
    # The markup is text: nothing of it is read, nothing of it is dropped.
    assert "Ana <b>García</b> · customer wrote · " in shown and shown.endswith(MARKUP)
    assert index.data(Qt.ItemDataRole.ToolTipRole).count("&lt;b") == 2
    cut = index.data(SnippetRole)
    assert isinstance(cut, Snippet)
    assert [cut.text[start:end] for start, end in cut.spans] == ["José", "yes"]
    # The painted row fits its two lines of snippet under the contact line.
    assert view.results.visualRect(index).height() > 3 * view.fontMetrics().height()
    assert not view.grab().isNull()


def test_matching_words_fold_case_and_accents_and_match_word_starts() -> None:
    assert query_words("JOSÉ  entrega!") == ["jose", "entrega"]
    text = "José: la ENTREGA llegó; joseph ajose"
    assert [text[start:end] for start, end in match_spans(text, ["jose", "entreg"])] == [
        "José",
        "ENTREGA",
        "joseph",
    ]
    assert match_spans("nothing here", []) == []


def test_a_long_message_is_cut_around_its_first_match() -> None:
    text = "word " * 60 + "the parcel arrived\nbroken " + "more " * 60
    cut = snippet(text, ["parcel"])
    assert cut.text.startswith("…") and cut.text.endswith("…") and "\n" not in cut.text
    assert [cut.text[start:end] for start, end in cut.spans] == ["parcel"]
    assert len(cut.text) <= 162


def test_choosing_a_result_asks_for_its_conversation_and_message(
    qtbot: Any, view: SearchView, backend: FakeSearchBackend
) -> None:
    backend.pages[None] = {
        "results": [_hit(2, direction="outbound", conversation_id=4), _hit(1, conversation_id=9)],
        "next_cursor": None,
    }
    _search(qtbot, view, "hello")
    with qtbot.waitSignal(view.message_chosen, timeout=2_000) as chosen:
        qtbot.mouseClick(
            view.results.viewport(),
            Qt.MouseButton.LeftButton,
            pos=view.results.visualRect(view.model.index(0, 0)).center(),
        )
    # Our message is named by its key.
    assert chosen.args == [4, "ref-2"]
    # From the box, Down goes to the results and Enter opens one; a customer's message by its wamid.
    view.search_box.setFocus()
    qtbot.keyClick(view.search_box, Qt.Key.Key_Down)
    qtbot.keyClick(view.results, Qt.Key.Key_Down)
    with qtbot.waitSignal(view.message_chosen, timeout=2_000) as chosen:
        qtbot.keyClick(view.results, Qt.Key.Key_Return)
    assert chosen.args == [9, "ref-1"]


def test_the_dialog_closes_on_a_choice(qtbot: Any, runner: BackgroundRunner) -> None:
    dialog = SearchDialog(None, runner)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.view.model.show_page(_page([_hit(3)]))
    with qtbot.waitSignal(dialog.message_chosen, timeout=2_000) as chosen:
        dialog.view.results.setCurrentIndex(dialog.view.model.index(0, 0))
        qtbot.keyClick(dialog.view.results, Qt.Key.Key_Enter)
    assert chosen.args == [7, "ref-3"] and not dialog.isVisible()


def _page(results: list[dict[str, Any]]) -> Page[SearchHit]:
    return parse_search_page({"results": results, "next_cursor": None})


def test_more_results_load_the_next_page(qtbot: Any, view: SearchView, backend: FakeSearchBackend) -> None:
    backend.pages[None] = {"results": [_hit(number) for number in range(50, 0, -1)], "next_cursor": "page-2"}
    backend.pages["page-2"] = {"results": [_hit(0, text="hello José, first")], "next_cursor": None}
    _search(qtbot, view, "hello")
    assert len(view.model.items) == 50 and not view.more_button.isHidden()
    assert view.status_label.text() == "50+ messages found."
    view.more_button.click()
    qtbot.waitUntil(lambda: len(view.model.items) == 51, timeout=10_000)
    assert backend.queries()[-1] == ("hello", "page-2")
    assert view.more_button.isHidden() and view.status_label.text() == "51 messages found."
    # A new search starts over.
    view.search_box.clear()
    qtbot.waitUntil(lambda: view.model.rowCount(QModelIndex()) == 0 and view.model.query == "", timeout=5_000)
    assert view.more_button.isHidden()


def test_no_result_says_so(qtbot: Any, view: SearchView) -> None:
    _search(qtbot, view, "nowhere")
    assert view.model.rowCount() == 0
    assert view.status_label.text() == "No message contains “nowhere”."


def test_a_refused_or_unreachable_search_is_explained(
    qtbot: Any, view: SearchView, backend: FakeSearchBackend, runner: BackgroundRunner
) -> None:
    backend.refusal = (
        400,
        {"error": {"code": "invalid_parameter", "message": "q must be 1 to 200 characters"}},
    )
    _search(qtbot, view, "x")
    qtbot.waitUntil(lambda: view.status_label.text().startswith("Search failed"), timeout=5_000)
    assert view.status_label.text() == "Search failed: q must be 1 to 200 characters"
    assert view.more_button.isHidden()

    offline = SearchView(ApiClient("http://127.0.0.1:9", "token"), runner)
    qtbot.addWidget(offline)
    offline.search_box.setText("parcel")
    offline.search_now()
    qtbot.waitUntil(lambda: offline.status_label.text().startswith("Search failed"), timeout=10_000)
    assert "cannot reach the backend" in offline.status_label.text()


def test_a_too_long_query_is_refused_before_asking(
    qtbot: Any, view: SearchView, backend: FakeSearchBackend
) -> None:
    view.search_box.setText("a" * (MAX_QUERY_LENGTH + 1))
    view.search_now()
    assert view.status_label.text() == f"Search for at most {MAX_QUERY_LENGTH} characters."
    qtbot.wait(SEARCH_DELAY_MS + 50)
    assert backend.queries() == []


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({k: v for k, v in _hit(1).items() if k != "wamid"}, "wamid"),
        (_hit(1, direction="note"), "direction"),
        (_hit(1, text=None), "text"),
        (_hit(1, at="2026-05-01T12:00:00"), "zone"),
        (_hit(1, contact=None), "contact"),
    ],
)
def test_any_other_result_shape_is_a_bad_response(entry: dict[str, Any], field: str) -> None:
    def answer(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"results": [entry], "next_cursor": None})

    api = ApiClient("http://backend.test", "token", transport=httpx.MockTransport(answer))
    with pytest.raises(ApiError) as raised:
        api.search("x")
    api.close()
    assert raised.value.code == BAD_RESPONSE and field in raised.value.message


def test_a_customers_words_are_found_on_the_real_backend(
    qtbot: Any, stack: DemoStack, api: ApiClient, runner: BackgroundRunner
) -> None:
    wamid = customer_writes(stack, CUSTOMER, "Hola, soy José: mi pedido no llegó")
    conversation_id = conversation_id_for(stack, CUSTOMER)
    search = SearchView(api, runner)
    qtbot.addWidget(search)
    search.show()
    # Any case, accents folded, the last word a prefix.
    qtbot.keyClicks(search.search_box, "JOSE pedi")
    qtbot.waitUntil(lambda: len(search.model.items) == 1, timeout=10_000)
    hit = search.model.items[0]
    assert (hit.direction, hit.text, hit.contact.number) == (
        "inbound",
        "Hola, soy José: mi pedido no llegó",
        CUSTOMER,
    )
    cut = search.model.index(0, 0).data(SnippetRole)
    assert [cut.text[start:end] for start, end in cut.spans] == ["José", "pedido"]
    with qtbot.waitSignal(search.message_chosen, timeout=2_000) as chosen:
        search.results.setCurrentIndex(search.model.index(0, 0))
        qtbot.keyClick(search.results, Qt.Key.Key_Return)
    assert chosen.args == [conversation_id, wamid]
    qtbot.waitUntil(lambda: runner.pending_count == 0, timeout=10_000)
