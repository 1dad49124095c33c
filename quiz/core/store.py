"""The history store: every graded attempt, the FSRS cards, mock sessions (SQLite).

Durability is the point of this module. Each attempt is committed in its own
transaction before :meth:`Store.record_attempt` returns, in WAL mode with
``synchronous=FULL``, so a process killed at any moment loses no answer it has already
reported as saved.

Opening never throws a user's history away. A file that is not SQLite, is damaged, or
holds someone else's schema (or a newer schema than this version knows) is renamed to
``<name>.corrupt-<UTC timestamp>`` together with its ``-wal``/``-shm`` files, a fresh
history is started, and :attr:`Store.recovered_from` / :attr:`Store.recovery_message`
tell the UI what happened. Errors of the environment (permissions, a full disk, a lock
held too long) are not corruption: they raise :class:`StoreError` and move nothing.

Schema changes are numbered migrations applied by ``PRAGMA user_version``; a quiz
history also carries ``PRAGMA application_id`` so it is recognisable as ours.

Times are stored as UTC ISO-8601 text with a fixed format, so text order is time
order. "Days" (streaks, daily backups) are local days: an injected ``tz`` (a
``tzinfo``), or the system's local time zone when ``tz`` is None.

Domain objects (:class:`Attempt`, :class:`Review`, :class:`MockResult`) never leak
``sqlite3.Row``; small converter functions translate between the two.
"""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, TypedDict, cast, get_args

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "MODES",
    "SCHEMA_VERSION",
    "VERDICTS",
    "Attempt",
    "DayAccuracy",
    "GroupStats",
    "MockResult",
    "Mode",
    "Review",
    "Stats",
    "Store",
    "StoreError",
    "TemplateStats",
    "Verdict",
    "from_utc_text",
    "local_day",
    "local_day_start",
    "to_utc_text",
    "utc_now",
]

Verdict = Literal["correct", "partial", "incorrect"]
"""Verdicts that are stored. ``invalid`` (unreadable input) is never an attempt."""

Mode = Literal["drill", "practice", "mock"]
"""The session kind an attempt was made in."""

VERDICTS: Final[frozenset[str]] = frozenset(get_args(Verdict))
MODES: Final[frozenset[str]] = frozenset(get_args(Mode))

APPLICATION_ID: Final = 0x5155495A
"""``PRAGMA application_id`` of a quiz history ("QUIZ" in ASCII)."""

_SQLITE_MAGIC: Final = b"SQLite format 3\x00"
# Primary result codes that mean "this file is damaged or not a database". Anything
# else (busy, locked, cannot open, read-only, I/O error, full disk) is the
# environment's fault and must not get the file moved aside.
_SQLITE_CORRUPT: Final = 11
_SQLITE_NOTADB: Final = 26
_BUSY_TIMEOUT_S: Final = 5.0

MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the initial schema.
    """
    CREATE TABLE mock_sessions (
        id          INTEGER PRIMARY KEY,
        started_at  TEXT NOT NULL,
        finished_at TEXT,
        minutes     INTEGER NOT NULL CHECK (minutes > 0),
        n_questions INTEGER NOT NULL CHECK (n_questions > 0),
        score       REAL,
        report_json TEXT
    );
    CREATE TABLE attempts (
        id               INTEGER PRIMARY KEY,
        template_id      TEXT NOT NULL CHECK (template_id <> ''),
        template_version INTEGER NOT NULL,
        seed             INTEGER NOT NULL,
        mode             TEXT NOT NULL CHECK (mode IN ('drill', 'practice', 'mock')),
        answer_text      TEXT NOT NULL,
        verdict          TEXT NOT NULL CHECK (verdict IN ('correct', 'partial', 'incorrect')),
        score            REAL NOT NULL CHECK (score >= 0 AND score <= 1),
        mistake          TEXT,
        hints_used       INTEGER NOT NULL DEFAULT 0 CHECK (hints_used >= 0),
        hint_cost        REAL NOT NULL DEFAULT 0 CHECK (hint_cost >= 0),
        seconds          REAL NOT NULL CHECK (seconds >= 0),
        answered_at      TEXT NOT NULL,
        topic            TEXT NOT NULL,
        tags             TEXT NOT NULL DEFAULT '[]',
        session_id       INTEGER REFERENCES mock_sessions(id)
    );
    CREATE INDEX attempts_by_time ON attempts(answered_at);
    CREATE INDEX attempts_by_template ON attempts(template_id, answered_at);
    CREATE INDEX attempts_by_session ON attempts(session_id);
    CREATE TABLE cards (
        template_id TEXT PRIMARY KEY,
        card_json   TEXT NOT NULL,
        updated_at  TEXT NOT NULL
    );
    CREATE TABLE review_log (
        id           INTEGER PRIMARY KEY,
        template_id  TEXT NOT NULL,
        rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
        state_before INTEGER NOT NULL CHECK (state_before BETWEEN 0 AND 3),
        reviewed_at  TEXT NOT NULL,
        attempt_id   INTEGER REFERENCES attempts(id)
    );
    CREATE INDEX review_log_by_time ON review_log(reviewed_at);
    CREATE INDEX review_log_by_template ON review_log(template_id, reviewed_at);
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
)
"""Numbered schema migrations; ``MIGRATIONS[i]`` takes ``user_version`` i to i + 1.

Append only: never edit a migration that has shipped, add the next one instead.
"""

SCHEMA_VERSION: Final = len(MIGRATIONS)
_REQUIRED_TABLES: Final = frozenset({"attempts", "cards", "review_log", "mock_sessions", "meta"})


class StoreError(Exception):
    """The history cannot be used for a reason that moving the file aside won't fix."""


# --------------------------------------------------------------------------- time


