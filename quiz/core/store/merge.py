"""Import, merging: a history file's validated rows merged into the history.

Import is a merge, made safe to repeat:

* every row is validated (:mod:`.validate`), and one bad row refuses the whole file
  (naming the row); a file written by a newer history format is refused, never
  half-read;
* a copy of the history is taken (:func:`backup_before_import`) before anything changes;
* an attempt already in the history is not added again (rows are compared on all of
  their fields, as a multiset: a file holding the same attempt twice adds it twice to
  an empty history, and nothing to one that has both);
* the attempts, their reviews and the rebuilt FSRS cards (:mod:`.replay`) are written
  in one transaction: the merge happens whole or not at all, and a killed import
  leaves the history as it was.

A bulk import (many more rows than the history holds) sets the secondary indexes and
the summary trigger aside and makes them again at the end of the same transaction
(:mod:`.sums` adds up what the trigger would have).

The loop's work that needs no database can be done apart, in another process
(:func:`prepare`, run by :mod:`.pipeline` for a big file): :func:`import_prepared`
takes its batches with the same rules and leaves the same history.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from questions.private import private_folder
from quiz.core.clock import to_utc_text
from quiz.core.errors import StoreError
from quiz.core.store.fileformat import (
    AttemptFields,
    HistoryFile,
    HistoryFileError,
    MockRow,
    Row,
    attempt_key,
)
from quiz.core.store.replay import Online, rebuild_log
from quiz.core.store.sums import Summaries
from quiz.core.store.validate import no_mock
from quiz.core.store.writer import ATTEMPTS_SQL, file_row, mock_rows

if TYPE_CHECKING:
    from quiz.core.store.history import Store

__all__ = ["ImportResult", "Prepared", "backup_before_import", "import_history", "import_prepared",
           "import_rows", "latest_time", "prepare"]


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What :func:`import_history` did."""

    added: int
    """Attempts that were new to the history."""
    already: int
    """Attempts already in the history (skipped)."""
    mocks_added: int
    """Mock sessions that were new to the history."""
    cards: int
    """FSRS cards after the rebuild."""


def backup_before_import(store: Store, backups_dir: Path) -> Path:
    """Copy the history (SQLite online backup) to ``backups_dir`` before an import.

    The copy is named ``<db stem>-before-import-<UTC time>.db``; it is an ordinary quiz
    history, restorable like the daily backups.

    Returns:
        The backup's path.
    """
    from quiz.core.store.recovery import snapshot

    private_folder(backups_dir)
    stamp = store.now().astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = backups_dir / f"{store.path.stem}-before-import-{stamp}.db"
    counter = 1
    while target.exists():
        target = backups_dir / f"{store.path.stem}-before-import-{stamp}-{counter}.db"
        counter += 1
    source = sqlite3.connect(str(store.path))
    try:
        partial = snapshot(source, backups_dir, f".{target.name}.", ".partial")
    finally:
        source.close()
    partial.replace(target)
    return target


Prepared = tuple[Any, ...]
"""A batch of :func:`prepare`: ``("rows", attempts, reviews, links, mocks)`` (the
attempts as :data:`_INSERT_ATTEMPT` takes them, their reviews as ``(template, rating,
time, n)``, their mock links as ``(n, mock start)``, ``n`` counting the file's attempts
from 1; the mock sessions as inserted), or, last, ``("sums", groups, quarters)`` (the
:class:`~.sums.Summaries` of every attempt). Plain values only (marshal carries them)."""

_MATCH_SQL: Final = ATTEMPTS_SQL.format(where="WHERE answered_at = ? AND id <= ?")


def import_rows(store: Store, rows: Iterable[Row], *, source: str = "history file",
                expected: int | None = None) -> ImportResult:
    """Merge a history file's validated rows (:func:`.validate.read_rows`) into ``store`` as they
    come, in one transaction: a bad row, a row dated in the future or an attempt that
    names a mock session the file lacks rolls the whole import back. Call
    :func:`backup_before_import` first.

    An attempt is matched against the attempts the history had before the import at the
    same time (through the time index), each of those matching at most one row of the
    file: rows compare as a multiset. Memory holds the ids of matched attempts and the
    mock links, never the file.

    Args:
        store: the history.
        rows: the file's validated rows.
        source: the file's name, for messages.
        expected: about how many rows the file holds (from its size), if known: an
            import of many more rows than the history has builds the indexes of the
            attempts and the review log once at the end, rather than row by row.

    Returns:
        Counts of what was added and skipped.

    Raises:
        HistoryFileError: a row that cannot be imported (nothing was changed).
    """
    return _with_pragmas(store, rows, None, source, expected)


