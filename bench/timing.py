"""Shared by the benches: order statistics of samples, printed the same way everywhere."""

from __future__ import annotations

import statistics


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float], unit: float = 1e3, name: str = "ms") -> str:
    """``n=…  min …  median …  p99 …`` in milliseconds (by default)."""
    return (f"n={len(values):<4} min {min(values) * unit:7.1f} {name}  median "
            f"{statistics.median(values) * unit:7.1f} {name}  p99 "
            f"{percentile(values, 0.99) * unit:7.1f} {name}")
