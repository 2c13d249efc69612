"""kill -9 between storing and processing: every body answered 200 is processed after the restart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from app.composition import build_parts
from backend.database import Database
from backend.database.models import InboundMessage, ProcessedEvent, WebhookDelivery
from backend.domain.webhook_signature import sign
from backend.settings import Settings
from backend.webhooks.processor import WebhookProcessor
from tests.integration.webhooks.support import APP_SECRET, encode, envelope, text_message

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[3]


def _start_child(database_url: str, workdir: Path, process: bool) -> tuple[subprocess.Popen[bytes], int]:
    port_file = workdir / f"port-{time.monotonic_ns()}"
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.integration.webhooks.crash_child",
            database_url,
            str(port_file),
            "yes" if process else "no",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not port_file.exists() or not port_file.read_text():
        assert child.poll() is None, "the backend process ended early"
        assert time.monotonic() < deadline, "the backend process did not start"
        time.sleep(0.05)
    return child, int(port_file.read_text())


def _post_until_killed(port: int, child: subprocess.Popen[bytes], count: int) -> set[str]:
    """Post `count` bodies from 8 threads, kill -9 the backend half way; the wamids answered 200."""
    answered: set[str] = set()
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5)

    def post(index: int) -> None:
        wamid = f"wamid.CRASH{index}"
        body = encode(envelope(text_message(wamid, body=f"message {index}")))
        if index == count // 2:
            os.kill(child.pid, signal.SIGKILL)
        try:
            response = client.post(
                "/webhooks/whatsapp", content=body, headers={"X-Hub-Signature-256": sign(body, APP_SECRET)}
            )
        except httpx.HTTPError:
            return
        if response.status_code == 200:
            answered.add(wamid)

    with client, ThreadPoolExecutor(8) as pool:
        list(pool.map(post, range(count)))
    child.wait(10)
    return answered


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("processing", [False, True], ids=["store-only", "while-processing"])
def test_every_body_answered_200_is_processed_after_a_kill(
    processing: bool, database: Database, database_url: str, settings: Settings, tmp_path: Path
) -> None:
    child, port = _start_child(database_url, tmp_path, processing)
    try:
        answered = _post_until_killed(port, child, 300)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
    assert child.returncode == -signal.SIGKILL
    assert len(answered) >= 100

    WebhookProcessor(build_parts(settings, database)).drain()
    with database.reader() as session:
        stored = set(session.scalars(select(InboundMessage.wamid)))
        assert answered <= stored
        # Nothing applied twice: one row and one key per message, however the kill fell.
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == len(stored)
        keys = set(session.scalars(select(ProcessedEvent.event_key)))
        assert keys == {f"msg:{wamid}" for wamid in stored}
        pending = session.scalar(
            select(func.count()).select_from(WebhookDelivery).where(WebhookDelivery.processed_at.is_(None))
        )
        assert pending == 0
