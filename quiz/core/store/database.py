"""The query layer: one SQLite connection to the history behind a lock, and the public
ways to read and write through it.

:class:`Database` is what every query of the store package goes through: the
:class:`~quiz.core.store.history.Store`'s own methods (it is a :class:`Database`), the
summary queries of :mod:`~quiz.core.store.stats` and the history files' reading and
merging. It knows nothing of attempts or cards: it runs SQL, holds the lock while it
does, streams big results a page at a time, makes a block of writes one transaction,
and turns a failure of the environment (a read-only file, a full disk, a lock held too
long) into a one-line :class:`~quiz.core.errors.StoreError`. It was once the private
half of ``Store``, which ``stats`` reached into while ``history`` imported ``stats``:
an import circle. Now ``stats`` and ``history`` both import this module, and neither
the other's privates.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any, TypeVar

from quiz.core.clock import local_day
from quiz.core.errors import StoreError

__all__ = ["Database"]

T = TypeVar("T")


class Database:
    """An open, migrated history connection, shared by threads behind a lock."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *,
                 now: Callable[[], datetime], tz: tzinfo | None) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self._batch = 0
        self.path = path
        """The history file."""
        self.now = now
        """The clock (returns aware datetimes); injectable for tests."""
        self.tz = tz
        """The local time zone for "days"; None means the system's."""

    def today(self) -> date:
        """Return the current local day according to the store's clock and zone."""
        return local_day(self.now(), self.tz)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one write transaction (``BEGIN IMMEDIATE``): committed
        when the block ends, rolled back if it raises. Inside :meth:`batch`, the
        batch's transaction."""
        with self._lock, self.environment("save to"):
            if self._batch:  # inside batch(): its transaction commits
                yield self._conn
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:  # a failed COMMIT (disk full) leaves it open
                    self._conn.execute("ROLLBACK")
                raise

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Make the writes inside one transaction: one commit (one fsync) for them all,
        all saved or none. A write that fails inside leaves the others to commit if the
        caller handles its error; an error leaving the block rolls everything back.

        The store is held by this thread until the block ends.
        """
        with self.transaction():
            self._batch += 1
            try:
                yield
            finally:
                self._batch -= 1

    def query(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        """Every row of a query (as ``sqlite3.Row``: by name or index)."""
        with self._lock, self.environment("read"):
            return self._conn.execute(sql, params).fetchall()

    def stream(self, sql: str, params: Sequence[object] = (),
               size: int = 500) -> Iterator[sqlite3.Row]:
        """The rows of a query, fetched ``size`` at a time (the lock is held while
        fetching, not between): memory does not grow with the result."""
        with self._lock, self.environment("read"):
            cursor = self._conn.execute(sql, params)
        try:
            while True:
                with self._lock, self.environment("read"):
                    rows = cursor.fetchmany(size)
                if not rows:
                    return
                yield from rows
                del rows  # not held while the next page is fetched
        finally:
            cursor.close()

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Like :meth:`query`, as plain tuples (cheaper for thousands of rows)."""
        with self._lock, self.environment("read"):
            cursor = self._conn.cursor()
            cursor.row_factory = None
            return cursor.execute(sql, params).fetchall()

    @contextmanager
    def environment(self, doing: str) -> Iterator[None]:
        """Failures of the environment (a read-only file, a full disk, a lock held too
        long, an I/O error) as one-line :class:`StoreError`; nothing was written."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: could not {doing} the history: {exc}") from exc

    def read_row(self, convert: Callable[[sqlite3.Row], T], row: sqlite3.Row,
                 what: str) -> T:
        """A row as a domain object; a malformed row is a one-line error naming it."""
        try:
            return convert(row)
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise StoreError(f"{self.path}: {what} {row['id']} cannot be read ({exc}); "
                             "run quiz history restore to pick a backup") from exc
