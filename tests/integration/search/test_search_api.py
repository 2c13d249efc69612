"""GET /v1/search: words in any case with accents folded, newest first, paged, query syntax as plain text."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import update

from backend.database.models import InboundMessage
from tests.integration.web.conftest import Api, add_inbound, add_outbox_row

NUMBER = "+16505551234"
OTHER_NUMBER = "+447911123456"


def _search(api: Api, query: str, **parameters: Any) -> dict[str, Any]:
    extra = "".join(f"&{name}={value}" for name, value in parameters.items())
    response = api.client().get(f"/v1/search?q={quote(query)}{extra}", headers=api.headers())
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def _texts(api: Api, query: str) -> list[str]:
    return [result["text"] for result in _search(api, query, limit=1000)["results"]]


def _send(api: Api, key: str, body: dict[str, Any], to: str = NUMBER) -> None:
    response = api.send(key, {"to": to, "purpose": "order_update", **body})
    assert response.status_code == 202, response.get_json()


def _inbound(api: Api, wamid: str, text: str, *, minutes_ago: float = 0, number: str = NUMBER) -> int:
    conversation_id, _ = add_inbound(
        api.database, number, wamid, at=api.clock.now - timedelta(minutes=minutes_ago), text=text, name="José"
    )
    return conversation_id


def test_a_result_names_its_message_conversation_and_contact(api: Api) -> None:
    conversation_id = _inbound(api, "wamid.A", "Where is my parcel?")
    api.clock.advance(60)
    _send(api, "order-7-shipped", {"text": "Your parcel left the warehouse."})
    results = _search(api, "parcel")["results"]
    assert results == [
        {
            "conversation_id": conversation_id,
            "direction": "outbound",
            "key": "order-7-shipped",
            "text": "Your parcel left the warehouse.",
            "at": "2026-11-29T09:01:00Z",
            "contact": {"name": "José", "number": NUMBER},
        },
        {
            "conversation_id": conversation_id,
            "direction": "inbound",
            "wamid": "wamid.A",
            "text": "Where is my parcel?",
            "at": "2026-11-29T09:00:00Z",
            "contact": {"name": "José", "number": NUMBER},
        },
    ]
    assert _search(api, "parcel")["next_cursor"] is None


def test_words_match_in_any_case_with_accents_folded(api: Api) -> None:
    _inbound(api, "wamid.A", "Soy José, quería cambiar la DIRECCIÓN de entrega")
    _inbound(api, "wamid.B", "Merci beaucoup, à bientôt", number=OTHER_NUMBER)
    for query in ("jose", "JOSÉ", "José", "direccion", "Dirección", "queria"):
        assert _texts(api, query) == ["Soy José, quería cambiar la DIRECCIÓN de entrega"], query
    assert _texts(api, "BIENTOT") == ["Merci beaucoup, à bientôt"]
    assert _texts(api, "a bientot") == ["Merci beaucoup, à bientôt"]


def test_accents_in_the_query_fold_too(api: Api) -> None:
    _inbound(api, "wamid.A", "Cafe creme for Zoe")
    assert _texts(api, "café crème zoë") == ["Cafe creme for Zoe"]


def test_every_word_must_occur_and_the_last_matches_as_a_prefix(api: Api) -> None:
    _inbound(api, "wamid.A", "The delivery address is wrong", minutes_ago=3)
    _inbound(api, "wamid.B", "Please change the address", minutes_ago=2)
    _inbound(api, "wamid.C", "Delivery was late", minutes_ago=1)
    assert _texts(api, "address") == ["Please change the address", "The delivery address is wrong"]
    assert _texts(api, "address delivery") == ["The delivery address is wrong"]
    assert _texts(api, "delivery addr") == ["The delivery address is wrong"]
    assert _texts(api, "deliv") == ["Delivery was late", "The delivery address is wrong"]
    # Only the last word is a prefix.
    assert _texts(api, "deliv address") == []
    assert _texts(api, "address nowhere") == []


def test_newest_first_across_inbound_and_outbound(api: Api) -> None:
    _inbound(api, "wamid.OLD", "invoice please", minutes_ago=10)
    _send(api, "invoice-1", {"text": "Here is your invoice"})
    api.clock.advance(60)
    _inbound(api, "wamid.NEW", "thanks for the invoice", number=OTHER_NUMBER)
    api.clock.advance(60)
    _send(api, "invoice-2", {"text": "A corrected invoice"}, to=OTHER_NUMBER)
    assert _texts(api, "invoice") == [
        "A corrected invoice",
        "thanks for the invoice",
        "Here is your invoice",
        "invoice please",
    ]


def test_pages_follow_next_cursor_without_gaps_or_repeats(api: Api) -> None:
    # Five inbound and five outbound messages, some at the very same moment.
    for index in range(5):
        _inbound(api, f"wamid.{index}", f"refund number {index}", minutes_ago=5 - index // 2)
        _send(api, f"refund-{index}", {"text": f"Your refund {index} is on its way"})
        if index % 2:
            api.clock.advance(30)
    expected = _texts(api, "refund")
    assert len(expected) == 10
    seen: list[str] = []
    cursor = ""
    pages = 0
    while True:
        page = _search(api, "refund", limit=3, **({"cursor": cursor} if cursor else {}))
        seen += [result["text"] for result in page["results"]]
        pages += 1
        if page["next_cursor"] is None:
            break
        cursor = page["next_cursor"]
    assert seen == expected
    assert pages == 4


@pytest.mark.parametrize(
    "query",
    ['"', "*", "-", ":", "^", "(", ")", "%", "_", "\\", "%%", "_%_", "'", "NEAR(", "AND", "OR", "NOT", "\\%"],
)
def test_query_syntax_and_wildcards_are_plain_text(api: Api, query: str) -> None:
    _inbound(api, "wamid.A", "a plain message")
    _inbound(api, "wamid.B", "AND OR NOT NEAR are words here", number=OTHER_NUMBER)
    texts = _texts(api, query)
    words = [word for word in query.replace("(", " ").split() if word.isalpha()]
    assert texts == (["AND OR NOT NEAR are words here"] if words else [])


@pytest.mark.parametrize(
    "query",
    ['"order', "order*", "-order", "order:", "^order", "(order)", "order%", "%order%", "or_der", "order\\"],
)
def test_syntax_characters_around_a_word_do_not_change_what_it_finds(api: Api, query: str) -> None:
    _inbound(api, "wamid.A", "my order is late", minutes_ago=1)
    _inbound(api, "wamid.B", "ordinary text", number=OTHER_NUMBER)
    _inbound(api, "wamid.C", "50% off, or der_by", number="+33612345678")
    if query == "or_der":
        # The underscore separates words, like any other punctuation.
        assert _texts(api, query) == ["50% off, or der_by"]
    else:
        assert _texts(api, query) == ["my order is late"]
    assert _texts(api, "50%") == ["50% off, or der_by"]


def test_outbound_buttons_and_templates_are_found_by_what_the_customer_saw(api: Api) -> None:
    _send(
        api,
        "pickup-1",
        {
            "buttons": {
                "body": "Is Thursday fine for the pickup?",
                "buttons": [{"id": "yes", "title": "Perfecto"}, {"id": "no", "title": "Another day"}],
            }
        },
    )
    api.clock.advance(60)
    _send(
        api,
        "reminder-1",
        {"template": {"name": "appointment_reminder", "language": "en", "parameters": ["Friday", "10:30"]}},
    )
    assert _texts(api, "thursday pickup") == ["Is Thursday fine for the pickup?  [Perfecto | Another day]"]
    assert _texts(api, "perfecto") == ["Is Thursday fine for the pickup?  [Perfecto | Another day]"]
    reminder = "Reminder: your appointment is on Friday at 10:30. Reply to confirm or reschedule."
    # A parameter, the template's own words, and both at once.
    assert _texts(api, "friday") == [reminder]
    assert _texts(api, "appointment") == [reminder]
    assert _texts(api, "appointment friday resched") == [reminder]
    assert _texts(api, "appointment thursday") == []


def test_captions_are_searched_and_shown_for_media(api: Api) -> None:
    conversation_id = _inbound(api, "wamid.PHOTO", "placeholder")
    with api.database.transaction() as session:
        session.execute(
            update(InboundMessage)
            .where(InboundMessage.wamid == "wamid.PHOTO")
            .values(type="image", text=None, caption="Broken lid on arrival")
        )
    [result] = _search(api, "lid")["results"]
    assert (result["conversation_id"], result["text"]) == (conversation_id, "Broken lid on arrival")
    assert _texts(api, "placeholder") == []


@pytest.mark.parametrize("query", ["", "x" * 201])
def test_the_query_must_be_1_to_200_characters(api: Api, query: str) -> None:
    response = api.client().get(f"/v1/search?q={query}", headers=api.headers())
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_parameter"
    assert api.client().get("/v1/search", headers=api.headers()).status_code == 400


def test_a_query_without_words_finds_nothing(api: Api) -> None:
    _inbound(api, "wamid.A", "anything")
    assert _search(api, "  ?! ")["results"] == []


def test_bad_cursors_and_limits_are_refused(api: Api) -> None:
    for suffix in ("&cursor=nonsense", "&limit=0", "&limit=1001"):
        response = api.client().get(f"/v1/search?q=a{suffix}", headers=api.headers())
        assert response.status_code == 400, suffix


def test_search_needs_a_token(api: Api) -> None:
    assert api.client().get("/v1/search?q=a").status_code == 401


def test_the_conversation_list_finds_conversations_by_what_was_said(api: Api) -> None:
    first = _inbound(api, "wamid.A", "¿Dónde está mi pedido?")
    second = _inbound(api, "wamid.B", "hello", number=OTHER_NUMBER)
    _send(api, "order-1", {"text": "Your pedido ships Monday"}, to=OTHER_NUMBER)

    def listed(query: str) -> list[int]:
        response = api.client().get(f"/v1/conversations?q={quote(query)}", headers=api.headers())
        assert response.status_code == 200, response.get_json()
        return sorted(conversation["id"] for conversation in response.get_json()["conversations"])

    assert listed("DONDE") == [first]
    assert listed("pedido") == sorted([first, second])
    assert listed("ships mon") == [second]
    # Wildcards are plain text: "%" matches neither names nor messages.
    assert listed("%") == []


def test_a_message_outside_any_conversation_is_skipped_and_paging_goes_past_it(api: Api) -> None:
    _inbound(api, "wamid.OLD", "parcel one", minutes_ago=20)
    add_outbox_row(api, "no-conversation", "sent", payload={"text": "parcel without a conversation"})
    _inbound(api, "wamid.NEW", "parcel two", number=OTHER_NUMBER)
    texts: list[str] = []
    cursor: dict[str, str] = {}
    while True:
        page = _search(api, "parcel", limit=1, **cursor)
        texts += [result["text"] for result in page["results"]]
        if page["next_cursor"] is None:
            break
        cursor = {"cursor": page["next_cursor"]}
    assert texts == ["parcel two", "parcel one"]
