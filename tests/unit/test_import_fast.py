"""The import's quick validation of many JSON attempts at once
(``fileformat.fast_attempts``) takes a row only as ``AttemptRow`` would: the same
fields, of the same types, and never a row the model refuses; anything it cannot tell
goes the model's way, row by row (which names the problem)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz.core.store.fileformat import AttemptRow, HistoryFileError, fast_attempts

GOOD: dict[str, Any] = {
    "template": "memory/model-state", "version": 1, "seed": 7, "mode": "drill",
    "answer": "1.13 TB", "verdict": "correct", "score": 1.0, "mistake": None,
    "hints_used": 0, "hint_cost": 0.0, "seconds": 12.5,
    "answered_at": "2025-03-10T15:00:00.000000+00:00", "topic": "memory",
    "tags": ["memory"], "rating": 3, "mock": None,
}
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 5), st.sampled_from([2**63, 10**12, -0.0]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4),
    st.sampled_from(["", "1", "true", "drill", "mock", "partial", "incorrect", "correct",
                     "2025-02-30T15:00:00.000000+00:00", "2025-03-10T15:00:00+00:00",
                     "2025-03-10T10:00:00.000000-05:00", "\ud800", "a" * 2001, "x\x01"]),
    st.lists(st.text(max_size=2), max_size=2), st.just({"a": 1}),
)


def model(row: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return dict(AttemptRow.model_validate(row).__dict__)
    except ValidationError:
        return None


def typed(fields: dict[str, Any]) -> dict[str, tuple[type, Any]]:
    return {k: (type(v), v) for k, v in fields.items()}


@settings(max_examples=400, deadline=None)
@given(edits=st.dictionaries(st.sampled_from([*GOOD, "guided", "extra"]), ODD, max_size=3),
       drop=st.sets(st.sampled_from(list(GOOD)), max_size=2))
def test_a_row_is_taken_quickly_only_as_the_model_takes_it(
        edits: dict[str, Any], drop: set[str]) -> None:
    row = {k: v for k, v in GOOD.items() if k not in drop} | edits
    text = json.dumps(row, ensure_ascii=False)
    fast = fast_attempts(f"[{text}]")
    slow = model(json.loads(text))
    if fast is not None:
        assert slow is not None and len(fast) == 1
        assert typed(fast[0]) == typed(slow)


def test_the_last_of_a_repeated_key_counts_both_ways() -> None:
    text = json.dumps(GOOD)[:-1] + ', "score": 5, "score": 0.5, "verdict": "partial"}'
    fast = fast_attempts(f"[{text}]")
    assert fast is not None and typed(fast[0]) == typed(model(json.loads(text)) or {})


def test_anything_the_model_would_convert_or_name_goes_its_way() -> None:
    for edit in ({"answered_at": "2025-03-10T10:00:00.000000-05:00"},  # converted to UTC
                 {"answered_at": "2025-02-30T15:00:00.000000+00:00"},  # no such day
                 {"mock": "2025-03-10T15:00:00+00:00"},
                 {"verdict": "correct", "score": 0.0},
                 {"verdict": "incorrect", "score": 1.0},
                 {"template": ""}, {"unknown": 1}):
        assert fast_attempts(json.dumps([GOOD | edit])) is None
    assert fast_attempts('[{"template": "a"}, ') is None  # cut inside a row: not JSON
    rows = fast_attempts(json.dumps([GOOD, GOOD | {"guided": True}]))
    assert rows is not None and [r["guided"] for r in rows] == [False, True]


def test_an_import_leaves_the_check_constraints_on(tmp_path: Path) -> None:
    """The import turns SQLite's CHECK constraints off while it inserts (the rows are
    validated by stricter rules): on again afterwards, whether it worked or not."""
    from quiz.core.store import Store
    from quiz.core.store.merge import import_rows
    from quiz.core.store.validate import read_rows

    good = tmp_path / "good.json"
    bad = tmp_path / "bad.json"
    for path, rows in ((good, [GOOD]), (bad, [GOOD, GOOD | {"seed": -1}])):
        path.write_text(json.dumps({"format": "quiz-history", "history_format": 1,
                                    "attempts": rows, "mock_sessions": []}))
    with Store.open(tmp_path / "h.db") as store:
        with good.open() as handle:
            import_rows(store, read_rows(handle, fast=True))
        assert store.rows("PRAGMA ignore_check_constraints")[0][0] == 0
        with bad.open() as handle, pytest.raises(HistoryFileError, match="attempt 2: seed"):
            import_rows(store, read_rows(handle, fast=True))
        assert store.rows("PRAGMA ignore_check_constraints")[0][0] == 0
        assert store.count_attempts() == 1
        with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
            store._conn.execute("UPDATE attempts SET score = 2")


def test_the_command_names_a_bad_row_among_many(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad row in a span of good ones is named by its number, as row by row."""
    rows = [GOOD | {"seed": i} for i in range(3000)]
    rows[2345] = rows[2345] | {"score": 2}
    path = tmp_path / "h.json"
    text = json.dumps({"format": "quiz-history", "history_format": 1, "attempts": rows,
                       "mock_sessions": []}, indent=1)
    path.write_text(text)
    code, _, err = run_cli(capsys, "--data-dir", str(tmp_path / "data"), "history", "import",
                           str(path))
    assert code == 2
    assert err.strip() == (f"quiz: {path}: attempt 2346: score: Input should be less than "
                           "or equal to 1")