def import_prepared(store: Store, batches: Iterable[Prepared], *,
                    source: str = "history file", expected: int | None = None
                    ) -> ImportResult:
    """:func:`import_rows` of a file's rows already :func:`prepare`'d (in another
    process: :mod:`.pipeline`); the same rules, the same history afterwards.

    Into a history without attempts (nothing to match) the batches go in as they are;
    otherwise each is turned back into its rows for :func:`import_rows`'s loop."""
    return _with_pragmas(store, None, batches, source, expected)


def _with_pragmas(store: Store, rows: Iterable[Row] | None,
                  batches: Iterable[Prepared] | None, source: str,
                  expected: int | None) -> ImportResult:
    mock_start = mock_rows(store)[1]
    latest = latest_time(store.now())
    # A larger page cache while importing: the indexes' pages are updated all over, and
    # with the default 2 MB most updates wrote and read back a page (100 MB saved 13 %
    # of the CPU of 100,000 rows). 64 MB: the index builds of a bulk import sort in as
    # much again, and 1,000,000 rows peaked at 249 MB with 100 MB.
    cache = store.rows("PRAGMA cache_size")[0][0]
    store.rows(f"PRAGMA cache_size = -{_IMPORT_CACHE_KIB:d}")
    # The tables' CHECK constraints are off while importing: every one of them is
    # implied by the rules each row was validated by (AttemptRow, MockRow; the replay
    # gives states 0-3), and they were most of an insert's cost: SQLite builds each
    # ``IN (...)`` list (mode, verdict, guided) afresh for every row of an
    # executemany, 18 us a row against 7.6 without (100,000 rows).
    store.rows("PRAGMA ignore_check_constraints = ON")
    try:
        return _import(store, rows, batches, source, mock_start, latest, expected)
    finally:
        store.rows("PRAGMA ignore_check_constraints = OFF")
        store.rows(f"PRAGMA cache_size = {int(cache):d}")


def latest_time(now: datetime) -> str:
    """The latest time a file's row may hold, given this machine's clock (as stored)."""
    return to_utc_text(now + _FUTURE_SLACK)


_IMPORT_CACHE_KIB: Final = 64 * 1024


_BULK_ROWS: Final = 50_000
"""From how many expected rows (and more than the history holds) an import builds the
indexes at the end: a sorted build instead of a million scattered page updates."""


