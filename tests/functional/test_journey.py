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


async def test_flag_from_the_question_and_from_the_feedback(data_dir: Path) -> None:
    from quiz.tui.screens.flag import FlagScreen

    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.question is not None
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagScreen))
        await pilot.press(*"which precision?", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        await answer(pilot, screen.question.part.key.display)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagScreen))
        await pilot.press("shift+tab", "down", "space", "enter")  # "unclear", no note
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await settle(pilot)
    with Store.open(locations.db_path(data_dir)) as store:
        flags = store.flags()
    assert [(f.reason, f.note) for f in flags] == [("unclear", ""),
                                                    ("wrong", "which precision?")]
    assert flags[0].attempt_id is not None and flags[1].attempt_id is None


async def test_enter_in_the_reason_list_saves_the_flag_with_the_note_typed(
        data_dir: Path) -> None:
    """Issue 26: with the focus in the reason list, Enter toggled a reason instead of
    saving, and a note typed before was dropped."""
    from quiz.tui.screens.flag import FlagScreen

    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, FlagScreen))
        await pilot.press(*"the units are odd", "shift+tab", "down", "space", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        await settle(pilot)
    with Store.open(locations.db_path(data_dir)) as store:
        flags = store.flags()
    assert [(f.reason, f.note) for f in flags] == [("unclear", "the units are odd")]


async def test_mistakes_screen_lists_a_miss_and_retries_the_same_variant(
        data_dir: Path) -> None:
    from quiz.tui.screens.mistakes import MistakesScreen
    from quiz.tui.screens.question import QuestionScreen

    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.question is not None
        missed = screen.question.id
        await answer(pilot, "1 B")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, MistakesScreen))
        await settle(pilot)
        mistakes = app.screen
        assert "1 answer not fully right" in text_of(mistakes, "#mistakes-summary")
        assert "key: " in text_of(mistakes, "#mistakes-answer").lower()
        from quiz.tui.widgets.derivation import Derivation

        assert len(mistakes.query_one("#mistakes-detail").query(Derivation)) == 1
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
        retry = await question_shown(pilot)
        assert retry.question is not None and retry.question.id == missed
