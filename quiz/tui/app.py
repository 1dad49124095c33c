"""The Textual application (being built: see issue 4)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Static


class QuizApp(App[int]):
    """The quiz terminal app."""

    def __init__(self, data_dir: str | None = None, template_dirs: list[str] | None = None):
        super().__init__()
        self.data_dir = data_dir
        self.template_dirs = template_dirs or []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("quiz — try `quiz solve --list` on the command line.")
        yield Footer()
