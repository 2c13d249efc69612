"""`inbox demo` and `inbox ui` on the command line: offscreen screenshots, one line without a display."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _env(tmp_path: Path, *, display: bool) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("INBOX_", "WHATSAPP_"))
        and name not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env["INBOX_DATA_DIR"] = str(tmp_path / "data")
    if display:
        env["QT_QPA_PLATFORM"] = "offscreen"
    return env


@pytest.mark.parametrize("command", ["demo", "ui"])
def test_without_a_display_one_line_suggests_offscreen(tmp_path: Path, command: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app", command],
        capture_output=True,
        text=True,
        env=_env(tmp_path, display=False),
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--offscreen" in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_demo_renders_a_tab_to_png_after_live_traffic(tmp_path: Path) -> None:
    picture = tmp_path / "supervisor.png"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "demo",
            "--offscreen",
            "--screenshot",
            str(picture),
            "--seconds",
            "4",
            "--tab",
            "supervisor",
            "--customers",
            "3",
        ],
        capture_output=True,
        text=True,
        env=_env(tmp_path, display=False),
        timeout=110,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert picture.read_bytes().startswith(PNG_SIGNATURE)
    # The per-run demo database is removed afterwards.
    assert not list((tmp_path / "data" / "demo").glob("*.db"))