def utc_now() -> datetime:
    """Return the current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def _require_aware(value: datetime, what: str) -> None:
    # A naive datetime is ambiguous (local? UTC?); refusing it is the only way to keep
    # "stored in UTC" true.
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError(f"{what} must be timezone-aware, got naive {value.isoformat()}")


def to_utc_text(value: datetime) -> str:
    """Format an aware datetime as the fixed-width UTC text stored in the database.

    Raises:
        ValueError: if ``value`` is naive.

    >>> to_utc_text(datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC))
    '2025-01-02T03:04:05.000000+00:00'
    """
    _require_aware(value, "time")
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def from_utc_text(text: str) -> datetime:
    """Parse text written by :func:`to_utc_text` into an aware UTC datetime."""
    return datetime.fromisoformat(text).astimezone(UTC)


def local_day(value: datetime, tz: tzinfo | None = None) -> date:
    """Return the local calendar day of an aware datetime.

    Args:
        value: An aware datetime.
        tz: The local time zone; the system's when None.
    """
    _require_aware(value, "time")
    return value.astimezone(tz).date()


def local_day_start(day: date, tz: tzinfo | None = None) -> datetime:
    """Return the UTC instant at which local ``day`` begins (local midnight).

    Args:
        day: A local calendar day.
        tz: The local time zone; the system's when None.
    """
    if tz is None:
        # A naive datetime passed to astimezone() is taken as system local time,
        # which gets the right UTC offset for that date (DST included).
        start = datetime.combine(day, time()).astimezone()
    else:
        start = datetime.combine(day, time(), tzinfo=tz)
    return start.astimezone(UTC)


# --------------------------------------------------------------------------- domain


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One graded answer. Unreadable (``invalid``) input is never an attempt."""

    template_id: str
    """Id of the question template, e.g. ``"memory/model-state"``."""
    template_version: int
    """Version of the template when the question was asked."""
    seed: int
    """Seed of the variant; with the template id it reproduces the question."""
    mode: Mode
    """Session kind: ``drill``, ``practice`` or ``mock``."""
    answer_text: str
    """The answer exactly as typed."""
    verdict: Verdict
    """``correct``, ``partial`` or ``incorrect``."""
    score: float
    """Credit in [0, 1], hint costs already deducted."""
    topic: str
    """The template's topic."""
    answered_at: datetime
    """When the answer was submitted (aware; stored in UTC)."""
    seconds: float
    """Time taken to answer."""
    mistake: str | None = None
    """Name of the known mistake the answer matched, if any."""
    hints_used: int = 0
    """Hints revealed before answering."""
    hint_cost: float = 0.0
    """Credit the hints cost."""
    tags: tuple[str, ...] = ()
    """The template's tags (e.g. ``rapid-fire-3``)."""
    session_id: int | None = None
    """Mock session the attempt belongs to (see :meth:`Store.start_mock`)."""
    id: int | None = None
    """Row id; None until stored."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Review:
    """One FSRS review of a template's card."""

    template_id: str
    """Template whose card was reviewed."""
    rating: int
    """FSRS rating: 1 Again, 2 Hard, 3 Good, 4 Easy."""
    reviewed_at: datetime
    """When the review happened (aware; stored in UTC)."""
    state_before: int
    """Card state before the review: 0 new, 1 learning, 2 review, 3 relearning."""
    attempt_id: int | None = None
    """The attempt that produced the rating, if any."""
    id: int | None = None
    """Row id; None until stored."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MockResult:
    """One mock interview session; unfinished sessions have ``finished_at`` None."""

    started_at: datetime
    """When the session began."""
    minutes: int
    """Time limit in minutes."""
    n_questions: int
    """Number of questions planned."""
    finished_at: datetime | None = None
    """When it ended; None if abandoned (e.g. the app was killed)."""
    score: float | None = None
    """Overall score as reported by the mock session."""
    report: Mapping[str, Any] | None = None
    """JSON-serializable report written by the mock session."""
    id: int | None = None
    """Row id; None until stored."""


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


# --------------------------------------------------------------------------- converters


def _finite(value: float, what: str, *, low: float = 0.0, high: float = math.inf) -> None:
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{what} must be a finite number in [{low}, {high}], got {value!r}")


def _validate_attempt(attempt: Attempt) -> None:
    if attempt.verdict not in VERDICTS:
        raise ValueError(
            f"verdict {attempt.verdict!r} is not stored: only {sorted(VERDICTS)} are "
            "attempts (invalid input costs no attempt)"
        )
    if attempt.mode not in MODES:
        raise ValueError(f"mode {attempt.mode!r} is not one of {sorted(MODES)}")
    if not attempt.template_id:
        raise ValueError("template_id must not be empty")
    if not -(2**63) <= attempt.seed < 2**63:
        raise ValueError(f"seed {attempt.seed} does not fit in 64 bits")
    _finite(attempt.score, "score", high=1.0)
    _finite(attempt.hint_cost, "hint_cost")
    _finite(attempt.seconds, "seconds")
    if attempt.hints_used < 0:
        raise ValueError(f"hints_used must be >= 0, got {attempt.hints_used}")
    if not all(isinstance(tag, str) for tag in attempt.tags):
        raise ValueError(f"tags must be strings, got {attempt.tags!r}")
    _require_aware(attempt.answered_at, "answered_at")


def _attempt_to_row(attempt: Attempt) -> tuple[object, ...]:
    return (
        attempt.template_id,
        attempt.template_version,
        attempt.seed,
        attempt.mode,
        attempt.answer_text,
        attempt.verdict,
        float(attempt.score),
        attempt.mistake,
        attempt.hints_used,
        float(attempt.hint_cost),
        float(attempt.seconds),
        to_utc_text(attempt.answered_at),
        attempt.topic,
        json.dumps(list(attempt.tags)),
        attempt.session_id,
    )


_ATTEMPT_COLUMNS: Final = (
    "template_id, template_version, seed, mode, answer_text, verdict, score, mistake, "
    "hints_used, hint_cost, seconds, answered_at, topic, tags, session_id"
)


def _row_to_attempt(row: sqlite3.Row) -> Attempt:
    return Attempt(
        id=row["id"],
        template_id=row["template_id"],
        template_version=row["template_version"],
        seed=row["seed"],
        mode=cast(Mode, row["mode"]),
        answer_text=row["answer_text"],
        verdict=cast(Verdict, row["verdict"]),
        score=row["score"],
        mistake=row["mistake"],
        hints_used=row["hints_used"],
        hint_cost=row["hint_cost"],
        seconds=row["seconds"],
        answered_at=from_utc_text(row["answered_at"]),
        topic=row["topic"],
        tags=tuple(json.loads(row["tags"])),
        session_id=row["session_id"],
    )


def _row_to_review(row: sqlite3.Row) -> Review:
    return Review(
        id=row["id"],
        template_id=row["template_id"],
        rating=row["rating"],
        state_before=row["state_before"],
        reviewed_at=from_utc_text(row["reviewed_at"]),
        attempt_id=row["attempt_id"],
    )


def _row_to_mock(row: sqlite3.Row) -> MockResult:
    return MockResult(
        id=row["id"],
        started_at=from_utc_text(row["started_at"]),
        finished_at=from_utc_text(row["finished_at"]) if row["finished_at"] else None,
        minutes=row["minutes"],
        n_questions=row["n_questions"],
        score=row["score"],
        report=json.loads(row["report_json"]) if row["report_json"] is not None else None,
    )


# --------------------------------------------------------------------------- opening


def _is_corruption(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (executescript would auto-commit)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete SQL statement in migration: {buffer.strip()[:60]!r}")
    return statements


def _connect(path: Path) -> sqlite3.Connection:
    try:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, so that a commit
        # happens exactly where durability needs it. check_same_thread=False because
        # the TUI calls the store from worker threads; Store serializes with a lock.
        conn = sqlite3.connect(
            str(path),
            isolation_level=None,
            check_same_thread=False,
            timeout=_BUSY_TIMEOUT_S,
        )
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the history: {exc}") from exc
    conn.row_factory = sqlite3.Row
    return conn


def _sidecars(path: Path) -> list[Path]:
    return [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal")]


def _diagnose(conn: sqlite3.Connection, path: Path) -> str | None:
    """Return why ``path`` is not a usable quiz history, or None if it is (or is empty).

    Raises:
        StoreError: the file could not be read for a reason that is not corruption.
    """
    try:
        size = path.stat().st_size
        if size > 0:
            with path.open("rb") as handle:
                header = handle.read(len(_SQLITE_MAGIC))
            if header != _SQLITE_MAGIC:
                return "it is not an SQLite database"
        check = conn.execute("PRAGMA quick_check").fetchall()
        if [tuple(row) for row in check] != [("ok",)]:
            return f"it is damaged (quick_check: {check[0][0]})"
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        objects = {
            row[0]
            for row in conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        }
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the history: {exc}") from exc
    except sqlite3.DatabaseError as exc:
        if _is_corruption(exc):
            return f"it is damaged ({exc})"
        raise StoreError(f"{path}: cannot read the history: {exc}") from exc

    if version == 0 and not objects:
        return None  # empty: nothing to lose, initialize in place
    if app_id != APPLICATION_ID:
        shown = ", ".join(sorted(objects)[:5]) or "none"
        return f"it is not a quiz history (foreign schema; tables: {shown})"
    if version > SCHEMA_VERSION:
        return (
            f"it was written by a newer version of quiz (schema {version}; "
            f"this version knows up to {SCHEMA_VERSION})"
        )
    missing = _REQUIRED_TABLES - objects
    if missing:
        return f"it is missing tables: {', '.join(sorted(missing))}"
    return None


def _configure(conn: sqlite3.Connection) -> None:
    # WAL: readers never block the writer and a commit is one append + fsync.
    # synchronous=FULL: the WAL is fsynced at every commit, so a committed attempt
    # survives not only a killed process but a power cut too.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")


def _migrate(conn: sqlite3.Connection) -> None:
    # BEGIN IMMEDIATE takes the write lock first, then re-reads the version: two
    # processes opening a fresh history at once must not both run migration 1.
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the history was upgraded to schema {version} by a newer quiz meanwhile"
            )
        for index in range(version, SCHEMA_VERSION):
            for statement in _statements(MIGRATIONS[index]):
                conn.execute(statement)
            # PRAGMA values cannot be bound parameters; both are our own integers.
            conn.execute(f"PRAGMA user_version = {index + 1:d}")
        if version < SCHEMA_VERSION:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _move_aside(path: Path, when: datetime) -> Path:
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{path.name}.corrupt-{stamp}"
    aside = path.with_name(base)
    counter = 1
    while aside.exists() or any(p.exists() for p in _sidecars(aside)):
        aside = path.with_name(f"{base}-{counter}")
        counter += 1
    # Side files first: if we stopped between the two steps, a fresh database at
    # `path` must never pick up the old -wal and replay foreign pages into itself.
    # Each keeps its suffix, so the moved set still opens together in sqlite3.
    for side, new_side in zip(_sidecars(path), _sidecars(aside), strict=True):
        if side.exists():
            side.rename(new_side)
    path.rename(aside)
    return aside


# --------------------------------------------------------------------------- the store


class Store:
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
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        """The history file."""
        self.now = now
        """The clock (returns aware datetimes); injectable for tests."""
        self.tz = tz
        """The local time zone for "days"; None means the system's."""
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
    ) -> Store:
        """Open (creating and migrating as needed) the history at ``path``.

        An unusable file (not SQLite, damaged, a foreign schema, or a schema newer
        than this version knows) is moved aside, never deleted; see the module
        docstring.

        Args:
            path: The database file. Its folder is created if missing.
            now: Clock returning an aware datetime; defaults to :func:`utc_now`.
            tz: Local time zone for days (streaks, backups); None: the system's.

        Returns:
            The open store; check :attr:`recovered_from` after opening.

        Raises:
            StoreError: the file cannot be opened or read for a reason unrelated to
                its content (permissions, I/O, a lock held too long).
        """
        clock = now or utc_now
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{path.parent}: cannot create the data folder: {exc}") from exc
        recovered_from: Path | None = None
        message: str | None = None
        for _ in range(2):
            conn = _connect(path)
            try:
                problem = _diagnose(conn, path)
                if problem is None:
                    try:
                        _configure(conn)
                        _migrate(conn)
                    except sqlite3.DatabaseError as exc:
                        if not _is_corruption(exc):
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
            if recovered_from is not None:
                break
            try:
                recovered_from = _move_aside(path, clock())
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
        """Close the connection (checkpointing the WAL). Safe to call twice."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    @property
    def schema_version(self) -> int:
        """The ``user_version`` of the open database."""
        return int(self._query("PRAGMA user_version")[0][0])

    def today(self) -> date:
        """Return the current local day according to the store's clock and zone."""
        return local_day(self.now(), self.tz)

    def integrity_ok(self) -> bool:
        """Run ``PRAGMA integrity_check`` (slow on big files; fine for a history)."""
        rows = self._query("PRAGMA integrity_check")
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
        _validate_attempt(attempt)
        with self._transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO attempts ({_ATTEMPT_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _attempt_to_row(attempt),
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
        rows = self._query(f"SELECT * FROM attempts {where} ORDER BY answered_at, id", params)
        return [_row_to_attempt(row) for row in rows]

    def stats(self, *, recent: int = 50, weakest: int = 5) -> Stats:
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
        rows = self._query(
            "SELECT template_id, verdict, score, answered_at, topic, tags "
            "FROM attempts ORDER BY answered_at, id"
        )
        by_topic: dict[str, list[tuple[bool, float]]] = {}
        by_tag: dict[str, list[tuple[bool, float]]] = {}
        by_template: dict[str, list[float]] = {}
        by_day: dict[date, list[bool]] = {}
        verdicts: list[str] = []
        scores: list[float] = []
        for row in rows:
            correct = row["verdict"] == "correct"
            score = float(row["score"])
            verdicts.append(row["verdict"])
            scores.append(score)
            by_topic.setdefault(row["topic"], []).append((correct, score))
            for tag in json.loads(row["tags"]):
                by_tag.setdefault(tag, []).append((correct, score))
            by_template.setdefault(row["template_id"], []).append(score)
            day = local_day(from_utc_text(row["answered_at"]), self.tz)
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
            "streak_days": self._streak(set(by_day)),
            "recent_accuracy": last.count("correct") / len(last) if last else None,
            "weakest_templates": candidates[:weakest],
            "accuracy_by_day": [
                (day.isoformat(), len(oks), sum(oks) / len(oks))
                for day, oks in sorted(by_day.items())
            ],
        }

    def _streak(self, days: set[date]) -> int:
        # The streak is still alive if the user has not practised yet today: it
        # counts back from today, or from yesterday when today is still empty.
        day = self.today()
        if day not in days:
            day -= timedelta(days=1)
        streak = 0
        while day in days:
            streak += 1
            day -= timedelta(days=1)
        return streak

    # ----------------------------------------------------------------- mock sessions

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
        _finite(score, "score")
        with self._transaction() as conn:
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
            _finite(result.score, "score")
        with self._transaction() as conn:
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
        return [_row_to_mock(row) for row in self._query(sql, params)]

    # ----------------------------------------------------------------- FSRS cards

    def get_card(self, template_id: str) -> str | None:
        """Return the serialized FSRS card of a template, or None if never reviewed."""
        rows = self._query("SELECT card_json FROM cards WHERE template_id = ?", (template_id,))
        return str(rows[0][0]) if rows else None

    def cards(self) -> dict[str, str]:
        """Return every stored card as ``{template_id: card_json}``."""
        return {row[0]: row[1] for row in self._query("SELECT template_id, card_json FROM cards")}

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
        with self._transaction() as conn:
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
        rows = self._query(f"SELECT * FROM review_log {where} ORDER BY reviewed_at, id", params)
        return [_row_to_review(row) for row in rows]

    # ----------------------------------------------------------------- meta

    def get_meta(self, key: str) -> str | None:
        """Return a value from the ``meta`` key/value table, or None."""
        rows = self._query("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        """Set a value in the ``meta`` key/value table (committed at once)."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # ----------------------------------------------------------------- backups

    def _backup_name(self, day: date) -> str:
        return f"{self.path.stem}-{day.isoformat()}.db"

    def backup_if_due(self, backups_dir: Path, keep: int = 7) -> Path | None:
        """Write today's backup if there is none yet, then keep only the newest ``keep``.

        Uses SQLite's online backup API, so the copy is consistent even while other
        connections write. The copy is written under a temporary name and renamed,
        so an interrupted backup never counts as today's. Backups are named
        ``<db stem>-<local date>.db`` and are ordinary quiz histories: restoring is
        copying one over the history file.

        Args:
            backups_dir: Folder for the backups; created if missing.
            keep: How many daily backups to keep (at least 1).

        Returns:
            The new backup's path, or None when today's backup already existed.
        """
        if keep < 1:
            raise ValueError(f"keep must be >= 1, got {keep}")
        target = backups_dir / self._backup_name(self.today())
        written: Path | None = None
        if not target.exists():
            backups_dir.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".partial")
            partial.unlink(missing_ok=True)
            dest = sqlite3.connect(str(partial))
            try:
                with self._lock:
                    self._conn.backup(dest)
                # One self-contained file: no -wal beside the backup.
                dest.execute("PRAGMA journal_mode=DELETE")
            finally:
                dest.close()
            os.replace(partial, target)
            written = target
        self._prune_backups(backups_dir, keep)
        return written

    def _prune_backups(self, backups_dir: Path, keep: int) -> None:
        pattern = re.compile(rf"{re.escape(self.path.stem)}-(\d{{4}}-\d{{2}}-\d{{2}})\.db")
        dated = sorted(
            (match.group(1), entry)
            for entry in backups_dir.iterdir()
            if (match := pattern.fullmatch(entry.name))
        )
        for _, old in dated[:-keep]:
            old.unlink(missing_ok=True)
