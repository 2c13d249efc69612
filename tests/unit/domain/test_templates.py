"""Templates: the shipped file parses, parameters are counted, previews render."""

from __future__ import annotations

import pytest

from backend.domain.templates import TemplateError, parse_templates
from backend.templates import load_templates


def test_the_shipped_templates_include_the_required_ones() -> None:
    catalog = load_templates()
    assert catalog.find("order_shipped", "en").parameter_count == 1
    assert catalog.find("appointment_reminder", "en").parameter_count == 2


def test_render_fills_placeholders() -> None:
    template = load_templates().find("appointment_reminder", "en")
    assert "on 3 May at 10:00" in template.render(["3 May", "10:00"])


@pytest.mark.parametrize("values", [[], ["1", "2", "3"], ["", "10:00"]])
def test_wrong_parameters_are_refused(values: list[str]) -> None:
    template = load_templates().find("appointment_reminder", "en")
    with pytest.raises(TemplateError):
        template.check(values)


def test_unknown_template_or_language_is_refused() -> None:
    catalog = load_templates()
    with pytest.raises(TemplateError, match="no template"):
        catalog.find("order_shipped", "de")


def test_a_body_that_disagrees_with_its_parameter_list_is_refused() -> None:
    with pytest.raises(TemplateError, match="placeholders"):
        parse_templates(
            '[[templates]]\nname = "x"\nlanguage = "en"\nbody = "{{1}} {{2}}"\nparameters = ["a"]\n'
        )
