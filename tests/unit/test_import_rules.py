"""The import direction is the architecture: this walks every module's imports and checks it."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
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
        "granian",
        "backend.database",
        "backend.web",
        "backend.outbox",
        "backend.webhooks",
        "backend.inbox",
        "backend.sandbox",
    ),
    # Webhook intake is framework-free; the routes that serve it live in backend.web.
    "backend.webhooks": ("backend.web", "flask", "werkzeug"),
    "backend.inbox": ("backend.outbox", "backend.webhooks", "backend.web"),
}

# The packages of backend and app from the bottom up: a module imports its own layer or lower ones.
LAYERS = (
    ("backend.domain",),
    ("backend.clock", "backend.settings"),
    ("backend.database",),
    (
        "backend.journal",
        "backend.counters",
        "backend.users",
        "backend.idempotency",
        "backend.templates",
        "backend.parts",
        # The media store, records and fetcher: below the inbox, which files each new media id.
        "backend.media",
    ),
    ("backend.inbox",),
    ("backend.outbox",),
    ("backend.operations",),
    ("backend.webhooks",),
    ("backend.reports", "backend.dispatch"),
    ("backend.web",),
    ("backend.sandbox",),
    ("app",),
)
# Root packages that only name the tree they hold.
ROOT_PACKAGES = ("backend",)


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


def _project_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of these packages under `root`, by dotted name."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _owning_module(name: str, modules: Mapping[str, Path]) -> str | None:
    """The project module that an imported name lives in (None for third-party names)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each module and the project modules it imports, at the top or inside functions alike."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imported: list[str] = []
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # `from package import module` imports that module; any other name, its module.
                imported = [f"{base}.{alias.name}" for alias in node.names]
            for candidate in imported:
                owner = _owning_module(candidate, modules)
                if owner is not None and owner != name:
                    targets.add(owner)
        graph[name] = targets
    return graph


def _cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected groups of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = lowest[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = lowest[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    lowest[node] = min(lowest[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    lowest[parent] = min(lowest[parent], lowest[node])
                if lowest[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def _layer_of(module: str) -> int | None:
    for number, packages in enumerate(LAYERS):
        if any(module == package or module.startswith(package + ".") for package in packages):
            return number
    return None


def _layer_violations(graph: Mapping[str, set[str]]) -> list[str]:
    found = []
    for module, targets in sorted(graph.items()):
        if module in ROOT_PACKAGES:
            continue
        layer = _layer_of(module)
        if layer is None:
            found.append(f"{module} belongs to no layer: add its package to LAYERS")
            continue
        for target in sorted(targets):
            target_layer = _layer_of(target)
            if target_layer is not None and target_layer > layer:
                found.append(
                    f"{module} (layer {layer}) imports {target} (layer {target_layer}), a higher layer"
                )
    return found


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


def test_no_import_cycles_among_modules_lazy_imports_included() -> None:
    graph = _import_graph(_project_modules(ROOT, ("backend", "app")))
    assert _cycles(graph) == []


def test_packages_import_down_the_layers_only() -> None:
    graph = _import_graph(_project_modules(ROOT, ("backend", "app")))
    assert _layer_violations(graph) == []


def test_the_cycle_finder_sees_a_loop_closed_by_an_import_inside_a_function(tmp_path: Path) -> None:
    package = tmp_path / "backend"
    (package / "web").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "web" / "__init__.py").write_text("", encoding="utf-8")
    (package / "web" / "factory.py").write_text(
        "def routes():\n    from backend.web import api\n    return api\n", encoding="utf-8"
    )
    (package / "web" / "api.py").write_text(
        "import json\nfrom backend.web.factory import routes\n", encoding="utf-8"
    )
    (package / "web" / "common.py").write_text("from backend.web import api, factory\n", encoding="utf-8")
    (package / "clock.py").write_text("from . import web\n", encoding="utf-8")
    graph = _import_graph(_project_modules(tmp_path, ("backend",)))
    assert graph["backend.clock"] == {"backend.web"}
    assert graph["backend.web.common"] == {"backend.web.api", "backend.web.factory"}
    assert graph["backend.web.api"] == {"backend.web.factory"}
    assert _cycles(graph) == [["backend.web.api", "backend.web.factory"]]
    assert _layer_violations(graph) == [
        "backend.clock (layer 1) imports backend.web (layer 9), a higher layer",
    ]


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
