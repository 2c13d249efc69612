"""Which source text of the client is user-facing: the literals handed to Qt's text-showing calls."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The wire format and the language machinery itself hold no text for people.
SKIPPED = ("ui/api/", "ui/i18n.py")

# Calls (methods, constructors, helpers) whose text arguments are shown to the agent or read aloud.
UI_CALLS = frozenset(
    {
        "setText",
        "setToolTip",
        "setAccessibleName",
        "setAccessibleDescription",
        "setWindowTitle",
        "setPlaceholderText",
        "showMessage",
        "addTab",
        "insertTab",
        "setTabText",
        "setTabToolTip",
        "addItem",
        "insertItem",
        "addAction",
        "addMenu",
        "setTitle",
        "setStatusTip",
        "setWhatsThis",
        "setHeaderLabels",
        "setHorizontalHeaderLabels",
        "addRow",
        "setSuffix",
        "setPrefix",
        "setSpecialValueText",
        "setInformativeText",
        "setDetailedText",
        "addButton",
        "setLabelText",
        "QPushButton",
        "QLabel",
        "QCheckBox",
        "QRadioButton",
        "QGroupBox",
        "QAction",
        "QMenu",
        "QToolButton",
        "QListWidgetItem",
        "QStandardItem",
        "plain_label",
        "plain_message_box",
        "question",
        "warning",
        "information",
        "critical",
        "tooltip_text",
        "showText",
        "WindowText",
        "emit",
        "show_status",
        "_label",
        "TimeChart",
        "getText",
        "getItem",
    }
)
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")
LOGGERS = frozenset({"log", "logger", "logging"})
TRANSLATING_CALLS = frozenset({"translate", "tr", "QT_TRANSLATE_NOOP", "QT_TR_NOOP"})


def call_name(node: ast.Call) -> str:
    """The called name: `f` of f(...), `m` of x.m(...)."""
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return ""


def has_words(text: str) -> bool:
    """Whether a literal holds words (marks, separators, spaces and colours need no translation)."""
    return not COLOUR.fullmatch(text) and any(character.isalpha() for character in text)


def holds_words(node: ast.AST) -> bool:
    """Whether an argument carries untranslated words: a literal, an f-string or a sum with one."""
    if isinstance(node, ast.Call) and call_name(node) in TRANSLATING_CALLS | {"format"}:
        # translate("…").format(...): the words are translated; format arguments are checked themselves.
        if call_name(node) == "format" and isinstance(node.func, ast.Attribute):
            return holds_words(node.func.value) or any(holds_words(argument) for argument in node.args)
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and has_words(node.value)
    if isinstance(node, ast.JoinedStr):
        return any(holds_words(part) for part in node.values)
    if isinstance(node, ast.BinOp):
        return holds_words(node.left) or holds_words(node.right)
    if isinstance(node, ast.IfExp):
        return holds_words(node.body) or holds_words(node.orelse)
    return False


def _is_log_call(node: ast.Call) -> bool:
    """log.warning(...) speaks to whoever runs the program, in English: not a screen."""
    owner = node.func.value if isinstance(node.func, ast.Attribute) else None
    return isinstance(owner, ast.Name) and owner.id in LOGGERS


@dataclass(frozen=True)
class Untranslated:
    """A user-facing literal that does not go through Qt's translation."""

    path: str
    line: int
    call: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.call}({self.text})"


def untranslated_in(source: str, path: str) -> list[Untranslated]:
    """The user-facing literals of one source file that are not translated."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or call_name(node) not in UI_CALLS or _is_log_call(node):
            continue
        arguments = list(node.args) + [keyword.value for keyword in node.keywords if keyword.arg]
        for argument in arguments:
            if holds_words(argument):
                found.append(Untranslated(path, argument.lineno, call_name(node), ast.unparse(argument)[:80]))
    return found


def client_sources() -> list[Path]:
    """The client's source files that hold screens and their words."""
    paths = []
    for path in sorted((ROOT / "ui").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if not relative.startswith(SKIPPED):
            paths.append(path)
    return paths
