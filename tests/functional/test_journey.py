"""Pilot tests of the learner's journey: skip, the drill summary, mistakes, flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.screen import Screen

from quiz import locations
from quiz.core.store import Store
from quiz.tui.screens.done import DoneScreen
from quiz.tui.screens.feedback import FeedbackScreen

from .conftest import answer, make_app, question_shown, screen_text, settle, started, wait_for

SIZE = (120, 40)


def text_of(screen: Screen[Any], selector: str) -> str:
    """The text a widget shows, whitespace collapsed."""
    return " ".join(screen_text(screen.query_one(selector)).split())


def stored_attempts(data_dir: Path) -> int:
    with Store.open(locations.db_path(data_dir)) as store:
        return len(store.attempts())


async def test_skip_records_nothing_and_brings_the_question_back_last(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 2\n")
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        screen = await question_shown(pilot)
        assert screen.question is not None
        first = screen.question.template.id
        await pilot.press("ctrl+s")
        screen = await question_shown(pilot)
        assert screen.question is not None and screen.question.template.id != first
        assert stored_attempts(data_dir) == 0
        await answer(pilot, screen.question.part.key.display)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.asked == 3 and not screen.busy)
        assert screen.question is not None and screen.question.template.id == first


async def test_the_drill_ends_with_a_summary_of_the_misses(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    locations.config_path(data_dir).write_text("new_per_day = 1\n")
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        screen = await question_shown(pilot)
        assert screen.question is not None
        await answer(pilot, "1 B")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.asked == 2 and not screen.busy)
        await settle(pilot)
        assert "1 again today" in text_of(screen, "#question-progress")
        assert screen.question is not None
        await answer(pilot, screen.question.part.key.display)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DoneScreen))
        await settle(pilot)
        summary = text_of(app.screen, "#done-summary")
        assert "1 of 2 questions right" in summary
        assert "memory/model-state#" in summary and "you: 1 B" in summary


async def test_ctrl_q_in_a_mock_asks_first(data_dir: Path) -> None:
    from quiz.tui.screens.confirm import ConfirmScreen
    from quiz.tui.screens.question import QuestionScreen

    app = make_app(data_dir, mode="mock", mock_questions=2, mock_minutes=20)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await question_shown(pilot)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
        assert app.is_running
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running)


async def test_no_hint_key_in_a_mock_by_default(data_dir: Path) -> None:
    app = make_app(data_dir, mode="mock", mock_questions=2, mock_minutes=20)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert screen.question is not None and screen.question.hints_shown == 0
        assert "Hint" not in screen_text(app.screen.query_one(".keys-line"))
