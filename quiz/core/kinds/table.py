"""Table answers: for each row, the columns that apply (``dp: -; tp: w g o a``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, cast

from questions.kinds.table import TableKnownMistake, known
from questions.variants import KnownMistake, PartVariant, table_display
from quiz.core.kinds.base import Grade, Read, by_credit, invalid
from quiz.core.reading import Unreadable

__all__ = ["grade", "mistake_answer", "read", "read_table"]


def read(pv: PartVariant, text: str) -> Read:
    """Read rows and their columns.

    Raises:
        Unreadable: a row or column that does not exist, or a row given twice.
    """
    rows, columns = pv.spec.rows, list(pv.spec.columns)
    got = read_table(text, rows, columns)
    return Read(got, table_display(rows, {r: tuple(c for c in columns if c in cells)
                                          for r, cells in got.items()}))


_ROW = re.compile(r"^\s*([A-Za-z][\w-]*)\s*[:=]\s*(.*?)\s*$")


def read_table(text: str, rows: Sequence[str], columns: Sequence[str]) -> dict[str, set[str]]:
    """Read `dp: -; tp: w g o a; ...` (rows separated by `;` or newlines).

    Raises:
        Unreadable: a row or column that does not exist, or a row given twice.
    """
    if len(text) > 500:
        raise Unreadable("That is too long for a table answer.", _table_example(rows))
    lower_rows = {r.lower(): r for r in rows}
    lower_cols = {c.lower(): c for c in columns}
    out: dict[str, set[str]] = {}
    for chunk in re.split(r"[;\n]+", text):
        if not chunk.strip():
            continue
        m = _ROW.match(chunk)
        if not m or m.group(1).lower() not in lower_rows:
            raise Unreadable(f"Cannot read {chunk.strip()!r} as 'row: columns'; rows are "
                             f"{', '.join(rows)}.", _table_example(rows))
        row = lower_rows[m.group(1).lower()]
        if row in out:
            raise Unreadable(f"{row} is given twice.", _table_example(rows))
        cells = set()
        for cell in re.split(r"[\s,]+", m.group(2)):
            if not cell or cell in ("-", "none"):
                continue
            if cell.lower() not in lower_cols:
                raise Unreadable(f"Unknown column {cell!r}; columns are "
                                 f"{', '.join(columns)}.", _table_example(rows))
            cells.add(lower_cols[cell.lower()])
        out[row] = cells
    if not out:
        raise Unreadable("No rows given.", _table_example(rows))
    return out


def _table_example(rows: Sequence[str]) -> str:
    return "; ".join(f"{r}: ..." for r in rows[:2]) + " (use - for none)"


def grade(pv: PartVariant, text: str, scale: float) -> Grade:
    key = pv.key
    rows = pv.spec.rows
    try:
        typed = read(pv, text)
    except Unreadable as exc:
        return invalid(pv, exc.message, exc.example)
    got, read_as = typed.value, typed.read_as
    wrong = [r for r in rows if got.get(r, set()) != set(key.cells[r])]
    if not wrong:
        return Grade("correct", 1.0, read_as, None, "Correct.", key)
    score = round(1 - len(wrong) / len(rows), 4)
    fixes = "; ".join(f"{r}: {' '.join(key.cells[r]) or '-'}" for r in wrong)
    verdict = by_credit(score)
    for m in known(pv):
        if m.cells and all(got.get(r, set()) == set(c) for r, c in m.cells.items()):
            return Grade(verdict, score, read_as, m.name,
                         f"{m.feedback} ({len(wrong)} of {len(rows)} rows differ; they "
                         f"should read: {fixes}.)", key)
    return Grade(verdict, score, read_as, None,
                 f"{len(wrong)} of {len(rows)} rows differ. They should read: {fixes}.", key)


def mistake_answer(pv: PartVariant, m: KnownMistake) -> str | None:
    """The table with the mistake's rows (the others as the key has them)."""
    cells = cast(TableKnownMistake, m).cells
    if not cells:
        return None
    rows, key = pv.spec.rows, pv.key
    return table_display(rows, {r: cells.get(r, key.cells.get(r, ())) for r in rows})


def prompt_lines(pv: PartVariant) -> list[str]:
    """The rows and what each column code means."""
    cols = ", ".join(f"{k} = {v}" for k, v in pv.spec.columns.items())
    return [f"  Rows: {', '.join(pv.spec.rows)}. Columns: {cols}."]


def json_fields(pv: PartVariant) -> dict[str, Any]:
    """The rows and the columns' meanings."""
    return {"rows": list(pv.spec.rows), "columns": dict(pv.spec.columns)}
