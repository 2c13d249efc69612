"""Only `backend/journal.py` adds journal entries: a walk over the backend's code."""

# An entry inserted outright into `journal` gets its seq before commit on PostgreSQL, so it could
# become visible below a seq a reader already saw; `journal` and `journal_many` number it after.

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THE_WRITER = Path("backend/journal.py")
JOURNAL_NAMES = frozenset({"JournalEntry", "PendingJournalEntry"})
INSERTS = frozenset(
    {"insert", "dialect_insert", "add", "add_all", "bulk_save_objects", "bulk_insert_mappings"}
)


def _names(node: ast.AST) -> set[str]:
    return {child.id for child in ast.walk(node) if isinstance(child, ast.Name)}


def violations(source: str, path: Path) -> list[str]:
    """Every place in `source` that adds a journal entry other than through backend.journal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        if name in JOURNAL_NAMES or (
            name in INSERTS and any(_names(arg) & JOURNAL_NAMES for arg in arguments)
        ):
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_only_the_journal_module_adds_journal_entries() -> None:
    found = []
    for folder in ("backend", "app"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative != THE_WRITER and relative.parts[:2] != ("backend", "database"):
                found += violations(path.read_text(encoding="utf-8"), relative)
    assert found == [], "add journal entries with backend.journal.journal or journal_many:\n" + "\n".join(
        found
    )


def test_the_walk_finds_each_way_of_adding_an_entry() -> None:
    source = """
session.add(JournalEntry(type="x", at=now, data={}))
session.execute(insert(JournalEntry.__table__), rows)
session.execute(insert(PendingJournalEntry), rows)
table = select(JournalEntry)
journal_many(session, rows, now)
"""
    assert [line.split(":")[1] for line in violations(source, Path("example.py"))] == ["2", "2", "3", "4"]
