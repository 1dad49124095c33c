"""A one-line list of a screen's keys, docked at the bottom: a light stand-in for Footer."""

from __future__ import annotations

from collections.abc import Sequence

from textual.markup import escape
from textual.widgets import Static


class KeysLine(Static):
    """``Enter Next   Esc Stop   ? Help``; each entry can be clicked.

    Screens shown once per answer use this instead of Textual's Footer, which builds a
    widget per binding and restyles them all whenever a screen is shown or resumed
    (most of the time it took the feedback screen to appear).

    Args:
        keys: (key as shown, what it does, action run on a click, e.g. ``screen.hint``).
    """

    DEFAULT_CSS = """
    KeysLine {
        dock: bottom;
        width: 1fr;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    def __init__(self, keys: Sequence[tuple[str, str, str]], *, id: str | None = None) -> None:
        super().__init__(_markup(keys), id=id, classes="keys-line")

    def set_keys(self, keys: Sequence[tuple[str, str, str]]) -> None:
        """Show another set of keys (a question screen whose answer kind changed)."""
        self.update(_markup(keys))


def _markup(keys: Sequence[tuple[str, str, str]]) -> str:
    return "   ".join(f"[@click={action}][b $text-accent]{escape(key)}[/] "
                       f"{escape(name)}[/]" for key, name, action in keys)
