"""`inbox demo` and `inbox ui` on the command line, and the demo's day placing each customer as it should."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.commands.demo import start_stack
from app.demo_story import (
    ANSWERS_TO_OPENERS,
    BEN,
    CAST,
    GRACE,
    HANNAH,
    LUCIA,
    MARCUS,
    NORA,
    PRIYA,
    RAVI,
    STORY_AGENT,
    TOM,
    Customer,
)
from backend.sandbox.customers import OPENERS
from backend.settings import load_settings

pytestmark = pytest.mark.processes

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _env(tmp_path: Path, *, display: bool) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("INBOX_", "WHATSAPP_"))
        and name not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env["INBOX_DATA_DIR"] = str(tmp_path / "data")
    if display:
        env["QT_QPA_PLATFORM"] = "offscreen"
    return env


@pytest.mark.parametrize("command", ["demo", "ui"])
def test_without_a_display_one_line_suggests_offscreen(tmp_path: Path, command: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", command],
        capture_output=True,
        text=True,
        env=_env(tmp_path, display=False),
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--offscreen" in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_demo_renders_a_tab_to_png_after_live_traffic(tmp_path: Path) -> None:
    picture = tmp_path / "supervisor.png"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "demo",
            "--offscreen",
            "--screenshot",
            str(picture),
            "--seconds",
            "4",
            "--tab",
            "supervisor",
            "--customers",
            "3",
            # The client's language and colours as flags: Arabic (right to left) in dark mode.
            "--language",
            "ar",
            "--theme",
            "dark",
        ],
        capture_output=True,
        text=True,
        env=_env(tmp_path, display=False),
        timeout=110,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert picture.read_bytes().startswith(PNG_SIGNATURE)
    # The per-run demo database is removed afterwards.
    assert not list((tmp_path / "data" / "demo").glob("*.db"))


def test_the_demo_takes_a_language_and_a_theme_and_refuses_others() -> None:
    """`--language es|pt_BR|ar|en` and `--theme dark|light|system`; anything else is a usage error."""
    from app.cli import build_parser

    chosen = build_parser().parse_args(["demo", "--language", "pt_BR", "--theme", "dark"])
    assert (chosen.language, chosen.theme) == ("pt_BR", "dark")
    defaults = build_parser().parse_args(["demo"])
    assert (defaults.language, defaults.theme) == (None, None)
    with pytest.raises(SystemExit) as refused:
        build_parser().parse_args(["demo", "--language", "fr"])
    assert refused.value.code == 2


def test_the_demo_agent_has_an_answer_for_every_topic_customers_open() -> None:
    assert set(ANSWERS_TO_OPENERS) == set(OPENERS)


def _inbound_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every inbound message of a thread, replies under our messages included, in thread order."""
    found: list[dict[str, Any]] = []
    for item in items:
        if item["direction"] == "inbound":
            found.append(item)
        found.extend(reply for reply in item.get("replies") or [] if reply["direction"] == "inbound")
    return found


@pytest.mark.timeout(120)
def test_the_story_gives_each_customer_the_placement_and_status_of_their_day(
    database_url: str, tmp_path: Path
) -> None:
    settings = load_settings(environ={"INBOX_DATA_DIR": str(tmp_path), "INBOX_DATABASE_URL": database_url})
    stack = start_stack(
        settings, customers=2, status_delay=0.05, customer_interval=1.0, agents=(STORY_AGENT,)
    )
    try:
        story = stack.play_story(typing_seconds=0.1, stagger_seconds=0.1)
        stack.start_traffic(interval=0.2)
        assert story.join(90), "a scene did not finish"
        assert story.skipped == []
        assert set(story.conversations) == {customer.number for customer in CAST}
        with stack.api() as client:

            def conversation(customer: Customer) -> dict[str, Any]:
                return dict(client.get(f"/v1/conversations/{story.conversations[customer.number]}").json())

            def inbound(customer: Customer) -> list[tuple[str, str, str | None]]:
                path = f"/v1/conversations/{story.conversations[customer.number]}/thread"
                items = client.get(path, params={"limit": 1000}).json()["messages"]
                return [(item["type"], item["placement"], item["text"]) for item in _inbound_items(items)]

            def thread_kinds(customer: Customer) -> list[str]:
                path = f"/v1/conversations/{story.conversations[customer.number]}/thread"
                return [item["direction"] for item in client.get(path).json()["messages"]]

            assert [placement for _, placement, _ in inbound(GRACE)] == [
                "conversation",
                "conversation",
                "reply",
            ]
            grace = conversation(GRACE)
            assert (grace["status"], grace["labels"], grace["assignee"]) == ("resolved", ["order"], "sam")
            assert "note" in thread_kinds(GRACE)
            assert [(kind, placement) for kind, placement, _ in inbound(TOM)] == [("button", "reply")]
            assert inbound(PRIYA) == [("text", "work_queue", "Yes")]
            assert inbound(LUCIA) == [
                (
                    "text",
                    "conversation",
                    "Hola, ¿tenéis la chaqueta azul de lino en talla M? La vi en el escaparate el sábado.",
                ),
                ("text", "conversation", "¡Sí, por favor! Paso el jueves por la tarde. Muchas gracias 😊"),
            ]
            assert conversation(LUCIA)["labels"] == ["reserved"]
            marcus = inbound(MARCUS)
            assert [(kind, placement) for kind, placement, _ in marcus] == [
                ("text", "conversation"),
                ("image", "conversation"),
                ("audio", "conversation"),
                ("text", "conversation"),
            ]
            assert marcus[1][2] == "Here it is, the crack is on the left of the handle"
            assert [viewer["user"] for viewer in conversation(MARCUS)["viewers"]] == ["sam"]
            hannah = conversation(HANNAH)
            assert hannah["status"] == "snoozed" and hannah["snoozed_until"] is not None
            assert conversation(BEN)["status"] == "pending"
            assert inbound(RAVI)[0][:2] == ("text", "work_queue")
            nora = conversation(NORA)["contact"]
            assert nora["opted_out"] is True and nora["opted_out_at"] is not None
            # Only the two real doubts reach the work queue: background chat never does.
            work = client.get("/v1/work-queue").json()["items"]
            by_number = {item["from"]: len(item["candidates"]) for item in work}
            assert by_number == {PRIYA.number: 2, RAVI.number: 1}
    finally:
        stack.stop()
