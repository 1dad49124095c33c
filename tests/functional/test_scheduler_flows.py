"""Pilot tests of the fitted scheduler's screen parts: the stats screen's calibration and
its ``o`` (fit), the settings screen's desired retention with its workload forecast, and
the mistakes screen's suspended leeches with ``b`` (bring back)."""

from __future__ import annotations

import tomllib
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widgets import Input, OptionList, Static

from quiz import locations
from quiz.core.store import Review, Store

from .conftest import NOW, make_app, settle, started, wait_for

if TYPE_CHECKING:
    from textual.pilot import Pilot
    from textual.screen import Screen

SIZE = (100, 40)
GAPS = (1, 3, 7, 15, 30)
"""Days between a template's reviews in :func:`seed_reviews`."""


def seed_reviews(data_dir: Path, templates: int = 80) -> None:
    """A fixed review log ending before NOW: each template reviewed 6 times, 1 to 30
    days apart, forgotten now and then (400 later-day reviews for 80 templates)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with Store.open(locations.db_path(data_dir), now=lambda: NOW) as store, store.batch():
        for t in range(templates):
            when = NOW - timedelta(days=sum(GAPS) + 1 + t % 20, hours=t % 7)
            for i, gap in enumerate((0, *GAPS)):
                when += timedelta(days=gap)
                rating = 1 if (i * 7 + t * 3) % (4 + i) == 0 else 3
                store.put_card(f"mem/t{t}", "{}", Review(
                    template_id=f"mem/t{t}", rating=rating, reviewed_at=when,
                    state_before=0 if i == 0 else 2))


def shown(screen: Screen[Any], selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def stats_shown(pilot: Pilot[Any]) -> None:
    await started(pilot)
    await pilot.press("s")
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "StatsScreen"
                   and shown(pilot.app.screen, "#stats-scheduler") != "")
    await settle(pilot)


def notes(pilot: Pilot[Any]) -> str:
    return "\n".join(str(n.message) for n in pilot.app._notifications)


async def test_stats_shows_calibration_and_o_fits_the_scheduler(data_dir: Path) -> None:
    seed_reviews(data_dir)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await stats_shown(pilot)
        status = shown(app.screen, "#stats-scheduler")
        assert status.startswith("FSRS's default parameters (o fits them")
        assert "400 reviews a day or more after the one before" in status
        await pilot.press("o")
        await wait_for(pilot, lambda: "Held-out log loss" in notes(pilot))
        await settle(pilot)
        assert "Fitted to 400 reviews" in notes(pilot)
        assert app.state is not None
        fitted = app.state.store.fsrs_parameters() is not None
        assert ("now in force" in notes(pilot)) == fitted
        if fitted:
            assert shown(app.screen, "#stats-scheduler").startswith("Parameters fitted")


async def test_o_with_too_few_reviews_says_so_and_changes_nothing(data_dir: Path) -> None:
    seed_reviews(data_dir, templates=5)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await stats_shown(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: "at least 200 reviews" in notes(pilot))
        assert "your history has 25" in notes(pilot)
        assert app.state is not None and app.state.store.fsrs_parameters() is None


async def test_stats_with_a_corrupt_fit_on_record_says_the_defaults_are_used(
        data_dir: Path) -> None:
    seed_reviews(data_dir, templates=5)
    with Store.open(locations.db_path(data_dir), now=lambda: NOW) as store:
        store.set_fsrs_parameters("[1, 2, 3]")
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await stats_shown(pilot)
        assert "not 21 numbers" in shown(app.screen, "#stats-scheduler")


async def test_desired_retention_shows_its_workload_and_saves_on_enter(data_dir: Path) -> None:
    app = make_app(data_dir)
    config = locations.config_path(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.open_mode("settings")
        await wait_for(pilot, lambda: bool(app.screen.query("#set-desired_retention")))
        field = app.screen.query_one("#set-desired_retention", Input)
        field.focus()
        await pilot.press("end", "backspace", "9", "5")
        await settle(pilot)
        about = shown(app.screen, "#about-desired_retention")
        assert about.startswith("0.95: about ") and "reviews a day" in about
        assert "(0.9 now: about " in about and about.endswith("Enter saves it.")
        assert app.state is not None and app.state.settings.desired_retention == 0.9
        assert not config.exists() or "desired_retention" not in config.read_text()
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.settings.desired_retention == 0.95
        assert tomllib.loads(config.read_text())["desired_retention"] == 0.95


async def test_a_desired_retention_out_of_range_is_not_forecast_or_saved(
        data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.open_mode("settings")
        await wait_for(pilot, lambda: bool(app.screen.query("#set-desired_retention")))
        field = app.screen.query_one("#set-desired_retention", Input)
        for text in ("0.99", "0.5", "1e9", "-0.9"):
            field.value = text
            await settle(pilot)
            assert shown(app.screen, "#about-desired_retention") == (
                "Not saved: give a number from 0.8 to 0.97.")
        field.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.state is not None and app.state.settings.desired_retention == 0.9
        assert not locations.config_path(data_dir).exists()


async def test_mistakes_list_suspended_leeches_and_b_brings_one_back(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    with Store.open(locations.db_path(data_dir), now=lambda: NOW) as store:
        store.suspend("memory/model-state", 8, NOW - timedelta(days=2))
        store.suspend("compute/flops-formula", 12, NOW - timedelta(days=1))
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("x")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "MistakesScreen"
                       and app.screen.query_one("#suspended-list", OptionList).option_count)
        await settle(pilot)
        assert "(2 templates): b brings one back" in shown(app.screen, "#suspended-title")
        menu = app.screen.query_one("#suspended-list", OptionList)
        assert "memory/model-state  (8 lapses, since 2025-03-01)" in str(
            menu.get_option_at_index(0).prompt)
        await pilot.press("b")
        await settle(pilot)
        assert app.state is not None
        assert list(app.state.store.suspended()) == ["compute/flops-formula"]
        assert menu.option_count == 1
        menu.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.store.suspended() == {}
        assert not app.screen.query_one("#suspended-list").display
