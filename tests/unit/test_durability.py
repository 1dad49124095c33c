"""A killed process loses no attempt it has reported as saved (quiz.core.store).

These tests run a real, separate Python process that records attempts one by one,
printing ``ok N`` after each ``record_attempt`` returns, and kill it with SIGKILL (no
cleanup, no atexit, no close) while it keeps writing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from quiz.core.store import Store

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

CHILD = """
import sys
from datetime import UTC, datetime
from pathlib import Path

from quiz.core.store import Attempt, Store

store = Store.open(Path(sys.argv[1]))
first = int(sys.argv[2])
n = first
while True:
    store.record_attempt(
        Attempt(
            template_id="memory/model-state",
            template_version=1,
            seed=n,
            mode="drill",
            answer_text=str(n),
            verdict="correct" if n % 3 else "incorrect",
            score=1.0 if n % 3 else 0.0,
            topic="memory",
            answered_at=datetime.now(UTC),
            seconds=1.0,
        )
    )
    print(f"ok {n}", flush=True)
    n += 1
"""


def run_and_kill(db: Path, first: int, kill_after: int) -> list[int]:
    """Record attempts from seed ``first`` in a child; SIGKILL it after ``kill_after``.

    Returns:
        Every seed the child reported as committed, including lines that were
        already in the pipe when the kill landed.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(first)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # If the child hangs or dies early, don't hang the test suite.
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    printed: list[int] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            printed.append(int(line.split()[1]))
            if len(printed) >= kill_after:
                break
        os.kill(proc.pid, signal.SIGKILL)
        rest, errors = proc.communicate()
    finally:
        watchdog.cancel()
    printed.extend(int(line.split()[1]) for line in rest.splitlines() if line.startswith("ok "))
    assert len(printed) >= kill_after, f"child stopped early: {errors}"
    assert proc.returncode == -signal.SIGKILL, errors
    return printed


def test_killed_session_loses_no_attempt(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    printed = run_and_kill(db, first=1, kill_after=5)
    assert printed[:5] == [1, 2, 3, 4, 5]

    with Store.open(db) as store:
        assert store.recovered_from is None  # a kill is not corruption
        assert store.integrity_ok()
        seeds = [a.seed for a in store.attempts()]
    assert set(printed) <= set(seeds)
    # Commits are sequential: whatever made it is a gap-free prefix (the attempt
    # in flight at the kill may or may not have been committed).
    assert seeds == list(range(1, len(seeds) + 1))


def test_repeated_kills_keep_every_reported_attempt(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    reported: set[int] = set()
    first = 1
    for kill_after in (3, 17, 8):
        reported |= set(run_and_kill(db, first=first, kill_after=kill_after))
        with Store.open(db) as store:
            assert store.recovered_from is None
            assert store.integrity_ok()
            seeds = {a.seed for a in store.attempts()}
        assert reported <= seeds
        first = max(seeds) + 1
    assert not list(tmp_path.glob("*.corrupt-*"))
