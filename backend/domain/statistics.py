"""Small statistics over measured values: nearest-rank percentiles."""

from __future__ import annotations

import math


def percentile(sorted_values: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of sorted values, or None when there are none."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]
