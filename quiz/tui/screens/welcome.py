"""The first-run welcome: what the app does and the few keys that matter."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Static

from quiz.tui.modes import MODES

WELCOME = """\
Every question draws fresh numbers from a template, so you practise the method, \
not the answer. Type a number with its unit (3.2 TB, 17 days), a formula (2*(a + b)) \
or letters (a, c); the line under the box shows how your text was read before you \
commit. Unreadable input costs nothing.

[b $text-accent]Enter[/]    submit an answer, then move on
[b $text-accent]ctrl+g[/]   reveal a hint (it costs part of the score)
[b $text-accent]Escape[/]   go back
[b $text-accent]F1[/]       every key, on one screen (? too, outside a text box)
[b $text-accent]ctrl+p[/]   command palette: jump to any mode
[b $text-accent]ctrl+q[/]   quit (every answer is already saved)

"""


def home_keys() -> str:
    """The home screen's keys, from the table of modes (help's "?" is listed above)."""
    keys = [f"[b]{escape(mode.key)}[/] {escape(mode.help)}" for mode in MODES
            if mode.key and mode.help and mode.key != "?"]
    return "On the home screen: " + ", ".join(keys) + "."


class WelcomeScreen(ModalScreen[None]):
    """Shown over the home screen while the history is still empty."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "dismiss", "Start", key_display="Enter"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="welcome-box", classes="dialog"):
            yield Static("Welcome to quiz", classes="dialog-title")
            yield Static(WELCOME + home_keys(), id="welcome-text")
            yield Static("Press Enter to start.", classes="dialog-footer")
