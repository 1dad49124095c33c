"""How the question screen asks for each answer kind, in one table.

One module per kind; :data:`KINDS` registers them under the names of
:data:`questions.types.AnswerKind` (a test keeps the two equal). The question card and
the answer box read this table, never the kind's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from quiz.tui.kinds import choice, formula, layout, number, spoken, table
from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant
    from quiz.tui.widgets.answer_box import AnswerBox

__all__ = ["KINDS", "ask_in", "asked_as"]

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


def ask_in(box: AnswerBox, part: PartVariant) -> None:
    """Clear the answer box for ``part``: its kind's placeholder and field (a paragraph
    answer gets the text area, where Ctrl+D submits), and a live reading of what is
    typed (a slow kind's warmed up while the question is read)."""
    from quiz.core.session import preview, preview_warmups

    entry = asked_as(part.kind)
    read = entry.preview or preview
    box.reset(entry.placeholder(part), lambda text: read(part, text),
              slow=entry.reads_slowly, warm=lambda: preview_warmups(part),
              multiline=entry.multiline)
