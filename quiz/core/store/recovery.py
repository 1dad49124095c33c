"""Opening a history safely, moving unusable files aside, and daily backups.

Opening never throws a user's history away. A file that is not SQLite, is damaged, or
holds someone else's schema is renamed to ``<name>.corrupt-<UTC timestamp>`` together
with its ``-wal``/``-shm`` files. A history from a newer quiz, a reset schema version,
and errors of the environment (a folder, device or dangling link in its place,
permissions, a full disk, a lock held too long) are not corruption: they raise
:class:`~quiz.core.errors.StoreError` and move nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import tempfile
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Final

from questions.private import private_folder
from quiz.core.errors import StoreError
from quiz.core.store.schema import APPLICATION_ID, REQUIRED_TABLES, SCHEMA_VERSION

__all__ = ["backup_if_due", "backup_summary", "check_file", "closed_cleanly", "connect",
           "diagnose", "forget_clean", "is_corruption", "list_backups", "mark_clean",
           "move_aside", "quick_check", "restore_backup", "snapshot"]

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



def check_file(path: Path) -> None:
    """Refuse a history path that SQLite must not open: a folder, a device, a pipe, or a
    link to nothing (SQLite would create the file at the link's target).

    Raises:
        StoreError: with what the path is instead of a history file.
    """
    try:
        if path.is_symlink() and not path.exists():
            raise StoreError(f"{path}: is a link to {os.readlink(path)}, which does not "
                             "exist; remove the link or point it at a history file")
        if path.exists() and not path.is_file():
            kind = "a folder" if path.is_dir() else "not a regular file (a device or pipe)"
            raise StoreError(f"{path}: is {kind}, not a history file; move it away")
    except OSError as exc:
        raise StoreError(f"{path}: cannot look at the history: {exc.strerror or exc}") from exc


def connect(path: Path) -> sqlite3.Connection:
    check_file(path)
    try:
        # Created here, private to the user: SQLite gives its -wal and -shm files the
        # mode of the database file.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"{path}: cannot create the history: {exc.strerror or exc}") from exc
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


def diagnose(conn: sqlite3.Connection, path: Path, *, thorough: bool = True) -> str | None:
    """Return why ``path`` is not a usable quiz history, or None if it is (or is empty).

    Args:
        thorough: run ``PRAGMA quick_check`` (reads every page: seconds for a big
            history); without it, the header, the schema and the versions are checked.

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
        if thorough:
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
        # Not damage: moving it aside would hide the history from the newer quiz too.
        raise StoreError(
            f"{path}: was written by a newer version of quiz (schema {version}; this one "
            f"reads up to {SCHEMA_VERSION}); upgrade quiz to use it"
        )
    if version == 0:
        # Our application_id and tables, but user_version 0: the version was reset (by
        # hand, or a tool). Migration 1 would fail on the existing tables, and guessing
        # the version could apply the wrong migrations: say so, move nothing.
        raise StoreError(
            f"{path}: its schema version was reset to 0 (PRAGMA user_version) although "
            "it holds a quiz history; run quiz history restore to pick a backup"
        )
    missing = REQUIRED_TABLES - objects
    if missing:
        return f"it is missing tables: {', '.join(sorted(missing))}"
    return None



def move_aside(path: Path, when: datetime, label: str = "corrupt") -> Path:
    """Rename ``path`` and its -wal/-shm/-journal files to ``<name>.<label>-<stamp>``."""
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{path.name}.{label}-{stamp}"
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
    if path.exists() or path.is_symlink():
        path.rename(aside)
    return aside


# --------------------------------------------------------------------------- clean close

# Reading every page (PRAGMA quick_check) takes seconds for a history of a million
# answers, so opening skips it when the file is exactly as a quiz that closed it cleanly
# left it: Store.close writes the file's stamp beside it once the last connection is
# gone (its -wal checkpointed and removed), and Store.open removes the mark. After a
# crash, with another quiz still running, or when anything else touched the file (its
# size, times or inode differ), the check runs at open as before; the daily backup
# checks too, before copying.


def _clean_mark(path: Path) -> Path:
    return path.with_name(f"{path.name}.clean")


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino}"


