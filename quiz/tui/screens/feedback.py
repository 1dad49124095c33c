"""Feedback after an answer in the drill or practice: verdict, key, mistake, derivation."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from quiz.tui.data import percent, seconds_text
from quiz.tui.widgets.derivation import Derivation
from quiz.tui.widgets.title_bar import TitleBar
from quiz.tui.widgets.verdict import VerdictBanner

if TYPE_CHECKING:
    from quiz.core.session import Outcome


class FeedbackScreen(Screen[bool]):
    """How an answer was graded, and the worked solution.

    Dismisses with True to go on (Enter) or False to stop (Escape).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "go_on", "Next"),
        Binding("escape", "stop", "Stop"),
    ]

    def __init__(self, outcome: Outcome) -> None:
        super().__init__()
        self.outcome = outcome

    def compose(self) -> ComposeResult:
        out = self.outcome
        grade, question = out.grade, out.question
        yield TitleBar("Feedback")
        yield VerdictBanner(grade.verdict, grade.score, id="feedback-verdict")
        with VerticalScroll(id="feedback-scroll"):
            yield Static(f"{question.label} · {seconds_text(out.seconds)}",
                         id="feedback-label", classes="muted", markup=False)
            if out.more_parts:
                yield Static(f"The scenario goes on: Enter for part "
                             f"{question.part.index + 1} of {len(question.variant.parts)}.",
                             id="feedback-next", markup=False)
            with Grid(id="feedback-answers"):
                yield Static("You", classes="answer-name")
                yield Static(grade.read_as or question.answer_text or "(blank)",
                             id="feedback-yours", markup=False)
                yield Static("Key", classes="answer-name")
                yield Static(grade.key.display, id="feedback-key", markup=False)
            if grade.mistake:
                yield Static(f"Known mistake: {grade.mistake}", id="feedback-mistake",
                             markup=False)
            yield Static(grade.feedback, id="feedback-text", markup=False)
            if question.hints_shown:
                yield Static(f"Hints used: {question.hints_shown} "
                             f"(cost {percent(question.hint_cost)} of the score)",
                             classes="muted", markup=False)
            yield Derivation(question.part.derivation, title="Worked solution",
                             id="feedback-derivation")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#feedback-scroll").focus()

    def action_go_on(self) -> None:
        """Next question, or the next part of the scenario."""
        self.dismiss(True)

    def action_stop(self) -> None:
        """Leave the session."""
        self.dismiss(False)
