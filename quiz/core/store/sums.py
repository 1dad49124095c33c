"""The summary tables' sums over the attempts an import adds.

The home screen and the stats read ``attempt_groups`` and ``attempt_quarters``, which
schema migration 3's triggers keep in step with ``attempts``, two upserts a row. A
bulk import turns the insert trigger off and adds the new rows up here instead, as
the trigger would (row by row, in insert order: the same floats), writing one upsert
per key at the end (:class:`Summaries`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from quiz.core.store.fileformat import STORED_TIME
from quiz.core.store.schema import quarter_of

__all__ = ["Summaries", "quarter_key"]


class Summaries:
    """The summary tables' sums over the attempts an import adds, added up as schema
    migration 3's insert trigger adds them (row by row, in insert order: the same
    floats), and written at the end in one upsert per key.

    Grouping the new rows in SQL at the end instead sorted them twice: 10.8 s of a
    1,000,000-row import's CPU (11 us a row), against about 1 us here."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.groups: dict[tuple[str, str, str], list[Any]] = {}
        self.quarters: dict[str, list[int]] = {}

    def add(self, template: str, topic: str, tags: str, verdict: str, score: float,
            answered_at: str) -> None:
        correct, partial = int(verdict == "correct"), int(verdict == "partial")
        group = self.groups.get((template, topic, tags))
        if group is None:
            self.groups[template, topic, tags] = [1, correct, partial, score]
        else:
            group[0] += 1
            group[1] += correct
            group[2] += partial
            group[3] = group[3] + score
        key = quarter_key(answered_at, self.conn)
        quarter = self.quarters.get(key)
        if quarter is None:
            self.quarters[key] = [1, correct]
        else:
            quarter[0] += 1
            quarter[1] += correct

    def write(self, conn: sqlite3.Connection) -> None:
        conn.executemany(
            "INSERT INTO attempt_groups VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (template_id, topic, tags) DO UPDATE SET "
            "attempts = attempts + excluded.attempts, correct = correct + excluded.correct, "
            "partial = partial + excluded.partial, "
            "score_sum = score_sum + excluded.score_sum",
            [(*key, *sums) for key, sums in self.groups.items()])
        conn.executemany(
            "INSERT INTO attempt_quarters VALUES (?, ?, ?) ON CONFLICT (quarter) DO UPDATE "
            "SET attempts = attempts + excluded.attempts, "
            "correct = correct + excluded.correct",
            [(key, *sums) for key, sums in self.quarters.items()])


def quarter_key(at: str, conn: sqlite3.Connection) -> str:
    """:func:`~quiz.core.store.schema.quarter_of` of a time: the UTC quarter hour
    ``YYYY-MM-DDTHH:MM`` of a time in the stored format (every imported row's), worked
    out here; any other text is asked of SQLite."""
    if STORED_TIME.fullmatch(at):
        return f"{at[:14]}{int(at[14:16]) // 15 * 15:02d}"
    return str(conn.execute(f"SELECT {quarter_of(':t')}", {"t": at}).fetchone()[0])
