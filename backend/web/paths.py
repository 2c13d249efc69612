"""Path parameters holding any text: an encoded slash (%2F) is part of a key, never a separator.

WSGI servers hand the app a fully decoded PATH_INFO, in which the key "a/resolve" and the key "a"
followed by /resolve look the same. Routing instead runs on the raw request target with only "/" and
"%" left encoded, so a key is always one path segment; `path_value` turns that segment into the key.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

# Set in the WSGI environ when PATH_INFO keeps "/" and "%" encoded, so views decode those two.
KEPT_ENCODED = "inbox.path_keeps_encoded_slashes"

_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")
_KEPT_ESCAPES = {b"2F", b"25"}  # "/" and "%": decoding "%" here would let "%252F" pose as "%2F"
_KEPT_ESCAPE = re.compile(r"%(2[Ff]|25)")


def _decode_all_but_kept(match: re.Match[bytes]) -> bytes:
    if match.group(1).upper() in _KEPT_ESCAPES:
        return match.group(0)
    return bytes([int(match.group(1), 16)])


def keep_encoded_slashes(environ: dict[str, Any]) -> None:
    """Rewrite PATH_INFO from the raw request target with "/" and "%" still percent-encoded.

    Waitress passes the raw target as REQUEST_URI, Werkzeug's test client as RAW_URI (gunicorn too).
    Without either, or when the server changed the path on its way (it merged leading slashes, say),
    the server's decoded PATH_INFO stays and keys holding "/" simply find no route.
    """
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if not isinstance(raw, str) or not raw:
        return
    try:
        target = raw.encode("latin-1")  # WSGI strings carry the request's bytes as latin-1
    except UnicodeEncodeError:
        return
    # The origin form (/path?query), or the absolute form (http://host/path?query).
    origin_form = target.startswith(b"/")
    path = target.split(b"#", 1)[0].split(b"?", 1)[0] if origin_form else urlsplit(target).path
    script_name = str(environ.get("SCRIPT_NAME", ""))
    decoded = unquote_to_bytes(path).decode("latin-1")
    if decoded != script_name + str(environ.get("PATH_INFO", "")):
        return
    kept = _ESCAPE.sub(_decode_all_but_kept, path).decode("latin-1")
    if not kept.startswith(script_name):
        return
    environ["PATH_INFO"] = kept[len(script_name) :]
    environ[KEPT_ENCODED] = True


def path_value(segment: str, environ: dict[str, Any]) -> str:
    """The text a routed path segment stands for (%2F is "/", %25 is "%" when they were kept)."""
    if not environ.get(KEPT_ENCODED):
        return segment
    return _KEPT_ESCAPE.sub(lambda match: "%" if match.group(1) == "25" else "/", segment)
