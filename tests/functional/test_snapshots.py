"""SVG snapshots of every screen at 80x24 and 120x40.

Deterministic by construction: a fresh data folder, the fixed test bank, seed 0, a
fixed "now" and a clock that does not move. Before each screenshot the inputs stop
blinking and the toasts are cleared. Update with ``pytest --snapshot-update`` and look
at every changed SVG before committing it.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from quiz import locations
from quiz.tui.app import QuizApp

from .conftest import (
    FakeClock,
    answer,
    make_app,
    question_shown,
    seed_cards,
    seed_history,
    settle,
    started,
    wait_for,
)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
Snap = Callable[..., bool]
Step = Callable[[Pilot[Any]], Awaitable[None]]


def steps(*actions: Step, welcome: bool = False) -> Step:
    """A run_before: start the app, run the actions, then freeze what moves."""

    async def run(pilot: Pilot[Any]) -> None:
        await started(pilot, welcome=welcome)
        for action in actions:
            await action(pilot)
        await settle(pilot)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        pilot.app.clear_notifications()
        await pilot.pause()

    return run


def press(*keys: str) -> Step:
    async def run(pilot: Pilot[Any]) -> None:
        await pilot.press(*keys)
        await settle(pilot)

    return run


def until_screen(name: str) -> Step:
    async def run(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == name)
        await settle(pilot)

    return run


async def a_question(pilot: Pilot[Any]) -> None:
    await question_shown(pilot)


def typed(text: str) -> Step:
    async def run(pilot: Pilot[Any]) -> None:
        await question_shown(pilot)
        await answer(pilot, text)

    return run


def snap(snap_compare: Snap, app: QuizApp, size: tuple[int, int], before: Step) -> None:
    assert snap_compare(app, terminal_size=size, run_before=before)


# ---------------------------------------------------------------- home and friends


@pytest.mark.parametrize("size", SIZES)
def test_welcome(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size, steps(welcome=True))


@pytest.mark.parametrize("size", SIZES)
def test_home(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    seed_history(data_dir)
    snap(snap_compare, make_app(data_dir), size, steps())


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size, steps(press("question_mark")))


# ---------------------------------------------------------------- questions


@pytest.mark.parametrize("size", SIZES)
def test_question_formula(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snap_compare, app, size, steps(a_question))


@pytest.mark.parametrize("size", SIZES)
def test_drill_first_question(snap_compare: Snap, data_dir: Path,
                              size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size, steps(press("d"), a_question))


@pytest.mark.parametrize("size", SIZES)
def test_question_choices(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="rapid-fire-4")
    snap(snap_compare, app, size, steps(a_question))


@pytest.mark.parametrize("size", SIZES)
def test_question_table(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="rapid-fire-3")
    snap(snap_compare, app, size, steps(a_question))


@pytest.mark.parametrize("size", SIZES)
def test_question_hint_and_preview(snap_compare: Snap, data_dir: Path,
                                   size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    snap(snap_compare, app, size, steps(a_question, press("ctrl+g", *"1.2 TB")))


@pytest.mark.parametrize("size", SIZES)
def test_question_invalid(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size, steps(press("d"), typed("import os")))


@pytest.mark.parametrize("size", SIZES)
def test_feedback(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snap_compare, app, size, steps(typed("2*P*D"), until_screen("FeedbackScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_done_for_today(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    seed_cards(data_dir, ["compute/flops-formula", "memory/model-state",
                          "parallelism/activations-untouched"])
    locations.config_path(data_dir).write_text("new_per_day = 0\n")
    snap(snap_compare, make_app(data_dir), size, steps(press("d"), until_screen("DoneScreen")))


async def drill_with_a_miss(pilot: Pilot[Any]) -> None:
    """Two new questions: the first missed, then both right; the drill ends."""
    from quiz.tui.screens.feedback import FeedbackScreen

    random.seed(0)  # FSRS fuzzes review intervals with the global random

    screen = await question_shown(pilot)
    for asked, right in enumerate((False, True, True), 1):
        await wait_for(pilot, lambda: screen.asked == asked and not screen.busy)  # noqa: B023
        assert screen.question is not None
        await answer(pilot, screen.question.part.key.display if right else "1 B")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FeedbackScreen))
        await pilot.press("enter")
    await until_screen("DoneScreen")(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_drill_summary(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 2\n")
    snap(snap_compare, make_app(data_dir), size, steps(press("d"), drill_with_a_miss))


@pytest.mark.parametrize("size", SIZES)
def test_flag_dialog(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    snap(snap_compare, app, size, steps(a_question, press("ctrl+f", *"units?"),
                                        until_screen("FlagScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_feedback_with_the_question(snap_compare: Snap, data_dir: Path,
                                    size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snap_compare, app, size, steps(typed("2*P*D"), until_screen("FeedbackScreen"),
                                        press("v")))


@pytest.mark.parametrize("size", SIZES)
def test_mistakes(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snap_compare, app, size, steps(typed("2*P*D"), until_screen("FeedbackScreen"),
                                        press("escape"), until_screen("HomeScreen"),
                                        press("x"), until_screen("MistakesScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_practice_picker(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size,
         steps(press("p"), until_screen("PracticeScreen")))


# ---------------------------------------------------------------- mock interview


@pytest.mark.parametrize("size", SIZES)
def test_mock_setup(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size,
         steps(press("m"), until_screen("MockSetupScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_mock_question(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="mock", mock_questions=3, mock_minutes=20)
    snap(snap_compare, app, size, steps(a_question))


@pytest.mark.parametrize("size", SIZES)
def test_mock_leave_confirm(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    app = make_app(data_dir, mode="mock", mock_questions=3, mock_minutes=20)
    snap(snap_compare, app, size, steps(a_question, press("escape")))


@pytest.mark.parametrize("size", SIZES)
def test_mock_report(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    clock = FakeClock()
    app = make_app(data_dir, clock, mode="mock", mock_questions=2, mock_minutes=1)

    async def run_out(pilot: Pilot[Any]) -> None:
        from quiz.tui.screens.question import QuestionScreen

        screen = await question_shown(pilot)
        assert screen.question is not None
        clock.advance(20)
        await answer(pilot, screen.question.part.key.display)
        screen = await question_shown(pilot)
        clock.advance(41)
        assert isinstance(screen, QuestionScreen)
        screen.tick()
        await until_screen("ReportScreen")(pilot)

    snap(snap_compare, app, size, steps(run_out))


# ---------------------------------------------------------------- stats and browser


@pytest.mark.parametrize("size", SIZES)
def test_stats(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    seed_history(data_dir)
    snap(snap_compare, make_app(data_dir), size, steps(press("s"), until_screen("StatsScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_stats_on_day_one(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    """One day of answers: a bar and dots at the start of a week, not a full-width slab."""
    seed_history(data_dir, days=1)
    snap(snap_compare, make_app(data_dir), size, steps(press("s"), until_screen("StatsScreen")))


async def scrolled_to_the_end(pilot: Pilot[Any]) -> None:
    pilot.app.screen.query_one("#stats-scroll").scroll_end(animate=False)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_stats_calibration(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    """The scheduler's section: which parameters, and predicted recall against actual."""
    from .test_scheduler_flows import seed_reviews

    seed_reviews(data_dir)
    snap(snap_compare, make_app(data_dir), size,
         steps(press("s"), until_screen("StatsScreen"), scrolled_to_the_end))


