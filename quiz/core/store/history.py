"""The :class:`Store`: one SQLite connection to the history, shared behind a lock.

Durability is the point. Each attempt is committed in its own transaction before
:meth:`Store.record_attempt` returns, in WAL mode with ``synchronous=FULL``, so a
process killed at any moment loses no answer it has already reported as saved.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterator, Mapping
from datetime import date, datetime, tzinfo
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from questions.private import private_folder
from quiz.core.clock import to_utc_text, utc_now
from quiz.core.errors import StoreError
from quiz.core.store import recovery
from quiz.core.store.database import Database
from quiz.core.store.records import (
    ATTEMPT_COLUMNS,
    FLAG_COLUMNS,
    Attempt,
    Flag,
    MockResult,
    Review,
    attempt_to_row,
    finite,
    flag_to_row,
    row_to_attempt,
    row_to_flag,
    row_to_mock,
    row_to_review,
    validate_attempt,
)
from quiz.core.store.recovery import connect, diagnose, is_corruption, move_aside
from quiz.core.store.schema import configure, migrate

if TYPE_CHECKING:
    from quiz.core.store.stats import DayTally, Stats

__all__ = ["Store"]


class Store(Database):
    """The SQLite history. Create with :meth:`Store.open`; use as a context manager.

    All methods are safe to call from several threads (they share one connection
    behind a lock). Several processes may open the same file: WAL mode lets readers
    run alongside a writer, and writers wait up to a few seconds for each other.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        *,
        now: Callable[[], datetime],
        tz: tzinfo | None,
        recovered_from: Path | None = None,
        recovery_message: str | None = None,
    ) -> None:
        """Wrap an open, migrated connection. Use :meth:`Store.open` instead."""
        super().__init__(conn, path, now=now, tz=tz)
        self._closed = False
        self.recovered_from = recovered_from
        """Where an unusable file found at :attr:`path` was moved, or None."""
        self.recovery_message = recovery_message
        """A sentence for the UI explaining the move, or None."""

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        now: Callable[[], datetime] | None = None,
        tz: tzinfo | None = None,
        repair: bool = True,
    ) -> Store:
        """Open (creating and migrating as needed) the history at ``path``.

        An unusable file (not SQLite, damaged, a foreign schema) is moved aside,
        never deleted; see the module docstring.

        Args:
            path: The database file. Its folder is created if missing.
            now: Clock returning an aware datetime; defaults to :func:`utc_now`.
            tz: Local time zone for days (streaks, backups); None: the system's.
            repair: move an unusable file aside and start a fresh history (the
                default); False: raise :class:`StoreError` instead and leave the file
                as it is (a reader that must change nothing).

        Returns:
            The open store; check :attr:`recovered_from` after opening.

        Raises:
            StoreError: the file cannot be opened or read for a reason unrelated to
                its content (permissions, I/O, a lock held too long, not a regular
                file), or it was written by a newer quiz.
        """
        clock = now or utc_now
        path = Path(path)
        try:
            private_folder(path.parent)
        except OSError as exc:
            raise StoreError(f"{path.parent}: cannot create the data folder: {exc}") from exc
        recovered_from: Path | None = None
        message: str | None = None
        # Reading every page is skipped when the file is as a clean close left it.
        thorough = not recovery.closed_cleanly(path)
        recovery.forget_clean(path)
        for _ in range(2):
            conn = connect(path)
            try:
                problem = diagnose(conn, path, thorough=thorough)
                if problem is None:
                    try:
                        configure(conn)
                        migrate(conn)
                    except sqlite3.DatabaseError as exc:
                        if not is_corruption(exc):
                            raise StoreError(f"{path}: cannot prepare the history: {exc}") from exc
                        problem = f"it is damaged ({exc})"
            except BaseException:
                conn.close()
                raise
            if problem is None:
                return cls(
                    conn,
                    path,
                    now=clock,
                    tz=tz,
                    recovered_from=recovered_from,
                    recovery_message=message,
                )
            conn.close()
            if not repair:
                raise StoreError(f"{path}: {problem}")
            if recovered_from is not None:
                break
            try:
                recovered_from = move_aside(path, clock())
            except OSError as exc:
                raise StoreError(
                    f"{path}: {problem}, and it could not be moved aside: {exc}"
                ) from exc
            message = (
                f"The history file {path} could not be used because {problem}. "
                f"It was kept as {recovered_from.name} in the same folder, and a fresh "
                "history was started."
            )
        raise StoreError(f"{path}: a freshly created history is unusable: {problem}")

    # ----------------------------------------------------------------- plumbing

    def close(self) -> None:
        """Close the connection (checkpointing the WAL) and, when no other quiz has the
        history open, mark it closed cleanly (the next open skips reading every page).
        Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._conn.close()
            self._closed = True
            recovery.mark_clean(self.path)

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The ``user_version`` of the open database."""
        return int(self.query("PRAGMA user_version")[0][0])

    def integrity_ok(self) -> bool:
        """Run ``PRAGMA integrity_check`` (slow on big files; fine for a history)."""
        rows = self.query("PRAGMA integrity_check")
        return [tuple(row) for row in rows] == [("ok",)]

    # ----------------------------------------------------------------- attempts

    def record_attempt(self, attempt: Attempt) -> int:
        """Store an attempt, committed (and fsynced) before this returns.

        Args:
            attempt: The graded attempt; its ``id`` is ignored.

        Returns:
            The new attempt's id.

        Raises:
            ValueError: the verdict is not a stored verdict (``invalid`` input is not an
                attempt), or another field is out of range.
            sqlite3.IntegrityError: ``session_id`` names no mock session.
        """
        validate_attempt(attempt)
        with self.transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO attempts ({ATTEMPT_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                attempt_to_row(attempt),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def attempts(
        self,
        since: datetime | None = None,
        template_id: str | None = None,
        *,
        session_id: int | None = None,
    ) -> list[Attempt]:
        """Return stored attempts, oldest first.

        Args:
            since: Only attempts answered at or after this aware time.
            template_id: Only attempts at this template.
            session_id: Only attempts in this mock session.
        """
        clauses: list[str] = []
        params: list[object] = []
        if since is not None:
            clauses.append("answered_at >= ?")
            params.append(to_utc_text(since))
        if template_id is not None:
            clauses.append("template_id = ?")
            params.append(template_id)
        if session_id is not None:
            clauses.append("session_id = ?")
            params.append(session_id)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.query(f"SELECT * FROM attempts {where} ORDER BY answered_at, id", params)
        return [self.read_row(row_to_attempt, row, "attempt") for row in rows]

    def iter_attempts(self, *, newest_first: bool = False, not_correct: bool = False,
                      about: str | None = None) -> Iterator[Attempt]:
        """Stored attempts one by one, oldest (or newest) first, read a few hundred rows
        at a time: memory stays the same at any history size, and stopping early reads
        no more.

        Args:
            newest_first: Newest first (by time, then id).
            not_correct: Only attempts graded partial or incorrect.
            about: Leave out, in SQL, attempts that cannot be about this topic, tag,
                template id or id prefix (some kept may still not be: check each).
        """
        clauses: list[str] = ["verdict <> 'correct'"] if not_correct else []
        params: list[object] = []
        if about:
            prefix = f"{about.rstrip('/')}/"
            clauses.append("(topic = ? OR template_id = ? OR substr(template_id, 1, ?) = ? "
                           "OR instr(tags, ?) > 0)")
            # Tags are stored as JSON text: a tag equal to ``about`` appears quoted in it.
            params += [about, about, len(prefix), prefix, json.dumps(about)]
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        order = "DESC" if newest_first else ""
        for row in self.stream(f"SELECT * FROM attempts {where} "
                                f"ORDER BY answered_at {order}, id {order}", params):
            yield self.read_row(row_to_attempt, row, "attempt")

    def variant_attempts(self, variants: Collection[tuple[str, int]]) -> list[Attempt]:
        """Every attempt at these variants (template id, seed), oldest first: one indexed
        look-up per variant, whatever else the history holds."""
        if not variants:
            return []
        pairs = sorted(variants)
        rows = self.query("SELECT * FROM attempts WHERE "
                           + " OR ".join(["(template_id = ? AND seed = ?)"] * len(pairs)),
                           [value for pair in pairs for value in pair])
        rows.sort(key=lambda row: (row["answered_at"], row["id"]))
        return [self.read_row(row_to_attempt, row, "attempt") for row in rows]

    def misses(self, template_id: str | None = None) -> dict[str, int]:
        """Incorrect answers per template (from the summary table, at any size); only
        ``template_id``'s when given."""
        where = "WHERE template_id = ?" if template_id is not None else ""
        return {str(tid): int(n) for tid, n in self.rows(
            "SELECT template_id, total(attempts - correct - partial) FROM attempt_groups "
            f"{where} GROUP BY template_id", () if template_id is None else (template_id,))}

    def guided_misses(self, template_id: str) -> int:
        """Incorrect guided answers at a template (through the index of guided ones)."""
        return int(self.rows(
            "SELECT count(*) FROM attempts WHERE template_id = ? AND guided = 1 "
            "AND verdict = 'incorrect'", (template_id,))[0][0])

    def learn_marks(self) -> tuple[set[str], set[str]]:
        """Templates walked through in learn mode (with a guided attempt), and those of
        them answered right cold (unguided) after their first walk-through: by the index
        of guided attempts, then one look-up per walked template."""
        rows = self.rows(
            "SELECT g.template_id, EXISTS (SELECT 1 FROM attempts AS a "
            "WHERE a.template_id = g.template_id AND a.answered_at > g.first "
            "AND a.guided = 0 AND a.verdict = 'correct') FROM (SELECT template_id, "
            "min(answered_at) AS first FROM attempts WHERE guided = 1 "
            "GROUP BY template_id) AS g")
        return {str(t) for t, _ in rows}, {str(t) for t, learned in rows if learned}

    def walked_attempts(self) -> list[Attempt]:
        """The attempts at templates walked through in learn mode (those with a guided
        attempt), oldest first: what learn-mode progress reads, without every attempt."""
        rows = self.query(
            "SELECT * FROM attempts WHERE template_id IN "
            "(SELECT template_id FROM attempts WHERE guided = 1) "
            "ORDER BY answered_at, id")
        return [self.read_row(row_to_attempt, row, "attempt") for row in rows]

    def stats(self, *, recent: int = 50, weakest: int = 5) -> Stats:
        """Summarize the history for ``quiz stats --json`` and the stats screen.

        See :func:`quiz.core.store.stats.stats` (the queries live there).
        """
        from quiz.core.store import stats as stats_queries  # its types: only for stats

        return stats_queries.stats(self, recent=recent, weakest=weakest)

    def recent_tallies(self, since: date) -> list[DayTally]:
        """Readable answers per local day, topic and tags from local day ``since`` on:
        see :func:`quiz.core.store.stats.recent_tallies`."""
        from quiz.core.store import stats as stats_queries

        return stats_queries.recent_tallies(self, since)

    def has_attempts(self) -> bool:
        """Whether any attempt is stored (one look-up, at any size)."""
        return bool(self.query("SELECT EXISTS (SELECT 1 FROM attempts)")[0][0])

    def count_attempts(self) -> int:
        """How many attempts are stored (from the summary tables, at any size)."""
        return int(self.query("SELECT total(attempts) FROM attempt_groups")[0][0])


    def start_mock(
        self, *, minutes: int, n_questions: int, started_at: datetime | None = None
    ) -> int:
        """Create an unfinished mock session; its attempts refer to the returned id.

        Args:
            minutes: The time limit.
            n_questions: The number of questions planned.
            started_at: Start time; the store's clock when None.

        Returns:
            The session id, to pass as ``Attempt.session_id`` and to :meth:`finish_mock`.
        """
        return self.record_mock(
            MockResult(
                started_at=started_at or self.now(), minutes=minutes, n_questions=n_questions
            )
        )

    def finish_mock(
        self,
        session_id: int,
        *,
        score: float,
        report: Mapping[str, Any],
        finished_at: datetime | None = None,
    ) -> None:
        """Mark a mock session finished with its score and report, committed at once.

        Raises:
            KeyError: no session has this id.
        """
        finite(score, "score")
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE mock_sessions SET finished_at = ?, score = ?, report_json = ? WHERE id = ?",
                (
                    to_utc_text(finished_at or self.now()),
                    score,
                    json.dumps(dict(report)),
                    session_id,
                ),
            )
            if cursor.rowcount != 1:
                raise KeyError(f"no mock session with id {session_id}")

    def record_mock(self, result: MockResult) -> int:
        """Store a whole mock session in one go (finished or not); return its id."""
        if result.score is not None:
            finite(result.score, "score")
        with self.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO mock_sessions "
                "(started_at, finished_at, minutes, n_questions, score, report_json) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    to_utc_text(result.started_at),
                    to_utc_text(result.finished_at) if result.finished_at else None,
                    result.minutes,
                    result.n_questions,
                    result.score,
                    json.dumps(dict(result.report)) if result.report is not None else None,
                ),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def mock_history(self, limit: int | None = None) -> list[MockResult]:
        """Return mock sessions, newest first (``limit`` of them if given)."""
        sql = "SELECT * FROM mock_sessions ORDER BY started_at DESC, id DESC"
        params: list[object] = []
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [self.read_row(row_to_mock, row, "mock session")
                for row in self.query(sql, params)]

    # ----------------------------------------------------------------- flags

    def add_flag(self, flag: Flag) -> int:
        """Store a flag on a question (committed before this returns).

        Raises:
            ValueError: an unknown reason, an empty template id, or a naive time.
        """
        row = flag_to_row(flag)
        with self.transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO flags ({FLAG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def flags(self) -> list[Flag]:
        """Every flag, newest first."""
        rows = self.query("SELECT * FROM flags ORDER BY flagged_at DESC, id DESC")
        return [row_to_flag(row) for row in rows]

    # ----------------------------------------------------------------- FSRS cards

    def get_card(self, template_id: str) -> str | None:
        """Return the serialized FSRS card of a template, or None if never reviewed."""
        rows = self.query("SELECT card_json FROM cards WHERE template_id = ?", (template_id,))
        return str(rows[0][0]) if rows else None

    def cards(self) -> dict[str, str]:
        """Return every stored card as ``{template_id: card_json}``."""
        return {row[0]: row[1] for row in self.query("SELECT template_id, card_json FROM cards")}

    def put_card(self, template_id: str, card_json: str, review: Review | None = None) -> None:
        """Save a template's card and, if given, the review that produced it, atomically.

        Args:
            template_id: The template the card belongs to.
            card_json: The serialized card (opaque to the store).
            review: The review to log; its ``template_id`` must match.

        Raises:
            ValueError: ``review`` is for another template or has a bad rating/state.
        """
        if review is not None:
            if review.template_id != template_id:
                raise ValueError(
                    f"review is for {review.template_id!r}, card is for {template_id!r}"
                )
            if not (1 <= review.rating <= 4 and 0 <= review.state_before <= 3):
                raise ValueError(f"bad rating or state in {review!r}")
        updated_at = to_utc_text(review.reviewed_at if review is not None else self.now())
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO cards (template_id, card_json, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (template_id) DO UPDATE SET "
                "card_json = excluded.card_json, updated_at = excluded.updated_at",
                (template_id, card_json, updated_at),
            )
            if review is not None:
                conn.execute(
                    "INSERT INTO review_log "
                    "(template_id, rating, state_before, reviewed_at, attempt_id) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (
                        template_id,
                        review.rating,
                        review.state_before,
                        updated_at,
                        review.attempt_id,
                    ),
                )

    def reviews(
        self, since: datetime | None = None, template_id: str | None = None
    ) -> list[Review]:
        """Return logged reviews, oldest first, optionally from ``since`` / for one template."""
        clauses: list[str] = []
        params: list[object] = []
        if since is not None:
            clauses.append("reviewed_at >= ?")
            params.append(to_utc_text(since))
        if template_id is not None:
            clauses.append("template_id = ?")
            params.append(template_id)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.query(f"SELECT * FROM review_log {where} ORDER BY reviewed_at, id", params)
        return [self.read_row(row_to_review, row, "review") for row in rows]

    def review_rows(self) -> list[tuple[str, int, str, int]]:
        """Every logged review as ``(template_id, rating, reviewed_at, state_before)``,
        grouped by template and oldest first within one (plain tuples: the optimizer
        reads the whole log, and a 100,000-row log as objects costs seconds). The time
        is the stored UTC text (:func:`quiz.core.clock.from_utc_text` reads it)."""
        return [(str(t), int(r), str(at), int(s)) for t, r, at, s in self.rows(
            "SELECT template_id, rating, reviewed_at, state_before FROM review_log "
            "ORDER BY template_id, reviewed_at, id")]

    def lapses(self, template_id: str) -> int:
        """How often a template's card was forgotten after it was learned: reviews of a
        card in the Review state rated Again (FSRS state 2, rating 1)."""
        return int(self.rows(
            "SELECT count(*) FROM review_log WHERE template_id = ? AND state_before = 2 "
            "AND rating = 1", (template_id,))[0][0])

    # ----------------------------------------------------------------- fitted scheduler

    def fsrs_parameters(self) -> str | None:
        """The FSRS parameters in force as stored (JSON text, opaque to the store), or
        None for FSRS's defaults (never fitted, or reset since)."""
        rows = self.rows("SELECT parameters FROM fsrs_parameters ORDER BY id DESC LIMIT 1")
        return None if not rows or rows[0][0] is None else str(rows[0][0])

    def set_fsrs_parameters(self, parameters: str | None, *, reviews: int = 0,
                            metrics: str | None = None) -> None:
        """Put parameters in force (None: the defaults), kept beside the earlier ones.

        Args:
            parameters: JSON text of the parameters, or None to restore the defaults.
            reviews: How many reviews the fit used.
            metrics: JSON text of the held-out figures (before and after).
        """
        with self.transaction() as conn:
            conn.execute("INSERT INTO fsrs_parameters (set_at, parameters, reviews, metrics) "
                         "VALUES (?, ?, ?, ?)",
                         (to_utc_text(self.now()), parameters, max(0, reviews), metrics))

    # ----------------------------------------------------------------- suspended leeches

    def suspend(self, template_id: str, lapses: int, when: datetime | None = None) -> None:
        """Take a template out of the daily drill (a leech); suspending twice keeps the
        first time and the newer lapse count."""
        with self.transaction() as conn:
            conn.execute("INSERT INTO suspended (template_id, suspended_at, lapses) "
                         "VALUES (?, ?, ?) ON CONFLICT (template_id) DO UPDATE SET "
                         "lapses = excluded.lapses",
                         (template_id, to_utc_text(when or self.now()), max(0, lapses)))

    def unsuspend(self, template_id: str) -> bool:
        """Bring a suspended template back into the drill; False if it was not suspended."""
        with self.transaction() as conn:
            cursor = conn.execute("DELETE FROM suspended WHERE template_id = ?",
                                  (template_id,))
        return cursor.rowcount > 0

    def suspended(self) -> dict[str, tuple[str, int]]:
        """Suspended templates: ``{template_id: (suspended_at UTC text, lapses)}``,
        oldest suspension first."""
        return {str(t): (str(at), int(n)) for t, at, n in self.rows(
            # CAST: a hand-edited count that is not a number reads as 0, not an error.
            "SELECT template_id, suspended_at, CAST(lapses AS INTEGER) FROM suspended "
            "ORDER BY suspended_at, template_id")}

    # ----------------------------------------------------------------- backups
    def backup_if_due(self, backups_dir: Path, keep: int = 7) -> Path | None:
        """Write today's backup if there is none yet, then keep only the newest ``keep``.

        Uses SQLite's online backup API, so the copy is consistent even while other
        connections write. The copy is written under a temporary name and renamed,
        so an interrupted backup never counts as today's. Backups are named
        ``<db stem>-<local date>.db`` and are ordinary quiz histories: ``quiz history
        restore`` puts one back (moving the current history and its -wal/-shm aside).

        Args:
            backups_dir: Folder for the backups; created if missing.
            keep: How many daily backups to keep (at least 1).

        Returns:
            The new backup's path, or None when today's backup already existed.
        """
        return recovery.backup_if_due(self.path, self.today(), backups_dir, keep)
