"""Today's figures from the helper process `quiz` forks before importing Textual
(quiz.tui.early): the same figures the app computes itself, or none at all, and never a
change to the history."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quiz import locations
from quiz.core.errors import StoreError
from quiz.core.settings import load_settings
from quiz.core.state import cached_limits, catalog_for, open_folder
from quiz.core.store import Attempt, Store, recovery
from quiz.tui import early
from quiz.tui.today import home_summary


def history(data: Path, answers: int = 12) -> Path:
    """A data folder with a few answers, closed cleanly, and the settings' limits cached
    (as after any earlier run of the app)."""
    data.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC)
    with Store.open(locations.db_path(data)) as store:
        for i in range(answers):
            store.record_attempt(Attempt(
                template_id="memory/model-state", template_version=1, seed=i, mode="drill",
                answer_text="x", verdict="correct" if i % 3 else "incorrect",
                score=1.0 if i % 3 else 0.0, topic="memory", tags=("rapid-fire-1",),
                seconds=30.0, answered_at=now - timedelta(days=i % 4, minutes=i)))
    locations.config_path(data).write_text("new_per_day = 3\n")
    load_settings(locations.config_path(data), locations.settings_cache_path(data))
    return data


def figures_as_the_app_computes_them(data: Path) -> early.Figures:
    folder = open_folder(data)
    try:
        limits = cached_limits(folder)
        assert limits is not None
        ids = list(catalog_for(folder).ids)
        return early.Figures(not folder.store.has_attempts(), ids,
                             home_summary(folder.store, limits, ids, None))
    finally:
        folder.store.close()


def test_the_helper_computes_the_figures_the_app_would(tmp_path: Path) -> None:
    data = history(tmp_path / "data")
    figures = early.compute(data, [])
    assert figures is not None
    assert figures == figures_as_the_app_computes_them(data)
    assert figures.summary.attempts == 12 and figures.summary.due is not None
    assert not figures.first_run
    # it closed the history as it found it: the app's own open skips the page check
    assert recovery.closed_cleanly(locations.db_path(data))


def test_the_helper_leaves_to_the_app_what_needs_checking_or_the_settings_model(
        tmp_path: Path) -> None:
    assert early.compute(tmp_path / "new", []) is None  # a first start
    assert not (tmp_path / "new").exists()              # and it created nothing

    data = history(tmp_path / "changed")
    locations.config_path(data).write_text("new_per_day = 4\n")  # edited since cached
    assert early.compute(data, []) is None

    data = history(tmp_path / "crashed")
    recovery.forget_clean(locations.db_path(data))  # as a killed app leaves it
    assert early.compute(data, []) is None


def test_the_helper_never_moves_a_damaged_history_aside(tmp_path: Path) -> None:
    """Repairs are the app's to make and to report: the helper stops at the problem."""
    data = history(tmp_path / "data", answers=300)
    path = locations.db_path(data)
    damaged = bytearray(path.read_bytes())
    damaged[:16] = b"not a database!\0"
    path.write_bytes(bytes(damaged))
    recovery.mark_clean(path)  # as if it had been damaged after a clean close
    with pytest.raises(StoreError):
        early.compute(data, [])
    assert path.read_bytes() == bytes(damaged)
    assert sorted(p.name for p in data.iterdir() if "corrupt" in p.name) == []
    with pytest.raises(StoreError):
        Store.open(path, repair=False)
    with Store.open(path) as store:  # the app's own open repairs, and says so
        assert store.recovered_from is not None


FORKED = """
import json, sys, threading
from quiz.tui import early

if sys.argv[2] == "thread":
    threading.Thread(target=threading.Event().wait, args=(2,), daemon=True).start()
started = early.start(sys.argv[1], [])
if started is None:
    print(json.dumps(None))
else:
    figures = started.result()
    again = started.result()
    print(json.dumps({"attempts": figures.summary.attempts, "due": figures.summary.due,
                      "ids": len(figures.template_ids), "again": again}))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the helper is forked on Linux only")
def test_a_forked_helper_answers_once_only_from_one_thread_and_unless_turned_off(
        tmp_path: Path) -> None:
    data = history(tmp_path / "data")
    expected = figures_as_the_app_computes_them(data)

    def run(threads: str, **env: str) -> object:
        out = subprocess.run([sys.executable, "-c", FORKED, str(data), threads],
                             capture_output=True, text=True, check=True, timeout=60,
                             env={**os.environ, **env})
        assert out.stderr == ""
        return json.loads(out.stdout)

    assert run("single") == {"attempts": expected.summary.attempts,
                             "due": expected.summary.due,
                             "ids": len(expected.template_ids), "again": None}
    assert recovery.closed_cleanly(locations.db_path(data))
    assert run("thread") is None  # forking beside another thread could deadlock the child
    assert run("single", QUIZ_HELPER="0") is None  # turned off: the app computes them


@pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="posix_spawn")
def test_an_answer_that_never_comes_is_no_answer() -> None:
    """A child that says nothing in time is stopped and reaped; the app computes."""
    read, write = os.pipe()
    os.set_inheritable(write, True)  # the child holds the pipe open and never writes
    pid = os.posix_spawn("/bin/sleep", ["sleep", "30"], dict(os.environ))
    os.close(write)
    waiting = early.EarlyFigures(pid, read)
    assert waiting.result(timeout=0.05) is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # stopped and already reaped
    assert waiting.result() is None
