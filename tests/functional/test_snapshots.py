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

from syrupy.assertion import SnapshotAssertion
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
from .sizes import snap_both_sizes

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


def snap(snapshot: SnapshotAssertion, app: QuizApp, before: Step) -> None:
    """Both sizes' snapshots from one run of ``app`` (:mod:`.sizes`)."""
    snap_both_sizes(snapshot, app, before)


# ---------------------------------------------------------------- home and friends


def test_welcome(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir), steps(welcome=True))


def test_home(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    seed_history(data_dir)
    snap(snapshot, make_app(data_dir), steps())


def test_help(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir), steps(press("question_mark")))


# ---------------------------------------------------------------- questions


def test_question_formula(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snapshot, app, steps(a_question))


def test_drill_first_question(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir), steps(press("d"), a_question))


def test_question_choices(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="rapid-fire-4")
    snap(snapshot, app, steps(a_question))


def test_question_table(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="rapid-fire-3")
    snap(snapshot, app, steps(a_question))


def test_question_hint_and_preview(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    snap(snapshot, app, steps(a_question, press("ctrl+g", *"1.2 TB")))


def test_question_invalid(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir), steps(press("d"), typed("import os")))


def test_feedback(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snapshot, app, steps(typed("2*P*D"), until_screen("FeedbackScreen")))


def test_done_for_today(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    seed_cards(data_dir, ["compute/flops-formula", "memory/model-state",
                          "parallelism/activations-untouched"])
    locations.config_path(data_dir).write_text("new_per_day = 0\n")
    snap(snapshot, make_app(data_dir), steps(press("d"), until_screen("DoneScreen")))


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


def test_drill_summary(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 2\n")
    snap(snapshot, make_app(data_dir), steps(press("d"), drill_with_a_miss))


def test_flag_dialog(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    snap(snapshot, app, steps(a_question, press("ctrl+f", *"units?"),
                                        until_screen("FlagScreen")))


def test_feedback_with_the_question(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snapshot, app, steps(typed("2*P*D"), until_screen("FeedbackScreen"),
                                        press("v")))


def test_mistakes(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snapshot, app, steps(typed("2*P*D"), until_screen("FeedbackScreen"),
                                        press("escape"), until_screen("HomeScreen"),
                                        press("x"), until_screen("MistakesScreen")))


def test_practice_picker(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir),
         steps(press("p"), until_screen("PracticeScreen")))


# ---------------------------------------------------------------- mock interview


def test_mock_setup(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir),
         steps(press("m"), until_screen("MockSetupScreen")))


def test_mock_question(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="mock", mock_questions=3, mock_minutes=20)
    snap(snapshot, app, steps(a_question))


def test_mock_leave_confirm(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="mock", mock_questions=3, mock_minutes=20)
    snap(snapshot, app, steps(a_question, press("escape")))


def test_mock_report(snapshot: SnapshotAssertion, data_dir: Path) -> None:
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

    snap(snapshot, app, steps(run_out))


# ---------------------------------------------------------------- stats and browser


def test_stats(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    seed_history(data_dir)
    snap(snapshot, make_app(data_dir), steps(press("s"), until_screen("StatsScreen")))


def test_stats_on_day_one(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    """One day of answers: a bar and dots at the start of a week, not a full-width slab."""
    seed_history(data_dir, days=1)
    snap(snapshot, make_app(data_dir), steps(press("s"), until_screen("StatsScreen")))


async def scrolled_to_the_end(pilot: Pilot[Any]) -> None:
    pilot.app.screen.query_one("#stats-scroll").scroll_end(animate=False)
    await settle(pilot)


def test_stats_calibration(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    """The scheduler's section: which parameters, and predicted recall against actual."""
    from .test_scheduler_flows import seed_reviews

    seed_reviews(data_dir)
    snap(snapshot, make_app(data_dir),
         steps(press("s"), until_screen("StatsScreen"), scrolled_to_the_end))


def test_mistakes_suspended(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    """Leeches suspended from the drill, listed under the mistakes with b to bring back."""
    from datetime import timedelta

    from quiz.core.store import Store

    from .conftest import NOW

    data_dir.mkdir(parents=True)
    with Store.open(locations.db_path(data_dir), now=lambda: NOW) as store:
        store.suspend("memory/model-state", 8, NOW - timedelta(days=2))
        store.suspend("compute/flops-formula", 12, NOW - timedelta(days=1))
    snap(snapshot, make_app(data_dir),
         steps(press("x"), until_screen("MistakesScreen")))


def test_browser(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir),
         steps(press("t"), until_screen("BrowserScreen")))


def test_template_preview(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir),
         steps(press("t"), until_screen("BrowserScreen"), press(*"model state", "enter"),
               until_screen("TemplatePreviewScreen")))


def test_settings(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 5\n")
    snap(snapshot, make_app(data_dir),
         steps(press("c"), until_screen("SettingsScreen"), press("tab", "tab", "tab", "0"),
               fixed_config_path))


def test_settings_retention_forecast(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    """A desired retention typed: its workload, before Enter saves it."""

    async def retention_typed(pilot: Pilot[Any]) -> None:
        field = pilot.app.screen.query_one("#set-desired_retention", Input)
        field.focus()
        await pilot.press("end", "backspace", "9", "5")
        await settle(pilot)
        pilot.app.screen.query_one("#settings-scroll").scroll_end(animate=False)

    snap(snapshot, make_app(data_dir),
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


def test_light_theme_home(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    seed_history(data_dir)
    _light(data_dir)
    snap(snapshot, make_app(data_dir), steps())


def test_light_theme_feedback(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    _light(data_dir)
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    snap(snapshot, app, steps(typed("6*P*D"), until_screen("FeedbackScreen")))


def test_light_theme_question(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    _light(data_dir)
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    snap(snapshot, app, steps(a_question, press("ctrl+g", *"1.2 TB")))


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


def test_layout_lab(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir), steps(press("l"), lab_loaded(),
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


def test_learn_picker(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, make_app(data_dir),
         steps(press("w"), until_screen("LearnScreen")))


def test_walk_wrong_step_explained(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap(snapshot, learn_app(data_dir), steps(walk_typed("12 B")))


def test_walk_retried_then_cold_question(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    # The app's seed 0 walks through variant 885440 (Llama 3 70B: 16 B, then the whole
    # question, 1.13 TB), then asks variant 403958 (Llama 3 405B) cold.
    snap(snapshot, learn_app(data_dir),
         steps(walk_typed("12 B", "16 B", "1.1 TB")))
