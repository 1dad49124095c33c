"""Hostile histories and faults of the environment: every one ends in a one-line
message (exit 2 from the CLI, a StoreError the TUI shows), or works; none loses an
acknowledged answer or is silently undone.

Running as root, permission bits do not stop a read or a write, so read-only and
unreadable files are simulated there with what SQLite would then report.
"""

from __future__ import annotations

import io
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from helpers import cpu_guard, run_cli

from quiz.core.errors import StoreError
from quiz.core.state import open_light
from quiz.core.store import SCHEMA_VERSION, Attempt, Store, recovery

ROOT = os.geteuid() == 0


@pytest.fixture
def data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    folder = tmp_path / "data"
    monkeypatch.setenv("QUIZ_DATA_DIR", str(folder))
    monkeypatch.setattr(recovery, "_BUSY_TIMEOUT_S", 0.2)  # a held lock fails fast
    return folder


def attempt(n: int) -> Attempt:
    return Attempt(template_id="memory/model-state", template_version=1, seed=n,
                   mode="drill", answer_text=str(n), verdict="correct", score=1.0,
                   topic="memory", answered_at=datetime.now(UTC), seconds=1.0)


def history_with(path: Path, n: int) -> None:
    with Store.open(path) as store:
        for i in range(n):
            store.record_attempt(attempt(i))


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with cpu_guard():
        return run_cli(capsys, *argv)


def assert_one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = cli(capsys, *argv)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("quiz: "), err
    assert "internal error" not in err and "Traceback" not in err
    return err


# ---------------------------------------------------------------- opening

def a_folder(path: Path) -> None:
    path.mkdir(parents=True)


