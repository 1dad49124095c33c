"""The history's schema: numbered migrations applied by ``PRAGMA user_version``.

A quiz history also carries ``PRAGMA application_id`` so it is recognisable as ours.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from quiz.core.errors import StoreError

__all__ = ["APPLICATION_ID", "MIGRATIONS", "ODD_QUARTER", "REQUIRED_TABLES", "SCHEMA_VERSION",
           "configure", "migrate", "odd_quarter", "quarter_of"]

def quarter_of(column: str) -> str:
    """SQL for the UTC quarter hour of a stored time: ``YYYY-MM-DDTHH:MM`` (minutes 00, 15,
    30 or 45) when the text has the stored format, else the whole text."""
    return (f"(CASE WHEN length({column}) = 32 AND substr({column}, 27) = '+00:00' "
            f"THEN substr({column}, 1, 14) || printf('%02d', "
            f"CAST(substr({column}, 15, 2) AS INTEGER) / 15 * 15) ELSE {column} END)")


def odd_quarter(key: str) -> str:
    """SQL true when ``key`` (an ``attempt_quarters`` key, or :func:`quarter_of` a time) is
    not a quarter hour of a real UTC day, ``YYYY-MM-DDTHH:MM``: a time stored in another
    format (kept whole) or no time at all. Only hand edits make such keys. Migration 5
    indexes exactly these keys, so a query with :data:`ODD_QUARTER` reads them alone, and
    a key it leaves out is safe to read as a time.

    ``date(…, '+0 days')`` normalizes ``2025-02-30`` to ``2025-03-02``: a day that does not
    exist differs from itself.
    """
    return (f"({key} NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-2][0-9]:[0-5][0-9]' "
            f"OR substr({key}, 12, 2) > '23' OR substr({key}, 1, 4) NOT BETWEEN '0002' AND '9998' "
            f"OR date(substr({key}, 1, 10), '+0 days') IS NOT substr({key}, 1, 10))")


ODD_QUARTER: Final = odd_quarter("quarter")
"""The condition of migration 5's index of odd keys (the planner uses the index for a
query with this very condition): frozen, like the migration."""


def _rollup_trigger(name: str, when: str, *, add: str = "", remove: str = "") -> str:
    """A trigger keeping the summary tables of migration 3 in step with attempts."""
    body: list[str] = []
    if remove:
        r = remove
        body += [
            f"UPDATE attempt_groups SET attempts = attempts - 1, "
            f"correct = correct - ({r}.verdict = 'correct'), "
            f"partial = partial - ({r}.verdict = 'partial'), score_sum = score_sum - {r}.score "
            f"WHERE template_id = {r}.template_id AND topic = {r}.topic AND tags = {r}.tags;",
            f"DELETE FROM attempt_groups WHERE template_id = {r}.template_id "
            f"AND topic = {r}.topic AND tags = {r}.tags AND attempts <= 0;",
            f"UPDATE attempt_quarters SET attempts = attempts - 1, "
            f"correct = correct - ({r}.verdict = 'correct') "
            f"WHERE quarter = {quarter_of(r + '.answered_at')};",
            f"DELETE FROM attempt_quarters WHERE quarter = {quarter_of(r + '.answered_at')} "
            "AND attempts <= 0;",
        ]
    if add:
        a = add
        body += [
            f"INSERT INTO attempt_groups VALUES ({a}.template_id, {a}.topic, {a}.tags, 1, "
            f"{a}.verdict = 'correct', {a}.verdict = 'partial', {a}.score) "
            "ON CONFLICT (template_id, topic, tags) DO UPDATE SET "
            "attempts = attempts + 1, correct = correct + excluded.correct, "
            "partial = partial + excluded.partial, score_sum = score_sum + excluded.score_sum;",
            f"INSERT INTO attempt_quarters VALUES ({quarter_of(a + '.answered_at')}, 1, "
            f"{a}.verdict = 'correct') ON CONFLICT (quarter) DO UPDATE SET "
            "attempts = attempts + 1, correct = correct + excluded.correct;",
        ]
    lines = "\n        ".join(body)
    return (f"CREATE TRIGGER attempts_summary_{name} {when} ON attempts BEGIN\n        "
            f"{lines}\n    END;")


APPLICATION_ID: Final = 0x5155495A
"""``PRAGMA application_id`` of a quiz history ("QUIZ" in ASCII)."""

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
    # 2: flags, a learner's report that a question's key looks wrong or its text is
    # unclear, kept with the history for the template's author.
    """
    CREATE TABLE flags (
        id               INTEGER PRIMARY KEY,
        template_id      TEXT NOT NULL CHECK (template_id <> ''),
        template_version INTEGER NOT NULL,
        seed             INTEGER NOT NULL,
        part             INTEGER NOT NULL DEFAULT 1 CHECK (part >= 1),
        reason           TEXT NOT NULL CHECK (reason IN ('wrong', 'unclear')),
        note             TEXT NOT NULL DEFAULT '',
        flagged_at       TEXT NOT NULL,
        attempt_id       INTEGER REFERENCES attempts(id)
    );
    CREATE INDEX flags_by_time ON flags(flagged_at);
    """,
    # 3: summaries kept up to date by triggers, so the home screen and the stats read a
    # few thousand rows at any history size instead of every attempt. attempt_groups:
    # totals per (template, topic, tags); attempt_quarters: per UTC quarter hour (every
    # time zone's midnight falls on one, so local days are exact in any zone; a time
    # not in the stored format is keyed by its whole text).
    f"""
    CREATE TABLE attempt_groups (
        template_id TEXT NOT NULL,
        topic       TEXT NOT NULL,
        tags        TEXT NOT NULL,
        attempts    INTEGER NOT NULL,
        correct     INTEGER NOT NULL,
        partial     INTEGER NOT NULL,
        score_sum   REAL NOT NULL,
        PRIMARY KEY (template_id, topic, tags)
    ) WITHOUT ROWID;
    CREATE TABLE attempt_quarters (
        quarter  TEXT PRIMARY KEY,
        attempts INTEGER NOT NULL,
        correct  INTEGER NOT NULL
    ) WITHOUT ROWID;
    {_rollup_trigger("insert", "AFTER INSERT", add="NEW")}
    {_rollup_trigger("delete", "AFTER DELETE", remove="OLD")}
    {_rollup_trigger("update", "AFTER UPDATE OF template_id, topic, tags, verdict, score, "
                     "answered_at", add="NEW", remove="OLD")}
    INSERT INTO attempt_groups
        SELECT template_id, topic, tags, count(*), total(verdict = 'correct'),
               total(verdict = 'partial'), total(score)
        FROM attempts GROUP BY template_id, topic, tags;
    INSERT INTO attempt_quarters
        SELECT {quarter_of("answered_at")}, count(*), total(verdict = 'correct')
        FROM attempts GROUP BY 1;
    """,
    # 4: guided attempts, answered right after a learn-mode walk-through of the same
    # variant; they never count as cold successes (no FSRS review).
    """
    ALTER TABLE attempts ADD COLUMN guided INTEGER NOT NULL DEFAULT 0
        CHECK (guided IN (0, 1));
    CREATE INDEX attempts_guided ON attempts(template_id) WHERE guided = 1;
    """,
    # 5: indexes that let every screen read a bounded part of a big history: the odd
    # summary keys (so the days of the home screen's streak are read for recent days
    # only), the attempts at one variant (the part a past scenario answer was to), and
    # the review that an attempt gave (the rating an export writes beside it).
    f"""
    CREATE INDEX attempt_quarters_odd ON attempt_quarters(quarter) WHERE {ODD_QUARTER};
    CREATE INDEX attempts_by_variant ON attempts(template_id, seed);
    CREATE INDEX review_log_by_attempt ON review_log(attempt_id);
    """,
    # 6: the scheduler fitted to this learner (quiz schedule optimize): one row per fit
    # or reset, the newest in force (parameters NULL: FSRS's defaults), with the held-out
    # figures that justified it; and the templates suspended from the daily drill as
    # leeches (the lapse count when suspended), until brought back.
    """
    CREATE TABLE fsrs_parameters (
        id         INTEGER PRIMARY KEY,
        set_at     TEXT NOT NULL,
        parameters TEXT,
        reviews    INTEGER NOT NULL DEFAULT 0 CHECK (reviews >= 0),
        metrics    TEXT
    );
    CREATE TABLE suspended (
        template_id  TEXT PRIMARY KEY CHECK (template_id <> ''),
        suspended_at TEXT NOT NULL,
        lapses       INTEGER NOT NULL CHECK (lapses >= 0)
    ) WITHOUT ROWID;
    """,
)
"""Numbered schema migrations; ``MIGRATIONS[i]`` takes ``user_version`` i to i + 1.

Append only: never edit a migration that has shipped, add the next one instead.
"""

SCHEMA_VERSION: Final = len(MIGRATIONS)
REQUIRED_TABLES: Final = frozenset({"attempts", "cards", "review_log", "mock_sessions", "meta"})


def statements(script: str) -> list[str]:
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



def configure(conn: sqlite3.Connection) -> None:
    # WAL: readers never block the writer and a commit is one append + fsync.
    # synchronous=FULL: the WAL is fsynced at every commit, so a committed attempt
    # survives not only a killed process but a power cut too.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")


def migrate(conn: sqlite3.Connection) -> None:
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
            for statement in statements(MIGRATIONS[index]):
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
