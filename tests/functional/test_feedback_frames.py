"""An answer's feedback is laid out once and painted in one go (issue 15).

Textual laid the feedback screen out twice for one Enter (the new height of a widget
asked for a second layout) and painted it up to four times, the last frames 20-40 ms
after the first with nothing new in them: a scroll bar refreshed before the paint, and
the question screen underneath, refreshed when the feedback covered it. The person saw
the feedback at the first frame but the Enter was not over until the last.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.textual_private import fix_hidden_repaints

from .conftest import answer, drained, make_app, question_shown, settle, started, wait_for

SIZE = (80, 24)


class Frames:
    """The layouts of each screen and the frames the app paints."""

    def __init__(self, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.layouts: list[str] = []
        self.frames: list[str] = []
        layout = Screen._refresh_layout

        def counted_layout(screen: Screen[Any], *args: Any, **kw: Any) -> None:
            self.layouts.append(type(screen).__name__)
            layout(screen, *args, **kw)

        monkeypatch.setattr(Screen, "_refresh_layout", counted_layout)
        display = app._display

        def counted_display(screen: Screen[Any], renderable: Any) -> None:
            if renderable is not None:
                self.frames.append(type(screen).__name__)
            display(screen, renderable)

        app._display = counted_display

    def clear(self) -> None:
        self.layouts.clear()
        self.frames.clear()


@pytest.mark.parametrize(("topic", "answers"), [
    ("compute/flops-formula", ("2*P*D", "6*P*D", "2*P*D", "6*P*D", "2*P*D")),
    ("memory/model-state", ("1 GB", "3 TB", "1 GB", "3 TB", "1 GB"))])
async def test_each_feedback_is_laid_out_once_and_painted_in_one_update(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch, topic: str,
        answers: tuple[str, ...]) -> None:
    app = make_app(data_dir, mode="practice", practice_topic=topic)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        frames = Frames(app, monkeypatch)
        for n, typed in enumerate(answers):
            screen = await question_shown(pilot)
            assert isinstance(screen, QuestionScreen)
            await settle(pilot)
            frames.clear()
            await answer(pilot, typed)
            await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
            await settle(pilot)
            await drained(pilot)
            if n >= 2:  # the first builds the screen; the second styles its scroll bars
                assert frames.layouts == ["FeedbackScreen"], frames.layouts
                # from its first frame: the layout's paint, then the full repaint the
                # screen asked for when shown, in the same tick; never one more later
                shown = frames.frames[frames.frames.index("FeedbackScreen"):]
                assert shown in (["FeedbackScreen"], ["FeedbackScreen"] * 2), frames.frames
            await pilot.press("enter")


def test_the_hidden_repaints_fix_is_applied_once() -> None:
    fix_hidden_repaints()
    assert not fix_hidden_repaints()
    assert getattr(Screen._compositor_refresh, "_quiz_patch", False)


def screen_cells(app: Any) -> list[list[tuple[str, object]]]:
    """Every cell of the screen as painted now: its character and style."""
    return [[(char, segment.style) for segment in strip for char in segment.text]
            for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_feedback_shown_again_looks_as_if_restyled_in_full(
        data_dir: Path, size: tuple[int, int]) -> None:
    # The screen is restyled in full only when the theme, the stylesheet or the size
    # changed since it was last restyled (Textual would restyle it on every Enter).
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    async with app.run_test(size=size) as pilot:
        await started(pilot)
        for n, typed in enumerate(("2*P*D", "6*P*D", "2*P*D", "6*P*D")):
            await question_shown(pilot)
            await answer(pilot, typed)
            await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
            await settle(pilot)
            await drained(pilot)
            if n >= 1:
                shown = screen_cells(app)
                app.screen.update_node_styles(animate=False)
                app.screen.refresh(layout=True)
                await settle(pilot)
                await drained(pilot)
                assert screen_cells(app) == shown
            await pilot.press("enter")
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await settle(pilot)
        await question_shown(pilot)
        await answer(pilot, "6*P*D")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await settle(pilot)
        await drained(pilot)
        shown = screen_cells(app)
        app.screen.update_node_styles(animate=False)
        await settle(pilot)
        await drained(pilot)
        assert screen_cells(app) == shown  # the new theme's colours, everywhere


async def test_a_feedback_that_overflows_after_one_that_fit_is_laid_out_once(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: Textual shows or hides a scroll view's bar after a layout, and a bar
    that appears or goes asks for a second layout and paint. At this height a wrong
    answer's feedback (32 lines) overflows the scroll (31) and the key's (30) fits, so
    every Enter changed the bar: a third of the mixed run's Enters, and its slowest."""
    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    async with app.run_test(size=(80, 34)) as pilot:
        await started(pilot)
        frames = Frames(app, monkeypatch)
        bars = []
        for n in range(6):
            screen = await question_shown(pilot)
            assert isinstance(screen, QuestionScreen) and screen.question is not None
            await settle(pilot)
            frames.clear()
            await answer(pilot, "1 GB" if n % 2 == 0 else screen.question.part.key.display)
            await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
            await settle(pilot)
            await drained(pilot)
            scroll = app.screen.query_one("#feedback-scroll")
            overflows = scroll.virtual_size.height > scroll.scrollable_content_region.height
            bars.append(scroll.show_vertical_scrollbar)
            assert scroll.show_vertical_scrollbar == overflows  # the bar as Textual's own
            if n >= 3:  # the bar's first showing again (n = 2) styles it once
                assert frames.layouts == ["FeedbackScreen"], (n, frames.layouts)
                shown = frames.frames[frames.frames.index("FeedbackScreen"):]
                assert shown in (["FeedbackScreen"], ["FeedbackScreen"] * 2), frames.frames
            await pilot.press("enter")
        assert bars[2:] == [True, False] * 2  # it did change at every Enter timed
