"""Practice from the template browser (issue 12: only the CLI could start it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from quiz.tui.screens.browser import BrowserScreen
from quiz.tui.screens.template_preview import TemplatePreviewScreen
from quiz.tui.widgets.template_list import TemplateList

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


async def test_enter_then_p_in_one_burst_practises_the_highlighted_row(
        data_dir: Path) -> None:
    """"⏎ p" typed faster than a frame: the Enter moves to the list, so the p practises.

    Regression: the filter's own Enter posted a message that moved the focus only once
    handled, after the p had already been handed to the filter as a letter."""
    from textual import events

    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await browser_shown(pilot)
        await pilot.press(*"parallelism")
        browser = app.screen
        search = browser.query_one("#browser-search", Input)
        rows = browser.query_one("#browser-table", TemplateList).rows
        assert len(rows) > 1  # Enter goes to the list (one row would open its preview)
        for key, char in (("enter", "\r"), ("p", "p")):
            app.post_message(events.Key(key, char))
        await wait_for(pilot, lambda: app.screen is not browser or search.value != "parallelism")
        assert search.value == "parallelism"  # the p did not go to the filter
        screen = await question_shown(pilot)
        assert screen.question is not None
        assert screen.question.label.startswith(f"{rows[0].id}#")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen))
        assert search.value == "parallelism"


@pytest.mark.parametrize(("typed", "first"), [
    ("parallelism", "parallelism/activations-untouched"),  # two rows: Enter to the list
    ("flops", "compute/flops-formula"),  # one row: Enter opens its preview, p practises
])
async def test_letters_enter_and_p_in_one_burst_practise_the_filtered_row(
        data_dir: Path, typed: str, first: str) -> None:
    """The whole burst at once: the filter's letters, Enter and p. The letters are
    still in the filter's queue when the Enter arrives; the p practises the first row
    of what they filter, never of the list before them."""
    from textual import events

    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await browser_shown(pilot)
        browser = app.screen
        search = browser.query_one("#browser-search", Input)
        for c in typed:
            app.post_message(events.Key(c, c))
        for key, char in (("enter", "\r"), ("p", "p")):
            app.post_message(events.Key(key, char))
        screen = await question_shown(pilot)
        assert screen.question is not None
        assert screen.question.label.startswith(f"{first}#")
        assert search.value == typed
