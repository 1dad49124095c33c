"""A worked derivation, laid out for reading: prose, numbered steps, indented math."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quiz.tui.data import derivation_blocks


class Derivation(Vertical):
    """Shows the core's plain-text derivation with each kind of line styled apart.

    Args:
        text: the derivation (``Outcome.explanation`` or a template preview's).
        title: a heading shown above it, or None.
    """

    DEFAULT_CSS = """
    Derivation { height: auto; }
    Derivation > .derivation-title { text-style: bold; color: $text-primary; margin-top: 1; }
    Derivation > .-text { margin: 1 0 0 0; }
    Derivation > .-quantity { margin-top: 1; text-style: bold; color: $text-accent; }
    Derivation > .-step { margin-top: 1; padding-left: 2; }
    Derivation > .-math { padding-left: 5; color: $text-muted; }
    Derivation > .-note { margin-top: 1; padding-left: 2; color: $text-muted;
                          text-style: italic; }
    Derivation > .-answer { margin-top: 1; text-style: bold; color: $text-success; }
    """

    def __init__(self, text: str, *, title: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._text = text
        self._title = title

    def compose(self) -> ComposeResult:
        if self._title:
            yield Static(self._title, classes="derivation-title", markup=False)
        for block in derivation_blocks(self._text):
            yield Static(block.text, classes=f"-{block.kind}", markup=False)
