"""The body of a question: its title, prompt, parameters, choices or table, and how to
answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quiz.tui.kinds import asked_as
from quiz.tui.widgets.params_table import ParamsTable

if TYPE_CHECKING:
    from questions.variants import PartVariant
    from quiz.core.session import Question

def how_to_answer(part: PartVariant) -> str:
    """One or two lines (content markup) saying how to type this part's answer."""
    return asked_as(part.kind).how_to_answer(part)


class QuestionCard(Vertical):
    """Everything about the current question except the answer box."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._hints: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="question-title", markup=False)
        yield Static("", id="prompt", markup=False)
        yield ParamsTable("", id="params")
        yield Static("", id="choices")
        yield Static("", id="how-to-answer")
        yield Static("", id="hints", markup=False)

    def show(self, question: Question) -> None:
        """Show a new question (hints cleared)."""
        part = question.part
        self.query_one("#question-title", Static).update(question.template.title)
        self.query_one("#prompt", Static).update(question.prompt)
        self.query_one("#params", ParamsTable).show(question.params_table)
        choices = self.query_one("#choices", Static)
        extra = asked_as(part.kind).extra(part)
        choices.update(extra or "")
        choices.display = extra is not None
        self.query_one("#how-to-answer", Static).update(how_to_answer(part))
        self._hints = []
        hints = self.query_one("#hints", Static)
        hints.update("")
        hints.display = False

    def add_hint(self, number: int, text: str) -> None:
        """Append a revealed hint."""
        self._hints.append(f"Hint {number}: {text}")
        hints = self.query_one("#hints", Static)
        hints.update("\n".join(self._hints))
        hints.display = True
