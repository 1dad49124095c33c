"""Garbage collection timed to the person, not to the allocator (issue 15).

Python's cyclic garbage collector runs when enough objects were allocated, wherever the
program is: a full (generation-2) collection scans every container object alive, and
fell in the middle of an Enter often enough to make the feedback's 99th percentile five
times its median. Two things keep it off the paths a person waits on (each measured
in bench/README.md, "Terminal app": a full collection costs ~100 ms CPU over start-up's
objects, ~1 ms once they are frozen):

- :func:`freeze_startup`: the objects start-up made (sympy, pydantic, Textual, the bank,
  the store: most of the heap) live as long as the app; ``gc.freeze`` moves them to a
  permanent generation that collections skip. :func:`thaw` undoes it when the app exits.
  :func:`hold_imports` freezes what is alive when the app is mounted (the interpreter,
  Textual, the app's modules) already, until :func:`freeze_startup` collects everything
  once: otherwise CPython's first full collection, which comes with the eleventh young
  one whatever the heap holds, scans all of it inside the home's first figures or the
  drill's first question (~20 ms of CPU, ~8 % of either; bench/README.md,
  "s5-startwall").
- :class:`ReadingTime`: once a screen someone has to read is painted and still (the
  feedback, a mock's next question, a learn step's verdict), a full collection that is
  coming at all soon (:data:`READING_DUE_AT`) runs there, while they read, instead of
  inside their next keystroke or Enter. "Still" matters: a screen may be laid out
  twice (the second layout shows or hides a scroll bar), and a collection between the
  two frames would delay the second.

None of them changes what is collected, only when: collections stay automatic as well.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer

STILL = 0.1
"""Seconds without a new layout after which a shown screen counts as being read: longer
than the gap between a screen's first frame and its scroll bars' (tens of ms), shorter
than anyone takes to read a verdict and press a key."""

DUE_AT = 5
"""Young (generation-1) collections since the last full one from which a full one is
"coming soon". CPython considers a full collection after ``gc.get_threshold()[2]``
(10) of them, and runs it once enough objects have survived into the old generation."""

READING_DUE_AT = 2
"""The same, for a screen being read (:class:`ReadingTime`). Between a feedback read and
the next Enter the next question is drawn, warmed and typed: up to five more young
collections (``bench_feedback`` saw the count reach 8 at an Enter after a read that
found 4 and did not collect). Collecting while the verdict is read from 2 on leaves the
next Enter 3 or more young collections short of a full one; the collection itself costs
the reader nothing."""


def hold_imports() -> None:
    """Leave every object alive now out of collections until :func:`freeze_startup` (or
    :func:`thaw`)."""
    gc.freeze()


def freeze_startup() -> None:
    """Collect once (what :func:`hold_imports` held too), then leave every object alive
    now out of later collections."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def thaw() -> None:
    """Let collections see the frozen objects again (the app is ending)."""
    gc.unfreeze()


def collect_if_due(due_at: int = DUE_AT) -> bool:
    """Run a full collection now if one is coming soon (``due_at`` young collections
    since the last); True if it ran."""
    if gc.get_count()[2] < due_at:
        return False
    gc.collect()
    return True


class ReadingTime:
    """Runs a due full collection once ``screen`` has shown something to read and laid
    itself out for the last time (:data:`STILL` seconds without another layout).

    Call :meth:`started` each time the screen shows something new (it must be mounted).
    Nothing runs if another screen is on top by then: whoever moved on that fast is
    waiting for what comes next, and the collection is left to Python.
    """

    def __init__(self, screen: Screen[Any]) -> None:
        self.screen = screen
        self._timer: Timer | None = None
        self._listening = False
        self.collections = 0
        """Full collections it ran (tests count them)."""

    def started(self) -> None:
        """The screen shows something new: collect once it is still, if one is due."""
        if not self._listening:
            self.screen.screen_layout_refresh_signal.subscribe(self.screen, self._laid_out)
            self._listening = True
        self._arm()

    def _laid_out(self, _screen: Screen[Any]) -> None:
        if self._timer is not None:  # waiting: another frame, wait again
            self._arm()

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.screen.set_timer(STILL, self._still, name="reading-time")

    def _still(self) -> None:
        self._timer = None
        if not self.screen.is_current:  # moved on already: they wait on something else
            return
        if collect_if_due(READING_DUE_AT):
            self.collections += 1
