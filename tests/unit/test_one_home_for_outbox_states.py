"""Only `backend/outbox/state_writes.py` writes an outbox row's state: a walk over the backend's code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THE_WRITER = Path("backend/outbox/state_writes.py")
# Creating a row (`queued`, with the dedupe key deciding) is enqueue's; deleting finished rows is retention's.
CREATES_ROWS = Path("backend/outbox/enqueue.py")
OUTBOX_NAMES = frozenset({"OutboxMessage", "OUTBOX"})


def _literal(node: ast.AST) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def _names(node: ast.AST) -> set[str]:
    return {child.id for child in ast.walk(node) if isinstance(child, ast.Name)}


def _outbox_aliases(tree: ast.AST) -> set[str]:
    """Names bound to the outbox table, as in `table = OutboxMessage.__table__`."""
    aliases = set(OUTBOX_NAMES)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and node.value is not None
            and _names(node.value) & aliases
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(
                isinstance(child, ast.Attribute) and child.attr == "__table__"
                for child in ast.walk(node.value)
            ):
                aliases |= {target.id for target in targets if isinstance(target, ast.Name)}
    return aliases


def violations(source: str, path: Path) -> list[str]:
    """Every place in `source` that writes an outbox row other than through the one writer."""
    tree = ast.parse(source)
    aliases = _outbox_aliases(tree)
    mentions_outbox = bool(_names(tree) & aliases)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        where = f"{path}:{line}"
        if isinstance(node, ast.Call):
            function = node.func
            name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
            arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
            about_outbox = any(_names(argument) & aliases for argument in arguments)
            if name == "update" and isinstance(function, ast.Name) and about_outbox:
                found.append((line, f"{where}: update() of the outbox"))
            elif (
                name == "update" and isinstance(function, ast.Attribute) and _names(function.value) & aliases
            ):
                found.append((line, f"{where}: .update() on an outbox query"))
            elif name in {"insert", "insert_ignoring_conflicts", "dialect_insert"} and about_outbox:
                if path != CREATES_ROWS:
                    found.append((line, f"{where}: an outbox row created outside enqueue"))
            elif name == "setattr" and len(node.args) >= 2 and _literal(node.args[1]) == "state":
                found.append((line, f"{where}: setattr(..., 'state', ...)"))
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and mentions_outbox:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for child in ast.walk(target):
                    if isinstance(child, ast.Attribute) and child.attr == "state":
                        found.append((line, f"{where}: assigns .state in a module that handles outbox rows"))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "update outbox_messages" in " ".join(node.value.lower().split())
        ):
            found.append((line, f"{where}: UPDATE outbox_messages in SQL text"))
    return [text for _line, text in sorted(found)]


def test_nothing_but_the_one_writer_writes_an_outbox_row() -> None:
    found = []
    for path in sorted((ROOT / "backend").rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative == THE_WRITER or "migrations" in relative.parts:
            continue
        found += violations(path.read_text(encoding="utf-8"), relative)
    assert found == []


def test_the_walker_sees_each_way_of_writing_a_row() -> None:
    sample = """
from sqlalchemy import text, update
from backend.database.models import OutboxMessage
table = OutboxMessage.__table__
session.execute(update(OutboxMessage).values(state="sent"))
session.execute(update(table).where(table.c.id == 1).values(state="sent"))
session.query(OutboxMessage).filter_by(id=1).update({"state": "sent"})
message.state = "queued"
setattr(message, "state", "queued")
session.execute(text("UPDATE  outbox_messages SET state = 'sent'"))
session.execute(insert_ignoring_conflicts(session, OutboxMessage, ["dedupe_key"], state="queued"))
"""
    found = violations(sample, Path("backend/sample.py"))
    assert [line.split(": ", 1)[1] for line in found] == [
        "update() of the outbox",
        "update() of the outbox",
        ".update() on an outbox query",
        "assigns .state in a module that handles outbox rows",
        "setattr(..., 'state', ...)",
        "UPDATE outbox_messages in SQL text",
        "an outbox row created outside enqueue",
    ]


def test_other_tables_and_plain_dicts_are_left_alone() -> None:
    sample = """
from sqlalchemy import update
from backend.database.models import Conversation
session.execute(update(Conversation).values(state="closed"))
row = {"state": "queued"}
row.update(state="sent")
"""
    assert violations(sample, Path("backend/sample.py")) == []
