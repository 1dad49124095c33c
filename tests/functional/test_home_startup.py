"""Start-up order: today's figures come from the history, the template ids and the
cached daily limits, before the settings model (pydantic) and the bank (sympy) load;
what those bring (warnings, the modes that need them) follows as before."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.widgets import OptionList

from quiz import locations
from quiz.core import state
from quiz.core.settings import load_settings
from quiz.tui.screens.home import HomeScreen
from quiz.tui.screens.stats import StatsScreen
from quiz.tui.today import HomeSummary

from .conftest import (
    TEMPLATES,
    WAIT_BOUND_S,
    make_app,
    screen_text,
    seed_history,
    settle,
    started,
    wait_for,
)

if TYPE_CHECKING:
    from quiz.core.state import AppState, DataFolder

SIZE = (120, 40)

PROBE = """
import json, sys
from pathlib import Path
from questions.loader import bank_files
from quiz.tui.app import QuizApp
from quiz.tui.screens.home import HomeScreen

seen = {}
shown = HomeScreen.ready

def ready(self, summary, *, ids_known):
    seen.update(summary=summary is not None and summary.due is not None,
                modules=sorted(m for m in sys.modules
                               if m.split(".")[0] in ("pydantic", "sympy")
                               or m in ("quiz.core.settings", "quiz.tui.data", "solver.engine")))
    shown(self, summary, ids_known=ids_known)

HomeScreen.ready = ready

async def main():
    app = QuizApp(data_dir=sys.argv[1], template_files=lambda folder: bank_files(
        [Path(sys.argv[2])], bundled=False).files)
    async with app.run_test() as pilot:
        while app.bank is None and app.failure is None:
            await pilot.pause(0.02)

import asyncio
asyncio.run(main())
print(json.dumps(seen))
"""


def modules_when_the_figures_show(data_dir: Path) -> dict[str, object]:
    """What a fresh interpreter has imported when the home shows today's figures."""
    out = subprocess.run([sys.executable, "-c", PROBE, str(data_dir), str(TEMPLATES)],
                         capture_output=True, text=True, check=True, timeout=120)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_todays_figures_need_neither_pydantic_nor_sympy(
        data_dir: Path) -> None:
    seed_history(data_dir)
    locations.config_path(data_dir).write_text("new_per_day = 2\n")
    # The first start validates the settings before the figures (nothing cached yet)...
    first = modules_when_the_figures_show(data_dir)
    assert first["summary"] is True
    assert "quiz.core.settings" in first["modules"]  # type: ignore[operator]
    # ...and every start after it shows them before pydantic, sympy or the solver load.
    assert modules_when_the_figures_show(data_dir) == {"summary": True, "modules": []}


def gate_settings(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold the settings model (``with_settings``) until the returned event is set."""

    release = threading.Event()
    real = state.with_settings

    def slow(folder: DataFolder) -> AppState:
        # held until the test releases it (the bound only keeps a failed test's thread
        # from waiting for ever; no assertion depends on it)
        release.wait(WAIT_BOUND_S)
        return real(folder)

    monkeypatch.setattr(state, "with_settings", slow)
    return release


def warm_settings_cache(data_dir: Path) -> None:
    load_settings(locations.config_path(data_dir), locations.settings_cache_path(data_dir))


async def test_the_menu_is_usable_before_the_settings_model_and_waits_for_it(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed_history(data_dir)
    locations.config_path(data_dir).write_text("new_per_day = 2\n")
    warm_settings_cache(data_dir)
    release = gate_settings(monkeypatch)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        home = app.home
        due = home.query_one("#home-due")
        await wait_for(pilot, lambda: "in today's drill" in screen_text(due))
        # the cached limit (2), not the default (10): the figures are the settings'
        assert "2 questions in today's drill" in screen_text(due)
        assert app.state is None
        menu = home.query_one("#home-menu", OptionList)
        assert not menu.get_option("stats").disabled
        try:
            await pilot.press("s")  # stats need the settings: they open once read
            await pilot.pause()  # the key handled; the settings still held
            assert isinstance(app.screen, HomeScreen)
        finally:
            release.set()
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
        # the stats shown (their worker done, its result painted) before the app closes:
        # a result arriving while the app shuts down finds the screen's widgets gone
        await settle(pilot)


async def test_a_bad_settings_file_is_reported_on_the_home_with_or_without_the_cache(
        data_dir: Path) -> None:
    seed_history(data_dir)
    config = locations.config_path(data_dir)
    config.write_text("new_per_day = 2\nreviews_per_day = -1\nlimit = 3\n")
    for start in ("cold", "warm"):
        app = make_app(data_dir)
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot)
            # spaces dropped: a long path may be folded anywhere
            warnings = "".join(screen_text(app.home.query_one("#home-warnings-text")).split())
            assert f"{config}:2:reviews_per_day:" in warnings, start
            assert f"{config}:3:limit:unknownsetting;ignored" in warnings, start
            assert "2 questions in today's drill" in screen_text(
                app.home.query_one("#home-due")), start
        assert locations.settings_cache_path(data_dir).exists()


def test_quitting_before_the_settings_are_read_still_closes_the_history_cleanly(
        tmp_path: Path) -> None:
    """Start-up opens the history before its worker reads the settings model, and a
    person may quit in between: the history must still be marked clean, or the next
    start reads every page of it (0.15 s at 100k answers, seconds at a million)."""
    from quiz.core.store import Store, recovery
    from quiz.tui.app import QuizApp

    app = QuizApp(data_dir=tmp_path)
    store = Store.open(tmp_path / "history.db")
    assert app.history.keep(store)
    assert app.state is None            # the settings were never read
    assert not recovery.closed_cleanly(store.path)
    app.close_store()                   # what `quiz` does when the app ends
    assert recovery.closed_cleanly(store.path)
    app.close_store()                   # twice is harmless
    late = Store.open(tmp_path / "late.db")
    assert not app.history.keep(late)    # opened after the app ended: closed at once
    assert recovery.closed_cleanly(late.path)


async def test_todays_figures_read_in_the_singular_for_one(tmp_path: Path) -> None:
    """One answer, one day, one question: no "1 answers" on the home."""
    app = make_app(tmp_path / "data")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.home.show_summary(HomeSummary(attempts=1, streak=1, recent_accuracy=1.0, due=1,
                                          new_available=1))
        await pilot.pause()
        home = app.home
        assert "(1 answer in all)" in screen_text(home.query_one("#home-accuracy"))
        assert "Streak: 1 day" in screen_text(home.query_one("#home-streak"))
        assert "1 question in today's drill" in screen_text(home.query_one("#home-due"))


async def test_todays_figures_are_shown_before_the_start_up_worker_starts(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The home's figures are read on the event loop right after the first frame, not
    handed back from the worker: when the worker begins (the settings model, the bank)
    the menu is usable already, and the figures are the history's."""
    from quiz.tui.startup import Loader

    seed_history(data_dir)
    locations.config_path(data_dir).write_text("new_per_day = 2\n")
    warm_settings_cache(data_dir)
    seen: list[tuple[bool, str]] = []
    real = Loader.run

    def run(self: Loader, *args: object, **kwargs: object) -> None:
        home = app.home
        seen.append((app.home_ready, screen_text(home.query_one("#home-due"))))
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Loader, "run", run)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert len(seen) == 1
        ready, due = seen[0]
        assert ready
        assert "2 questions in today's drill" in due
