"""No secret in any log line: `inbox serve` logs through traffic, faults and refusals; we read it."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from backend.clock import utc_now
from backend.domain.webhook_signature import sign
from backend.users import create_user
from bench.harness import APP_SECRET, GRAPH_TOKEN, VERIFY_TOKEN, Rig, SendRecord, keys_for

pytestmark = [pytest.mark.processes, pytest.mark.slow, pytest.mark.timeout(120)]


def test_tokens_and_secrets_never_reach_the_log(database_url: str, tmp_path: Path) -> None:
    # Faults make the sender log its error paths: 503s, dropped connections, answers past the timeout.
    rig = Rig(
        database_url,
        tmp_path,
        sandbox_options={"retryable_error_rate": 0.2, "drop_rate": 0.1, "read_timeout_rate": 0.1},
    )
    try:
        serve = rig.start_serve()
        with rig.database.transaction() as session:
            agent_token = create_user(session, "agent-logs", "agent", utc_now())
        base = f"http://127.0.0.1:{serve.port}"
        record = SendRecord()
        rig.send_many(keys_for("logs", 20), record, deadline=time.monotonic() + 30)
        rig.inbound_many(5, first_customer=500)
        with httpx.Client(base_url=base, timeout=5) as client:
            # Refusals: a wrong API token, an agent on a supervisor route, forged and missing signatures.
            client.get("/v1/conversations", headers={"Authorization": f"Bearer {rig.token}x"})
            client.get("/v1/supervisor/queue", headers={"Authorization": f"Bearer {agent_token}"})
            client.post("/v1/messages/logs-1/resolve", headers={"Authorization": f"Bearer {agent_token}"})
            body = b'{"object":"whatsapp_business_account","entry":[]}'
            client.post(
                "/webhooks/whatsapp", content=body, headers={"X-Hub-Signature-256": sign(body, "forged")}
            )
            client.post("/webhooks/whatsapp", content=body)
            # The subscription handshake carries the verify token in its query string.
            for token in (VERIFY_TOKEN, f"{VERIFY_TOKEN}-wrong"):
                client.get(
                    "/webhooks/whatsapp",
                    params={"hub.mode": "subscribe", "hub.verify_token": token, "hub.challenge": "42"},
                )
        rig.drain(30)
        serve.terminate()
        serve.process.wait(15)
    finally:
        rig.close()
    log = serve.log()
    # The log is not empty: the process did log its work and the faults.
    assert "serving on" in log
    assert len(log.splitlines()) >= 3
    for name, secret in {
        "API token": rig.token,
        "agent API token": agent_token,
        "access token": GRAPH_TOKEN,
        "app secret": APP_SECRET,
        "verify token": VERIFY_TOKEN,
    }.items():
        leaking = [line for line in log.splitlines() if secret in line]
        assert leaking == [], f"the {name} appears in the log: {leaking[:3]}"
