"""Derivation plans kept between processes: ``<data>/cache/drawing.db``.

Drawing a variant needs, of the solver, a few values and a worked derivation; the
engine derives them with sympy (about a second to import), and :mod:`solver.light` runs
them as plans (:class:`solver.plan.Plan`, data) wherever they come from. A one-shot
``quiz ask``/``quiz check`` is a process of its own, so this file keeps the plans (and
the quantity catalogue) a draw derived, and the next draw that needs them (another seed,
another template over the same quantities and conventions) imports no sympy: paired in
bench/bench_solve.py (d), a template's first ask with its plans kept takes about a
fifth of the CPU time it takes deriving them (see bench/README.md).

Below it are the plans shipped with the package (:mod:`solver.shipped`): a plan the
data folder lacks is read from there, and only a plan derived anew is written here, so
that a new data folder's first ``quiz solve``, ``quiz layout`` or draw of a bundled
template's first seeds imports no sympy either.

Everything is kept under a stamp of the solver's code (a file written by other code is
emptied); reading never creates the file, and a missing, damaged, locked or unwritable
one only means deriving with sympy. The file holds data, never code: a plan's code is
compiled only after :mod:`solver.plan`'s whitelist accepted it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable
from functools import cache
from pathlib import Path

from questions.private import private_file
from solver import shipped

FILE = "drawing.db"
"""The file's name in the data folder's cache folder."""

FORMAT = 4
"""The layout of the file; part of its stamp."""

_NO_SYNC = "PRAGMA synchronous = OFF"
"""Written without waiting for the disk (an fsync was a third of a cold ask): a plan lost
or torn by a power cut is read as missing or damaged, and derived again."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plans (key TEXT PRIMARY KEY, data TEXT NOT NULL);
DROP TABLE IF EXISTS templates;
"""


class Memory:
    """A :mod:`solver.light` source kept in this process only (``get``/``put`` of JSON
    texts by key): what a run derives, read back by the same run (the shipped plans'
    writer, :mod:`questions.shipplans`; tests of the file's readers)."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        """The text kept under ``key`` (None: none)."""
        return self.texts.get(key)

    def put(self, key: str, text: str) -> None:
        """Keep ``text`` under ``key``."""
        self.texts[key] = text


class PlanFile:
    """The plans file: a :class:`solver.light` source (``get``/``put`` of JSON texts by
    key), read on demand and written once, after a draw (:meth:`save`)."""

    def __init__(self, file: Path, base: Callable[[str], str | None] | None = None) -> None:
        """``base``: where a text this file lacks is looked for (the compiled bank keeps
        the quantity catalogue) before the plans shipped with the package
        (:mod:`solver.shipped`)."""
        self.file = file
        self.base = base
        self._conn: sqlite3.Connection | None = None
        self._opened = False
        self._pending: dict[str, str] = {}

    def _db(self) -> sqlite3.Connection | None:
        if not self._opened:
            self._opened = True
            try:
                uri = f"{self.file.absolute().as_uri()}?mode=ro"  # never creates it
                conn = sqlite3.connect(uri, uri=True, timeout=1)
                row = conn.execute("SELECT value FROM meta WHERE key = 'code'").fetchone()
            except sqlite3.Error:
                return None
            if row is None or row[0] != _code_digest():
                conn.close()
                return None
            self._conn = conn
        return self._conn

    def get(self, key: str) -> str | None:
        """A derivation plan or the quantity catalogue, as JSON text (None: not kept)."""
        if key in self._pending:
            return self._pending[key]
        db = self._db()
        row = None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                row = db.execute("SELECT data FROM plans WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return str(row[0])
        found = None if self.base is None else self.base(key)
        return shipped.get(key) if found is None else found

    def put(self, key: str, text: str) -> None:
        """Keep a plan (written by :meth:`save`)."""
        self._pending[key] = text

    def save(self) -> None:
        """Write what was kept, in one transaction, and close the file."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if not self._pending:
            return
        with contextlib.suppress(OSError, sqlite3.Error):
            private_file(self.file)  # which questions the user drew: 0600 in a 0700 folder
            conn = sqlite3.connect(self.file, timeout=1)
            try:
                conn.execute(_NO_SYNC)
                with conn:
                    conn.executescript(_SCHEMA)
                    row = conn.execute("SELECT value FROM meta WHERE key = 'code'").fetchone()
                    if row is None or row[0] != _code_digest():
                        conn.execute("DELETE FROM plans")
                        conn.execute("INSERT OR REPLACE INTO meta VALUES ('code', ?)",
                                     (_code_digest(),))
                    conn.executemany("INSERT OR REPLACE INTO plans VALUES (?, ?)",
                                     self._pending.items())
            except sqlite3.DatabaseError as exc:
                conn.close()
                if not isinstance(exc, sqlite3.OperationalError):  # not a database
                    with contextlib.suppress(OSError):
                        self.file.unlink()
                return
            conn.close()
            self._pending = {}


@cache
def _code_digest() -> str:
    """Size and modification time of every module of the solver, and :data:`FORMAT`."""
    parts = [str(FORMAT)]
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                        "solver")
    for rel in shipped.python_files(root):
        st = os.stat(os.path.join(root, rel))
        parts.append(f"solver/{rel}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()
