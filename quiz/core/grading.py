"""Grading: a typed answer against a variant's key, with tolerance, partial credit and
known mistakes.

Each answer kind reads and grades in its own module of :mod:`quiz.core.kinds`; this
module is the front door: :func:`grade` (hint costs included) and :func:`read_answer`
dispatch through the kinds' table. The names other modules used from here before the
kinds had modules of their own are re-exported.
"""

from __future__ import annotations

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
from quiz.core.kinds.formula import key_example, letters_of
from quiz.core.kinds.number import MAX_NEAR_MISS, MAX_TOLERANCE, generic_slips
from quiz.core.kinds.table import read_table
from quiz.core.types import Verdict

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = [
    "MAX_NEAR_MISS",
    "MAX_TOLERANCE",
    "Grade",
    "Read",
    "Verdict",
    "by_credit",
    "generic_slips",
    "grade",
    "invalid",
    "key_example",
    "letters_of",
    "read_answer",
    "read_table",
    "relative_error",
    "unreadable_message",
]


def grade(pv: PartVariant, text: str, *, hint_cost: float = 0.0,
          tolerance_scale: float = 1.0) -> Grade:
    """Grade `text` against one part of a variant.

    Args:
        pv: the part.
        text: what the user typed.
        hint_cost: the share of the score the hints used cost (0..1).
        tolerance_scale: multiplies the template's tolerance (a user setting).

    Returns:
        A Grade; unreadable input gives verdict "invalid" with a message and an example.
    """
    g = kind_of(pv.kind).grade(pv, text, tolerance_scale)
    if g.verdict == "invalid" or hint_cost <= 0:
        return g
    score = max(0.0, g.score * (1 - min(hint_cost, 1.0)))
    return Grade(g.verdict, round(score, 4), g.read_as, g.mistake, g.feedback, g.key)


def read_answer(pv: PartVariant, text: str) -> Read:
    """Read typed text the way this part's kind is read; no grading, no solver work.

    The live preview shows this on every keystroke, and every grader starts from it.

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    return kind_of(pv.kind).read(pv, text)
