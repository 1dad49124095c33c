"""Run `quiz` (or a headless bench) without one piece of latency machinery, to pair it.

The terminal app's latency pieces are measured by running the same thing with and
without each, alternately, in the same bench run (``bench_startup.py --without``,
``bench_feedback.py --without``, ``bench_tui.py --without``). This module switches one
off *before* the app is imported, by replacing what the app calls with what it would
do without it; nothing in the app reads a switch of its own.

Run: python bench/without.py PIECE [quiz arguments...]   (PIECE: see :data:`PIECES`)
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def _no_freeze() -> None:
    from quiz.tui import heap

    heap.thaw = heap.freeze_startup = lambda: None


def _no_gc_timing() -> None:
    from quiz.tui import heap

    heap.collect_if_due = lambda due_at=heap.DUE_AT: False


def _no_patch(name: str) -> Callable[[], None]:
    def off() -> None:
        from quiz.tui import textual_private

        setattr(textual_private, name, lambda *args, **kwargs: False)
    return off


def _no_one_frame() -> None:
    from quiz.tui import textual_private

    for cls, name in textual_private.ONE_FRAME_OVERRIDES:
        delattr(cls, name)


def _no_quiet_input() -> None:
    from textual.widgets import Input

    from quiz.tui.textual_private import QuietInput

    def plain(self: QuietInput, value: str) -> None:  # Textual's, then the preview
        Input._watch_value(self, value)
        self.changed(value)

    QuietInput._watch_value = plain  # type: ignore[method-assign]


def _none() -> None:
    pass


PIECES: dict[str, Callable[[], None]] = {
    "nothing": _none,
    "gc-freeze": _no_freeze,
    "gc-timing": _no_gc_timing,
    "styles-cache": _no_patch("fix_styles_cache"),
    "paint-cycles": _no_patch("fix_paint_cycles"),
    "hidden-repaints": _no_patch("fix_hidden_repaints"),
    "watchers": _no_patch("forget_watchers"),
    "one-frame": _no_one_frame,
    "quiet-input": _no_quiet_input,
}
"""What can be switched off, by name."""


def switch_off(piece: str) -> None:
    """Switch ``piece`` off in this process (before the app is imported)."""
    PIECES[piece]()


def main() -> None:
    piece, *args = sys.argv[1:]
    switch_off(piece)
    from quiz.cli import main as quiz_main

    sys.exit(quiz_main(args))


if __name__ == "__main__":
    main()
