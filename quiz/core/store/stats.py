"""What the stats screen and ``quiz stats --json`` show, computed from the history."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import TYPE_CHECKING, TypedDict

from quiz.core.clock import from_utc_text, local_day

if TYPE_CHECKING:
    from quiz.core.store.history import Store

__all__ = ["DayAccuracy", "GroupStats", "Stats", "TemplateStats", "stats"]


class GroupStats(TypedDict):
    """Totals for one topic or tag."""

    attempts: int
    correct: int
    accuracy: float
    mean_score: float


class TemplateStats(TypedDict):
    """Totals for one template (see ``Stats.weakest_templates``)."""

    template_id: str
    attempts: int
    mean_score: float


DayAccuracy = tuple[str, int, float]
"""(local date ISO, attempts that day, share correct that day)."""


class Stats(TypedDict):
    """What :meth:`Store.stats` returns; JSON-serializable as is."""

    attempts: int
    correct: int
    partial: int
    incorrect: int
    mean_score: float | None
    by_topic: dict[str, GroupStats]
    by_tag: dict[str, GroupStats]
    streak_days: int
    recent_accuracy: float | None
    weakest_templates: list[TemplateStats]
    accuracy_by_day: list[DayAccuracy]
    unreadable: list[str]
    """Attempts left out because their row cannot be read, each named by its id."""


def stats(store: Store, *, recent: int = 50, weakest: int = 5) -> Stats:
    """Summarize the history for ``quiz stats --json`` and the stats screen.

    Accuracy is the share of attempts graded ``correct``; partial credit counts
    in ``mean_score`` only. Days are local days.

    Args:
        recent: How many latest attempts ``recent_accuracy`` covers.
        weakest: How many templates ``weakest_templates`` lists (those with at
            least 2 attempts, lowest mean score first).

    Returns:
        A JSON-serializable :class:`Stats` dict.
    """
    rows = store._query(
        "SELECT id, template_id, verdict, score, answered_at, topic, tags "
        "FROM attempts ORDER BY answered_at, id"
    )
    by_topic: dict[str, list[tuple[bool, float]]] = {}
    by_tag: dict[str, list[tuple[bool, float]]] = {}
    by_template: dict[str, list[float]] = {}
    by_day: dict[date, list[bool]] = {}
    verdicts: list[str] = []
    scores: list[float] = []
    unreadable: list[str] = []
    for row in rows:
        try:
            # Read every field first: a malformed row (edited by hand, a damaged page)
            # is left out whole and named, never half-counted or fatal.
            correct = row["verdict"] == "correct"
            score = float(row["score"])
            tags = json.loads(row["tags"])
            if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                raise ValueError("tags is not a list of text")
            day = local_day(from_utc_text(row["answered_at"]), store.tz)
            topic, template_id = str(row["topic"]), str(row["template_id"])
        except (ValueError, TypeError, OverflowError) as exc:
            unreadable.append(f"attempt {row['id']}: {exc}")
            continue
        verdicts.append(row["verdict"])
        scores.append(score)
        by_topic.setdefault(topic, []).append((correct, score))
        for tag in tags:
            by_tag.setdefault(tag, []).append((correct, score))
        by_template.setdefault(template_id, []).append(score)
        by_day.setdefault(day, []).append(correct)

    def group(items: list[tuple[bool, float]]) -> GroupStats:
        n_correct = sum(1 for ok, _ in items if ok)
        return {
            "attempts": len(items),
            "correct": n_correct,
            "accuracy": n_correct / len(items),
            "mean_score": sum(score for _, score in items) / len(items),
        }

    last = verdicts[-recent:] if recent > 0 else []
    candidates: list[TemplateStats] = [
        {"template_id": tid, "attempts": len(s), "mean_score": sum(s) / len(s)}
        for tid, s in by_template.items()
        if len(s) >= 2
    ]
    candidates.sort(key=lambda t: (t["mean_score"], -t["attempts"], t["template_id"]))
    return {
        "attempts": len(verdicts),
        "correct": verdicts.count("correct"),
        "partial": verdicts.count("partial"),
        "incorrect": verdicts.count("incorrect"),
        "mean_score": sum(scores) / len(scores) if scores else None,
        "by_topic": {topic: group(items) for topic, items in sorted(by_topic.items())},
        "by_tag": {tag: group(items) for tag, items in sorted(by_tag.items())},
        "streak_days": _streak(set(by_day), store.today()),
        "recent_accuracy": last.count("correct") / len(last) if last else None,
        "weakest_templates": candidates[:weakest],
        "accuracy_by_day": [
            (day.isoformat(), len(oks), sum(oks) / len(oks))
            for day, oks in sorted(by_day.items())
        ],
        "unreadable": unreadable,
    }

def _streak(days: set[date], today: date) -> int:
    # The streak is still alive if the user has not practised yet today: it
    # counts back from today, or from yesterday when today is still empty.
    day = today
    if day not in days:
        day -= timedelta(days=1)
    streak = 0
    while day in days:
        streak += 1
        day -= timedelta(days=1)
    return streak
