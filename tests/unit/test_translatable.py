"""Every user-facing text of the client is translatable, and every catalogue translates all of them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.unit.translatable_rules import ROOT, client_sources, untranslated_in
from ui.i18n import LANGUAGES, SOURCE_LANGUAGE, catalogue_source, qt_tool

TRANSLATED = [language for language in LANGUAGES if language != SOURCE_LANGUAGE]
# Arabic has six plural forms (none, one, two, few, many, other); the others two.
PLURAL_FORMS = {"es": 2, "pt_BR": 2, "ar": 6, "en": 2}
FIELD = re.compile(r"\{\w+\}")

Message = tuple[str, str]


def test_every_user_facing_literal_goes_through_translation() -> None:
    """A text handed to a label, button, tooltip or status bar is wrapped in translate()."""
    found = [
        str(problem)
        for path in client_sources()
        for problem in untranslated_in(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    ]
    assert found == [], "wrap these in translate(context, text):\n" + "\n".join(found)


def test_the_rule_catches_literals_and_f_strings_and_lets_translated_ones_pass() -> None:
    """The check is not blind: plain and formatted literals fail, translated ones pass."""
    source = "\n".join(
        (
            'button = QPushButton("Send")',
            'label.setText(f"Hi {name}")',
            'label.setToolTip("Hello " + name)',
            'box.setAccessibleName(translate("Ctx", "Fine"))',
            'status.showMessage(translate("Ctx", "{n} left").format(n=3))',
            'label.setText("—")',
            'log.warning("for the operator, in English")',
        )
    )
    found = untranslated_in(source, "sample.py")
    assert [(problem.line, problem.call) for problem in found] == [
        (1, "QPushButton"),
        (2, "setText"),
        (3, "setToolTip"),
    ]


def messages_in_sources(folder: Path) -> dict[Message, bool]:
    """Every (context, text) lupdate finds in the client's code, and whether it has plural forms."""
    catalogue = folder / "scan.ts"
    subprocess.run(
        [
            str(qt_tool("lupdate")),
            *(str(path) for path in client_sources()),
            "-no-obsolete",
            "-locations",
            "none",
            "-ts",
            str(catalogue),
        ],
        check=True,
        capture_output=True,
    )
    return {message: plural for message, (plural, _forms) in read_catalogue(catalogue).items()}


def read_catalogue(path: Path) -> dict[Message, tuple[bool, list[str]]]:
    """A .ts catalogue: by (context, source), whether it is plural and its finished translations."""
    messages: dict[Message, tuple[bool, list[str]]] = {}
    for context in ElementTree.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            translation = message.find("translation")
            plural = message.get("numerus") == "yes"
            forms: list[str] = []
            if translation is not None and translation.get("type") not in (
                "unfinished",
                "vanished",
                "obsolete",
            ):
                if plural:
                    forms = [form.text or "" for form in translation.iter("numerusform")]
                else:
                    forms = [translation.text or ""]
            messages[(name, source)] = (plural, forms)
    return messages


def catalogue_problems(
    language: str, wanted: dict[Message, bool], catalogue: dict[Message, tuple[bool, list[str]]]
) -> list[str]:
    """What a catalogue lacks: messages, finished translations, plural forms, or {fields} of the text."""
    problems = []
    for (context, source), plural in sorted(wanted.items()):
        if language == SOURCE_LANGUAGE and not plural:
            continue
        found = catalogue.get((context, source))
        if found is None:
            problems.append(f"{language}: no message {context!r} / {source!r}")
            continue
        _plural, forms = found
        expected = PLURAL_FORMS[language] if plural else 1
        if len(forms) != expected or not all(form.strip() for form in forms):
            problems.append(f"{language}: untranslated {context!r} / {source!r}")
            continue
        for form in forms:
            if set(FIELD.findall(form)) != set(FIELD.findall(source)) and "{{" not in source:
                problems.append(f"{language}: fields differ in {source!r} → {form!r}")
    return problems


@pytest.fixture(scope="module")
def wanted(tmp_path_factory: pytest.TempPathFactory) -> dict[Message, bool]:
    """The messages of the code as it is now."""
    return messages_in_sources(tmp_path_factory.mktemp("lupdate"))


@pytest.mark.parametrize("language", [*TRANSLATED, SOURCE_LANGUAGE])
def test_every_catalogue_translates_every_message(language: str, wanted: dict[Message, bool]) -> None:
    """A new screen's texts must be translated in every language (`make catalogues`, then translate)."""
    assert len(wanted) > 300
    problems = catalogue_problems(language, wanted, read_catalogue(catalogue_source(language)))
    assert problems == [], "\n".join(problems)


def test_a_catalogue_missing_a_message_is_caught(wanted: dict[Message, bool], tmp_path: Path) -> None:
    """Removing one message from the Spanish catalogue is reported, naming the message."""
    tree = ElementTree.parse(catalogue_source("es"))
    context = next(iter(tree.getroot().iter("context")))
    message = context.find("message")
    assert message is not None
    missing = (context.findtext("name") or "", message.findtext("source") or "")
    context.remove(message)
    shortened = tmp_path / "inbox_es.ts"
    tree.write(shortened, encoding="utf-8")
    problems = catalogue_problems("es", wanted, read_catalogue(shortened))
    assert problems == [f"es: no message {missing[0]!r} / {missing[1]!r}"]
