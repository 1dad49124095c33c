"""How the question screen asks for a table of rows and columns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def how_to_answer(part: PartVariant) -> str:
    """The rows, the columns' codes, and the typed form."""
    spec = part.spec
    columns = ", ".join(f"[b]{escape(code)}[/b] = {escape(meaning)}"
                        for code, meaning in spec.columns.items())
    rows = ", ".join(f"[b]{escape(r)}[/b]" for r in spec.rows)
    first = spec.rows[0] if spec.rows else "dp"
    return (f"Rows: {rows}.\nColumns: {columns}.\n"
            f"Type each row and its columns, - for none, e.g. "
            f"[b]{escape(first)}: -; ...[/b]")


def placeholder(part: PartVariant) -> str:
    """The first and last rows, typed."""
    if part.spec.rows and part.spec.columns:
        rows, first = part.spec.rows, next(iter(part.spec.columns))
        return f"e.g. {rows[0]}: -; {rows[-1]}: {first}"
    return "e.g. dp: -; tp: w g"


ASKED_AS = AskedAs(how_to_answer, placeholder)
