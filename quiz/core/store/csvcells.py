"""CSV cells a spreadsheet shows as text: the usual CSV-injection rule, both ways.

A history exported as CSV is opened in spreadsheets, which run a cell that starts like
a formula (``=HYPERLINK(...)``). :func:`escape` puts one ``'`` before such a cell when
the file is written and :func:`unescape` takes it off when it is read, so import reads
back what export wrote, a quote the user typed included.
"""

from __future__ import annotations

from typing import Final

__all__ = ["FORMULA_START", "escape", "unescape"]


FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet takes for the start of a formula (the usual CSV-injection rule)."""


def escape(cell: object) -> str:
    """A CSV cell a spreadsheet shows as text: one ``'`` before a cell that (after any
    ``'`` it starts with) starts like a formula, so ``=HYPERLINK(...)`` is never run.
    :func:`unescape` takes it off again: import reads back what export wrote."""
    text = str(cell)
    return "'" + text if text.lstrip("'")[:1] in FORMULA_START and text else text


def unescape(cell: str) -> str:
    """The cell :func:`escape` was given (a cell of an older file that starts with
    ``'`` followed by text that is no formula is kept as it is)."""
    if cell[:1] == "'" and cell.lstrip("'")[:1] in FORMULA_START and cell.lstrip("'"):
        return cell[1:]
    return cell
