"""Opening the history costs the same at any size: the page check only after an unclean
close (or a change by anything else), the daily backup through its own connection and
checked first, and one transaction per drill answer."""

from __future__ import annotations

import random
import sqlite3
import threading
from datetime import date, timedelta
from pathlib import Path

import pytest
from helpers import bundled_bank

from quiz.core.drill import DrillSession
from quiz.core.settings import Settings
from quiz.core.store import Store, StoreError, recovery
from quiz.core.store import history as history_module


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each open read every page (``diagnose(..., thorough=)``)."""
    seen: list[bool] = []
    real = recovery.diagnose

    def spy(conn: sqlite3.Connection, path: Path, *, thorough: bool = True) -> str | None:
        seen.append(thorough)
        return real(conn, path, thorough=thorough)

    monkeypatch.setattr(history_module, "diagnose", spy)
    return seen


def test_the_page_check_runs_only_when_the_last_close_was_not_clean(
        tmp_path: Path, checks: list[bool]) -> None:
    path = tmp_path / "history.db"
    Store.open(path).close()          # new file: checked
    Store.open(path).close()          # as the clean close left it: not checked
    crashed = Store.open(path)        # not closed: the next open checks
    crashed._conn.execute("BEGIN IMMEDIATE")
    crashed._conn.execute("INSERT INTO meta VALUES ('x', 'y')")
    crashed._conn.execute("COMMIT")
    with Store.open(path):
        pass
    crashed.close()
    with Store.open(path):            # both closed, the last one cleanly
        pass
    conn = sqlite3.connect(path)      # changed by another tool
    conn.execute("INSERT INTO meta VALUES ('z', 'w')")
    conn.commit()
    conn.close()
    with Store.open(path):
        pass
    assert checks == [True, False, False, True, False, True]
    assert (tmp_path / "history.db.clean").stat().st_mode & 0o777 == 0o600


def test_damage_after_a_clean_close_is_still_found_and_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with Store.open(path) as store, store.batch():
        for i in range(300):
            store._conn.execute("INSERT INTO meta VALUES (?, ?)", (f"k{i}", "v" * 200))
    data = bytearray(path.read_bytes())
    for offset in range(2 * 4096, 5 * 4096):
        data[offset] = (data[offset] * 7 + 13) % 256
    path.write_bytes(bytes(data))
    with Store.open(path) as store:
        assert store.recovered_from is not None and "damaged" in (store.recovery_message or "")


def test_the_backup_never_waits_for_the_store_and_is_checked_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "history.db"
    with Store.open(path) as store:
        store._conn.execute("INSERT INTO meta VALUES ('a', 'b')")
        done = threading.Event()
        with store._lock:  # the app is busy with the store in another thread
            def back_up() -> None:
                store.backup_if_due(tmp_path / "b")
                done.set()

            worker = threading.Thread(target=back_up)
            worker.start()
            worker.join(30)
        assert done.is_set()
        assert len(list((tmp_path / "b").glob("*.db"))) == 1

        def damaged(conn: sqlite3.Connection, where: Path) -> None:
            raise StoreError(f"{where}: the history looks damaged (quick_check: x)")

        monkeypatch.setattr(recovery, "quick_check", damaged)
        with pytest.raises(StoreError, match="damaged"):
            recovery.backup_if_due(path, date.today() + timedelta(days=1), tmp_path / "b", 7)
        assert len(list((tmp_path / "b").glob("*.db"))) == 1  # no damaged copy


def test_a_drill_answer_and_its_review_are_one_commit(tmp_path: Path) -> None:
    with Store.open(tmp_path / "history.db") as store:
        s = DrillSession(bundled_bank(), store, Settings(), rng=random.Random(5))
        q = s.next()
        assert q is not None and len(q.variant.parts) == 1
        seen: list[str] = []
        store._conn.set_trace_callback(seen.append)
        s.submit(q.part.key.display)
        store._conn.set_trace_callback(None)
        assert [x for x in seen if x.startswith(("BEGIN", "COMMIT"))] == [
            "BEGIN IMMEDIATE", "COMMIT"]
        assert len(store.attempts()) == 1 and len(store.reviews()) == 1
