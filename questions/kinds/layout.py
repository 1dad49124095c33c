"""Layout answers: the key is the best parallel layout the solver finds for the draw."""

from __future__ import annotations

from typing import TYPE_CHECKING

from questions.kinds.base import DrawnKey, KeyContext, QuestionKind, no_checks

if TYPE_CHECKING:
    from questions.model import Key

__all__ = ["KIND", "NAME", "key"]

NAME = "layout"
"""The kind's name in templates (``answer_kind``)."""


def key(display: str, step_time: float) -> Key:
    """A layout key: the layout as typed back, and its step time in seconds."""
    from questions.model import Key

    return Key(NAME, display, value=step_time, unit="s")


def draw_key(ctx: KeyContext) -> DrawnKey:
    """The best layout found and its step time."""
    from questions.layout import best_layout

    best = best_layout(ctx.inputs)
    return DrawnKey(key(best.display, best.step_time))


KIND = QuestionKind(no_checks, draw_key, searches_layout=True,
                    names_mistake=lambda name: True)
