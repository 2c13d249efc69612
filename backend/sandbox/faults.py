"""The faults the sandbox can inject, settable at start and through the control API."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

RATE_FIELDS = (
    "read_timeout_rate",
    "retryable_error_rate",
    "accepted_then_502_rate",
    "drop_rate",
    "webhook_duplicate_rate",
    "webhook_failure_rate",
    "message_failure_rate",
    "media_download_failure_rate",
    "media_upload_failure_rate",
    "media_corruption_rate",
)
FLAG_FIELDS = ("webhook_shuffle", "webhooks_paused")


class FaultError(ValueError):
    """A fault setting with a name or value the sandbox does not take."""


@dataclass
class Faults:
    """Every fault knob; all off by default."""

    latency_ms: float = 0.0
    read_timeout_rate: float = 0.0
    retryable_error_rate: float = 0.0
    accepted_then_502_rate: float = 0.0
    drop_rate: float = 0.0
    webhook_duplicate_rate: float = 0.0
    webhook_shuffle: bool = False
    webhook_failure_rate: float = 0.0
    webhooks_paused: bool = False
    # Accepted, then a `failed` status (131026) instead of delivery: the customer never gets it.
    message_failure_rate: float = 0.0
    # A media download answers 500; an upload answers 503 (retryable, nothing kept).
    media_download_failure_rate: float = 0.0
    media_upload_failure_rate: float = 0.0
    # A media download answers 200 with one byte changed: the hash check must refuse it.
    media_corruption_rate: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """The full fault set as JSON-ready values."""
        return asdict(self)

    def updated(self, changes: dict[str, Any]) -> Faults:
        """A copy with `changes` applied, or FaultError naming the bad field."""
        known = {f.name for f in fields(self)}
        values = self.as_dict()
        for name, raw in changes.items():
            if name not in known:
                raise FaultError(f"unknown fault {name!r}; known: {', '.join(sorted(known))}")
            if name in FLAG_FIELDS:
                if not isinstance(raw, bool):
                    raise FaultError(f"{name} must be true or false")
                values[name] = raw
                continue
            if isinstance(raw, bool) or not isinstance(raw, int | float):
                raise FaultError(f"{name} must be a number")
            number = float(raw)
            if name in RATE_FIELDS and not 0.0 <= number <= 1.0:
                raise FaultError(f"{name} must be between 0 and 1")
            if name == "latency_ms" and number < 0:
                raise FaultError("latency_ms must not be negative")
            values[name] = number
        return Faults(**values)