def _import(store: Store, rows: Iterable[Row] | None, batches: Iterable[Prepared] | None,
            source: str, mock_start: dict[int | None, str], latest: str,
            expected: int | None) -> ImportResult:
    with store.transaction() as conn:
        before = int(conn.execute("SELECT coalesce(max(id), 0) FROM attempts").fetchone()[0])
        indexes: list[tuple[str, str]] = []
        if expected is not None and expected >= max(_BULK_ROWS, before):
            # Set aside and made again from their own text in this transaction; the
            # time index stays when rows are matched against earlier attempts.
            indexes = [(str(name), str(sql)) for name, sql in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name "
                "IN ('attempts', 'review_log') AND sql IS NOT NULL").fetchall()
                if not (before and name == "attempts_by_time")]
            for name, _ in indexes:
                conn.execute(f'DROP INDEX "{name}"')
        # The summary tables' insert trigger is two upserts a row (most of an insert's
        # time): off during the import, the new rows' sums are added up here as the
        # trigger would (row by row, in id order) and written at the end, and the
        # trigger is made again from its own text, all in this transaction.
        trigger = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                               "AND name = 'attempts_summary_insert'").fetchone()
        if trigger is not None:
            conn.execute("DROP TRIGGER attempts_summary_insert")
        mock_ids: dict[str, int] = {
            str(r["started_at"]): int(r["id"])
            for r in conn.execute("SELECT id, started_at FROM mock_sessions ORDER BY id DESC")
        }
        file_mocks: set[str] = set()
        links: list[tuple[int, str, str]] = []  # (attempt id, mock start, where)
        matched: set[int] = set()
        tags_text: dict[tuple[str, ...], str] = {}
        batch: list[tuple[object, ...]] = []
        reviews: list[tuple[str, int, int, str, int]] = []
        sums = Summaries(conn)
        online = Online(str(t) for (t,) in conn.execute(
            "SELECT DISTINCT template_id FROM review_log"))
        replay = online.review
        # The ids SQLite gives rows inserted one after another in a transaction (the
        # largest id + 1 each: the table has no AUTOINCREMENT); _insert checks them.
        next_id = before + 1
        mocks_added = already = 0
        if batches is not None and not before:  # nothing to match: taken as they are
            next_id, mocks_added = _merge_prepared(conn, batches, sums, replay, mock_ids,
                                                   file_mocks, links)
            rows = ()
        elif batches is not None:
            rows = _rows_of(batches)
        assert rows is not None
        for _, where, row in rows:
            if type(row) is dict:
                fields = row
            elif isinstance(row, MockRow):
                _not_future(source, where, "started_at", row.started_at, latest)
                file_mocks.add(row.started_at)
                if row.started_at in mock_ids:
                    continue
                cursor = conn.execute(
                    "INSERT INTO mock_sessions (started_at, finished_at, minutes, "
                    "n_questions, score, report_json) VALUES (?, ?, ?, ?, ?, ?)",
                    (row.started_at, row.finished_at, row.minutes, row.n_questions,
                     row.score, json.dumps(row.report) if row.report is not None else None))
                assert cursor.lastrowid is not None
                mock_ids[row.started_at] = cursor.lastrowid
                mocks_added += 1
                continue
            else:
                fields = row.__dict__
            at = fields["answered_at"]
            if not _EARLIEST <= at <= latest:
                _not_future(source, where, "answered_at", at, latest)
            if before and _match(store, fields, before, matched, mock_start):
                already += 1
                continue
            template = fields["template"]
            batch.append(_attempt(fields, at, tags_text, sums))
            rating = fields["rating"]
            if rating is not None:
                reviews.append((template, rating, replay(template, rating, at), at, next_id))
            if fields["mock"] is not None:
                links.append((next_id, fields["mock"], where))
            next_id += 1
            if len(batch) >= _BATCH:
                _insert(conn, batch, reviews, next_id)
        _insert(conn, batch, reviews, next_id)
        added = next_id - before - 1
        for _, sql in indexes:
            conn.execute(sql)
        if trigger is not None:
            sums.write(conn)
            conn.execute(trigger[0])
        for attempt_id, start, where in links:
            if start not in file_mocks:
                raise no_mock(source, where, start)
            conn.execute("UPDATE attempts SET session_id = ? WHERE id = ?",
                         (mock_ids[start], attempt_id))
        cards = rebuild_log(conn, online)
    return ImportResult(added=added, already=already, mocks_added=mocks_added,
                        cards=cards)


_BATCH: Final = 10_000
_FUTURE_SLACK: Final = timedelta(days=1)
"""How far past this machine's clock a file's time may be (another machine's clock
set a little ahead, a zone mistaken); later is refused."""


_EARLIEST: Final = "1970-01-01T00:00:00.000000+00:00"
"""No answer is older: a time near year 1 cannot be shown in a zone west of UTC."""


def _not_future(source: str, where: str, field: str, value: str, latest: str) -> None:
    # All are to_utc_text's fixed-width UTC text: text order is time order.
    if value > latest:
        raise HistoryFileError(f"{source}: {where}: {field}: {value} is in the future "
                               "(later than a day from now); fix the date in the file")
    if value < _EARLIEST:
        raise HistoryFileError(f"{source}: {where}: {field}: {value} is before 1970; fix "
                               "the date in the file")


_INSERTED: Final = itemgetter("template", "version", "seed", "mode", "answer", "verdict",
                              "score", "mistake", "hints_used", "hint_cost", "seconds",
                              "answered_at", "topic")