@pytest.mark.parametrize("layout", ["indent", "compact", "default", "spaced", "cut"])
def test_any_layout_reads_the_same_rows_quickly_or_not(layout: str) -> None:
    """Spans are cut where an item ends before a comma (``},``): any other layout, or a
    ``},`` inside an answer, reads the same rows, one at a time where it must."""
    import io

    from quiz.core.store.fileformat import MockRow, fields_of
    from quiz.core.store.validate import read_rows

    rows = [GOOD | {"seed": i} for i in range(2500)]
    if layout == "cut":
        rows = [r | {"answer": "}, {"} for r in rows]
    doc = {"format": "quiz-history", "history_format": 1, "attempts": rows,
           "mock_sessions": []}
    text = {"indent": json.dumps(doc, indent=1),
            "compact": json.dumps(doc, separators=(",", ":")),
            "spaced": json.dumps(doc).replace("}, {", "} , {")}.get(layout, json.dumps(doc))
    fast = [(where, fields_of(row)) for _, where, row in
            read_rows(io.StringIO(text), fast=True) if not isinstance(row, MockRow)]
    slow = [(where, fields_of(row)) for _, where, row in
            read_rows(io.StringIO(text), fast=False) if not isinstance(row, MockRow)]
    assert [(w, typed(f)) for w, f in fast] == [(w, typed(f)) for w, f in slow]
    assert len(fast) == 2500


CSV_GOOD: dict[str, str] = {
    "history_format": "1", "template": "memory/model-state", "version": "1", "seed": "7",
    "mode": "drill", "answer": "1.13 TB", "verdict": "correct", "score": "1.0",
    "mistake": "", "hints_used": "0", "hint_cost": "0.0", "seconds": "12.5",
    "answered_at": "2025-03-10T15:00:00.000000+00:00", "topic": "memory",
    "tags": '["memory"]', "rating": "3",
}
CELL = st.one_of(st.text(max_size=4), st.sampled_from([
    "", "0", "1", "-1", "2", "4", "5", "1e3", "0.5", "1.0", "nan", "inf", "true", "drill",
    "mock", "partial", "incorrect", "correct", "null", "[]", '["a", "b"]', '[["a"]]', "'=1",
    "'1", "=1", str(2**63), "1000000000000", "2025-02-30T15:00:00.000000+00:00",
    "2025-03-10T15:00:00+00:00", "2025-03-10T10:00:00.000000-05:00", "a" * 2001]))


def csv_outcome(text: str, fast: bool) -> list[tuple[str, dict[str, tuple[type, Any]]]] | str:
    """The rows read (where, typed fields), or the message of the problem named."""
    import io

    from quiz.core.store.fileformat import fields_of
    from quiz.core.store.validate import read_rows

    try:
        return [(where, typed(dict(fields_of(row))))  # type: ignore[arg-type]
                for _, where, row in read_rows(io.StringIO(text, newline=""), "csv",
                                               fast=fast)]
    except HistoryFileError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, 5), st.sampled_from([*CSV_GOOD, "guided"]),
                                CELL), max_size=3),
       guided=st.booleans())
def test_csv_rows_read_in_batches_as_row_by_row(
        edits: list[tuple[int, str, str]], guided: bool) -> None:
    """A CSV file's rows validated a batch at a time (the import's way) are the rows,
    and the first problem, that the model finds row by row."""
    import csv
    import io

    columns = [*CSV_GOOD, *(["guided"] if guided else [])]
    rows = [CSV_GOOD | {"seed": str(i), "guided": "0"} for i in range(6)]
    for index, column, cell in edits:
        rows[index][column] = cell
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    writer.writerows([[row[c] for c in columns] for row in rows])
    text = out.getvalue()
    assert csv_outcome(text, fast=True) == csv_outcome(text, fast=False)


def test_a_bad_csv_row_among_many_is_named_and_an_earlier_one_first() -> None:
    import io

    from quiz.core.store.validate import read_rows

    header = ",".join(CSV_GOOD)
    good = ",".join(v.replace('"', '""').join('""') for v in CSV_GOOD.values())
    lines = [header] + [good] * 2500
    lines[1700] = good.replace("12.5", "-1")  # a bad seconds on line 1701
    lines[1900] = "1,2,3"  # too few cells on line 1901
    text = "\r\n".join(lines) + "\r\n"
    with pytest.raises(HistoryFileError, match="line 1701: seconds: Input should be "
                       "greater than or equal to 0"):
        list(read_rows(io.StringIO(text, newline=""), "csv", fast=True))
    lines[1700] = good
    with pytest.raises(HistoryFileError, match="line 1901: 3 cells, the header has 16"):
        list(read_rows(io.StringIO("\r\n".join(lines) + "\r\n", newline=""), "csv",
                       fast=True))
    rows = list(read_rows(io.StringIO("\r\n".join(lines[:1900]) + "\r\n", newline=""),
                          "csv", fast=True))
    assert len(rows) == 1899 and type(rows[-1][2]) is dict and rows[-1][1] == "line 1900"
