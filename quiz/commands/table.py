"""Aligned text tables for the command line that fit the terminal's width.

On a terminal, columns that may wrap (titles, tag lists) are narrowed until the table
fits, and their cells continue on the following lines. Piped output (to grep, awk, a
file) keeps one line per row at full width, so that a row can be found by its id.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence

__all__ = ["render_table", "terminal_width", "wrap_cell"]

GAP = "  "
"""Between two columns."""

MIN_WRAPPED = 12
"""The narrowest a wrapped column gets (a table wider than the terminal even then
runs over rather than becoming unreadable)."""


def terminal_width() -> int | None:
    """The width to fit tables to: the terminal's (``COLUMNS`` overrides it), or None
    when the output is not a terminal (a ``COLUMNS`` left in the environment must not
    reshape what a script reads)."""
    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


def _narrowest(widths: Sequence[int], wrap: set[int], keep: Sequence[int]) -> int:
    """How wide the kept columns are with the wrap columns at their narrowest."""
    return sum(min(widths[i], MIN_WRAPPED) if i in wrap else widths[i] for i in keep) \
        + len(GAP) * (len(keep) - 1)


def _fit(widths: list[int], wrap: set[int], width: int) -> list[int]:
    """Narrow the wrap columns, widest first, until the table fits in ``width``."""
    fitted = list(widths)
    over = sum(fitted) + len(GAP) * (len(fitted) - 1) - width
    while over > 0:
        shrinkable = [i for i in wrap if fitted[i] > MIN_WRAPPED]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: fitted[i])
        others = [fitted[i] for i in shrinkable if i != widest]
        # Down to the next widest (or by what is over), so wide columns shrink first.
        step = min(over, fitted[widest] - max([MIN_WRAPPED, *others]) or 1)
        fitted[widest] -= max(1, step)
        over -= max(1, step)
    return fitted


def render_table(rows: Sequence[Sequence[str]], *, right: Iterable[int] = (),
                 wrap: Iterable[int] | None = None, drop: Sequence[int] = (),
                 width: int | None = None) -> str:
    """Rows of cells as aligned columns, fitted to ``width``.

    Args:
        rows: the header first, then the rows; every row has the same number of cells.
        right: the columns aligned right (numbers).
        wrap: the columns whose cells may continue on the next lines (default: the
            last column).
        drop: columns to leave out, in this order, while the table cannot fit even
            with its wrap columns at their narrowest (say, a topic the ids repeat).
        width: the width to fit (None: no limit, one line per row).

    Returns:
        The table, lines joined, trailing spaces removed.

    >>> print(render_table([["ID", "TITLE"], ["a/b", "a long title here"]], width=16))
    ID   TITLE
    a/b  a long title
         here
    """
    if not rows:
        return ""
    columns = len(rows[0])
    rows = [[str(cell) for cell in row] for row in rows]
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    wrapping = set(range(columns - 1, columns) if wrap is None else wrap)
    right = set(right)
    if width is not None:
        keep = list(range(columns))
        for column in drop:
            if _narrowest(widths, wrapping, keep) <= width:
                break
            keep.remove(column)
        if len(keep) < columns:
            rows = [[row[i] for i in keep] for row in rows]
            widths = [widths[i] for i in keep]
            wrapping = {keep.index(i) for i in wrapping if i in keep}
            right = {keep.index(i) for i in right if i in keep}
        widths = _fit(widths, wrapping, width)
    lines: list[str] = []
    one_line = GAP.join(f"{{:{'>' if i in right else '<'}{w}}}"
                        for i, w in enumerate(widths)).format
    wrapped = [(i, w) for i, w in enumerate(widths) if i in wrapping]
    for texts in rows:
        if all(len(texts[i]) <= w for i, w in wrapped):  # one line: most rows
            lines.append(one_line(*texts).rstrip())
            continue
        cells = [wrap_cell(text, w) or [""] if i in wrapping and len(text) > w else [text]
                 for i, (text, w) in enumerate(zip(texts, widths, strict=True))]
        for n in range(max(map(len, cells))):
            lines.append(one_line(*[cell[n] if n < len(cell) else "" for cell in cells])
                         .rstrip())
    return "\n".join(lines)


def wrap_cell(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width, break_on_hyphens=False)``, the same lines.

    Words that fit, one space apart (titles, tag lists), are filled greedily here:
    textwrap's general machinery took most of the time of printing a table of
    thousands of templates on a terminal. Anything else goes to textwrap.

    >>> wrap_cell("a long title here", 12)
    ['a long title', 'here']
    """
    words = text.split(" ")
    if text.split() != words or any(len(word) > width for word in words):
        return textwrap.wrap(text, width, break_on_hyphens=False)
    lines: list[str] = []
    line = words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return lines
