"""The answer kinds of the question layer, in one table.

One module per kind (:mod:`~questions.kinds.number`, :mod:`~questions.kinds.formula`,
:mod:`~questions.kinds.choice`, :mod:`~questions.kinds.table`,
:mod:`~questions.kinds.layout`, :mod:`~questions.kinds.spoken`): which fields its parts
need, what to check against the solver when a template loads, how a variant's key is
drawn, and the last line of the worked explanation. :data:`KINDS` registers them under the names of
:data:`questions.types.AnswerKind` (a test keeps the two equal). The schema, the loader
and :func:`questions.variants.make_variant` dispatch through this table; the core has
its own table for reading and grading (:mod:`quiz.core.kinds`).
"""

from __future__ import annotations

from collections.abc import Mapping

from questions.kinds import choice, formula, layout, number, spoken, table
from questions.kinds.base import QuestionKind

__all__ = ["KINDS", "kind_of"]

KINDS: Mapping[str, QuestionKind] = {
    "number": number.KIND,
    "formula": formula.KIND,
    "choice": choice.KIND,
    "multi": choice.KIND,
    "table": table.KIND,
    "layout": layout.KIND,
    "spoken": spoken.KIND,
}
"""Every answer kind a template may name."""


def kind_of(name: str) -> QuestionKind:
    """The entry of the kind called ``name``.

    Raises:
        KeyError: no such kind (the schema only admits registered kinds).
    """
    return KINDS[name]
