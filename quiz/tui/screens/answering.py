"""What the screens that grade typed answers share: submitting, grading in a worker,
a failed worker's notice, and an unreadable answer's message.

The question screen (drill, practice, mock) and the walk-through (learn mode) both read
an :class:`~quiz.tui.widgets.answer_box.AnswerBox` and grade what it holds off the event
loop (grading may call sympy, and recording writes to SQLite); this is the one place
that does it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on, work
from textual.screen import Screen

from quiz.tui.messages import AnswerSubmitted, TaskFailed
from quiz.tui.widgets.answer_box import AnswerBox

if TYPE_CHECKING:
    from textual.message import Message

    from quiz.core.grading import Grade

__all__ = ["AnsweringScreen"]


class AnsweringScreen(Screen[None]):
    """A screen with an answer box whose answers are graded in a worker thread.

    Subclasses handle :class:`AnswerSubmitted` (posted by the box on Enter or Ctrl+D,
    and by :meth:`action_submit`), call :meth:`grade_in_worker` with what grades it,
    and handle the message that returns.
    """

    busy = False
    """A worker is drawing or grading: a submission waits (is ignored)."""

    def action_submit(self) -> None:
        """Submit what is typed (Enter or Ctrl+D in the answer box does the same)."""
        self.post_message(AnswerSubmitted(self.query_one(AnswerBox).value))

    def grade_in_worker(self, grade: Callable[[], Message]) -> None:
        """Mark the screen busy and run ``grade`` (grading and recording an answer) in a
        thread; post the message it returns, or :class:`TaskFailed` if it raises."""
        self.busy = True
        self._grade(grade)

    @work(thread=True, exclusive=True, group="grade", exit_on_error=False)
    def _grade(self, grade: Callable[[], Message]) -> None:
        try:
            message = grade()
        except Exception as exc:  # a template bug must not take the screen down
            self.post_message(TaskFailed("grading the answer", str(exc)))
            return
        self.post_message(message)

    @on(TaskFailed)
    def _failed(self, event: TaskFailed) -> None:
        event.stop()
        self.notify(f"Something went wrong {event.what}: {event.message}",
                    severity="error", timeout=15)
        self.busy = False
        self.after_failure()

    def after_failure(self) -> None:
        """What the screen does after a worker failed and said so (nothing here)."""

    def refused(self, grade: Grade) -> bool:
        """Whether ``grade`` is an unreadable answer: if so, say why under the box (it
        cost nothing) and take answers again."""
        if grade.verdict != "invalid":
            return False
        self.busy = False
        self.query_one(AnswerBox).show_error(grade.feedback)
        return True
