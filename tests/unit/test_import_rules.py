"""The import direction is the architecture: this walks every module's imports and checks it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# package prefix -> module prefixes it must never import
FORBIDDEN = {
    "backend": ("ui", "app", "PySide6"),
    "ui": ("backend", "app"),
    "backend.domain": (
        "flask",
        "httpx",
        "sqlalchemy",
        "alembic",
        "waitress",
        "backend.database",
        "backend.web",
        "backend.outbox",
        "backend.webhooks",
        "backend.inbox",
        "backend.sandbox",
    ),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _python_files(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


def _violations(package: str, forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for path in _python_files(package):
        for name in _imports(path):
            if any(name == bad or name.startswith(bad + ".") for bad in forbidden):
                found.append(f"{_module_name(path)} imports {name}")
    return found


@pytest.mark.parametrize(("package", "forbidden"), sorted(FORBIDDEN.items()))
def test_package_never_imports_what_it_must_not(package: str, forbidden: tuple[str, ...]) -> None:
    assert _violations(package, forbidden) == []


def test_the_walker_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import flask\nfrom httpx import Client\n", encoding="utf-8")
    assert _imports(sample) == ["flask", "httpx"]


@pytest.mark.parametrize("package", ["app", "backend", "ui", "resources"])
def test_every_package_says_what_it_is_in_one_line(package: str) -> None:
    for init in (ROOT / package).rglob("__init__.py"):
        if "migrations" in init.parts:
            continue
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert docstring, f"{init.relative_to(ROOT)} has no docstring"
        assert "\n" not in docstring.strip(), f"{init.relative_to(ROOT)}: docstring is not one line"
