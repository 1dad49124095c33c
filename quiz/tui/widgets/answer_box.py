"""The answer box: an input, a live "read as" preview of it, and invalid-input messages."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.visual import visualize
from textual.widget import Widget
from textual.widgets import Input, Static

from quiz.tui.messages import AnswerSubmitted, PreviewRead
from quiz.tui.textual_private import QuietInput

if TYPE_CHECKING:
    from textual.css.styles import RulesMap
    from textual.widgets import TextArea

    from quiz.tui.widgets.paragraph_area import ParagraphArea

Previewer = Callable[[str], str]
"""Reads typed text and says how it reads (never grades or records)."""

MAX_ANSWER_CHARS = 500
"""The longest answer the box takes: :data:`quiz.core.reading.MAX_ANSWER_CHARS`, the
longest a reader reads (tests/unit/test_hostile_answers.py holds the two equal). Not
imported from there: that module's import (its unit tables) would come before `quiz
drill`'s first frame, which composes this box; the readers are imported after it."""

PREVIEW_LINES = 2
"""Lines the preview always keeps (its ``min-height``): readings and refusals of up to
two lines, nearly all of them at 80 columns, never change its height as one types."""

SLOW_PREVIEW_DEADLINE = 0.15
"""Seconds a slow (worker) preview may take before the box says it is still reading."""

SYNC_BUDGET = 0.002
"""Seconds a slow previewer (a formula's, a paragraph's) may have taken on its last
reading to read the next keystroke on the event loop, in the echo's frame; past it,
readings go to the worker until one is quick again."""

reading_clock: Callable[[], float] = time.thread_time
"""Times the readings against :data:`SYNC_BUDGET` (tests replace it): the CPU time of
the thread reading, which is the reading's own cost; wall time would also count the
moments other processes had the core, and send quick readings to the worker whenever
the machine is busy."""

READINGS_KEPT = 512
"""Slow readings remembered per question (text -> preview), so that text read once (a
letter deleted again, a typo undone) reads on the keystroke itself."""

STILL_READING = "reading…"
"""Shown when a slow preview misses its deadline (the reading still lands when done)."""


class _AnswerInput(QuietInput):
    """The input of an :class:`AnswerBox`, telling the box of every change at once.

    Input posts ``Changed`` when its value changes; a handler of that message runs after
    the key's own handling, often after the frame echoing the key has been painted, so
    a preview updated there lands a frame (16 ms or more) late. :class:`QuietInput`
    calls :meth:`changed` inside the key's handling: updating the preview from it paints
    both together.
    """

    def changed(self, value: str) -> None:
        box = self.parent
        if isinstance(box, AnswerBox) and box.is_mounted and box.is_attached:
            box.value_changed(value)


class AnswerBox(Vertical):
    """Where an answer is typed.

    Shows, under the input, how the text will be read while it is typed and, after a
    submission the session could not read, why. Posts :class:`AnswerSubmitted` on Enter.

    The preview is read on the keystroke itself, so it paints in the same frame as the
    echo (numbers, choices, tables and layouts read in well under a millisecond). A
    previewer marked slow (formulas, which build sympy expressions, and paragraphs,
    whose reading grows with their length) reads on the keystroke too while its last
    reading was quick (see :data:`SYNC_BUDGET`) or the same text was read earlier in the
    question; otherwise in a worker, and until the box's warm-up texts have been read
    (see :meth:`reset`). If the worker has not answered by
    :data:`SLOW_PREVIEW_DEADLINE`, the preview says it is still reading rather than
    showing a stale reading. Typing never lays the screen out again unless a reading
    needs more lines than the preview has (see :func:`_update_in_place`).
    """

    class Warmed(Message):
        """The warm-up readings of the question ``generation`` are done."""

        def __init__(self, generation: int) -> None:
            self.generation: int = generation
            super().__init__()


    DEFAULT_CSS = f"""
    AnswerBox {{ height: auto; }}
    AnswerBox > #answer-text {{ display: none; height: 6; }}
    AnswerBox.-multiline > #answer-text {{ display: block; }}
    AnswerBox.-multiline > #answer-input {{ display: none; }}
    AnswerBox > #answer-preview {{
        height: auto; min-height: {PREVIEW_LINES}; color: $text-muted; padding: 0 1;
    }}
    AnswerBox > #answer-error {{
        height: auto; min-height: {PREVIEW_LINES}; color: $text-error; padding: 0 1;
        display: none;
    }}
    AnswerBox.-invalid > #answer-error {{ display: block; }}
    AnswerBox.-invalid > #answer-preview {{ display: none; }}
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._previewer: Previewer | None = None
        self._slow = False
        self._readings: dict[str, str] = {}
        """The slow previewer's readings of this question (filled by the worker)."""
        self._last_cost = 0.0
        """Seconds the slow previewer's last reading took (set by the worker too)."""
        self._generation = 0
        """Counts the questions (resets), so that a warm-up of an earlier one is ignored."""
        self._warming = False
        """The warm-up readings are still running: slow readings go to the worker."""
        self._deadline: Timer | None = None
        self._last_typed = ""
        """The text the preview last read (or was cleared for)."""
        self._shown: str | None = None
        """What the preview shows (None: not set yet)."""
        """Runs a due full garbage collection in a pause of the typing, not in a key."""

    def compose(self) -> ComposeResult:
        # select_on_focus off: tabbing back into the box (from a link, the scrollbar)
        # must not select the typed answer, so that the next key would replace it.
        yield _AnswerInput(id="answer-input", placeholder="your answer",
                           max_length=MAX_ANSWER_CHARS, select_on_focus=False)
        yield Static("", id="answer-preview", markup=False)
        yield Static("", id="answer-error", markup=False)

    @property
    def input(self) -> Input:
        """The text input."""
        return self.query_one("#answer-input", Input)

    @property
    def paragraph(self) -> ParagraphArea:
        """The text area for paragraph answers (mounted when the first is asked: see
        :meth:`reset`)."""
        from quiz.tui.widgets.paragraph_area import ParagraphArea

        return self.query_one("#answer-text", ParagraphArea)

    @property
    def multiline(self) -> bool:
        """Whether the answer is a paragraph (typed in the text area)."""
        return self.has_class("-multiline")

    @property
    def field(self) -> Widget:
        """The widget the answer is typed in."""
        return self.paragraph if self.multiline else self.input

    @property
    def value(self) -> str:
        """What is typed."""
        return self.paragraph.text if self.multiline else self.input.value

    def reset(self, placeholder: str, previewer: Previewer | None, *,
              slow: bool = False, warm: Callable[[], Sequence[str]] | None = None,
              multiline: bool = False) -> None:
        """Clear the box for a new question and focus it.

        Args:
            placeholder: the empty input's hint.
            previewer: reads typed text for the preview (None: no preview).
            slow: the previewer may take longer than a frame: run it in a worker.
            warm: for a slow previewer, gives texts (never typed ones) to read in a
                worker once the question has painted, doing ahead the work of the first
                readings (building sympy's symbols, printing); until they are read,
                readings go to the worker. Called in the worker.
            multiline: the answer is a paragraph: a text area where Enter starts a new
                line and Ctrl+D submits.
        """
        self._previewer = previewer
        self._slow = slow
        self._readings = {}  # a worker still reading for the last question fills the old one
        self._last_cost = 0.0
        self._generation += 1
        self._warming = slow and warm is not None
        if slow and warm is not None:
            self.call_after_refresh(self._warm_up, self._generation, previewer, warm)
        self.set_class(multiline, "-multiline")
        if multiline and not self.query("#answer-text"):
            self._mount_paragraph(placeholder)
        elif multiline:
            self.paragraph.placeholder = placeholder
            self.paragraph.text = ""
        else:
            self.input.placeholder = placeholder
            self.input.value = ""
        self.query_one("#answer-preview", Static).styles.min_height = None  # CSS: 2 lines
        self._last_typed = ""
        self._show_preview("")
        self.clear_error()
        self.field.focus()

    def _mount_paragraph(self, placeholder: str) -> None:
        """Mount the text area, empty, under the input (the first paragraph asked of
        this box: composing it with the box cost `quiz drill`'s first frame Textual's
        text area, its modules and its style sheet, for questions mostly not
        paragraphs)."""
        from quiz.tui.widgets.paragraph_area import ParagraphArea

        self.mount(ParagraphArea(self._paragraph_edited, id="answer-text",
                                 placeholder=placeholder, soft_wrap=True,
                                 show_line_numbers=False, tab_behavior="focus"),
                   after=self.input)

    def _paragraph_edited(self, text: str) -> None:
        if self.is_mounted and self.is_attached:
            self.value_changed(text)

    def show_error(self, message: str) -> None:
        """Say why the last submission could not be read (no attempt was used)."""
        self.query_one("#answer-error", Static).update(
            f"Not graded, try again: {message}")
        self.add_class("-invalid")

    def clear_error(self) -> None:
        """Hide the invalid-input message."""
        self.remove_class("-invalid")

    def _show_preview(self, text: str) -> None:
        if self._deadline is not None:
            self._deadline.stop()
            self._deadline = None
        self._paint_preview(text)

    def _paint_preview(self, text: str) -> None:
        # Most keys change no reading (a letter of a word, a digit of a number already
        # read as something else): repainting the same preview would re-render its
        # lines, widen the region the compositor redraws, and measure its height again.
        if text != self._shown:
            self._shown = text
            _update_in_place(self.query_one("#answer-preview", Static), text)

    @on(Input.Changed, "#answer-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()  # the preview was updated by value_changed, in the key's own frame

    def value_changed(self, value: str) -> None:
        """Read what is now typed into the preview (called by the input and the text
        area on every change, before the frame that echoes it)."""
        self._typed(value)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # Typing was read by ParagraphArea.edit already; undo, redo and a new text
        # (loaded by reset) change the text without an edit: read those here. (Named,
        # not decorated with TextArea.Changed: this module does not import TextArea.)
        if event.text_area.id != "answer-text":
            return
        event.stop()
        text = event.text_area.text
        if text != self._last_typed:
            self._typed(text)

    def _typed(self, value: str) -> None:
        self._last_typed = value
        self.clear_error()
        previewer = self._previewer
        if not value.strip() or previewer is None:
            self._show_preview("")
            return
        if not self._slow:
            self._show_preview(_read(previewer, value))
            return
        known = self._readings.get(value)
        if known is None and not self._warming and self._last_cost < SYNC_BUDGET:
            known = self._readings[value] = self._timed_read(previewer, value)
        if known is not None:
            self._show_preview(known)
            return
        if len(self._readings) >= READINGS_KEPT:
            self._readings = {}
        self._read_in_worker(value, previewer, self._readings)
        if self._deadline is None:
            self._deadline = self.set_timer(SLOW_PREVIEW_DEADLINE, self._missed_deadline)

    def _missed_deadline(self) -> None:
        self._deadline = None
        self._paint_preview(STILL_READING)

    @on(Input.Submitted, "#answer-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(AnswerSubmitted(event.value))

    @work(thread=True, exclusive=True, group="answer-preview")
    def _read_in_worker(self, text: str, previewer: Previewer,
                        readings: dict[str, str]) -> None:
        preview = readings[text] = self._timed_read(previewer, text)
        self.post_message(PreviewRead(text, preview))

    @work(thread=True, exclusive=True, group="answer-warm", exit_on_error=False)
    def _warm_up(self, generation: int, previewer: Previewer | None,
                 warm: Callable[[], Sequence[str]]) -> None:
        with contextlib.suppress(Exception):  # a failed warm-up only leaves them slower
            if previewer is not None:
                for text in warm():
                    _read(previewer, text)
        self.post_message(self.Warmed(generation))

    @on(Warmed)
    def _warmed(self, event: Warmed) -> None:
        event.stop()
        if event.generation == self._generation:
            self._warming = False
            self._last_cost = 0.0

    def _timed_read(self, previewer: Previewer, text: str) -> str:
        start = reading_clock()
        preview = _read(previewer, text)
        self._last_cost = reading_clock() - start
        return preview

    @on(PreviewRead)
    def _preview_read(self, event: PreviewRead) -> None:
        event.stop()
        if event.text == self.value:  # ignore previews of older keystrokes
            self._show_preview(event.preview)


def _update_in_place(static: Static, text: str) -> None:
    """Update the preview, laying the screen out again only when it needs more lines.

    A layout pass reflows and repaints the whole question screen, several times the
    cost of painting one line, and moves the input. The preview keeps room for
    :data:`PREVIEW_LINES` lines, which nearly every reading and refusal fits at 80
    columns; a longer one grows the room, which then stays for the question (typing on
    does not shrink it and lay the screen out again); :meth:`AnswerBox.reset` gives it
    back.
    """
    width, height = static.content_size
    if width:
        rules = cast("RulesMap", static.styles)  # RenderStyles reads as a RulesMap
        needed = visualize(static, text, markup=False).get_height(rules, width)
        if needed <= height:
            static.update(text, layout=False)
            return
        static.styles.min_height = needed
    static.update(text)


def _read(previewer: Previewer, text: str) -> str:
    try:
        return previewer(text)
    except Exception as exc:  # a reader bug must not take the question down
        return f"can't read: {exc}"
