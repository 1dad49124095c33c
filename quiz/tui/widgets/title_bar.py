"""The one-line bar at the top of every screen: the app's name and where you are."""

from __future__ import annotations

from textual.widgets import Static


class TitleBar(Static):
    """``quiz · Daily drill``, docked at the top.

    A plain Static rather than Textual's Header: nothing in it changes after it is
    shown, and it has no clock or watchers to outlive a screen closed at once.
    """

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 1fr;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
        text-style: bold;
    }
    """

    def __init__(self, where: str = "") -> None:
        text = f"quiz · {where}" if where else "quiz"
        super().__init__(text, markup=False, classes="title-bar")
