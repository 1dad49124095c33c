"""The app's modes, in one table: routing, the home menu, keys, command palette, help.

A mode is a place the user can go from anywhere: the daily drill, practice, a mock
interview, the stats, the template browser, help, home. Each row of :data:`MODES` says
how it is named, which key opens it on the home screen, what the menu and the command
palette say about it, what it needs before it can open (the history, the question
bank), and how it opens. :class:`~quiz.tui.app.QuizApp` routes through it, the home
screen builds its menu and bindings from it, the command palette lists it, and the
help screen's "Home" section is generated from it — so adding a screen is one module in
``screens/`` and one row here.

Screens are imported inside the openers, when first shown: importing this module loads
neither sympy nor the core.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quiz.tui.app import QuizApp

__all__ = ["MODES", "Mode", "by_name", "menu_modes"]


BLURB_WIDTH = 28
"""Cells a menu blurb fits in at 80 columns; a longer one wraps under the keys."""


@dataclass(frozen=True)
class Mode:
    """One place the app can open.

    Attributes:
        name: the id used by ``app.open_mode(name)``, bindings and the menu option.
        title: what the menu and the command palette call it.
        blurb: the menu's second line (at most :data:`BLURB_WIDTH` cells: the menu
            is that narrow at 80 columns).
        palette: the command palette's description.
        opener: opens the mode on the app (called once its needs are met).
        key: the home screen's key for it ("" for none).
        binding: the footer label of that key ("" to leave the key unbound, e.g. when
            the app binds it everywhere).
        help: the help screen's line for the key ("" to leave the mode out of it).
        needs_state: the history must be open first.
        needs_bank: the question bank must be loaded first.
        menu: listed in the home screen's menu.
    """

    name: str
    title: str
    blurb: str
    palette: str
    opener: Callable[[QuizApp], None]
    key: str = ""
    binding: str = ""
    help: str = ""
    needs_state: bool = True
    needs_bank: bool = False
    menu: bool = True


# ---------------------------------------------------------------- openers


def _open_drill(app: QuizApp) -> None:
    app.start_drill()


def _open_practice(app: QuizApp) -> None:
    from quiz.tui.screens.practice import PracticeScreen

    assert app.bank is not None
    app.go_home()
    app.push_screen(PracticeScreen(app.bank))


def _open_mock(app: QuizApp) -> None:
    from quiz.tui.screens.mock_setup import MockSetupScreen

    assert app.state is not None
    settings = app.state.settings
    app.go_home()
    app.push_screen(MockSetupScreen(settings.mock_questions, settings.mock_minutes))


def _open_learn(app: QuizApp) -> None:
    from quiz.core.learn import Progress, bank_templates, progress_in
    from quiz.tui.screens.learn import LearnScreen

    assert app.state is not None and app.bank is not None
    state, bank = app.state, app.bank

    def count() -> list[Progress]:
        return progress_in(state.store, bank_templates(bank))

    app.go_home()
    app.push_screen(LearnScreen(bank, count(), recount=count))


def _open_stats(app: QuizApp) -> None:
    from quiz.tui.screens.stats import StatsScreen

    assert app.state is not None
    app.go_home()
    app.push_screen(StatsScreen(app.state, app.bank, app.now))


def _open_browser(app: QuizApp) -> None:
    from quiz.tui.screens.browser import BrowserScreen

    assert app.bank is not None
    app.go_home()
    app.push_screen(BrowserScreen(app.bank))


def _open_lab(app: QuizApp) -> None:
    from quiz.tui.screens.layout_lab import LayoutLabScreen

    app.go_home()
    app.push_screen(LayoutLabScreen())


def _open_mistakes(app: QuizApp) -> None:
    from quiz.tui.screens.mistakes import MistakesScreen

    assert app.state is not None and app.bank is not None
    app.go_home()
    app.push_screen(MistakesScreen(app.state, app.bank))


def _open_settings(app: QuizApp) -> None:
    from quiz import locations
    from quiz.tui.screens.settings import SettingsScreen

    assert app.state is not None
    app.go_home()
    from quiz.tui.data import workload_text

    state = app.state
    templates = len(app.bank.summaries) if app.bank is not None else len(
        app.template_ids or ())
    app.push_screen(SettingsScreen(state.settings, locations.config_path(state.data_dir),
                                   sorted(app.available_themes),
                                   lambda r: workload_text(state, templates, r)))


def _open_help(app: QuizApp) -> None:
    from quiz.tui.screens.help import HelpScreen

    if not isinstance(app.screen, HelpScreen):
        app.push_screen(HelpScreen())


def _open_home(app: QuizApp) -> None:
    app.go_home()


# ---------------------------------------------------------------- the table

MODES: tuple[Mode, ...] = (
    Mode("drill", "Daily drill", "what is due today", "Today's due reviews and new questions",
         _open_drill, key="d", binding="Drill", help="daily drill", needs_bank=True),
    Mode("practice", "Practice", "one topic, endless variants",
         "Endless questions on a topic of your choice", _open_practice, key="p",
         binding="Practice", help="practice a topic", needs_bank=True),
    Mode("mock", "Mock interview", "timed, scored at the end",
         "Timed questions, scored at the end", _open_mock, key="m", binding="Mock",
         help="mock interview", needs_bank=True),
    Mode("learn", "Learn", "step by step, easiest first",
         "Walk through an item's or topic's questions one derivation step at a time",
         _open_learn, key="w", binding="Learn", help="learn: walk through step by step",
         needs_bank=True),
    Mode("stats", "Stats", "accuracy and what is due",
         "Accuracy, retention and what is due", _open_stats, key="s", binding="Stats",
         help="stats"),
    Mode("mistakes", "Mistakes", "what you got wrong, to retry",
         "Past incorrect answers with keys and worked solutions; retry them",
         _open_mistakes, key="x", binding="Mistakes", help="mistakes", needs_bank=True),
    Mode("browser", "Template browser", "search and preview",
         "Search the questions and preview them", _open_browser, key="t",
         binding="Templates", help="template browser", needs_bank=True),
    Mode("lab", "Layout lab", "lay a model out on a cluster",
         "Change each parallel axis and watch memory and step time", _open_lab, key="l",
         binding="Lab", help="layout lab", needs_state=False),
    Mode("settings", "Settings", "theme, limits, mock defaults",
         "Theme, new questions and reviews a day, mock defaults, hints in mocks",
         _open_settings, key="c", binding="Settings", help="settings"),
    Mode("help", "Help", "every key on one screen", "Every key, on one screen", _open_help,
         key="?", needs_state=False),
    Mode("home", "Home", "", "Back to the home screen", _open_home, needs_state=False,
         menu=False),
)
"""Every mode, in menu order (the command palette lists Home first)."""

_BY_NAME = {mode.name: mode for mode in MODES}


def by_name(name: str) -> Mode:
    """The mode called ``name``.

    Raises:
        KeyError: no mode has that name (a bug in a binding or a caller).
    """
    return _BY_NAME[name]


def menu_modes() -> list[Mode]:
    """The modes of the home screen's menu, in order."""
    return [mode for mode in MODES if mode.menu]


def palette_modes() -> list[Mode]:
    """The modes the command palette lists: Home first, then the menu's order."""
    return [by_name("home"), *menu_modes()]
