"""A bank of thousands of templates: `templates list` and the tables it prints stay
the same text, written faster (issue 15)."""

from __future__ import annotations

import json
import textwrap

from helpers import per_profile
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.commands.table import wrap_cell
from quiz.commands.templates import pretty_json

flat = st.one_of(st.text(), st.integers(), st.booleans(), st.none(),
                 st.lists(st.text(), max_size=3))


@settings(max_examples=per_profile(50, 200), deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=8), flat, max_size=5), max_size=4))
def test_pretty_json_is_json_dumps_indented(rows: list[dict[str, object]]) -> None:
    assert pretty_json(rows) == json.dumps(rows, indent=2)  # type: ignore[arg-type]


words = st.text(st.sampled_from("ab-c .\t\n\xa0é"), max_size=40)


@settings(max_examples=per_profile(100, 400), deadline=None)
@given(st.one_of(words, st.lists(st.text("xyz-", min_size=1, max_size=14), max_size=8)
                 .map(" ".join)), st.integers(1, 20))
def test_wrap_cell_is_textwrap(text: str, width: int) -> None:
    assert wrap_cell(text, width) == textwrap.wrap(text, width, break_on_hyphens=False)


def reference_table(rows: list[list[str]], right: set[int], widths: list[int],
                    wrapping: set[int]) -> str:
    """The row loop render_table had before its one-line fast path (issue 15)."""
    lines = []
    for row in rows:
        cells = [textwrap.wrap(cell, w, break_on_hyphens=False) or [""]
                 if i in wrapping and len(cell) > w else [cell]
                 for i, (cell, w) in enumerate(zip(row, widths, strict=True))]
        for n in range(max(len(c) for c in cells)):
            parts = []
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True)):
                text = cell[n] if n < len(cell) else ""
                parts.append(text.rjust(w) if i in right else text.ljust(w))
            lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


@settings(max_examples=per_profile(40, 150), deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.lists(
    st.lists(st.text("ab -", max_size=30), min_size=n, max_size=n), min_size=1, max_size=6)),
    st.sets(st.integers(0, 3)), st.integers(8, 60))
def test_render_table_lines_are_as_before(rows: list[list[str]], right: set[int],
                                          width: int) -> None:
    from quiz.commands.table import _fit, render_table

    columns = len(rows[0])
    right = {i for i in right if i < columns}
    wrapping = {columns - 1}
    widths = _fit([max(len(row[i]) for row in rows) for i in range(columns)], wrapping,
                  width)
    assert render_table(rows, right=right, width=width) == \
        reference_table(rows, right, widths, wrapping)
    full = [max(len(row[i]) for row in rows) for i in range(columns)]
    assert render_table(rows, right=right) == reference_table(rows, right, full, set())
