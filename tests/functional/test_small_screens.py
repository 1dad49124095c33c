"""At 80x24 the answer box keeps the focus while the question stays readable.

Regressions of issue 12: `?` opened the help instead of being typed; tabbing back into
the box selected the answer so that the next key replaced it; a revealed hint could be
below the fold with no way to reach it without leaving the box.
"""

from __future__ import annotations

from pathlib import Path

from textual.containers import VerticalScroll

from quiz.tui.screens.help import HelpScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.widgets.answer_box import AnswerBox

from .conftest import make_app, question_shown, settle, started

SMALL = (80, 24)


async def test_question_mark_is_typed_and_f1_opens_the_help(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    async with app.run_test(size=SMALL) as pilot:
        screen = await question_shown(pilot)
        box = screen.query_one(AnswerBox)
        await pilot.press("1", "?")
        assert box.value == "1?"
        assert app.screen is screen
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.screen is screen and box.value == "1?"


async def test_tabbing_back_into_the_box_keeps_the_typed_answer(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    async with app.run_test(size=SMALL) as pilot:
        screen = await question_shown(pilot)
        box = screen.query_one(AnswerBox)
        await pilot.press(*"1.2")
        await pilot.press("tab")
        assert app.focused is not box.input
        await pilot.press("shift+tab")
        assert app.focused is box.input
        await pilot.press("3", "space", "T", "B")
        assert box.value == "1.23 TB"


async def test_a_revealed_hint_is_in_view_and_pages_scroll_while_typing(
        data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory")
    async with app.run_test(size=(60, 15)) as pilot:  # smaller still: it must overflow
        screen = await question_shown(pilot)
        scroll = screen.query_one("#question-scroll", VerticalScroll)
        box = screen.query_one(AnswerBox)
        await pilot.press("1", "ctrl+g")
        await settle(pilot)
        assert scroll.max_scroll_y > 0  # the question does not fit
        assert scroll.scroll_y == scroll.max_scroll_y  # scrolled to the hint
        assert "Hint&#160;1:" in app.export_screenshot()
        await pilot.press("pageup")
        await settle(pilot)
        assert scroll.scroll_y < scroll.max_scroll_y
        await pilot.press("pagedown")
        await settle(pilot)
        assert scroll.scroll_y == scroll.max_scroll_y
        assert app.focused is box.input and box.value == "1"
        assert isinstance(app.screen, QuestionScreen)


async def test_the_help_fits_80_columns_and_names_every_screens_keys(data_dir: Path) -> None:
    """Regression: a description ran on under the keys column at 80x24, and the keys of
    the feedback (w, v, f, l), of learn mode (ctrl+r) and of paragraph answers (ctrl+d)
    were missing."""
    from textual.binding import Binding

    from quiz.tui.screens.feedback import FeedbackScreen
    from quiz.tui.screens.help import KEYS, WIDEST
    from quiz.tui.screens.learn import WalkScreen

    from .conftest import screen_text

    rows = {section: dict(keys) for section, keys in KEYS}
    assert all(len(what) <= WIDEST and len(keys) <= 15
               for section in rows.values() for keys, what in section.items())
    feedback = {b.key for b in FeedbackScreen.BINDINGS if isinstance(b, Binding)}
    assert feedback - {"enter", "escape"} <= set(rows["Feedback"])
    assert "ctrl+r" in rows["Learn"] and {b.key for b in WalkScreen.BINDINGS
                                           if isinstance(b, Binding)} == {"ctrl+r", "escape"}
    assert "ctrl+d" in rows["Question"] and "ctrl+d" in rows["Learn"]
    app = make_app(data_dir)
    async with app.run_test(size=SMALL) as pilot:
        await started(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-text")
        lines = screen_text(text).splitlines()
        assert len(lines) == sum(len(keys) + 2 for _, keys in KEYS) - 1  # none wrapped