"""An attempt's fields in the order of :data:`_INSERT_ATTEMPT`'s columns, up to the
topic (the tags, session and guided follow)."""

_INSERT_ATTEMPT: Final = (
    "INSERT INTO attempts (template_id, template_version, seed, mode, answer_text, "
    "verdict, score, mistake, hints_used, hint_cost, seconds, answered_at, topic, tags, "
    "session_id, guided) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _insert(conn: sqlite3.Connection, batch: list[tuple[object, ...]],
            reviews: list[tuple[str, int, int, str, int]], next_id: int) -> None:
    """Insert a batch of attempts, then their reviews (and empty both lists).

    The reviews name their attempts by the ids SQLite gives rows inserted one after
    another in a transaction: the largest id + 1 each (the table has no
    AUTOINCREMENT), ``next_id`` being the one after the batch's last; checked."""
    if not batch:
        return
    conn.executemany(_INSERT_ATTEMPT, batch)
    if conn.execute("SELECT max(id) FROM attempts").fetchone()[0] != next_id - 1:
        raise StoreError("the history gave imported attempts ids out of order; nothing "
                         "was imported")  # cannot happen without AUTOINCREMENT; be sure
    conn.executemany("INSERT INTO review_log (template_id, rating, state_before, "
                     "reviewed_at, attempt_id) VALUES (?, ?, ?, ?, ?)", reviews)
    batch.clear()
    reviews.clear()


def _match(store: Store, fields: AttemptFields, before: int, matched: set[int],
           mock_start: dict[int | None, str]) -> bool:
    """Whether an attempt the history had before the import, not matched yet, is this
    row (and if so, mark it matched)."""
    key = attempt_key(fields)
    for stored in store.stream(_MATCH_SQL, (fields["answered_at"], before)):
        if stored["id"] not in matched and file_row(store, stored, mock_start).key() == key:
            matched.add(stored["id"])
            return True
    return False


def import_history(store: Store, history: HistoryFile) -> ImportResult:
    """Merge a validated history file into ``store`` (call :func:`backup_before_import`
    first); attempts, reviews and rebuilt cards are written in one transaction (see
    :func:`import_rows`, which does it from a stream).

    Returns:
        Counts of what was added and skipped.
    """
    rows: list[Row] = [("mock", f"mock session {i}", m)
                       for i, m in enumerate(history.mocks, start=1)]
    rows += [("attempt", f"attempt {i}", a) for i, a in enumerate(history.attempts, start=1)]
    return import_rows(store, rows)


_PREPARED_BATCH: Final = 2000
"""Attempts a batch of :func:`prepare` holds."""


def prepare(rows: Iterable[Row], source: str, latest: str) -> Iterator[Prepared]:
    """A file's validated rows as the history takes them, in batches (:data:`Prepared`):
    every check and conversion of :func:`import_rows`'s loop that needs no database
    (times not in the future, the tags' text, the insert tuples, the summary sums, the
    mock links, which are checked at the end as there), so that another process can
    do them (:mod:`.pipeline`). ``latest`` is :func:`latest_time` of the clock.

    Raises:
        HistoryFileError: the file's first problem, with :func:`import_rows`'s message.
    """
    tags_text: dict[tuple[str, ...], str] = {}
    attempts: list[tuple[object, ...]] = []
    reviews: list[tuple[str, int, str, int]] = []
    links: list[tuple[int, str]] = []
    mocks: list[tuple[object, ...]] = []
    file_mocks: set[str] = set()
    named: list[tuple[str, str]] = []  # (mock start, where): checked at the end
    sums = Summaries(sqlite3.connect(":memory:"))  # asked only of a time not as stored
    n = 0
    for _, where, row in rows:
        if type(row) is dict:
            fields = row
        elif isinstance(row, MockRow):
            _not_future(source, where, "started_at", row.started_at, latest)
            file_mocks.add(row.started_at)
            mocks.append((row.started_at, row.finished_at, row.minutes, row.n_questions,
                          row.score,
                          json.dumps(row.report) if row.report is not None else None))
            continue
        else:
            fields = row.__dict__
        at = fields["answered_at"]
        if not _EARLIEST <= at <= latest:
            _not_future(source, where, "answered_at", at, latest)
        n += 1
        template = fields["template"]
        attempts.append(_attempt(fields, at, tags_text, sums))
        rating = fields["rating"]
        if rating is not None:
            reviews.append((template, rating, at, n))
        if fields["mock"] is not None:
            links.append((n, fields["mock"]))
            named.append((fields["mock"], where))
        if len(attempts) >= _PREPARED_BATCH:
            yield "rows", attempts, reviews, links, mocks
            attempts, reviews, links, mocks = [], [], [], []
    yield "rows", attempts, reviews, links, mocks
    for start, where in named:
        if start not in file_mocks:
            raise no_mock(source, where, start)
    yield "sums", sums.groups, sums.quarters


