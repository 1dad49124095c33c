"""Help: every key of every screen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Static

from quiz.tui.modes import MODES

KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    ("Everywhere", [
        ("F1  ?", "this help (? where it is not typed into a box)"),
        ("Escape", "go back (close this help)"),
        ("ctrl+p", "command palette: any mode by name, or the theme"),
        ("ctrl+q", "quit; every answer is saved the moment it is graded"),
        ("Tab", "move between fields"),
    ]),
    ("Home", [
        *((mode.key, mode.help) for mode in MODES if mode.key and mode.help),
        ("↑ ↓  Enter", "pick from the menu"),
        ("q", "quit (ctrl+q quits from anywhere)"),
    ]),
    ("Question", [
        ("Enter", "submit (unreadable input costs no attempt)"),
        ("ctrl+d", "submit a 30-second answer (Enter: a new line)"),
        ("ctrl+g", "reveal the next hint (it costs part of the score)"),
        ("PgUp PgDn", "scroll the question while you type"),
        ("ctrl+s", "skip: no score, asked again later (not in a mock)"),
        ("ctrl+f", "flag the question as wrong or unclear, with a note"),
        ("Escape", "stop and go back (a mock asks first)"),
    ]),
    ("Feedback", [
        ("Enter", "next question, or the next part of a scenario"),
        ("↑ ↓  PgUp PgDn", "scroll the worked solution"),
        ("w", "walk through it one step at a time (after a miss)"),
        ("v", "show or hide the question"),
        ("f", "flag the question as wrong or unclear"),
        ("l", "open a layout question in the layout lab"),
        ("u", "the interviewer's follow-up: what if ...?"),
        ("Escape", "stop here"),
    ]),
    ("Learn", [
        ("↑ ↓  Enter", "choose an item or topic to walk through"),
        ("Enter", "submit a step or the question"),
        ("ctrl+d", "submit a 30-second answer (Enter: a new line)"),
        ("ctrl+r", "show the step's answer and working, and go on"),
        ("Escape", "stop (the questions answered whole are saved)"),
    ]),
    ("Mistakes", [
        ("r  n", "retry the same variant, or a fresh one"),
        ("l", "practise the leeches (missed again and again)"),
        ("b", "bring a template suspended from the drill back"),
    ]),
    ("Stats", [
        ("o", "fit the scheduler to your reviews (200 needed)"),
    ]),
    ("Practice picker", [
        ("↑ ↓  Enter", "choose a topic or rapid-fire item and start"),
        ("Tab", "reach the difficulty and the scheduling switch"),
    ]),
    ("Template browser", [
        ("type", "filter by id, title, topic or tag"),
        ("↓  Enter", "open the highlighted template"),
        ("p", "practise the highlighted template (Esc: back)"),
        ("[  ]", "previous / next seed in the preview"),
    ]),
]


def help_text() -> str:
    """The key table as content markup."""
    lines: list[str] = []
    for section, rows in KEYS:
        if lines:
            lines.append("")
        lines.append(f"[b $text-primary]{escape(section)}[/]")
        for keys, what in rows:
            lines.append(f"  [b $text-accent]{escape(keys):<15}[/] {escape(what)}")
    return "\n".join(lines)


WIDEST = 51
"""Cells a key's description may take: the table fits the dialog at 80 columns (a
wrapped description would run on under the keys)."""


class HelpScreen(ModalScreen[None]):
    """Every key, grouped by screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            yield Static("Keys", classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(help_text(), id="help-text")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
