"""The answer box: an input, a live "read as" preview of it, and invalid-input messages."""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from quiz.tui.messages import AnswerSubmitted, PreviewRead

Previewer = Callable[[str], str]
"""Reads typed text and says how it reads (never grades or records)."""


class AnswerBox(Vertical):
    """Where an answer is typed.

    Shows, under the input, how the text will be read while it is typed (computed in a
    worker thread, since reading a formula can take sympy a moment) and, after a
    submission the session could not read, why. Posts :class:`AnswerSubmitted` on Enter.
    """

    DEFAULT_CSS = """
    AnswerBox { height: auto; }
    AnswerBox > #answer-preview { height: auto; color: $text-muted; padding: 0 1; }
    AnswerBox > #answer-error { height: auto; color: $text-error; padding: 0 1; display: none; }
    AnswerBox.-invalid > #answer-error { display: block; }
    AnswerBox.-invalid > #answer-preview { display: none; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._previewer: Previewer | None = None

    def compose(self) -> ComposeResult:
        from quiz.core.reading import MAX_ANSWER_CHARS

        yield Input(id="answer-input", placeholder="your answer", max_length=MAX_ANSWER_CHARS)
        yield Static("", id="answer-preview", markup=False)
        yield Static("", id="answer-error", markup=False)

    @property
    def input(self) -> Input:
        """The text input."""
        return self.query_one("#answer-input", Input)

    @property
    def value(self) -> str:
        """What is typed."""
        return self.input.value

    def reset(self, placeholder: str, previewer: Previewer | None) -> None:
        """Clear the box for a new question and focus it."""
        self._previewer = previewer
        self.input.placeholder = placeholder
        self.input.value = ""
        self.query_one("#answer-preview", Static).update("")
        self.clear_error()
        self.input.focus()

    def show_error(self, message: str) -> None:
        """Say why the last submission could not be read (no attempt was used)."""
        self.query_one("#answer-error", Static).update(
            f"Not graded, try again: {message}")
        self.add_class("-invalid")

    def clear_error(self) -> None:
        """Hide the invalid-input message."""
        self.remove_class("-invalid")

    @on(Input.Changed, "#answer-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.clear_error()
        if not event.value.strip():
            self.query_one("#answer-preview", Static).update("")
            return
        if self._previewer is not None:
            self._read(event.value, self._previewer)

    @on(Input.Submitted, "#answer-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(AnswerSubmitted(event.value))

    @work(thread=True, exclusive=True, group="answer-preview")
    def _read(self, text: str, previewer: Previewer) -> None:
        try:
            shown = previewer(text)
        except Exception as exc:  # a reader bug must not take the question down
            shown = f"can't read: {exc}"
        self.post_message(PreviewRead(text, shown))

    @on(PreviewRead)
    def _preview_read(self, event: PreviewRead) -> None:
        event.stop()
        if event.text == self.input.value:  # ignore previews of older keystrokes
            self.query_one("#answer-preview", Static).update(event.preview)
