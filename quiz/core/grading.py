"""Grading: a typed answer against a variant's key, with tolerance, partial credit and
known mistakes.

Each answer kind reads and grades in its own module of :mod:`quiz.core.kinds`; this
module is the front door: :func:`grade` (hint costs included) and :func:`read_answer`
dispatch through the kinds' table. The names other modules used from here before the
kinds had modules of their own are re-exported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

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
    from quiz.core.kinds.formula import key_example, letters_of
    from quiz.core.kinds.number import (
        MAX_NEAR_MISS,
        MAX_TOLERANCE,
        generic_slips,
    )
    from quiz.core.kinds.table import read_table

_REEXPORTED = {"key_example": "formula", "letters_of": "formula",
               "MAX_NEAR_MISS": "number", "MAX_TOLERANCE": "number",
               "generic_slips": "number",
               "read_table": "table"}
"""Names kept here for older callers, each imported from its kind's module only when
asked for (grading one kind does not import the others)."""


def __getattr__(name: str) -> Any:
    module = _REEXPORTED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"quiz.core.kinds.{module}"), name)

__all__ = [
    "MAX_NEAR_MISS",
    "MAX_TOLERANCE",
    "Grade",
    "Read",
    "Verdict",
    "by_credit",
    "follow_through",
    "generic_slips",
    "grade",
    "invalid",
    "key_example",
    "letters_of",
    "read_answer",
    "read_earlier",
    "read_table",
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
        typed = kind_of(pv.kind).read(pv, text).value.value
    except (Unreadable, ArithmeticError, ValueError):
        return None
    if not math.isfinite(carried):
        return None
    from questions.kinds.number import count_mode
    from quiz.core.kinds import number

    tol = min(key.tolerance * tolerance_scale, number.MAX_TOLERANCE)
    if count_mode(pv.spec):  # a count follows through to the unit
        differs, hit = round(carried) != round(key.value), round(typed) == round(carried)
    else:
        differs = relative_error(carried, key.value) > tol
        hit = relative_error(typed, carried) <= max(tol, number.rounding_tolerance(carried))
    if not differs or not hit:
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