def a_dangling_link(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.symlink_to(path.parent / "gone.db")


def a_fifo(path: Path) -> None:
    path.parent.mkdir(parents=True)
    os.mkfifo(path)


def a_null_device(path: Path) -> None:
    path.parent.mkdir(parents=True)
    if not ROOT:
        pytest.skip("making a device file needs root")
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is


def a_reset_version(path: Path) -> None:
    history_with(path, 2)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 0")


def a_newer_version(path: Path) -> None:
    history_with(path, 2)
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")


def data_dir_is_a_file(path: Path) -> None:
    path.parent.write_text("not a folder")


OPEN_FAULTS: list[Callable[[Path], None]] = [a_folder, a_dangling_link, a_fifo,
                                             a_null_device, a_reset_version, a_newer_version,
                                             data_dir_is_a_file]


@pytest.mark.parametrize("make", OPEN_FAULTS, ids=[m.__name__ for m in OPEN_FAULTS])
def test_a_history_that_cannot_be_opened_is_one_line_and_exit_2(
    data: Path, make: Callable[[Path], None], capsys: pytest.CaptureFixture[str],
) -> None:
    db = data / "history.db"
    make(db)
    kind = db.lstat().st_mode if db.is_symlink() or db.exists() else None
    with pytest.raises(StoreError):
        open_light(data)
    assert_one_line_exit_2(capsys, "stats")
    assert_one_line_exit_2(capsys, "drill", "--plain")
    if data.is_dir():  # nothing moved aside or replaced
        assert not [p for p in data.iterdir() if "corrupt" in p.name]
        assert (db.lstat().st_mode if kind is not None else None) == kind


def test_a_newer_history_says_upgrade_and_is_not_moved(
    data: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    a_newer_version(data / "history.db")
    err = assert_one_line_exit_2(capsys, "stats")
    assert "newer version of quiz" in err and "upgrade quiz" in err
    assert not list(data.glob("*.corrupt-*"))


def read_only_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    """What SQLite reports for a read-only file or folder, without root's powers."""
    real = sqlite3.connect

    def connect(database: str, *args: Any, **kw: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = real(f"{Path(database).resolve().as_uri()}?mode=ro", *args,
                                        uri=True, **kw)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)


def test_a_read_only_history_is_one_line_and_exit_2(
    data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    history_with(data / "history.db", 2)
    if ROOT:
        read_only_connect(monkeypatch)
    else:
        (data / "history.db").chmod(0o400)
        data.chmod(0o500)
    try:
        code, _, err = cli(capsys, "stats")  # reading may work; if not, one line
        assert code == 0 or (code == 2 and err.count("\n") == 1), err
        monkeypatch.setattr("sys.stdin", io.StringIO("42 TB\n:quit\n"))
        code, out, err = cli(capsys, "drill", "--plain")
        if code == 0:  # it opened: the answer could not be saved, and it was kept
            assert "Could not save your answer" in out and "Not saved: '42 TB'" in out
        else:
            assert code == 2 and err.count("\n") == 1 and "internal" not in err, err
    finally:
        data.chmod(0o700)


def test_an_unreadable_history_is_one_line_and_exit_2(
    data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    history_with(data / "history.db", 2)
    if ROOT:
        def refuse(*args: Any, **kw: Any) -> sqlite3.Connection:
            raise sqlite3.OperationalError("unable to open database file")

        monkeypatch.setattr(sqlite3, "connect", refuse)
    else:
        (data / "history.db").chmod(0)
    assert_one_line_exit_2(capsys, "stats")
    assert not list(data.glob("*.corrupt-*"))


def test_a_full_disk_at_open_is_one_line_and_exit_2(
    data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from quiz.core.store import history

    def full(conn: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(history, "migrate", full)
    err = assert_one_line_exit_2(capsys, "stats")
    assert "disk is full" in err


@pytest.fixture
def held_lock(data: Path) -> Iterator[sqlite3.Connection]:
    """Another process holding the history's write lock (and readers out, exclusive)."""
    history_with(data / "history.db", 2)
    other = sqlite3.connect(data / "history.db", isolation_level=None)
    other.execute("PRAGMA journal_mode=DELETE")  # so EXCLUSIVE shuts out readers too
    other.execute("BEGIN EXCLUSIVE")
    yield other
    other.execute("ROLLBACK")
    other.close()


def test_a_lock_held_at_open_is_one_line_and_exit_2(
    held_lock: sqlite3.Connection, capsys: pytest.CaptureFixture[str],
) -> None:
    err = assert_one_line_exit_2(capsys, "stats")
    assert "locked" in err


# ---------------------------------------------------------------- writing

def test_write_failures_mid_session_are_store_errors_and_leave_it_usable(data: Path) -> None:
    history_with(data / "history.db", 1)
    with Store.open(data / "history.db") as store:
        conn = store._conn
        conn.execute("PRAGMA query_only = ON")  # as a read-only file would refuse
        with pytest.raises(StoreError, match="could not save"):
            store.record_attempt(attempt(1))
        conn.execute("PRAGMA query_only = OFF")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")  # a full disk
        with pytest.raises(StoreError, match="full"):
            for i in range(2, 200):
                store.record_attempt(attempt(i))
        conn.execute("PRAGMA max_page_count = 1000000")
        assert not conn.in_transaction
        store.record_attempt(attempt(999))  # usable again: the retry works
        assert store.integrity_ok()


def test_a_lock_held_mid_session_is_a_store_error(data: Path) -> None:
    with Store.open(data / "history.db") as store:
        other = sqlite3.connect(data / "history.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match="locked"):
            store.record_attempt(attempt(1))
        other.execute("ROLLBACK")
        other.close()
        store.record_attempt(attempt(1))
        assert len(store.attempts()) == 1


def test_the_plain_drill_keeps_an_answer_it_could_not_save_and_retries(
    data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A write failure once crashed `quiz drill --plain` and lost the typed answer."""
    failures = iter([True, True])
    real = Store.record_attempt

    def flaky(self: Store, a: Attempt) -> int:
        if next(failures, False):
            raise StoreError(f"{self.path}: could not save to the history: disk I/O error")
        return real(self, a)

    monkeypatch.setattr(Store, "record_attempt", flaky)
    monkeypatch.setattr("sys.stdin", io.StringIO("42 TB\n\n\n:quit\n"))
    code, out, err = cli(capsys, "drill", "--plain")
    assert code == 0, err
    assert out.count("Could not save your answer") == 2
    assert "1 answered" in out
    with Store.open(data / "history.db") as store:
        assert [a.answer_text for a in store.attempts()] == ["42 TB"]


# ---------------------------------------------------------------- backups

def test_a_backup_failure_does_not_stop_start_up(data: Path) -> None:
    data.mkdir()
    (data / "backups").write_text("a file where the backups folder goes")
    state = open_light(data)
    assert any("could not write today's backup" in w for w in state.warnings)
    state.store.record_attempt(attempt(1))
    state.store.close()


def test_a_backup_sqlite_error_does_not_stop_start_up(
    data: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    history_with(data / "history.db", 1)

    def broken(*args: Any, **kw: Any) -> sqlite3.Connection:
        raise sqlite3.OperationalError("disk I/O error")

    real_open = Store.open

    def open_then_break(*args: Any, **kw: Any) -> Store:
        store = real_open(*args, **kw)
        monkeypatch.setattr(sqlite3, "connect", broken)
        return store

    monkeypatch.setattr(Store, "open", open_then_break)
    state = open_light(data)
    assert any("disk I/O error" in w for w in state.warnings)
    state.store.close()


def test_eight_first_starts_of_a_day_at_once_all_start(data: Path) -> None:
    """Concurrent first starts once crashed 1-3 of 8 processes on a shared .partial."""
    history_with(data / "history.db", 3)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []
    stores: list[Store] = []

    def start() -> None:
        try:
            store = Store.open(data / "history.db")
            stores.append(store)
            barrier.wait()
            store.backup_if_due(data / "backups")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for store in stores:
        store.close()
    assert errors == []
    backups = list((data / "backups").iterdir())
    assert len(backups) == 1 and backups[0].suffix == ".db"
    with Store.open(backups[0]) as copy:
        assert copy.integrity_ok() and len(copy.attempts()) == 3


# ---------------------------------------------------------------- restore

def test_restore_puts_a_backup_in_place_even_with_a_leftover_wal(
    data: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Copying a backup over the file was once silently undone by a leftover -wal."""
    history_with(data / "history.db", 3)
    with Store.open(data / "history.db") as store:
        store.backup_if_due(data / "backups")
    running = Store.open(data / "history.db")  # another quiz, still writing
    for i in range(3, 8):
        running.record_attempt(attempt(i))
    assert (data / "history.db-wal").stat().st_size > 0
    code, out, _ = cli(capsys, "history", "restore")
    assert code == 0 and "3 attempt(s)" in out
    name = next((data / "backups").glob("*.db")).name
    code, out, err = cli(capsys, "history", "restore", name)
    assert code == 0, err
    assert "Restored" in out and "before-restore" in out
    with Store.open(data / "history.db") as store:
        assert len(store.attempts()) == 3 and store.integrity_ok()
    running.close()
    aside = Path(out.split("kept as ", 1)[1].strip().rstrip("."))
    with Store.open(aside) as old:  # the replaced history kept every attempt
        assert len(old.attempts()) == 8
    code, out, _ = cli(capsys, "stats", "--json")
    assert '"attempts": 3' in out


def test_restore_refuses_a_damaged_backup_and_changes_nothing(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    history_with(data / "history.db", 2)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    assert_one_line_exit_2(capsys, "history", "restore", str(junk))
    assert_one_line_exit_2(capsys, "history", "restore", "2001-01-01")
    assert not list(data.glob("*.before-restore-*"))
    with Store.open(data / "history.db") as store:
        assert len(store.attempts()) == 2


# ---------------------------------------------------------------- stats

def test_stats_says_when_it_moved_a_damaged_history_aside(
    data: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    data.mkdir()
    (data / "history.db").write_bytes(b"this is not a database at all" * 100)
    code, _out, err = cli(capsys, "stats")
    assert code == 0 and "could not be used" in err and "fresh history" in err


def test_a_malformed_row_is_named_not_fatal(
    data: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    history_with(data / "history.db", 3)
    with sqlite3.connect(data / "history.db") as conn:
        conn.execute("UPDATE attempts SET answered_at = 'garbage' WHERE id = 2")
        conn.execute("UPDATE attempts SET tags = '{' WHERE id = 3")
    code, out, err = cli(capsys, "stats", "--json")
    assert code == 0 and '"attempts": 1' in out
    assert "attempt 2" in err and "attempt 3" in err
    err = assert_one_line_exit_2(capsys, "history", "export")
    assert "attempt 3" in err  # ordered by time: "garbage" sorts last


# ---------------------------------------------------------------- privacy

def test_history_and_backups_are_private_to_the_user(data: Path) -> None:
    state = open_light(data)
    state.store.record_attempt(attempt(1))
    mode = stat.S_IMODE
    assert mode(data.stat().st_mode) == 0o700
    assert mode((data / "history.db").stat().st_mode) == 0o600
    assert mode((data / "history.db-wal").stat().st_mode) == 0o600
    assert mode((data / "backups").stat().st_mode) == 0o700
    assert all(mode(p.stat().st_mode) == 0o600 for p in (data / "backups").iterdir())
    state.store.close()
