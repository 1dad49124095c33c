"""Accuracy over time: running share correct per topic and per rapid-fire item.

The stats screen plots these; they are computed from the history's attempts, day by
local day, without Textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from questions.tags import rapid_fire_number
from quiz.core.clock import local_day

if TYPE_CHECKING:
    from quiz.core.store import Attempt

__all__ = ["Trend", "item_trends", "topic_trends", "trends"]

Trend = list[tuple[str, float]]
"""(local date ISO, running share correct up to the end of that day), oldest first."""


def topic_trends(attempts: Sequence[Attempt], tz: tzinfo | None = None) -> dict[str, Trend]:
    """Running accuracy per topic (see :func:`trends`)."""
    return trends([(a.answered_at, (a.topic,), a.verdict) for a in attempts], tz)


def item_trends(attempts: Sequence[Attempt], tz: tzinfo | None = None) -> dict[str, Trend]:
    """Running accuracy per rapid-fire item, keyed ``#N`` (see :func:`trends`)."""
    rows = [(a.answered_at, tuple(f"#{n}" for t in a.tags if (n := rapid_fire_number(t))),
             a.verdict) for a in attempts]
    return trends(rows, tz)


def trends(rows: Sequence[tuple[datetime, tuple[str, ...], str]],
           tz: tzinfo | None = None) -> dict[str, Trend]:
    """Running share correct per group, at the end of each local day it was answered.

    >>> from datetime import UTC, datetime
    >>> t = datetime(2026, 11, 30, 12, tzinfo=UTC)
    >>> trends([(t, ("memory",), "correct"), (t, ("memory",), "incorrect")], UTC)
    {'memory': [('2026-11-30', 0.5)]}
    """
    tallies: dict[str, dict[str, list[int]]] = {}
    for when, groups, verdict in sorted(rows, key=lambda r: r[0]):
        day = local_day(when, tz).isoformat()
        for g in groups:
            tallies.setdefault(g, {}).setdefault(day, [0, 0])
            tallies[g][day][0] += verdict == "correct"
            tallies[g][day][1] += 1
    out: dict[str, Trend] = {}
    for g, days in sorted(tallies.items()):
        right = total = 0
        points = []
        for day in sorted(days):
            right += days[day][0]
            total += days[day][1]
            points.append((day, round(right / total, 4)))
        out[g] = points
    return out
