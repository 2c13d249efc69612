"""Loads the templates file: the one shipped in resources/ unless settings name another."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from backend.domain.templates import TemplateCatalog, parse_templates


def default_templates_text() -> str:
    """The text of the templates file shipped with the product."""
    return resources.files("resources").joinpath("templates.toml").read_text(encoding="utf-8")


def load_templates(path: Path | None = None) -> TemplateCatalog:
    """The template catalog from `path`, or the shipped one."""
    text = path.read_text(encoding="utf-8") if path else default_templates_text()
    return parse_templates(text)
