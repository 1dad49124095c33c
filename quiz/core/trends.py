"""Accuracy over time: running share correct per topic and per rapid-fire item.

The stats screen plots these; they are computed from the history's attempts, day by
local day, without Textual.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from questions.tags import rapid_fire_number
from quiz.core.clock import local_day

if TYPE_CHECKING:
    from quiz.core.store import Attempt
    from quiz.core.store.stats import DayTally

__all__ = ["Trend", "history_trends", "item_trends", "topic_trends", "trends"]

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
    for when, groups, verdict in rows:
        day = local_day(when, tz).isoformat()
        for g in groups:
            tally = tallies.setdefault(g, {}).setdefault(day, [0, 0])
            tally[0] += verdict == "correct"
            tally[1] += 1
    return _running(tallies)


def history_trends(totals: Iterable[tuple[str, tuple[str, ...], int, int]],
                   recent: Iterable[DayTally]) -> tuple[dict[str, Trend], dict[str, Trend]]:
    """Running accuracy per topic and per rapid-fire item (keyed ``#N``) on recent days,
    without reading every attempt: the share at the end of a day is the all-time share
    less the days after it.

    Args:
        totals: (topic, tags, attempts, correct) for every readable attempt, in groups.
        recent: answers per local day, topic and tags on the days to plot.

    Returns:
        (by topic, by item): for each group answered on those days, (day, running share)
        on each of them, oldest first; the same points :func:`topic_trends` and
        :func:`item_trends` give on those days.

    >>> from datetime import date
    >>> from quiz.core.store.stats import DayTally
    >>> day = DayTally(date(2026, 11, 30), "memory", ("rapid-fire-1",), 2, 1)
    >>> history_trends([("memory", ("rapid-fire-1",), 4, 3)], [day])
    ({'memory': [('2026-11-30', 0.75)]}, {'#1': [('2026-11-30', 0.75)]})
    """
    known: dict[tuple[str, tuple[str, ...]], list[tuple[int, str]]] = {}

    def names(topic: str, tags: tuple[str, ...]) -> list[tuple[int, str]]:
        if (topic, tags) not in known:  # a few dozen sets of tags, thousands of tallies
            known[(topic, tags)] = [(0, topic)] + [
                (1, f"#{n}") for tag in tags if (n := rapid_fire_number(tag))]
        return known[(topic, tags)]

    overall: dict[tuple[int, str], list[int]] = {}
    for topic, tags, attempts, correct in totals:
        for name in names(topic, tags):
            tally = overall.setdefault(name, [0, 0])
            tally[0] += correct
            tally[1] += attempts
    by_day: dict[tuple[int, str], dict[str, list[int]]] = {}
    for t in recent:
        for name in names(t.topic, t.tags):
            tally = by_day.setdefault(name, {}).setdefault(t.day.isoformat(), [0, 0])
            tally[0] += t.correct
            tally[1] += t.attempts
    out: tuple[dict[str, Trend], dict[str, Trend]] = ({}, {})
    for name, days in sorted(by_day.items()):
        right, total = overall.get(name, (0, 0))
        points: Trend = []
        for day in sorted(days, reverse=True):
            if total <= 0:
                break
            points.append((day, round(right / total, 4)))
            right -= days[day][0]
            total -= days[day][1]
        out[name[0]][name[1]] = points[::-1]
    return out


def _running(tallies: dict[str, dict[str, list[int]]]) -> dict[str, Trend]:
    """[correct, attempts] per group and day as running shares, oldest day first."""
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
