"""API paths built from values: every segment percent-encoded, so no key or id can address another route."""

from __future__ import annotations

from urllib.parse import quote

# "." and ".." are dot segments: HTTP clients and servers drop them while normalising a path.
_DOT_SEGMENTS = {".": "%2E", "..": "%2E%2E"}


def path_segment(value: str | int) -> str:
    """One path segment with every reserved character encoded (`/ # ? % & + space`, non-ASCII…)."""
    text = str(value)
    if not text:
        raise ValueError("a path segment cannot be empty")
    encoded = quote(text, safe="")
    return _DOT_SEGMENTS.get(encoded, encoded)


def api_path(*segments: str | int) -> str:
    """The absolute path of the given segments, each encoded on its own: `api_path("v1", "messages", key)`."""
    return "/" + "/".join(path_segment(segment) for segment in segments)