def closed_cleanly(path: Path) -> bool:
    """Whether the history at ``path`` is as a quiz that closed it cleanly left it."""
    try:
        if Path(f"{path}-wal").exists():
            return False
        return _clean_mark(path).read_text(encoding="ascii") == _stamp(path)
    except (OSError, ValueError):
        return False


def forget_clean(path: Path) -> None:
    """Remove the clean-close mark (the history is open: a crash must not look clean)."""
    with contextlib.suppress(OSError):
        _clean_mark(path).unlink(missing_ok=True)


def mark_clean(path: Path) -> None:
    """After the connection closed: mark the file clean if no other quiz has it open."""
    mark = _clean_mark(path)
    try:
        if Path(f"{path}-wal").exists() or not path.is_file():
            return
        partial = mark.with_name(f".{mark.name}.{os.getpid()}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # private
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(_stamp(path))
        os.replace(partial, mark)
    except OSError:  # no mark: the next open checks, nothing worse
        forget_clean(path)


def quick_check(conn: sqlite3.Connection, path: Path) -> None:
    """Run ``PRAGMA quick_check`` on ``conn``.

    Raises:
        StoreError: the history is damaged (say how to restore it), or unreadable.
    """
    try:
        check = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        if not is_corruption(exc):
            raise StoreError(f"{path}: cannot read the history: {exc}") from exc
        check = [(str(exc),)]
    if [tuple(row) for row in check] != [("ok",)]:
        raise StoreError(f"{path}: the history looks damaged (quick_check: {check[0][0]}); "
                         "no backup was written today; quit quiz and run quiz history "
                         "restore to pick a backup")


# --------------------------------------------------------------------------- backups


def _backup_name(path: Path, day: date) -> str:
    return f"{path.stem}-{day.isoformat()}.db"


LARGE_HISTORY: Final = 64 * 1024 * 1024
"""Above this size (about 300,000 answers) fewer daily backups are kept."""
KEEP_LARGE: Final = 3


def backup_if_due(path: Path, today: date, backups_dir: Path, keep: int) -> Path | None:
    """Back up the history at ``path`` unless today's backup exists; prune old ones.

    See :meth:`quiz.core.store.Store.backup_if_due`, which calls this. The copy is read
    through a connection of its own, so the store's connection (and whatever the app is
    doing with it) is never held up; the file is checked first (``quick_check``) so a
    damaged history never replaces a good backup. Safe when several processes start at
    once: each writes its own temporary file and renames it into place (the last rename
    wins, and every candidate is a whole backup). Histories over
    :data:`LARGE_HISTORY` keep at most :data:`KEEP_LARGE` backups.

    Raises:
        StoreError: the backup could not be written, or the history looks damaged (the
            caller reports and goes on).
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    target = backups_dir / _backup_name(path, today)
    written: Path | None = None
    try:
        if path.stat().st_size > LARGE_HISTORY:
            keep = min(keep, KEEP_LARGE)
        if not target.exists():
            private_folder(backups_dir)
            source = sqlite3.connect(str(path), timeout=_BUSY_TIMEOUT_S)
            try:
                quick_check(source, path)
                partial = snapshot(source, backups_dir, f".{target.name}.", ".partial")
            finally:
                source.close()
            try:
                os.replace(partial, target)
            finally:
                partial.unlink(missing_ok=True)
            written = target
        _prune_backups(path, backups_dir, keep)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{backups_dir}: could not write today's backup: {exc}") from exc
    return written


def snapshot(conn: sqlite3.Connection, folder: Path, prefix: str, suffix: str,
             lock: threading.RLock | None = None) -> Path:
    """A consistent copy of the database open on ``conn`` (SQLite's online backup, so
    other connections may keep writing), as one self-contained file (no -wal) private
    to the user, under a fresh temporary name in ``folder``; the caller renames it.

    Raises:
        OSError, sqlite3.Error: the copy could not be written (nothing is left behind).
    """
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)  # mode 0600
    os.close(fd)
    copy = Path(name)
    try:
        dest = sqlite3.connect(str(copy))
        try:
            if lock is None:
                conn.backup(dest)
            else:
                with lock:
                    conn.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")
        finally:
            dest.close()
    except BaseException:
        copy.unlink(missing_ok=True)
        raise
    return copy


def list_backups(path: Path, backups_dir: Path) -> list[Path]:
    """The daily backups of the history at ``path``, oldest first."""
    if not backups_dir.is_dir():
        return []
    pattern = _backup_pattern(path)
    return sorted(entry for entry in backups_dir.iterdir() if pattern.fullmatch(entry.name))


def _backup_pattern(path: Path) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(path.stem)}-(\d{{4}}-\d{{2}}-\d{{2}})\.db")


def _prune_backups(path: Path, backups_dir: Path, keep: int) -> None:
    for old in list_backups(path, backups_dir)[:-keep]:
        old.unlink(missing_ok=True)
    # Temporary files of backups whose process was killed: gone after a day.
    cutoff = time.time() - 86_400
    for stale in backups_dir.glob(".*.partial"):
        try:
            if stale.stat().st_mtime < cutoff:
                stale.unlink(missing_ok=True)
        except OSError:
            continue


# --------------------------------------------------------------------------- restore


def backup_summary(backup: Path) -> tuple[int, str | None]:
    """(attempts, time of the last one) in a backup, read without changing it.

    Raises:
        StoreError: it is not a usable quiz history (named, with the reason).
    """
    conn = _open_read_only(backup)
    try:
        row = conn.execute("SELECT count(*), max(answered_at) FROM attempts").fetchone()
    except sqlite3.Error as exc:
        raise StoreError(f"{backup}: cannot read this backup: {exc}") from exc
    finally:
        conn.close()
    return int(row[0]), row[1]


def _open_read_only(backup: Path) -> sqlite3.Connection:
    check_file(backup)
    if not backup.is_file():
        raise StoreError(f"{backup}: no such backup")
    try:
        conn = sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True,
                               timeout=_BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise StoreError(f"{backup}: cannot open this backup: {exc}") from exc
    try:
        problem = diagnose(conn, backup)
        if problem is None and conn.execute("PRAGMA user_version").fetchone()[0] == 0:
            problem = "it is empty"
        if problem is None:
            check = conn.execute("PRAGMA integrity_check").fetchall()
            if [tuple(r) for r in check] != [("ok",)]:
                problem = f"it is damaged (integrity_check: {check[0][0]})"
    except BaseException:
        conn.close()
        raise
    if problem is not None:
        conn.close()
        raise StoreError(f"{backup}: cannot restore this backup: {problem}")
    return conn


def restore_backup(path: Path, backup: Path, when: datetime) -> Path | None:
    """Make ``backup`` the history at ``path``; the current history is moved aside.

    The backup is checked first (a quiz history, not damaged, not newer than this
    version) and copied beside the history under a temporary name. Only then is the
    current history moved aside *with* its -wal and -shm files (a leftover -wal would
    otherwise be replayed into the restored file, undoing the restore), and the copy
    renamed into place. The backup itself is left as it was.

    Returns:
        Where the replaced history was moved (``<name>.before-restore-<stamp>``), or
        None when there was none.

    Raises:
        StoreError: the backup is unusable, or a file could not be written or moved.
    """
    source = _open_read_only(backup)
    try:
        copy = snapshot(source, path.parent, f".{path.name}.restore-", ".db")
        try:
            present = [p for p in (path, *_sidecars(path)) if p.exists() or p.is_symlink()]
            aside = move_aside(path, when, "before-restore") if present else None
            os.replace(copy, path)
        finally:
            copy.unlink(missing_ok=True)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: could not restore {backup}: {exc}") from exc
    finally:
        source.close()
    return aside
