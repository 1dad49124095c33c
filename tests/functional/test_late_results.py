"""A worker's result that arrives as the app closes is dropped, not shown on widgets
that are gone.

The stats screen reads the history in a thread and posts what it found. When the person
quits at that moment, Textual removes the screen's widgets before the screen's queue is
drained; the handler then looked for ``#stats-summary`` and raised ``NoMatches`` during
the shutdown (seen as an intermittent failure of a Pilot test that leaves right after the
stats screen opens). Handlers that only display a worker's result are wrapped in
:func:`quiz.tui.messages.while_shown`."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.css.query import NoMatches

from quiz.tui import messages
from quiz.tui.data import stats_data
from quiz.tui.messages import StatsComputed
from quiz.tui.screens import done, layout_lab, learn, mistakes, settings, stats, template_preview
from quiz.tui.screens.stats import StatsScreen

from .conftest import make_app, screen_text, seed_history, started, wait_for


async def test_stats_that_arrive_after_the_app_closed_are_dropped(data_dir: Path) -> None:
    seed_history(data_dir)
    app = make_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        summary = screen.query_one("#stats-summary")
        await wait_for(pilot, lambda: "Reading your history" not in screen_text(summary))
        late = StatsComputed(stats_data(screen.state, screen.bank, screen.now))
    # The app has closed and its screens' widgets are gone: the result is dropped...
    assert not screen.is_attached
    assert screen._show(late) is None
    # ... where the handler itself would look for a widget that is not there.
    with pytest.raises(NoMatches):
        screen._show.__wrapped__(screen, late)  # type: ignore[attr-defined]


@pytest.mark.parametrize("handler", [
    stats.StatsScreen._show, stats.StatsScreen._calibrated, stats.StatsScreen._fitted,
    layout_lab.LayoutLabScreen._loaded, settings.SettingsScreen._forecast_shown,
    template_preview.TemplatePreviewScreen._show, mistakes.MistakesScreen._found,
    done.DoneScreen._summarized, done.DoneScreen._show, learn.WalkScreen._ready,
], ids=lambda h: h.__qualname__)
def test_every_display_of_a_workers_result_is_dropped_off_the_app(
        handler: Callable[..., Any]) -> None:
    """Each handler that only shows what a worker found is wrapped (a node off the app
    gets nothing), and keeps the signature Textual dispatches on."""
    wrapped = getattr(handler, "__wrapped__", None)
    assert wrapped is not None, f"{handler} is not wrapped in while_shown"
    assert handler.__code__ is messages.while_shown(wrapped).__code__
    assert list(inspect.signature(handler).parameters) == ["self", "event"]
