"""Live updates: a long poll of the event journal that reconnects from its last seq."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, QTimer, Signal

from ui.api.client import ApiClient, ApiError
from ui.api.resources import EventBatch
from ui.runner import BackgroundRunner

RETRY_DELAYS_MS = (500, 1000, 2000, 4000, 5000)
# After a batch, wait a little before asking again so bursts arrive as one batch, not a hundred.
BATCH_PAUSE_MS = 150


def find_latest_seq(api: ApiClient) -> int:
    """The newest seq in the journal, found with a few one-event probes (the API lists only forward)."""
    if not api.events(after=0, limit=1).events:
        return 0
    low = 0  # a seq known to have events after it
    high = 1
    while api.events(after=high, limit=1).events:
        low, high = high, high * 2
    # Events exist after `low` and none after `high`: narrow down to the last one.
    while high - low > 1:
        middle = (low + high) // 2
        if api.events(after=middle, limit=1).events:
            low = middle
        else:
            high = middle
    return high


class EventFeed(QObject):
    """Polls `GET /v1/events` on the background runner and announces what changed."""

    # New events arrived in seq order (a list of ui.api.resources.Event).
    events_arrived = Signal(list)
    # The backend cannot be reached; the text says why. The feed keeps retrying.
    connection_lost = Signal(str)
    # The backend answers again after a loss; nothing was missed.
    connection_restored = Signal()
    # The feed knows where the journal ends and is now listening.
    started = Signal(int)

    def __init__(
        self,
        api: ApiClient,
        runner: BackgroundRunner,
        parent: QObject | None = None,
        *,
        wait_seconds: float = 20.0,
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._wait_seconds = wait_seconds
        self._seq = 0
        self._failures = 0
        self._running = False
        self._needs_start_seq = False
        self._connected = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._poll)

    @property
    def seq(self) -> int:
        """The last seq received."""
        return self._seq

    @property
    def connected(self) -> bool:
        """Whether the last poll reached the backend."""
        return self._connected

    def start(self, after: int | None = None) -> None:
        """Listen from `after`, or from the end of the journal when None."""
        self._running = True
        self._needs_start_seq = after is None
        if after is not None:
            self._seq = after
            self.started.emit(after)
        self._poll()

    def stop(self) -> None:
        """Stop polling; a poll in flight is ignored when it answers."""
        self._running = False
        self._timer.stop()

    def _poll(self) -> None:
        if not self._running:
            return
        if self._needs_start_seq:
            self._runner.submit(partial(find_latest_seq, self._api), self._on_start_seq, self._on_failure)
            return
        call = partial(self._api.events, after=self._seq, wait=self._wait_seconds)
        self._runner.submit(call, self._on_batch, self._on_failure)

    def _on_start_seq(self, seq: int) -> None:
        if not self._running:
            return
        self._needs_start_seq = False
        self._seq = seq
        self._mark_connected()
        self.started.emit(seq)
        self._poll()

    def _mark_connected(self) -> None:
        self._failures = 0
        if not self._connected:
            self._connected = True
            self.connection_restored.emit()

    def _on_batch(self, batch: EventBatch) -> None:
        if not self._running:
            return
        self._mark_connected()
        fresh = [event for event in batch.events if event.seq > self._seq]
        self._seq = max(self._seq, batch.next)
        if fresh:
            self.events_arrived.emit(fresh)
        if batch.retry_after > 0:
            # The server had no long-poll slot free and answered at once: asking again now would spin.
            self._timer.start(int(batch.retry_after * 1000))
        elif fresh:
            self._timer.start(BATCH_PAUSE_MS)
        else:
            self._poll()

    def _on_failure(self, error: Exception) -> None:
        if not self._running:
            return
        self._report_failure(error)
        self._timer.start(self._retry_delay())

    def _report_failure(self, error: Exception) -> None:
        self._failures += 1
        if self._connected:
            self._connected = False
            reason = error.message if isinstance(error, ApiError) else str(error)
            self.connection_lost.emit(reason)

    def _retry_delay(self) -> int:
        return RETRY_DELAYS_MS[min(self._failures, len(RETRY_DELAYS_MS)) - 1]
