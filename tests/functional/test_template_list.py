"""The template browser at 6,500 templates (issue 15): the list draws only the lines on
screen, so opening it and filtering it cost the same at any bank size."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.widgets import Input

from questions.catalog import Entry
from questions.loader import Bank
from quiz.tui.screens.browser import BrowserScreen
from quiz.tui.widgets.template_list import TemplateList

SIZE = (100, 30)


def big_bank(n: int) -> Bank:
    """``n`` template summaries (a browser reads no template until one is previewed)."""
    kinds = ("number", "formula", "choice")
    entries = {f"memory/t{i:05d}": Entry(f"t{i}.toml", f"memory/t{i:05d}",
                                         f"Question number {i}", "memory",
                                         ("rapid-fire-1",) if i % 2 else (), 1 + i % 3,
                                         kinds[i % 3])
               for i in range(n)}
    return Bank(templates={}, listed=entries)


class Browse(App[None]):
    def __init__(self, bank: Bank) -> None:
        super().__init__()
        self.bank = bank
        self.chosen: list[str] = []

    def on_mount(self) -> None:
        self.push_screen(BrowserScreen(self.bank))


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The list's lines drawn from now on."""
    lines: list[int] = []
    real = TemplateList.render_line

    def counting(self: TemplateList, y: int) -> Any:
        lines.append(y)
        return real(self, y)

    monkeypatch.setattr(TemplateList, "render_line", counting)
    return lines


async def test_the_browser_draws_only_the_lines_on_screen(drawn: list[int]) -> None:
    for n in (300, 6_500):
        drawn.clear()
        await browse_and_filter(n, drawn)


async def browse_and_filter(n: int, drawn: list[int]) -> None:
    app = Browse(big_bank(n))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await pilot.press(*"t0012")
        await pilot.pause()
        listed = screen.query_one("#browser-table", TemplateList)
        height = listed.size.height
        assert 0 < len(drawn) <= height * 12  # a few frames of one screenful each
        assert max(drawn) < height
        count = str(screen.query_one("#browser-count").render())
        assert count.startswith(f"10 of {n} templates")
        assert [row.id for row in listed.rows] == [f"memory/t0012{i}" for i in range(10)]


async def test_keys_move_the_highlight_and_enter_chooses(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    chosen: list[str] = []
    monkeypatch.setattr(BrowserScreen, "_open", lambda self, tid: chosen.append(tid))
    app = Browse(big_bank(500))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        listed = screen.query_one("#browser-table", TemplateList)
        await pilot.press("down")  # from the filter to the list
        assert screen.focused is listed
        await pilot.press("down", "down", "enter")
        assert chosen == ["memory/t00002"]
        await pilot.press("end", "enter")
        assert chosen[-1] == "memory/t00499"
        assert listed.scroll_offset.y > 0  # the highlight stays on screen
        await pilot.press("home", "pagedown", "enter")
        assert chosen[-1] == f"memory/t{listed.size.height - 1:05d}"
        await pilot.press("up", "enter")
        assert chosen[-1] == f"memory/t{listed.size.height - 2:05d}"
        await pilot.click(listed, offset=(5, 3))  # the header is line 0
        await pilot.pause()
        assert chosen[-1] == f"memory/t{listed.scroll_offset.y + 2:05d}"
        screen.query_one("#browser-search", Input).focus()
        await pilot.press(*"t00042", "enter")  # one match: Enter in the filter opens it
        assert chosen[-1] == "memory/t00042"
        assert isinstance(screen, BrowserScreen)
        screen.on_screen_resume()  # as when its preview closes: the filter has the focus
        await pilot.pause()
        assert screen.focused is screen.query_one("#browser-search")
        await pilot.press("ctrl+a", "ctrl+k", *"nothing like it")
        await pilot.pause()
        assert listed.rows == [] and listed.highlighted is None
        listed.focus()
        await pilot.press("enter", "down", "end")
        assert chosen[-1] == "memory/t00042"
