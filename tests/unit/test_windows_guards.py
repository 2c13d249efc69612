"""The product runs on Windows: every POSIX-only call in app, backend and ui sits behind a guard.

A guard is an `if` on `os.name`, `sys.platform` or `hasattr(...)` around the call, such an `if`
earlier in the same block that returns or raises (an early exit), or a `try` that catches the
ImportError of a module Windows lacks.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "backend", "ui", "resources")

POSIX_ATTRIBUTES = {
    ("os", "fork"),
    ("os", "forkpty"),
    ("os", "fchmod"),
    ("os", "fchown"),
    ("os", "chown"),
    ("os", "getuid"),
    ("os", "geteuid"),
    ("os", "getgid"),
    ("os", "killpg"),
    ("os", "setsid"),
    ("os", "getpgid"),
    ("os", "setpgrp"),
    ("os", "getloadavg"),
    ("signal", "SIGKILL"),
    ("signal", "SIGHUP"),
    ("signal", "SIGUSR1"),
    ("signal", "SIGUSR2"),
    ("signal", "SIGCHLD"),
    ("signal", "SIGQUIT"),
    ("signal", "SIGALRM"),
    ("signal", "alarm"),
    ("signal", "pause"),
    ("signal", "setitimer"),
}
POSIX_MODULES = {"fcntl", "uvloop", "pwd", "grp", "resource", "termios", "pty"}
# File modes mean nothing on Windows: a chmod to a private mode must say it only runs on POSIX.
POSIX_METHODS = {"chmod", "lchmod"}
GUARD_WORDS = ("os.name", "sys.platform", "hasattr(")


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _is_guard_test(node: ast.If, source: str) -> bool:
    text = ast.get_source_segment(source, node.test) or ""
    return any(word in text for word in GUARD_WORDS)


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return | ast.Raise)


def _is_early_exit(statement: ast.stmt, source: str) -> bool:
    return isinstance(statement, ast.If) and _is_guard_test(statement, source) and _exits(statement.body)


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST], source: str) -> bool:
    child = node
    parent = parents.get(child)
    while parent is not None:
        if isinstance(parent, ast.If) and _is_guard_test(parent, source):
            return True
        if isinstance(parent, ast.Try):
            caught = " ".join(ast.get_source_segment(source, h.type) or "" for h in parent.handlers if h.type)
            if "ImportError" in caught and child in parent.body:
                return True
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and child in block:
                earlier = block[: block.index(child)]
                if any(
                    isinstance(statement, ast.If)
                    and _is_guard_test(statement, source)
                    and _exits(statement.body)
                    for statement in earlier
                ):
                    return True
        child, parent = parent, parents.get(parent)
    return False


def unguarded_calls(source: str, name: str) -> list[str]:
    """Every POSIX-only call, import or name in `source` that no guard protects."""
    tree = ast.parse(source)
    parents = _parents(tree)
    found = []
    for node in ast.walk(tree):
        what = None
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in POSIX_ATTRIBUTES
        ):
            what = f"{node.value.id}.{node.attr}"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in POSIX_METHODS
        ):
            what = f".{node.func.attr}()"
        if isinstance(node, ast.Import):
            modules = {alias.name.split(".")[0] for alias in node.names} & POSIX_MODULES
            what = f"import {', '.join(sorted(modules))}" if modules else None
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in POSIX_MODULES:
            what = f"from {node.module} import"
        if what is not None and not _guarded(node, parents, source):
            found.append(f"{name}:{getattr(node, 'lineno', 0)}: {what}")
    return found


def test_every_posix_only_call_is_guarded() -> None:
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            offenders += unguarded_calls(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.mark.parametrize(
    "source",
    [
        "import os\nos.fork()\n",
        "import fcntl\n",
        "import signal\nsignal.signal(signal.SIGHUP, print)\n",
        "from pathlib import Path\nPath('x').chmod(0o600)\n",
        "import os\nif os.path.exists('x'):\n    os.fchmod(3, 0o600)\n",
    ],
)
def test_the_walker_sees_an_unguarded_call(source: str) -> None:
    assert unguarded_calls(source, "example") != []


@pytest.mark.parametrize(
    "source",
    [
        "import os\nif os.name == 'posix':\n    os.fchmod(3, 0o600)\n",
        "import sys\ndef f():\n    if sys.platform == 'win32':\n        return\n    import fcntl\n",
        "try:\n    import uvloop\nexcept ImportError:\n    uvloop = None\n",
        "import signal\nif hasattr(signal, 'SIGHUP'):\n    signal.signal(signal.SIGHUP, print)\n",
    ],
)
def test_the_walker_accepts_a_guarded_call(source: str) -> None:
    assert unguarded_calls(source, "example") == []


def test_uvloop_is_not_installed_on_windows() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    uvloop = [requirement for requirement in project["dependencies"] if requirement.startswith("uvloop")]
    assert uvloop == ["uvloop>=0.19; sys_platform != 'win32'"]


def test_children_are_spawned_as_on_windows() -> None:
    source = (ROOT / "app" / "processes.py").read_text(encoding="utf-8")
    assert 'get_context("spawn")' in source
    assert "fork" not in source.replace("forkserver", "")
