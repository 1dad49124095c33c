"""The feedback screen is built once per app and shows every answer after it (issue 15).

Building a screen of widgets for every answer was most of the time between Enter and
the feedback; these tests pin down the shape that replaced it (one screen, the same
widgets, updated in place) and that nothing of an earlier answer shows on a later one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.dom import DOMNode

from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.home import HomeScreen
from quiz.tui.widgets.derivation import Derivation
from quiz.tui.widgets.verdict import VerdictBanner

from .conftest import (
    answer,
    drained,
    make_app,
    question_shown,
    screen_text,
    settle,
    started,
    wait_for,
)

SIZE = (120, 40)


def text_of(screen: FeedbackScreen, selector: str) -> str:
    return " ".join(screen_text(screen.query_one(selector)).split())


def widgets(screen: FeedbackScreen) -> list[DOMNode]:
    return list(screen.walk_children(with_self=False))


async def feedback_after(pilot: Any, typed: str) -> FeedbackScreen:
    await question_shown(pilot)
    await answer(pilot, typed)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, FeedbackScreen))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FeedbackScreen)
    return screen


async def test_every_answer_shows_on_the_same_screen_and_widgets(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        first = await feedback_after(pilot, "2*P*D")
        built = widgets(first)
        assert first.query_one(VerdictBanner).has_class("-incorrect")
        assert "forward pass only" in text_of(first, "#feedback-summary")
        assert "Walk through" in screen_text(first.query_one("KeysLine"))
        await pilot.press("v")  # the question, shown on demand
        assert first.query_one("#feedback-question").display
        await pilot.press("enter")

        second = await feedback_after(pilot, "6*P*D")
        assert second is first and widgets(second) == built  # nothing built again
        banner = second.query_one(VerdictBanner)
        assert banner.has_class("-correct") and not banner.has_class("-incorrect")
        assert "Correct" in str(banner.render())
        summary = text_of(second, "#feedback-summary")
        assert "forward pass only" not in summary and "Known mistake" not in summary
        assert "Walk through" not in screen_text(second.query_one("KeysLine"))
        assert not second.query_one("#feedback-question").display  # hidden again
        assert not second.query_one("#feedback-walk-offer").display
        assert "Worked solution" in second.query_one(Derivation).text
        assert second.query_one("#feedback-scroll").scroll_y == 0


async def test_a_later_session_reuses_the_screen_with_its_own_answer(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        first = await feedback_after(pilot, "6*P*D")
        label = first.outcome.question.label
        await pilot.press("escape")  # leaves the session
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        assert app.is_screen_installed("feedback")  # kept, not rebuilt next time
        app.start_practice_on(["memory/model-state"])
        again = await feedback_after(pilot, "1 GB")
        assert again is first
        assert again.outcome.question.template.id == "memory/model-state"
        assert label not in text_of(again, "#feedback-summary")
        assert again.outcome.question.label in text_of(again, "#feedback-summary")
        assert again.query_one(VerdictBanner).has_class("-incorrect")


async def test_the_worked_solution_is_derived_while_the_question_is_read(
        data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.question is not None
        # cached on the part before any Enter: the grading worker does not derive it
        assert "derivation" in vars(screen.question.part)


async def test_a_derivation_is_laid_out_once_per_answer(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression (issue 15): Textual asked for its height and lines on every layout and
    # paint of the screen, and the derivation went through Rich four times an Enter,
    # then twice (once for its height, once for its lines).
    import quiz.tui.widgets.derivation as derivation

    made: list[int] = []
    make = derivation._Lines._make

    def counted(self: derivation._Lines, width: int, base: Any) -> Any:
        made.append(width)
        return make(self, width, base)

    monkeypatch.setattr(derivation._Lines, "_make", counted)
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        for typed in ("2*P*D", "6*P*D"):
            made.clear()
            await feedback_after(pilot, typed)
            await drained(pilot)
            assert len(made) == 1
            await pilot.press("enter")
