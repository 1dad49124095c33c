"""A worked derivation, laid out for reading: prose, numbered steps, indented math."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quiz.tui.data import derivation_blocks

if TYPE_CHECKING:
    from questions.derivation import Derivation as Worked


class Derivation(Vertical):
    """Shows a structured worked derivation with each kind of piece styled apart.

    Args:
        derivation: the derivation (a part's, a template preview's, a report's).
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

    def __init__(self, derivation: Worked, *, title: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._derivation = derivation
        self._title = title

    def compose(self) -> ComposeResult:
        if self._title:
            yield Static(self._title, classes="derivation-title", markup=False)
        for block in derivation_blocks(self._derivation):
            yield Static(block.text, classes=f"-{block.kind}", markup=False)
