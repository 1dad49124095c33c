"""Grading: a typed answer against a variant's key, with tolerance, partial credit and
known mistakes.

Each answer kind reads and grades in its own module of :mod:`quiz.core.kinds`; this
module is the front door: :func:`grade` (hint costs included) and :func:`read_answer`
dispatch through the kinds' table; it imports no kind's module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from quiz.core.kinds import kind_of
from quiz.core.kinds.base import (
    Grade,
    Read,
    by_credit,
    invalid,
    relative_error,
    unreadable_message,
)
from quiz.core.types import Verdict
from solver.formula import Unreadable  # quiz.core.reading's, without the number reader

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = [
    "Grade",
    "Read",
    "Verdict",
    "by_credit",
    "follow_through",
    "grade",
    "invalid",
    "read_answer",
    "read_earlier",
    "relative_error",
    "unreadable_message",
]


def grade(pv: PartVariant, text: str, *, hint_cost: float = 0.0,
          tolerance_scale: float = 1.0, earlier: Mapping[int, float] | None = None) -> Grade:
    """Grade `text` against one part of a variant.

    Args:
        pv: the part.
        text: what the user typed.
        hint_cost: the share of the score the hints used cost (0..1).
        tolerance_scale: multiplies the template's tolerance (a user setting).
        earlier: the learner's answers to earlier parts of the scenario (part number ->
            value in its base unit), for a part that follows through from them.

    Returns:
        A Grade; unreadable input gives verdict "invalid" with a message and an example.
    """
    g = kind_of(pv.kind).grade(pv, text, tolerance_scale)
    if earlier and pv.follow is not None and g.verdict in ("partial", "incorrect"):
        g = follow_through(pv, text, g, earlier, tolerance_scale) or g
    if g.verdict == "invalid" or hint_cost <= 0:
        return g
    score = max(0.0, g.score * (1 - min(hint_cost, 1.0)))
    return replace(g, score=round(score, 4))


def follow_through(pv: PartVariant, text: str, g: Grade, earlier: Mapping[int, float],
                   tolerance_scale: float = 1.0) -> Grade | None:
    """The grade of an answer that is right from the learner's own earlier answers.

    This part's answer is derived again with each carried quantity replaced by what the
    learner answered for it; when that differs from the key and the typed answer
    matches it, the answer earns the part's follow-through credit, and the feedback says
    which earlier answers it was carried from. None when it does not apply.
    """
    follow = pv.follow
    key = pv.key
    if follow is None or key.value is None or key.unit is None:
        return None
    given = [(c, earlier[c.part]) for c in follow.carried if c.part in earlier]
    if not given:
        return None
    try:
        carried = follow.derive({c.name: value for c, value in given})
    except (ArithmeticError, ValueError):
        return None
    if not math.isfinite(carried) or not kind_of(pv.kind).carried_forward(
            pv, text, carried, tolerance_scale):
        return None
    from solver.units import format_value

    yours = " and ".join(f"part {c.part}: {format_value(v, c.unit)}" for c, v in given)
    keys = " and ".join(f"part {c.part}: {format_value(c.key, c.unit)}" for c, _ in given)
    full = follow.credit >= 1
    plural = "s" if len(given) > 1 else ""
    worth = "full credit" if full else f"{follow.credit:.0%} of the credit"
    feedback = (f"Carried forward: from your earlier answer ({yours}) this part works out "
                f"to {format_value(carried, key.unit)}, which is what you found, so your "
                f"working here is right ({worth}). From the key{plural} ({keys}) it is "
                f"{key.display}.")
    return Grade("correct" if full else "partial", follow.credit, g.read_as, None,
                 feedback, key)


def read_earlier(parts: Sequence[PartVariant], answers: Sequence[str]) -> dict[int, float]:
    """The values of answers typed to a scenario's first parts, in order, for the
    follow-through of a later one (`{key}` stands for each part's key display).

    Args:
        parts: the variant's parts.
        answers: what was typed to parts 1, 2, ... (fewer than the parts).

    Returns:
        part number -> value in its base unit, for the number parts among them.

    Raises:
        Unreadable: an answer that cannot be read (its message names the part).
    """
    from questions.kinds import kind_of as question_kind

    out: dict[int, float] = {}
    for pv, text in zip(parts, answers, strict=False):
        if not question_kind(pv.kind).amount:
            continue
        try:
            read = kind_of(pv.kind).read(pv, text.replace("{key}", pv.key.display))
        except Unreadable as exc:
            raise Unreadable(f"part {pv.index}: {exc.message}", exc.example) from None
        out[pv.index] = read.value.value
    return out


def read_answer(pv: PartVariant, text: str) -> Read:
    """Read typed text the way this part's kind is read; no grading, no solver work.

    The live preview shows this on every keystroke, and every grader starts from it.

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    return kind_of(pv.kind).read(pv, text)
