"""Setting up a mock interview: how many questions, how many minutes."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Static

from quiz.tui.messages import MockChosen
from quiz.tui.widgets.title_bar import TitleBar

ABOUT = (
    "A mixed set of questions across topics, easiest first, against the clock. "
    "No feedback and no hints until the end (as in an interview; a setting turns hints "
    "on): Enter submits and the next question follows. Warnings come at 5 minutes, "
    "1 minute and 15 seconds left; at zero, whatever is typed is submitted. "
    "A 30-second answer can close the interview, on a clock of its own (0 minutes: "
    "none). "
    "The report scores every question, shows every worked solution and compares "
    "you with your earlier mocks."
)


class MockSetupScreen(Screen[None]):
    """Two numbers and a start button.

    Args:
        questions: the default number of questions.
        minutes: the default time limit.
    """

    DEFAULT_CSS = """
    #mock-title { padding: 1 2 0 2; text-style: bold; color: $text-primary; }
    #mock-about { padding: 1 2 0 2; }
    #mock-form {
        grid-size: 2;
        grid-columns: 24 12;
        grid-rows: 3;
        height: auto;
        margin: 1 2 0 2;
    }
    .field-name { padding-top: 1; }
    #mock-start { margin: 1 2 0 2; }
    #mock-error { padding: 0 2; color: $text-error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
    ]

    def __init__(self, questions: int, minutes: int, closing: int = 3) -> None:
        super().__init__()
        self.questions = questions
        self.minutes = minutes
        self.closing = closing

    def compose(self) -> ComposeResult:
        yield TitleBar("Mock interview")
        yield Static("Mock interview", id="mock-title")
        yield Static(ABOUT, id="mock-about")
        with Grid(id="mock-form"):
            yield Static("Questions (1-50)", classes="field-name")
            yield Input(str(self.questions), type="integer", id="mock-questions")
            yield Static("Minutes (1-240)", classes="field-name")
            yield Input(str(self.minutes), type="integer", id="mock-minutes")
            yield Static("Closing answer, minutes", classes="field-name")
            yield Input(str(self.closing), type="integer", id="mock-closing")
        yield Button("Start the interview", id="mock-start", variant="primary")
        yield Static("", id="mock-error")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#mock-start", Button).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#mock-start")
    def _start(self) -> None:
        try:
            questions = int(self.query_one("#mock-questions", Input).value)
            minutes = int(self.query_one("#mock-minutes", Input).value)
            closing = int(self.query_one("#mock-closing", Input).value or "0")
        except ValueError:
            questions = minutes = closing = 0
        if not (1 <= questions <= 50 and 1 <= minutes <= 240 and 0 <= closing <= 30):
            self.query_one("#mock-error", Static).update(
                "Give 1 to 50 questions, 1 to 240 minutes and 0 to 30 minutes to close.")
            return
        self.post_message(MockChosen(questions, minutes, closing))
