"""Schema-driven fuzzing: generated requests for every documented operation get no 500 and no
status the OpenAPI document does not list."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from backend.web.openapi import openapi_document
from tests.integration.web.conftest import Api, add_inbound

EXAMPLES_PER_OPERATION = 15
# Served by the webhook receiver, fuzzed with signatures in its own tests.
SKIPPED_PATHS = {"/webhooks/whatsapp"}


def _operations() -> list[Any]:
    schema = schemathesis.openapi.from_dict(openapi_document())
    operations = [result.ok() for result in schema.get_all_operations()]
    return [operation for operation in operations if operation.path not in SKIPPED_PATHS]


def _documented(operation: Any) -> set[int]:
    return {int(status) for status in operation.definition.raw["responses"]}


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["valid", "invalid"])
def test_generated_requests_get_no_500_and_only_documented_statuses(api: Api, mode: GenerationMode) -> None:
    add_inbound(api.database, "+16505551234", "wamid.fuzz", at=api.clock.now)
    surprises: list[str] = []
    for operation in _operations():
        _fuzz(operation, mode, api, surprises)
    assert surprises == []


def _fuzz(operation: Any, mode: GenerationMode, api: Api, surprises: list[str]) -> None:
    documented = _documented(operation)
    headers = {"Authorization": f"Bearer {api.supervisor_token}"}

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        # Long-polls would only make the run slow; their waiting is tested elsewhere.
        if operation.path == "/v1/events" and isinstance(case.query, dict):
            wait = case.query.get("wait")
            if isinstance(wait, int | float) and 0 < wait <= 30:
                case.query["wait"] = 0
        response = case.call(app=api.app, headers=headers)
        status = response.status_code
        if status == 500 or status not in documented:
            surprises.append(
                f"{operation.method.upper()} {operation.path} -> {status}: {response.text[:300]}"
            )

    try:
        run()
    except Unsatisfiable:
        # Operations without parameters or body have nothing to make invalid.
        assert mode is GenerationMode.NEGATIVE, operation.path
