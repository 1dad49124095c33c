"""Shared by the benches: order statistics of samples, printed the same way everywhere."""

from __future__ import annotations

import statistics


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


P99_MIN_SAMPLES = 100
"""Below this many samples the 99th percentile is just the slowest one: say "max"."""


def summary(values: list[float], unit: float = 1e3, name: str = "ms") -> str:
    """``n=…  min …  median …  p99 …`` in milliseconds (by default).

    With fewer than :data:`P99_MIN_SAMPLES` samples the tail is printed as ``max``
    (a p99 of 10 samples would be the maximum under another name).
    """
    if len(values) >= P99_MIN_SAMPLES:
        tail = f"p99 {percentile(values, 0.99) * unit:7.1f} {name}"
    else:
        tail = f"max {max(values) * unit:7.1f} {name} (n < {P99_MIN_SAMPLES}: no p99)"
    return (f"n={len(values):<4} min {min(values) * unit:7.1f} {name}  median "
            f"{statistics.median(values) * unit:7.1f} {name}  {tail}")
