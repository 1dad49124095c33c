"""Pilot tests of the settings screen: edits apply at once and keep the user's file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widgets import Input, Select, Static, Switch

from quiz import locations
from quiz.core.settings import Settings
from quiz.tui.screens.home import HomeScreen
from quiz.tui.screens.mock_setup import MockSetupScreen
from quiz.tui.screens.settings import LABELS, SettingsScreen

from .conftest import make_app, settle, started, wait_for

if TYPE_CHECKING:
    from textual.pilot import Pilot
    from textual.screen import Screen

SIZE = (80, 24)
USER_FILE = "# mine: fewer new questions while I travel\nnew_per_day = 5  # until March\n"


def shown(screen: Screen[Any], selector: str) -> str:
    """What a Static says (its content, before wrapping)."""
    return str(screen.query_one(selector, Static).render())


async def settings_shown(pilot: Pilot[Any]) -> None:
    """Wait until the settings screen shows its fields."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen)
                   and bool(app.screen.query("#set-theme")))
    await settle(pilot)


def test_every_setting_has_a_place_on_the_screen() -> None:
    assert sorted(LABELS) == sorted(Settings.model_fields)


async def test_settings_open_from_home_edit_the_file_and_keep_its_comments(
        data_dir: Path) -> None:
    config = locations.config_path(data_dir)
    data_dir.mkdir(parents=True)
    config.write_text(USER_FILE)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("c")
        await settings_shown(pilot)
        screen = app.screen
        field = screen.query_one("#set-new_per_day", Input)
        assert field.value == "5"
        field.focus()
        await pilot.press("end", "backspace", "3")
        await pilot.press("tab", "tab")  # to the mock's questions
        await pilot.press("end", "backspace", "1", "2")
        await settle(pilot)
        assert app.state is not None
        assert (app.state.settings.new_per_day, app.state.settings.mock_questions) == (3, 12)
        text = config.read_text()
        assert text.startswith("# mine: fewer new questions while I travel\n"
                               "new_per_day = 3  # until March\n")
        assert tomllib.loads(text)["mock_questions"] == 12
        # The mock's setup offers the new default at once.
        await pilot.press("escape", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, MockSetupScreen))
        assert app.screen.query_one("#mock-questions", Input).value == "12"


async def test_an_out_of_range_value_says_why_and_is_not_saved(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.open_mode("settings")
        await settings_shown(pilot)
        app.screen.query_one("#set-mock_minutes", Input).value = "0"
        await settle(pilot)
        about = shown(app.screen, "#about-mock_minutes")
        assert about == "Not saved: give a whole number from 1 to 240."
        assert app.state is not None and app.state.settings.mock_minutes == 30
        assert not locations.config_path(data_dir).exists()
        app.screen.query_one("#set-mock_minutes", Input).value = "45"
        await settle(pilot)
        about = shown(app.screen, "#about-mock_minutes")
        assert about.startswith("Length of a mock interview")
        assert app.state.settings.mock_minutes == 45


async def test_hints_in_mocks_and_the_theme_are_switched_and_kept(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.open_mode("settings")
        await settings_shown(pilot)
        screen = app.screen
        assert shown(screen, "#state-mock_hints") == "off"
        screen.query_one("#set-mock_hints", Switch).focus()
        await pilot.press("space")
        await settle(pilot)
        assert shown(screen, "#state-mock_hints") == "on"
        screen.query_one("#set-theme", Select).value = "textual-light"
        await settle(pilot)
        assert app.theme == "textual-light"
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
    saved = tomllib.loads(locations.config_path(data_dir).read_text())
    assert saved["mock_hints"] is True and saved["theme"] == "textual-light"


async def test_settings_are_in_the_command_palette(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert "Settings" in [c.title for c in app.get_system_commands(app.screen)]


async def test_a_hand_edit_made_while_the_app_runs_is_kept(data_dir: Path) -> None:
    """Issue 26: saving wrote back every value the screen had read when it opened (and
    every default), so an edit of config.toml made meanwhile was reverted."""
    config = locations.config_path(data_dir)
    data_dir.mkdir(parents=True)
    config.write_text(USER_FILE)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.open_mode("settings")
        await settings_shown(pilot)
        config.write_text(USER_FILE.replace("= 5", "= 7") + "mock_minutes = 50\n")
        app.screen.query_one("#set-mock_questions", Input).value = "12"
        await settle(pilot)
        await app.workers.wait_for_complete()
    saved = tomllib.loads(config.read_text())
    assert saved == {"new_per_day": 7, "mock_minutes": 50, "mock_questions": 12}
