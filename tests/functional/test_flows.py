"""Pilot tests: every flow of the app, driven from the keyboard."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.widgets import Input, OptionList, Select, Static

from quiz import locations
from quiz.core.store import Store
from quiz.tui.app import QuizApp
from quiz.tui.screens.browser import BrowserScreen
from quiz.tui.screens.done import DoneScreen
from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.help import HelpScreen
from quiz.tui.screens.home import HomeScreen
from quiz.tui.screens.practice import PracticeScreen
from quiz.tui.screens.report import ReportScreen
from quiz.tui.screens.stats import StatsScreen
from quiz.tui.screens.template_preview import TemplatePreviewScreen
from quiz.tui.screens.welcome import WelcomeScreen
from quiz.tui.widgets.answer_box import AnswerBox
from quiz.tui.widgets.derivation import Derivation
from quiz.tui.widgets.verdict import VerdictBanner

from .conftest import (
    NOW,
    FakeClock,
    answer,
    browser_shown,
    make_app,
    question_shown,
    screen_text,
    seed_history,
    settle,
    started,
    wait_for,
)

if TYPE_CHECKING:

    from questions.loader import Bank
    from quiz.core.state import AppState

SIZE = (120, 40)


def text_of(screen: object, selector: str) -> str:
    """The text a widget shows (wrapped as on screen, lines joined by spaces)."""
    from textual.screen import Screen

    assert isinstance(screen, Screen)
    return " ".join(screen_text(screen.query_one(selector)).split())


def attempts(data_dir: Path) -> int:
    with Store.open(locations.db_path(data_dir)) as store:
        return len(store.attempts())


# ---------------------------------------------------------------- start-up and home


async def test_first_run_shows_the_welcome_then_home_with_todays_drill(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, welcome=True)
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("enter")
        assert isinstance(app.screen, HomeScreen)
        assert "6 questions in today's drill" in text_of(app.screen, "#home-due")
        assert "No answers yet" in text_of(app.screen, "#home-accuracy")
        menu = app.screen.query_one("#home-menu", OptionList)
        assert not any(option.disabled for option in menu.options)


async def test_home_is_usable_before_the_templates_load(data_dir: Path) -> None:
    from .conftest import WAIT_BOUND_S, fixture_bank

    release = threading.Event()

    def slow_loader(state: AppState) -> Bank:
        # held until the test releases it: a loaded machine that took longer than any
        # fixed wait to reach the assertions below must not load the bank under them
        # (the bound only ends a failed test's thread)
        release.wait(WAIT_BOUND_S)
        return fixture_bank(state)

    app = make_app(data_dir, bank_loader=slow_loader)
    async with app.run_test(size=SIZE) as pilot:
        try:
            home = app.home
            # Today's counts come from the template ids and the history alone.
            await wait_for(pilot, lambda: "6 questions in today's drill" in text_of(
                home, "#home-due"))
            assert app.bank is None
            menu = home.query_one("#home-menu", OptionList)
            assert not menu.get_option("drill").disabled
            await pilot.press("escape")  # close the welcome
            await pilot.press("d")
            assert app.screen is home  # the templates are still loading
        finally:
            release.set()
        await question_shown(pilot)  # the drill opens as soon as they are loaded


async def test_returning_user_sees_streak_and_accuracy_without_welcome(data_dir: Path) -> None:
    seed_history(data_dir)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, welcome=True)
        assert isinstance(app.screen, HomeScreen)
        assert "Streak: 3 days" in text_of(app.screen, "#home-streak")
        assert "9 answers" in text_of(app.screen, "#home-accuracy")


async def test_a_broken_user_template_is_skipped_with_a_warning(data_dir: Path) -> None:
    folder = locations.user_templates_dir(data_dir)
    folder.mkdir(parents=True)
    (folder / "broken.toml").write_text('id = "x/y"\ntitle = 3\n')
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        warnings = text_of(app.home, "#home-warnings-text")
        assert "skipped" in warnings and "broken.toml" in warnings
        await pilot.press("d")
        await question_shown(pilot)  # the app keeps working


async def test_the_real_bank_loads_without_problems(data_dir: Path) -> None:
    app = QuizApp(data_dir=data_dir, seed=0, now=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert app.bank is not None and len(app.bank.templates) >= 3
        assert not app.bank.problems


# ---------------------------------------------------------------- drill


async def test_drill_correct_answer_shows_feedback_and_moves_on(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        screen = await question_shown(pilot)
        question = screen.question
        assert question is not None
        assert question.label in text_of(screen, "#question-label")
        assert question.template.id == "memory/model-state"  # rapid-fire item 1 first
        assert "6 left today" in text_of(screen, "#question-progress")
        await pilot.press(*question.part.key.display)  # typed key by key
        await settle(pilot)
        assert "read as" in text_of(screen, "#answer-preview")
        await pilot.press("enter")
        # the screen is on the stack before it has composed: wait for its banner
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen)
                       and app.screen.query(VerdictBanner))
        banner = app.screen.query_one(VerdictBanner)
        assert banner.has_class("-correct")
        assert "Worked solution" in app.screen.query_one(Derivation).text
        assert attempts(data_dir) == 1
        await pilot.press("enter")
        next_screen = await question_shown(pilot)
        assert next_screen.question is not None
        assert next_screen.question.template.id != question.template.id
        assert "5 left today" in text_of(next_screen, "#question-progress")


async def test_incorrect_answer_shows_the_key_and_the_mistake(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.question is not None
        assert screen.question.template.id == "compute/flops-formula"
        await answer(pilot, "2*P*D")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        feedback = app.screen
        assert feedback.query_one(VerdictBanner).has_class("-incorrect")
        assert "forward pass only" in text_of(feedback, "#feedback-summary")
        assert "6*P*D" in text_of(feedback, "#feedback-summary")
        assert attempts(data_dir) == 1


async def test_drill_invalid_answer_keeps_the_question_and_costs_nothing(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        screen = await question_shown(pilot)
        label = screen.question.label if screen.question else ""
        await answer(pilot, "import os")
        assert app.screen is screen
        box = screen.query_one(AnswerBox)
        assert box.has_class("-invalid")
        assert "try again" in text_of(screen, "#answer-error")
        assert screen.question is not None and screen.question.label == label
        assert attempts(data_dir) == 0
        await pilot.press("x")  # typing again hides the message
        assert not box.has_class("-invalid")


async def test_escape_leaves_the_drill_and_home_counts_what_was_done(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        screen = await question_shown(pilot)
        assert screen.question is not None
        await answer(pilot, screen.question.part.key.display)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        await settle(pilot)
        assert "5 questions in today's drill" in text_of(app.screen, "#home-due")
        assert "1 done today" in text_of(app.screen, "#home-progress")


async def test_nothing_due_shows_done_for_today_with_the_forecast(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 0\n")
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DoneScreen))
        await settle(pilot)
        assert "Done for today" in text_of(app.screen, "#done-title")
        assert "Nothing scheduled yet" in text_of(app.screen, "#done-forecast")
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_start_in_drill_mode_goes_straight_to_a_question(data_dir: Path) -> None:
    app = make_app(data_dir, mode="drill")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.mode == "drill"
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


# ---------------------------------------------------------------- hints and kinds


async def test_a_hint_is_shown_and_its_cost_recorded(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.question is not None
        assert screen.question.template.id == "memory/model-state"
        await pilot.press("ctrl+g")
        assert "Hint 1:" in text_of(screen, "#hints")
        await pilot.press("ctrl+h")  # no second hint: says so, nothing breaks
        await pilot.press("h")  # typed into the answer box, not a hint
        assert screen.query_one(AnswerBox).value == "h"
        await answer(pilot, screen.question.part.key.display)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        assert "score 80%" in str(app.screen.query_one(VerdictBanner).render())
    with Store.open(locations.db_path(data_dir)) as store:
        (attempt,) = store.attempts()
    assert attempt.hints_used == 1 and attempt.score == 0.8


async def test_choices_are_listed_with_letters(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="rapid-fire-4")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        choices = text_of(screen, "#choices")
        assert screen.question is not None
        shown = screen.question.part.labels  # the variant's own order of the options
        assert "a) " in choices and "d) " in choices
        assert f"{shown['a']}) Data parallelism" in choices
        assert f"{shown['d']}) Context parallelism" in choices
        await answer(pilot, f"{shown['a']}, {shown['c']}")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        assert app.screen.query_one(VerdictBanner).has_class("-correct")


async def test_a_table_question_shows_rows_and_columns(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="rapid-fire-3")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        how = text_of(screen, "#how-to-answer")
        assert "dp" in how and "w = weights" in how
        await answer(pilot, "dp: -; tp: w g o a; pp: w g o; cp: a; ep: w g o")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        assert app.screen.query_one(VerdictBanner).has_class("-correct")


async def test_a_layout_question_explains_the_format(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="layout")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert "tp=8 pp=2 cp=1 ep=1 mb=1 zero=1" in text_of(screen, "#how-to-answer")


async def test_a_scenario_goes_on_to_its_next_part(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="scenario")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.question is not None and "(part 1/" in screen.question.label
        await answer(pilot, screen.question.part.key.display)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        assert "Enter for part 2" in text_of(app.screen, "#feedback-summary")
        await pilot.press("enter")
        screen = await question_shown(pilot)
        assert screen.question is not None and "(part 2/" in screen.question.label


# ---------------------------------------------------------------- practice


async def test_practice_picker_filters_by_topic_and_difficulty(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PracticeScreen))
        picker = app.screen
        assert isinstance(picker, PracticeScreen)
        labels = [label for label, _ in picker.targets]
        assert labels[:2] == ["Everything", "compute"]
        assert any(label.startswith("#3 ") for label in labels)
        picker.query_one("#practice-difficulty", Select).value = 3
        await settle(pilot)
        menu = picker.query_one("#practice-list", OptionList)
        memory = labels.index("memory")
        assert menu.get_option(str(memory)).disabled  # memory has no hard template
        picker.query_one("#practice-schedule").toggle()  # type: ignore[attr-defined]
        menu.focus()
        menu.highlighted = menu.get_option_index(str(labels.index("scenario")))
        await pilot.press("enter")
        screen = await question_shown(pilot)
        assert screen.mode == "practice"
        assert screen.question is not None
        assert screen.question.template.topic == "scenario"
        assert screen.session.review()  # "schedule these answers" was switched on
        await pilot.press("escape")
        assert isinstance(app.screen, PracticeScreen)


async def test_practice_on_an_unknown_topic_says_so_and_opens_the_picker(
        data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="astrology")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, PracticeScreen))


# ---------------------------------------------------------------- mock interview


async def test_mock_interview_runs_out_of_time_and_reports(data_dir: Path) -> None:
    clock = FakeClock()
    app = make_app(data_dir, clock, mode="mock", mock_questions=2, mock_minutes=1)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        first = screen.question
        assert first is not None
        assert "1:00 left" in text_of(screen, "#countdown")
        assert "question 1 of 2" in text_of(screen, "#question-progress")
        clock.advance(10)
        await answer(pilot, first.part.key.display)
        screen = await question_shown(pilot)  # no feedback in between
        assert screen.question is not None and screen.question is not first
        assert "question 2 of 2" in text_of(screen, "#question-progress")
        screen.query_one(AnswerBox).input.value = "12"  # typed, never submitted
        clock.advance(51)
        screen.tick()
        await wait_for(pilot, lambda: isinstance(app.screen, ReportScreen))
        await settle(pilot)
        report = app.screen
        assert isinstance(report, ReportScreen)
        # the scenario's first part was answered as time ran out; its other parts
        # are listed as unreached
        assert len(report.report.rows) == 6
        assert [r["mistake"] for r in report.report.rows[2:]] == ["unreached"] * 4
        assert report.report.rows[0]["verdict"] == "correct"
        assert report.report.rows[1]["answer"] == "12"
        assert "Mock interview score: 50%" in text_of(report, "#report-score")
        assert "first mock" in text_of(report, "#report-compare")
        assert len(report.report.solutions) == 2
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
    with Store.open(locations.db_path(data_dir)) as store:
        (mock,) = store.mock_history()
    assert mock.finished_at is not None and mock.score == 0.5


async def test_mock_clock_ticks_by_itself_and_warns(data_dir: Path) -> None:
    clock = FakeClock()
    app = make_app(data_dir, clock, mode="mock", mock_questions=3, mock_minutes=10)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        clock.advance(5 * 60 + 1)
        # the 1-second interval fires on its own (no tick() call here); under load it may
        # take a while, so wait for its effect rather than for a fixed time
        await wait_for(pilot, lambda: "4:59 left" in text_of(screen, "#countdown"))
        # the warning is a posted message: it lands after the countdown's text
        await wait_for(pilot, lambda: any("5 minutes left" in n.message
                                          for n in app._notifications))


async def test_mock_without_answers_is_unanswered_and_compared_with_the_last(
        data_dir: Path) -> None:
    from quiz.core.store import MockResult

    data_dir.mkdir(parents=True)
    with Store.open(locations.db_path(data_dir)) as store:
        store.record_mock(MockResult(started_at=NOW, finished_at=NOW, minutes=1,
                                     n_questions=1, score=0.4))
    clock = FakeClock()
    app = make_app(data_dir, clock, mode="mock", mock_questions=2, mock_minutes=1)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        clock.advance(61)
        screen.tick()
        await wait_for(pilot, lambda: isinstance(app.screen, ReportScreen))
        await settle(pilot)
        report = app.screen
        assert report.report.rows[0]["mistake"] == "unanswered"  # type: ignore[attr-defined]
        assert "40 points down" in text_of(report, "#report-compare")
        assert "1 question was not reached" in text_of(report, "#report-missed")


async def test_leaving_a_mock_asks_first(data_dir: Path) -> None:
    app = make_app(data_dir, mode="mock", mock_questions=2, mock_minutes=5)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        await pilot.press("escape")
        await pilot.press("n")
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.press("y")
        assert isinstance(app.screen, HomeScreen)


async def test_mock_setup_starts_an_interview_of_the_chosen_size(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("m")
        await settle(pilot)
        app.screen.query_one("#mock-questions", Input).value = "3"
        app.screen.query_one("#mock-minutes", Input).value = "7"
        await pilot.press("enter")  # the Start button has the focus
        screen = await question_shown(pilot)
        mock = screen.mock
        assert mock is not None and mock.n == 3 and mock.minutes == 7


# ---------------------------------------------------------------- other screens


async def test_stats_show_topics_items_plot_and_weakest(data_dir: Path) -> None:
    seed_history(data_dir)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
        await settle(pilot)
        stats = app.screen
        assert "9 answers" in text_of(stats, "#stats-summary")
        assert "memory" in text_of(stats, "#stats-topics")
        assert "FLOPs of a training run" in text_of(stats, "#stats-tags")
        assert "memory/model-state" in text_of(stats, "#stats-weakest") or \
            "compute/flops-formula" in text_of(stats, "#stats-weakest")
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_browser_filters_and_previews_a_template_at_a_seed(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await browser_shown(pilot)
        await pilot.press(*"model state")
        assert "1 of 6 templates" in text_of(app.screen, "#browser-count")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TemplatePreviewScreen))
        await settle(pilot)
        preview = app.screen
        assert "memory/model-state#0" in text_of(preview, "#preview-status")
        assert "Known mistakes" in str(preview.query_one(".preview-mistakes",
                                                         Static).render())
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert "memory/model-state#1" in text_of(preview, "#preview-status")
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen)


async def test_help_lists_every_key_and_escape_closes_it(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = text_of(app.screen, "#help-text")
        for key in ("ctrl+g", "ctrl+p", "ctrl+q", "Escape", "Enter"):
            assert key in text
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_command_palette_lists_the_modes(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for mode in ("Daily drill", "Practice", "Mock interview", "Stats",
                     "Template browser", "Help"):
            assert mode in titles
        await pilot.press("ctrl+p")
        await pilot.press(*"stats")
        await settle(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))


async def test_ctrl_q_quits(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("ctrl+q")
    assert app.return_code == 0


async def test_q_quits_from_home_only(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PracticeScreen))
        await pilot.press("q")  # not a key here: only the home screen quits on q
        await settle(pilot)
        assert isinstance(app.screen, PracticeScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("q")
        await settle(pilot)
    assert app.return_code == 0 and not app.is_running


async def test_a_theme_picked_at_run_time_is_kept_in_the_settings(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.theme = "textual-light"
        await settle(pilot)
    assert 'theme = "textual-light"' in locations.config_path(data_dir).read_text()


async def test_answering_the_last_due_question_ends_the_drill(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 1\n")
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        screen = await question_shown(pilot)
        assert screen.question is not None
        assert "1 left today" in text_of(screen, "#question-progress")
        await answer(pilot, screen.question.part.key.display)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DoneScreen))
        await settle(pilot)
        assert "last question due today" in text_of(app.screen, "#done-text")
        assert "1" in text_of(app.screen, "#done-forecast")


def test_the_launcher_passes_the_mode_and_its_options(monkeypatch: pytest.MonkeyPatch,
                                                       data_dir: Path) -> None:
    import argparse

    from quiz.commands import app as launcher
    from quiz.tui.routing import Start

    seen: list[QuizApp] = []
    monkeypatch.setattr(QuizApp, "run", lambda self, *a, **k: seen.append(self))
    args = argparse.Namespace(command="mock", data_dir=str(data_dir), templates=[],
                              minutes=1, questions=2)
    assert launcher.run(args) == 0
    args = argparse.Namespace(command="practice", data_dir=str(data_dir), templates=[],
                              topic="rapid-fire-3", difficulty=1)
    assert launcher.run(args) == 0
    args = argparse.Namespace(command=None, data_dir=None, templates=[])
    assert launcher.run(args) == 0
    mock, practice, home = seen
    assert mock.start == Start("mock", mock_minutes=1, mock_questions=2)
    assert practice.start == Start("practice", practice_topic="rapid-fire-3",
                                   practice_difficulty=1)
    assert home.start is None


@pytest.mark.parametrize(("attempts", "want"), [(1, "1 answer ·"), (2, "2 answers ·")])
def test_the_stats_headline_counts_answers_in_the_right_number(attempts: int,
                                                               want: str) -> None:
    from typing import cast

    from quiz.core.store import Stats
    from quiz.tui.data import StatsData
    from quiz.tui.screens.stats import summary_text

    stats = cast("Stats", {"attempts": attempts, "correct": attempts, "mean_score": 1.0,
                           "streak_days": 1})
    text = summary_text(StatsData(stats, None, []))
    assert want in text.replace("[b]", "").replace("[/]", "")
