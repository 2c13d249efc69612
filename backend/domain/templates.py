"""Message templates: parsing the templates file, checking parameters, rendering a preview."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

PLACEHOLDER = re.compile(r"\{\{(\d+)\}\}")
APPROVED = "APPROVED"
# A template's category when the templates file names none.
DEFAULT_CATEGORY = "UTILITY"
CATEGORIES = ("MARKETING", "UTILITY", "AUTHENTICATION")


class TemplateError(ValueError):
    """A template is unknown, malformed, or given the wrong parameters."""


@dataclass(frozen=True)
class Template:
    """A message template: name, language, body with {{n}} placeholders, and Meta's status and category."""

    name: str
    language: str
    body: str
    parameters: tuple[str, ...]
    buttons: tuple[str, ...] = ()
    category: str = DEFAULT_CATEGORY
    # APPROVED unless Meta says otherwise (PAUSED, REJECTED, PENDING, DISABLED...).
    status: str = APPROVED
    # Why Meta paused, rejected or disabled it, when it said.
    status_reason: str | None = None

    @property
    def approved(self) -> bool:
        """Whether Meta lets the business send it now."""
        return self.status == APPROVED

    @property
    def parameter_count(self) -> int:
        """How many parameters the body takes."""
        return len(self.parameters)

    def render(self, values: list[str] | tuple[str, ...]) -> str:
        """The body with parameters filled in, after checking their count."""
        self.check(values)
        return PLACEHOLDER.sub(lambda match: str(values[int(match.group(1)) - 1]), self.body)

    def check(self, values: list[str] | tuple[str, ...]) -> None:
        """Refuse a wrong number of parameters or an empty one."""
        if len(values) != self.parameter_count:
            raise TemplateError(
                f"template {self.name} ({self.language}) takes {self.parameter_count} "
                f"parameter(s), got {len(values)}"
            )
        for index, value in enumerate(values, start=1):
            if not isinstance(value, str) or not value.strip():
                raise TemplateError(f"parameter {index} of template {self.name} must be text")


class TemplateCatalog:
    """The templates the business may send, found by name and language."""

    def __init__(self, templates: list[Template]) -> None:
        self._by_key = {(t.name, t.language): t for t in templates}

    def __iter__(self):  # type: ignore[no-untyped-def]
        """Every template, in file order."""
        return iter(self._by_key.values())

    def __len__(self) -> int:
        """How many templates there are."""
        return len(self._by_key)

    def refresh(self, *, check_now: bool = False) -> None:
        """Look at the source again; a catalog read from a file never changes."""

    def find(self, name: str, language: str) -> Template:
        """The template with this name and language, or TemplateError."""
        template = self._by_key.get((name, language))
        if template is None:
            raise TemplateError(f"there is no template {name!r} in language {language!r}")
        return template


def parse_templates(text: str) -> TemplateCatalog:
    """Parse the TOML text of a templates file."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TemplateError(f"the templates file is not valid TOML: {error}") from None
    templates: list[Template] = []
    for index, entry in enumerate(document.get("templates", []), start=1):
        try:
            template = Template(
                name=str(entry["name"]),
                language=str(entry["language"]),
                body=str(entry["body"]),
                parameters=tuple(str(p) for p in entry.get("parameters", [])),
                buttons=tuple(str(b) for b in entry.get("buttons", [])),
                category=str(entry.get("category", DEFAULT_CATEGORY)).upper(),
            )
        except (KeyError, TypeError) as error:
            raise TemplateError(f"template #{index} lacks {error}") from None
        if template.category not in CATEGORIES:
            raise TemplateError(f"template {template.name}: category must be one of {', '.join(CATEGORIES)}")
        numbers = {int(n) for n in PLACEHOLDER.findall(template.body)}
        if numbers != set(range(1, template.parameter_count + 1)):
            raise TemplateError(
                f"template {template.name}: its body uses {{{{n}}}} placeholders "
                f"{sorted(numbers)} but lists {template.parameter_count} parameter(s)"
            )
        templates.append(template)
    return TemplateCatalog(templates)
