"""Opening a history safely, moving unusable files aside, and daily backups.

Opening never throws a user's history away. A file that is not SQLite, is damaged, or
holds someone else's schema (or a newer schema than this version knows) is renamed to
``<name>.corrupt-<UTC timestamp>`` together with its ``-wal``/``-shm`` files. Errors of
the environment (permissions, a full disk, a lock held too long) are not corruption:
they raise :class:`~quiz.core.errors.StoreError` and move nothing.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Final

from quiz.core.errors import StoreError
from quiz.core.store.schema import APPLICATION_ID, REQUIRED_TABLES, SCHEMA_VERSION

__all__ = ["backup_if_due", "connect", "diagnose", "is_corruption", "move_aside"]

_SQLITE_MAGIC: Final = b"SQLite format 3\x00"
# Primary result codes that mean "this file is damaged or not a database". Anything
# else (busy, locked, cannot open, read-only, I/O error, full disk) is the
# environment's fault and must not get the file moved aside.
_SQLITE_CORRUPT: Final = 11
_SQLITE_NOTADB: Final = 26
_BUSY_TIMEOUT_S: Final = 5.0


def is_corruption(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)



def connect(path: Path) -> sqlite3.Connection:
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


def diagnose(conn: sqlite3.Connection, path: Path) -> str | None:
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
        if is_corruption(exc):
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
    missing = REQUIRED_TABLES - objects
    if missing:
        return f"it is missing tables: {', '.join(sorted(missing))}"
    return None



def move_aside(path: Path, when: datetime) -> Path:
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


# --------------------------------------------------------------------------- backups


def _backup_name(path: Path, day: date) -> str:
    return f"{path.stem}-{day.isoformat()}.db"


def backup_if_due(
    conn: sqlite3.Connection,
    lock: threading.RLock,
    path: Path,
    today: date,
    backups_dir: Path,
    keep: int,
) -> Path | None:
    """Back up the history open on ``conn`` unless today's backup exists; prune old ones.

    See :meth:`quiz.core.store.Store.backup_if_due`, which calls this.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    target = backups_dir / _backup_name(path, today)
    written: Path | None = None
    if not target.exists():
        backups_dir.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        dest = sqlite3.connect(str(partial))
        try:
            with lock:
                conn.backup(dest)
            # One self-contained file: no -wal beside the backup.
            dest.execute("PRAGMA journal_mode=DELETE")
        finally:
            dest.close()
        os.replace(partial, target)
        written = target
    _prune_backups(path, backups_dir, keep)
    return written


def _prune_backups(path: Path, backups_dir: Path, keep: int) -> None:
    pattern = re.compile(rf"{re.escape(path.stem)}-(\d{{4}}-\d{{2}}-\d{{2}})\.db")
    dated = sorted(
        (match.group(1), entry)
        for entry in backups_dir.iterdir()
        if (match := pattern.fullmatch(entry.name))
    )
    for _, old in dated[:-keep]:
        old.unlink(missing_ok=True)
