"""The outbox's background sweeps as one worker: leases, unknown resolution, pacing-slot pruning."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from backend.outbox.sweepers import UnknownDecision, expire_leases, prune_pacing_slots, resolve_unknown
from backend.parts import BackendParts

log = logging.getLogger(__name__)


@dataclass
class SweepReport:
    """What one sweep did."""

    expired: int = 0
    decisions: list[UnknownDecision] = field(default_factory=list)
    pruned_slots: int = 0


class OutboxSweeper:
    """Moves rows past their lease to `unknown` and applies the unknown rule; `run_once()` / `run(stop)`."""

    name = "outbox-sweeper"

    def __init__(self, parts: BackendParts, *, interval_seconds: float | None = None) -> None:
        self.database = parts.database
        self.settings = parts.settings
        self._clock = parts.clock
        # Often enough that a crashed worker's rows show as unknown soon after their lease ends.
        self.interval_seconds = interval_seconds or max(0.5, min(5.0, self.settings.send_lease_seconds / 6))

    def run_once(self) -> SweepReport:
        """One pass of every step, each in its own transaction."""
        report = SweepReport()
        with self.database.transaction() as session:
            report.expired = expire_leases(session, self._clock())
        with self.database.transaction() as session:
            report.decisions = resolve_unknown(session, self.settings, self._clock())
        with self.database.transaction() as session:
            report.pruned_slots = prune_pacing_slots(session, self._clock())
        return report

    def run(self, stop: threading.Event) -> None:
        """Sweep every interval until `stop` is set; a failed pass is logged and tried again."""
        while not stop.is_set():
            try:
                self.run_once()
            except Exception:
                log.exception("outbox sweep failed; trying again in %.1f s", self.interval_seconds)
            stop.wait(self.interval_seconds)
