"""Table answers: for each row, the columns that apply (``dp: -; tp: w g o a``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from questions.errors import FieldError
from questions.kinds.base import AddStep, DrawnKey, KeyContext, QuestionKind
from questions.model import KnownMistake

if TYPE_CHECKING:
    from questions.fields import PartFields as Part
    from questions.kinds.answers.table import TableAnswer, TableMistake
    from questions.kinds.base import Location
    from questions.model import Key, PartVariant

__all__ = ["KIND", "NAME", "TableKnownMistake", "key", "known"]

NAME = "table"
"""The kind's name in templates (``answer_kind``)."""


def key(rows: list[str], cells: dict[str, tuple[str, ...]]) -> Key:
    """A table key: for each of ``rows``, the right column codes."""
    from questions.model import Key
    from questions.text import table_display

    return Key(NAME, table_display(rows, cells), cells=cells)


def fields() -> type[TableAnswer]:
    """The model of a table's `[answer]`."""
    from questions.kinds.answers.table import TableAnswer

    return TableAnswer


def answer(part: Part) -> TableAnswer:
    """A table part's `[answer]`."""
    return cast("TableAnswer", part.answer)


def mistake_fields() -> type[TableMistake]:
    """The model of a table's `[[mistakes]]` (rows answered a known wrong way)."""
    from questions.kinds.answers.table import TableMistake

    return TableMistake


def mistakes(part: Part) -> list[TableMistake]:
    """A table part's known mistakes."""
    return cast("list[TableMistake]", part.mistakes)


class TableKnownMistake(KnownMistake, frozen=True):
    """A table's known mistake as drawn: some rows answered a known wrong way."""

    cells: dict[str, tuple[str, ...]]
    """Row -> the column codes the mistake gives it (the rows it does not name: any)."""


def known(pv: PartVariant) -> tuple[TableKnownMistake, ...]:
    """A table part's known mistakes as drawn (:func:`draw_key`)."""
    return cast("tuple[TableKnownMistake, ...]", pv.mistakes)


def check_loaded(part: Part, base: Location) -> list[tuple[Location, str]]:
    """A known mistake's rows and columns are the table's."""
    out: list[tuple[Location, str]] = []
    for mi, m in enumerate(mistakes(part)):
        for row, cols in m.cells.items():
            if row not in part.rows:
                out.append((base + ["mistakes", mi, "cells"], f"no row {row!r}"))
            for col in cols:
                if col not in part.columns:
                    out.append((base + ["mistakes", mi, "cells"], f"no column {col!r}"))
    return out


def check_part(part: Part) -> None:
    """Rows and columns are given, and the key gives every row once, in known columns."""
    a = answer(part)
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
    part = ctx.part
    cells = {r: tuple(c) for r, c in answer(part).cells.items()}
    return DrawnKey(key(part.rows, cells), tuple(
        TableKnownMistake(m.name, m.feedback, m.credit,
                          {r: tuple(c) for r, c in m.cells.items()})
        for m in mistakes(part)))


def walk_steps(pv: PartVariant, explanation: str, add: AddStep) -> None:
    """Learn mode for a table: one step per row (which columns apply to this row)."""
    from msgspec.structs import replace

    from questions.fields import PartFields

    columns = ", ".join(f"{c} = {meaning}" for c, meaning in pv.spec.columns.items())
    for row in pv.spec.rows:
        cells = {row: pv.key.cells.get(row, ())}
        ask = (f"Just the row {row}: which columns apply ({columns})? Type it as "
               f"`{row}: {' '.join(list(pv.spec.columns)[:2])}`, or `{row}: -` for none.")
        spec = PartFields.model_construct(prompt=ask, answer_kind=NAME,
                                    answer=pv.spec.answer, choices=[], rows=[row],
                                    columns=pv.spec.columns, mistakes=[], hints=[], tags=[])
        step_key = key([row], cells)
        step_pv = replace(pv, prompt=ask, spec=spec, key=step_key, mistakes=(), accepted=(),
                          follow=None)
        add(f"row:{row}", ask, step_pv, None,
            f"{row}: {step_key.display.split(': ', 1)[1]}. "
            f"{pv.spec.answer.explanation}".strip(), what=f"row {row}")


KIND = QuestionKind(check_part, draw_key, check_loaded=check_loaded, walk_steps=walk_steps,
                    part_fields=frozenset({"rows", "columns"}), answer_fields=fields,
                    mistake_fields=mistake_fields)