_INSERT_MOCK: Final = (
    "INSERT INTO mock_sessions (started_at, finished_at, minutes, n_questions, score, "
    "report_json) VALUES (?, ?, ?, ?, ?, ?)")


def _merge_prepared(conn: sqlite3.Connection, batches: Iterable[Prepared],
                    sums: Summaries, replay: Callable[[str, int, str], int],
                    mock_ids: dict[str, int], file_mocks: set[str],
                    links: list[tuple[int, str, str]]) -> tuple[int, int]:
    """The batches inserted into a history without attempts (each attempt's id is its
    number in the file), the reviews replayed as they come: (the next id, the mock
    sessions added)."""
    next_id = 1
    mocks_added = 0
    for batch in batches:
        if batch[0] == "sums":
            sums.groups, sums.quarters = batch[1], batch[2]
            continue
        _, attempts, reviews, linked, mocks = batch
        for mock in mocks:
            file_mocks.add(mock[0])
            if mock[0] not in mock_ids:
                cursor = conn.execute(_INSERT_MOCK, mock)
                assert cursor.lastrowid is not None
                mock_ids[mock[0]] = cursor.lastrowid
                mocks_added += 1
        next_id += len(attempts)
        _insert(conn, attempts, [(template, rating, replay(template, rating, at), at, n)
                                 for template, rating, at, n in reviews], next_id)
        links.extend((n, start, "") for n, start in linked)
    return next_id, mocks_added


_FIELD_NAMES: Final = ("template", "version", "seed", "mode", "answer", "verdict", "score",
                       "mistake", "hints_used", "hint_cost", "seconds", "answered_at",
                       "topic")


def _rows_of(batches: Iterable[Prepared]) -> Iterator[Row]:
    """:func:`prepare`'s batches as the rows they were made of (for a history that has
    attempts to match them against)."""
    n = 0
    for batch in batches:
        if batch[0] != "rows":
            continue
        _, attempts, reviews, linked, mocks = batch
        for started_at, finished_at, minutes, n_questions, score, report in mocks:
            yield "mock", "mock session", MockRow.model_construct(
                started_at=started_at, finished_at=finished_at, minutes=minutes,
                n_questions=n_questions, score=score,
                report=json.loads(report) if report is not None else None)
        ratings = {number: rating for _, rating, _, number in reviews}
        marks = dict(linked)
        for values in attempts:
            n += 1
            fields = dict(zip(_FIELD_NAMES, values, strict=False))
            fields.update(tags=tuple(json.loads(values[13])), rating=ratings.get(n),
                          mock=marks.get(n), guided=bool(values[15]))
            yield "attempt", f"attempt {n}", fields


def _attempt(fields: dict[str, Any], at: str, tags_text: dict[tuple[str, ...], str],
             sums: Summaries) -> tuple[Any, ...]:
    """An attempt row's insert tuple, its tags as stored text (each distinct tags value
    encoded once, through ``tags_text``), its figures added to ``sums``: the same for a
    file imported in one process and one prepared by the pipeline's child."""
    tags = tags_text.get(fields["tags"])
    if tags is None:
        tags = tags_text[fields["tags"]] = json.dumps(list(fields["tags"]))
    sums.add(fields["template"], fields["topic"], tags, fields["verdict"], fields["score"], at)
    return (*_INSERTED(fields), tags, None, int(fields["guided"]))
