"""The history store: every graded attempt, the FSRS cards, mock sessions (SQLite).

A small package, one concern per module:

- :mod:`~quiz.core.store.schema`: numbered migrations (``PRAGMA user_version``) and the
  ``application_id`` that marks a file as a quiz history.
- :mod:`~quiz.core.store.recovery`: opening safely, moving an unusable file aside
  (``<name>.corrupt-<UTC timestamp>`` with its ``-wal``/``-shm``), daily backups.
- :mod:`~quiz.core.store.records`: the domain objects (:class:`Attempt`,
  :class:`Review`, :class:`MockResult`) and their row converters; ``sqlite3.Row``
  never leaks.
- :mod:`~quiz.core.store.database`: the query layer (:class:`Database`): the connection
  behind a lock, queries, streams, transactions; what ``history`` and ``stats`` share.
- :mod:`~quiz.core.store.stats`: the summary behind ``quiz stats`` and the stats screen.
- :mod:`~quiz.core.store.history`: :class:`Store` (a :class:`Database`), its queries.
- ``quiz history export|import`` (JSON/CSV files of every attempt, merged back without
  duplicates, FSRS cards rebuilt from the merged log), one job a module:
  :mod:`~quiz.core.store.fileformat` (the rows and their rules),
  :mod:`~quiz.core.store.writer` (export), :mod:`~quiz.core.store.csvcells` (CSV
  escaping), :mod:`~quiz.core.store.reader` (a file as a stream of raw rows),
  :mod:`~quiz.core.store.validate` (the rows validated), :mod:`~quiz.core.store.merge`
  (the import), :mod:`~quiz.core.store.pipeline` (a big file read and prepared in a
  second process), :mod:`~quiz.core.store.replay` (the FSRS replay) and
  :mod:`~quiz.core.store.sums` (the summary sums of a bulk import).

Opening never throws a user's history away: a file that is not SQLite, is damaged, or
holds someone else's schema is moved aside, a fresh history is started, and
:attr:`Store.recovered_from` / :attr:`Store.recovery_message` tell the UI. A history
written by a newer quiz, and errors of the environment (a folder or device where the
file should be, permissions, a full disk, a lock held too long), raise
:class:`StoreError` and move nothing. Files and folders are created private to the
user (0600, 0700). ``quiz history restore`` puts a backup back in place.

Times are stored as UTC text (:mod:`quiz.core.clock`); "days" are local days.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quiz.core.errors import StoreError
from quiz.core.store.history import Store
from quiz.core.store.records import FLAG_REASONS, MODES, VERDICTS, Attempt, Flag, MockResult, Review
from quiz.core.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from quiz.core.types import Mode
from quiz.core.types import StoredVerdict as Verdict

if TYPE_CHECKING:
    from quiz.core.store.stats import DayAccuracy, GroupStats, Stats, TemplateStats

__all__ = [
    "APPLICATION_ID",
    "FLAG_REASONS",
    "MIGRATIONS",
    "MODES",
    "SCHEMA_VERSION",
    "VERDICTS",
    "Attempt",
    "DayAccuracy",
    "Flag",
    "GroupStats",
    "MockResult",
    "Mode",
    "Review",
    "Stats",
    "Store",
    "StoreError",
    "TemplateStats",
    "Verdict",
]

_STATS = frozenset({"DayAccuracy", "GroupStats", "Stats", "TemplateStats"})

_MOVED_TO_CLOCK = frozenset(
    {"from_utc_text", "local_day", "local_day_start", "to_utc_text", "utc_now"}
)


def __getattr__(name: str) -> Any:
    # The summary's records come with the summary's module, on first use: opening the
    # history (`quiz drill`'s first question) needs none of it.
    if name in _STATS:
        from quiz.core.store import stats

        return getattr(stats, name)
    # The time helpers moved to quiz.core.clock; this keeps old imports working while
    # branches written before the move land. New code imports quiz.core.clock.
    if name in _MOVED_TO_CLOCK:
        from quiz.core import clock

        return getattr(clock, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
