"""The app's modes, in one table: routing, the home menu, keys, command palette, help.

A mode is a place the user can go from anywhere: the daily drill, practice, a mock
interview, the stats, the template browser, help, home. Each row of :data:`MODES` says
how it is named, which key opens it on the home screen, what the menu and the command
palette say about it, what it needs before it can open (the history, the question
bank). The app's router (:mod:`quiz.tui.routing`) routes through it and opens each
mode with its row of ``OPENERS``; the home screen builds its menu and bindings from it,
the command palette lists it, and the help screen's "Home" section is generated from
it — so adding a screen is one module in ``screens/``, one row here and one opener.

This module is data only: it imports no screen and no app, so the screens that build
from it (home, help, welcome) stay out of any import circle.
"""

from __future__ import annotations

from msgspec import Struct

__all__ = ["MODES", "Mode", "by_name", "menu_modes"]


BLURB_WIDTH = 28
"""Cells a menu blurb fits in at 80 columns; a longer one wraps under the keys."""


class Mode(Struct, frozen=True):
    """One place the app can open.

    Attributes:
        name: the id used by ``app.open_mode(name)``, bindings and the menu option.
        title: what the menu and the command palette call it.
        blurb: the menu's second line (at most :data:`BLURB_WIDTH` cells: the menu
            is that narrow at 80 columns).
        palette: the command palette's description.
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
    key: str = ""
    binding: str = ""
    help: str = ""
    needs_state: bool = True
    needs_bank: bool = False
    menu: bool = True


# ---------------------------------------------------------------- the table

MODES: tuple[Mode, ...] = (
    Mode("drill", "Daily drill", "what is due today", "Today's due reviews and new questions",
         key="d", binding="Drill", help="daily drill", needs_bank=True),
    Mode("practice", "Practice", "one topic, endless variants",
         "Endless questions on a topic of your choice", key="p",
         binding="Practice", help="practice a topic", needs_bank=True),
    Mode("mock", "Mock interview", "timed, scored at the end",
         "Timed questions, scored at the end", key="m", binding="Mock",
         help="mock interview", needs_bank=True),
    Mode("learn", "Learn", "step by step, easiest first",
         "Walk through an item's or topic's questions one derivation step at a time",
         key="w", binding="Learn", help="learn: walk through step by step",
         needs_bank=True),
    Mode("stats", "Stats", "accuracy and what is due",
         "Accuracy, retention and what is due", key="s", binding="Stats",
         help="stats"),
    Mode("mistakes", "Mistakes", "what you got wrong, to retry",
         "Past incorrect answers with keys and worked solutions; retry them",
         key="x", binding="Mistakes", help="mistakes", needs_bank=True),
    Mode("browser", "Template browser", "search and preview",
         "Search the questions and preview them", key="t",
         binding="Templates", help="template browser", needs_bank=True),
    Mode("lab", "Layout lab", "lay a model out on a cluster",
         "Change each parallel axis and watch memory and step time", key="l",
         binding="Lab", help="layout lab", needs_state=False),
    Mode("settings", "Settings", "theme, limits, mock defaults",
         "Theme, new questions and reviews a day, mock defaults, hints in mocks",
         key="c", binding="Settings", help="settings"),
    Mode("help", "Help", "every key on one screen", "Every key, on one screen",
         key="?", needs_state=False),
    Mode("home", "Home", "", "Back to the home screen", needs_state=False,
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
