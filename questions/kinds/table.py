"""Table answers: for each row, the columns that apply (``dp: -; tp: w g o a``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from questions.errors import FieldError
from questions.kinds.base import DrawnKey, KeyContext, QuestionKind

if TYPE_CHECKING:
    from questions.schema import Part

__all__ = ["KIND"]


def check_part(part: Part) -> None:
    """Rows and columns are given, and the key gives every row once, in known columns."""
    a = part.answer
    if not part.rows or not part.columns:
        raise FieldError(("rows",), "a table answer needs rows and columns")
    if set(a.cells) != set(part.rows):
        raise FieldError(("answer", "cells"), "answer.cells must give every row exactly "
                         "once")
    for row, cols in a.cells.items():
        unknown = set(cols) - set(part.columns)
        if unknown:
            raise FieldError(("answer", "cells"), f"answer.cells.{row} uses unknown column "
                             f"{sorted(unknown)[0]!r}")


def draw_key(ctx: KeyContext) -> DrawnKey:
    """The cells as written; a mistake is a set of rows answered a known wrong way."""
    from questions.variants import Key, KnownMistake, table_display

    part = ctx.part
    cells = {r: tuple(c) for r, c in part.answer.cells.items()}
    key = Key("table", table_display(part.rows, cells), cells=cells)
    return DrawnKey(key, tuple(
        KnownMistake(m.name, m.feedback, m.credit,
                     cells={r: tuple(c) for r, c in (m.cells or {}).items()})
        for m in part.mistakes))


KIND = QuestionKind(check_part, draw_key)
