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


async def test_keys_typed_in_one_burst_go_where_the_first_ones_sent_focus(
        data_dir: Path) -> None:
    """"↓ p" typed faster than a frame: the ↓ moves to the list, so the p practises.

    The terminal hands keys over in bursts, all queued before the first is handled
    (pilot.press waits between keys, so the events are posted at once here)."""
    from textual import events

    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await browser_shown(pilot)
        await pilot.press(*"model state")
        search = app.screen.query_one("#browser-search", Input)
        for key, char in (("down", None), ("down", None), ("p", "p")):
            app.post_message(events.Key(key, char))
        await wait_for(pilot, lambda: app.screen is not pilot.app.screen_stack[1]
                       or search.value != "model state")
        assert search.value == "model state"  # the p did not go to the filter
        screen = await question_shown(pilot)
        assert screen.question is not None
        assert screen.question.label.startswith("memory/model-state#")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen))
        assert search.value == "model state"
