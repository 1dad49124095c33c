"""The app says why the data cannot be opened instead of "loading…" (issue 10)."""

from __future__ import annotations

from pathlib import Path

from quiz.tui.screens.home import HomeScreen

from .conftest import make_app, screen_text, started


async def test_a_broken_data_folder_is_shown_instead_of_loading(tmp_path: Path) -> None:
    (tmp_path / "plain-file").write_text("not a folder\n")
    app = make_app(tmp_path / "plain-file")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        assert app.failure is not None and "plain-file" in app.failure
        home = app.screen
        assert isinstance(home, HomeScreen)
        due = " ".join(screen_text(home.query_one("#home-due")).split())
        assert "plain-file" in due and "Opening" not in due
        menu = " ".join(screen_text(home.query_one("#home-menu")).split())
        assert "loading" not in menu and "unavailable" in menu
        await pilot.press("s")  # a mode that needs the history says why it cannot open
        assert app.screen is home
