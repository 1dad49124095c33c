"""Settings shared by every test.

Two profiles: the README's `pytest` (local: a few minutes on two cores) and
`QUIZ_FUZZ=full pytest` (CI, `.ci/run`). A property's examples or seeds per profile come
from `tests/unit/helpers.py` (`per_profile`, `seeds`, `FUZZ_EXAMPLES`); the bundled bank,
once per test process, from `helpers.bundled_bank`."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Timing is for bench/, not for tests: a first call that builds and lambdifies a sympy
# derivation may take longer than Hypothesis' default 200 ms deadline on a busy CI
# machine, which would make a correct property "flaky". Tests assert behaviour only.
settings.register_profile("quiz", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("quiz")


WORKERS_PER_CORE = 2
"""``-n auto`` (the README's ``pytest``) starts this many workers per core. A Pilot test
keeps its core busy about 60% of its time: the rest it waits, in Textual's pilot (every
key press and ``pause`` sleeps at least 20 ms until the process looks idle), in the
functional tests' polls, and on the children of the subprocess tests. A second worker
per core runs while the first waits (bench/README.md, "The test suite", third pass);
each costs its own collection (~8 s of CPU)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Workers for ``-n auto``: :data:`WORKERS_PER_CORE` per usable core (None: leave
    it to xdist, which reads ``PYTEST_XDIST_AUTO_NUM_WORKERS`` when set)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return WORKERS_PER_CORE * len(os.sched_getaffinity(0))


# The collector and the test process's own heap. A test process holds pytest's ~250,000
# objects of the collected suite plus every module the tests import, all alive to the
# end; each full (generation-2) collection scans all of them again (~0.2 s of CPU at 4
# workers), and every app a Pilot test starts runs one at start-up (quiz.tui.heap's
# freeze_startup). They are moved out of the collector's sight (gc.freeze) once the
# suite is collected, and again after a test that imported new modules, so that a
# collection scans only what the running test made (bench/README.md, "The test suite",
# fifth pass). Nothing is collected differently, only sooner over less: objects frozen
# while alive are still freed by their reference counts.


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> object:
    """Collect the suite with the collector off (it would scan the growing heap of test
    items some twenty times), then freeze what the collection left alive."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()
        _freeze_what_is_alive()


_MODULES_WHEN_FROZEN = [0]
"""How many modules were imported at the last :func:`_freeze_what_is_alive`."""


def _freeze_what_is_alive() -> None:
    gc.collect()
    gc.freeze()
    _MODULES_WHEN_FROZEN[0] = len(sys.modules)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> object:
    """After a test (its fixtures gone) that imported modules (sympy, Textual's screens,
    the solver: they stay for the rest of the process), freeze again."""
    try:
        return (yield)
    finally:
        if len(sys.modules) != _MODULES_WHEN_FROZEN[0]:
            _freeze_what_is_alive()


@pytest.fixture(scope="session", autouse=True)
def _data_folder_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A command given no ``--data-dir`` (``QUIZ_DATA_DIR`` unset) uses the person's
    own data folder; in the tests that is a temporary one per test process, so that no
    test reads or writes the machine's (a cache another checkout left there included).
    ``XDG_DATA_HOME`` too, for the tests that unset ``QUIZ_DATA_DIR`` to reach the
    platform's default folder (on Linux)."""
    root = tmp_path_factory.mktemp("own")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QUIZ_DATA_DIR", str(root / "quiz"))
        patch.setenv("XDG_DATA_HOME", str(root / "xdg"))
        yield


@pytest.fixture(scope="session")
def _warm_data_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder after a first `quiz templates list`: its compiled-bank cache holds
    the bundled bank (built once per test process)."""
    from quiz.cli import main

    folder = tmp_path_factory.mktemp("warm") / "data"
    saved = os.environ.pop("QUIZ_TEMPLATES", None)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["--data-dir", str(folder), "templates", "list"]) == 0
    finally:
        if saved is not None:
            os.environ["QUIZ_TEMPLATES"] = saved
    return folder


@pytest.fixture
def warm_data_dir(_warm_data_template: Path, tmp_path: Path) -> Path:
    """``tmp_path / "data"``: a data folder whose compiled-bank cache already holds the
    bundled bank, as a person's does after their first command (modes kept: 0700
    folders, 0600 files). For tests of something else than a first start: each command
    then compiles only what the test adds (a cold compile of the bank is about half a
    second of CPU per fresh folder)."""
    target = tmp_path / "data"
    shutil.copytree(_warm_data_template, target)
    return target
