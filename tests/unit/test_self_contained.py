"""A clone of the repository runs its tests with nothing beside it: no code reads outside the tree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests" / "conformance"
SOURCE_FOLDERS = ("app", "backend", "ui", "resources", "tests", "bench")
# Paths that only exist on a development machine, next to the checkout rather than inside it.
OUTSIDE_PATHS = re.compile(
    r"""/work/|\.\./shared|parents\[\d+\]\s*/\s*["']shared["']|["']shared["']\s*/\s*["'](conformance|seeds|reference)"""
)


def _python_files() -> list[Path]:
    return [
        path
        for folder in SOURCE_FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.resolve() != Path(__file__).resolve()
    ]


def test_no_code_reads_beside_the_checkout() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _python_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if OUTSIDE_PATHS.search(line)
    ]
    assert offenders == []


@pytest.mark.parametrize("corpus", ["pywa", "ruby_whatsapp_sdk", "facebook-openapi"])
def test_each_recording_corpus_is_in_the_tree_with_its_licence(corpus: str) -> None:
    folder = CONFORMANCE / corpus
    assert (folder / "LICENSE").read_text(encoding="utf-8").lstrip().startswith(("MIT", "The MIT"))
    assert "commit:" in (folder / "SOURCE.txt").read_text(encoding="utf-8")
    recordings = [path for path in folder.rglob("*") if path.suffix in {".json", ".yml"}]
    assert len(recordings) >= 10
