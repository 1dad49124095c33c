"""Layout answers: the key is the best parallel layout the solver finds for the draw."""

from __future__ import annotations

from questions.kinds.base import DrawnKey, KeyContext, QuestionKind, no_checks

__all__ = ["KIND"]


def draw_key(ctx: KeyContext) -> DrawnKey:
    """The best layout found and its step time."""
    from questions.layout import best_layout
    from questions.variants import Key

    best = best_layout(ctx.inputs)
    return DrawnKey(Key("layout", best.display, value=best.step_time, unit="s"))


KIND = QuestionKind(no_checks, draw_key)
