"""The text area a paragraph answer is typed in (spoken answers).

Its own module, imported only when a paragraph is first asked
(:meth:`quiz.tui.widgets.answer_box.AnswerBox.reset`): Textual's ``TextArea`` (its
document, syntax and theme modules, and its style sheet) costs `quiz drill`'s first
frame about a tenth of what it waits for over a bare app, and most questions are not
paragraphs (bench/README.md, "Drill's first question").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from quiz.tui import textual_private
from quiz.tui.messages import AnswerSubmitted

__all__ = ["ParagraphArea"]


class ParagraphArea(TextArea):
    """A text area for a paragraph answer: Enter starts a new line, Ctrl+D submits
    (posting :class:`AnswerSubmitted`); reports every edit at once to ``edited`` (see
    :meth:`edit`).

    Args:
        edited: called with the new text after every edit (the answer box's preview).
        **kwargs: as for ``TextArea``.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+d", "submit", "Submit", key_display="^d", priority=True),
    ]

    def __init__(self, edited: Callable[[str], object], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._edited = edited

    def action_submit(self) -> None:
        """Submit the paragraph, once every key typed before Ctrl+D is in it.

        Ctrl+D is a priority binding (the text area's own Ctrl+D deletes a character),
        so the app runs it as soon as it takes the key from its queue; the letters typed
        just before it were forwarded to this area's queue and may not be in the text
        yet. Reading the text from this area's queue, after them, sends them all.
        """
        self.call_later(self._send)

    def _send(self) -> None:
        self.post_message(AnswerSubmitted(self.text))

    def edit(self, edit: Edit) -> EditResult:
        """Apply an edit (every key typed, deleted or pasted is one) and report the new
        text at once.

        TextArea posts ``Changed`` for an edit; that message bubbles to the box after
        the key's own handling, after the frame echoing the key has been painted, so a
        preview updated there lands a frame (16 ms or more) late. Reading it here
        paints the echo and the reading together.
        """
        result = super().edit(edit)
        self._edited(self.text)
        return result

    def on_unmount(self) -> None:
        # TextArea watches the app's theme, and Textual keeps that watcher, and this
        # widget with all it holds, until the theme next changes: one per session.
        textual_private.forget_watchers(self, self.app)
