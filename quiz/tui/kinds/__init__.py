"""How the question screen asks for each answer kind, in one table.

One module per kind; :data:`KINDS` registers them under the names of
:data:`questions.types.AnswerKind` (a test keeps the two equal). The question card and
the answer box read this table, never the kind's name.
"""

from __future__ import annotations

from collections.abc import Mapping

from quiz.tui.kinds import choice, formula, layout, number, spoken, table
from quiz.tui.kinds.base import AskedAs

__all__ = ["KINDS", "asked_as"]

KINDS: Mapping[str, AskedAs] = {
    "number": number.ASKED_AS,
    "formula": formula.ASKED_AS,
    "choice": choice.ASKED_AS,
    "multi": choice.ASKED_AS,
    "table": table.ASKED_AS,
    "layout": layout.ASKED_AS,
    "spoken": spoken.ASKED_AS,
}
"""Every answer kind the question screen can ask for."""


def asked_as(kind: str) -> AskedAs:
    """The entry of the kind called ``kind``.

    Raises:
        KeyError: no such kind.
    """
    return KINDS[kind]
