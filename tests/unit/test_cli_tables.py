"""CLI tables fit the terminal (issue 12: `templates list` was 190 columns wide)."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.commands.table import MIN_WRAPPED, render_table, terminal_width

words = st.text(alphabet="abcdefghij-/", min_size=1, max_size=14)
cells = st.lists(words, min_size=1, max_size=6).map(" ".join)


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.tuples(words, cells, cells), min_size=1, max_size=6),
       width=st.integers(min_value=2 * 14 + 2 * MIN_WRAPPED + 6, max_value=200))
def test_a_table_fits_and_keeps_every_word(rows: list[tuple[str, str, str]],
                                           width: int) -> None:
    table = render_table([["ID", "TAGS", "TITLE"], *rows], wrap=(1, 2), width=width)
    assert all(len(line) <= width for line in table.splitlines())
    for _, tags, title in rows:
        for word in (tags + " " + title).split():
            assert word in table.replace("\n", " ") or len(word) > MIN_WRAPPED


def test_piped_output_keeps_one_line_per_row(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [["ID", "TITLE"], ["a/b", "a title far too long for a narrow terminal"]]
    assert render_table(rows).splitlines()[1] == (
        "a/b  a title far too long for a narrow terminal")
    monkeypatch.setenv("COLUMNS", "40")  # left in the environment: ignored when piped
    assert terminal_width() is None
    code, out, _ = run_cli(capsys, "templates", "list")
    assert code == 0 and max(len(line) for line in out.splitlines()) > 100


def test_columns_give_way_in_order_when_the_rest_cannot_fit() -> None:
    rows = [["ID", "TOPIC", "TITLE"], ["memory/model-state", "memory", "Model state"]]
    assert render_table(rows, drop=(1,), width=34).splitlines()[0].split() == ["ID", "TITLE"]
    assert "TOPIC" in render_table(rows, drop=(1,), width=80)


@pytest.mark.parametrize("argv", [["templates", "list"], ["solve", "--list"],
                                  ["solve", "--list", "--keys"]])
@pytest.mark.parametrize("columns", [80, 120])
def test_cli_tables_fit_the_terminal(argv: list[str], columns: int,
                                     capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("quiz.commands.table.terminal_width", lambda: columns)
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    too_wide = [line for line in out.splitlines() if len(line) > columns]
    assert too_wide == []


def test_templates_list_on_a_narrow_terminal_still_names_every_template(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run_cli(capsys, "templates", "list", "--json")
    ids = [t["id"] for t in json.loads(out)]
    monkeypatch.setattr("quiz.commands.table.terminal_width", lambda: 80)
    code, out, _ = run_cli(capsys, "templates", "list")
    starts = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert code == 0 and set(ids) <= set(starts)