@pytest.mark.parametrize("size", SIZES)
def test_mistakes_suspended(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    """Leeches suspended from the drill, listed under the mistakes with b to bring back."""
    from datetime import timedelta

    from quiz.core.store import Store

    from .conftest import NOW

    data_dir.mkdir(parents=True)
    with Store.open(locations.db_path(data_dir), now=lambda: NOW) as store:
        store.suspend("memory/model-state", 8, NOW - timedelta(days=2))
        store.suspend("compute/flops-formula", 12, NOW - timedelta(days=1))
    snap(snap_compare, make_app(data_dir), size,
         steps(press("x"), until_screen("MistakesScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_browser(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size,
         steps(press("t"), until_screen("BrowserScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_template_preview(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size,
         steps(press("t"), until_screen("BrowserScreen"), press(*"model state", "enter"),
               until_screen("TemplatePreviewScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_settings(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 5\n")
    snap(snap_compare, make_app(data_dir), size,
         steps(press("c"), until_screen("SettingsScreen"), press("tab", "tab", "tab", "0"),
               fixed_config_path))


@pytest.mark.parametrize("size", SIZES)
def test_settings_retention_forecast(snap_compare: Snap, data_dir: Path,
                                     size: tuple[int, int]) -> None:
    """A desired retention typed: its workload, before Enter saves it."""

    async def retention_typed(pilot: Pilot[Any]) -> None:
        field = pilot.app.screen.query_one("#set-desired_retention", Input)
        field.focus()
        await pilot.press("end", "backspace", "9", "5")
        await settle(pilot)
        pilot.app.screen.query_one("#settings-scroll").scroll_end(animate=False)

    snap(snap_compare, make_app(data_dir), size,
         steps(press("c"), until_screen("SettingsScreen"), retention_typed, fixed_config_path))


async def fixed_config_path(pilot: Pilot[Any]) -> None:
    """The settings screen names the file, whose folder differs on every run."""
    from textual.widgets import Static

    from quiz.tui.screens.settings import about_text

    pilot.app.screen.query_one("#settings-about", Static).update(
        about_text(Path("/home/you/.local/share/quiz/config.toml")))


# ---------------------------------------------------------------- light theme


def _light(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    locations.config_path(data_dir).write_text('theme = "textual-light"\n')


@pytest.mark.parametrize("size", SIZES)
def test_light_theme_home(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    seed_history(data_dir)
    _light(data_dir)
    snap(snap_compare, make_app(data_dir), size, steps())


@pytest.mark.parametrize("size", SIZES)
def test_light_theme_feedback(snap_compare: Snap, data_dir: Path,
                              size: tuple[int, int]) -> None:
    _light(data_dir)
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snap_compare, app, size, steps(typed("6*P*D"), until_screen("FeedbackScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_light_theme_question(snap_compare: Snap, data_dir: Path,
                              size: tuple[int, int]) -> None:
    _light(data_dir)
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    snap(snap_compare, app, size, steps(a_question, press("ctrl+g", *"1.2 TB")))


# ---------------------------------------------------------------- layout lab


def lab_loaded() -> Step:
    async def run(pilot: Pilot[Any]) -> None:
        from quiz.tui.screens.layout_lab import LayoutLabScreen

        screen = pilot.app.screen
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LayoutLabScreen)
                       and pilot.app.screen.lab.workload is not None)
        del screen
        await settle(pilot)

    return run


@pytest.mark.parametrize("size", SIZES)
def test_layout_lab(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size, steps(press("l"), lab_loaded(),
                                                       press("T")))


# ---------------------------------------------------------------- learn mode


async def a_walk(pilot: Pilot[Any]) -> None:
    from quiz.tui.screens.learn import WalkScreen

    def ready() -> bool:
        s = pilot.app.screen
        return isinstance(s, WalkScreen) and s.walkthrough is not None and not s.busy

    await wait_for(pilot, ready)
    await settle(pilot)


def walk_typed(*texts: str) -> Step:
    async def run(pilot: Pilot[Any]) -> None:
        from quiz.tui.widgets.answer_box import AnswerBox

        for text in texts:
            await a_walk(pilot)
            pilot.app.screen.query_one(AnswerBox).input.value = text
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
        await a_walk(pilot)

    return run


def learn_app(data_dir: Path) -> QuizApp:
    return make_app(data_dir, mode="learn", learn_target="memory/model-state")


@pytest.mark.parametrize("size", SIZES)
def test_learn_picker(snap_compare: Snap, data_dir: Path, size: tuple[int, int]) -> None:
    snap(snap_compare, make_app(data_dir), size,
         steps(press("w"), until_screen("LearnScreen")))


@pytest.mark.parametrize("size", SIZES)
def test_walk_wrong_step_explained(snap_compare: Snap, data_dir: Path,
                                   size: tuple[int, int]) -> None:
    snap(snap_compare, learn_app(data_dir), size, steps(walk_typed("12 B")))


@pytest.mark.parametrize("size", SIZES)
def test_walk_retried_then_cold_question(snap_compare: Snap, data_dir: Path,
                                         size: tuple[int, int]) -> None:
    # The app's seed 0 walks through variant 885440 (Llama 3 70B: 16 B, then the whole
    # question, 1.13 TB), then asks variant 403958 (Llama 3 405B) cold.
    snap(snap_compare, learn_app(data_dir), size,
         steps(walk_typed("12 B", "16 B", "1.1 TB")))
