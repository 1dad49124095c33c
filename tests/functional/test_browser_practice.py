"""Practice from the template browser (issue 12: only the CLI could start it)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from quiz.tui.screens.browser import BrowserScreen
from quiz.tui.screens.template_preview import TemplatePreviewScreen

from .conftest import browser_shown, make_app, question_shown, settle, started, wait_for

SIZE = (80, 24)


async def test_p_in_the_list_practises_the_highlighted_template(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await browser_shown(pilot)
        await pilot.press("p")
        assert isinstance(app.screen, BrowserScreen)  # p is a letter in the filter
        assert app.screen.query_one("#browser-search", Input).value == "p"
        await pilot.press("backspace", *"model state")
        await pilot.press("down", "p")
        screen = await question_shown(pilot)
        assert screen.mode == "practice" and screen.question is not None
        assert screen.question.label.startswith("memory/model-state#")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen))


async def test_p_in_the_preview_practises_fresh_variants_of_it(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await browser_shown(pilot)
        await pilot.press(*"flops", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TemplatePreviewScreen))
        await settle(pilot)
        await pilot.press("p")
        screen = await question_shown(pilot)
        assert screen.question is not None
        assert screen.question.label.startswith("compute/flops-formula#")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TemplatePreviewScreen))
