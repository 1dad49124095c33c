"""Hostile history files for `quiz history import` (and what export writes for them):
each is one line and exit 2 with nothing changed, or imports exactly what was written.

Bugs (issue 26): the import read any path to the end (`/dev/zero`, `/dev/urandom` hung
while memory grew) and held the whole file (1,000,000 rows peaked at 2.5 GB); a row
nested 50,000 deep ended in a RecursionError; a row dated 9999-12-31 crashed the
scheduler; a version or seed past SQLite's 64-bit range crashed the insert; `seed: -1`,
`verdict: "correct"` with `score: 0` and `history_format: "1"` were taken silently; CSV
export wrote `=HYPERLINK(...)` as a cell a spreadsheet runs.
"""

from __future__ import annotations

import csv
import io
import json
import os
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import cpu_guard, run_cli

from quiz.core.store import Attempt, Store
from quiz.core.store import reader as file_reader
from quiz.core.store.fileformat import HistoryFileError
from quiz.core.store.merge import import_history, import_rows
from quiz.core.store.schema import quarter_of
from quiz.core.store.validate import parse, read_rows
from quiz.core.store.writer import export_history

T = datetime(2025, 3, 10, 15, 0, tzinfo=UTC)


@pytest.fixture
def data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    folder = tmp_path / "data"
    monkeypatch.setenv("QUIZ_DATA_DIR", str(folder))
    return folder


def one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with cpu_guard(10, 20):
        code, out, err = run_cli(capsys, *argv)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("quiz: "), err
    assert "internal error" not in err and "Traceback" not in err
    return err


def attempt(i: int = 0, **changes: Any) -> Attempt:
    values: dict[str, Any] = dict(
        template_id="memory/model-state", template_version=1, seed=7 + i, mode="drill",
        answer_text="1.13 TB", verdict="correct", score=1.0, topic="memory",
        answered_at=T + timedelta(minutes=i), seconds=3.0, tags=("rapid-fire-1",))
    values.update(changes)
    return Attempt(**values)


def history_file(tmp_path: Path, *rows: dict[str, Any], fmt: str = "json",
                 mocks: tuple[dict[str, Any], ...] = ()) -> Path:
    """A history file holding one good exported row changed as each of ``rows`` says."""
    with Store.open(tmp_path / "source.db") as store:
        store.record_attempt(attempt())
        good = json.loads(export_history(store, "json"))["attempts"][0]
    document: dict[str, Any] = {"format": "quiz-history", "history_format": 1,
                "attempts": [{**good, **row} for row in rows or ({},)],
                "mock_sessions": list(mocks)}
    path = tmp_path / f"in.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(document))
    else:
        out = io.StringIO()
        writer = csv.writer(out)
        columns = ["history_format", *good]
        columns.remove("mock")
        writer.writerow(columns)
        for row in document["attempts"]:
            writer.writerow([1, *(json.dumps(row[c]) if c == "tags" else
                                  "" if row[c] is None else row[c] for c in columns[1:])])
        path.write_text(out.getvalue())
    return path


def unchanged(data: Path) -> None:
    """Nothing was imported and no backup of the refused import is left."""
    if (data / "history.db").exists():
        with Store.open(data / "history.db") as store:
            assert store.count_attempts() == 0
    assert not list((data / "backups").glob("*before-import*")) if (data / "backups").is_dir() \
        else True


# ---------------------------------------------------------------- what is at the path

def a_fifo(path: Path) -> None:
    os.mkfifo(path)


def a_socket(path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))


def a_link_to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def a_link_to_dev_urandom(path: Path) -> None:
    path.symlink_to("/dev/urandom")


def a_folder(path: Path) -> None:
    path.mkdir()


NOT_FILES: list[Callable[[Path], None]] = [a_fifo, a_socket, a_link_to_dev_zero,
                                           a_link_to_dev_urandom, a_folder]


@pytest.mark.parametrize("make", NOT_FILES, ids=[m.__name__ for m in NOT_FILES])
def test_only_a_regular_file_is_read(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], None],
) -> None:
    path = tmp_path / "in.json"
    make(path)
    err = one_line_exit_2(capsys, "history", "import", str(path))
    assert "not a history file" in err
    unchanged(data)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_at_once(
    data: Path, capsys: pytest.CaptureFixture[str], device: str,
) -> None:
    one_line_exit_2(capsys, "history", "import", device)
    unchanged(data)


def test_a_file_over_the_size_limit_is_refused_unread(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = history_file(tmp_path)
    monkeypatch.setattr(file_reader, "MAX_FILE_BYTES", path.stat().st_size - 1)
    err = one_line_exit_2(capsys, "history", "import", str(path))
    assert "larger than a history file can be" in err


@pytest.mark.parametrize("text", ["history_format," + "x" * (2**20 + 10) + "\n",
                                  '{"format": "quiz-history", "history_format": 1, '
                                  '"attempts": ["' + "x" * (2**20 + 10) + '"]}'],
                         ids=["csv-line", "json-row"])
def test_a_row_over_the_size_limit_is_refused(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
) -> None:
    path = tmp_path / "in.txt"
    path.write_text(text)
    one_line_exit_2(capsys, "history", "import", str(path))
    unchanged(data)


class ChunksOnly(io.StringIO):
    """A file that must be read in bounded pieces: reading it whole is the old bug."""

    def read(self, size: int | None = -1) -> str:
        assert size is not None and 0 < size <= 2**20, f"read({size}): the whole file"
        return super().read(size)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        assert size is not None and 0 < size <= 2**20 + 1, f"readline({size})"
        return super().readline(size)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_the_file_is_streamed(tmp_path: Path, fmt: str) -> None:
    with Store.open(tmp_path / "h.db") as store:
        for i in range(300):
            store.record_attempt(attempt(i))
        text = export_history(store, fmt)
    rows = list(read_rows(ChunksOnly(text, newline=""), fmt))
    assert len(rows) == 300


# ---------------------------------------------------------------- nesting

DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize(("where", "build"), [
    ("json-tags", lambda p: history_file(p, {"tags": "DEEP"})),
    ("json-extra-field", lambda p: history_file(p, {"x": "DEEP"})),
    ("json-mock-report", lambda p: history_file(
        p, mocks=({"started_at": "2025-03-01T00:00:00+00:00", "minutes": 30,
                   "n_questions": 3, "report": "DEEP"},))),
    ("csv-tags", lambda p: history_file(p, {"tags": "DEEP"}, fmt="csv")),
])
def test_deep_nesting_inside_a_row_is_refused_in_one_line(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str,
    build: Callable[[Path], Path],
) -> None:
    path = build(tmp_path)
    text = path.read_text().replace('"""DEEP"""', DEEP).replace('"DEEP"', DEEP)
    path.write_text(text)
    err = one_line_exit_2(capsys, "history", "import", str(path))
    assert "nested too deeply" in err or "not valid JSON" in err or "tags" in err
    unchanged(data)


def test_a_report_nested_below_the_recursion_limit_is_still_refused(tmp_path: Path) -> None:
    report = "[" * 200 + "]" * 200
    path = history_file(tmp_path, mocks=({"started_at": "2025-03-01T00:00:00+00:00",
                                          "minutes": 30, "n_questions": 3,
                                          "report": "R"},))
    text = path.read_text().replace('"R"', f'{{"a": {report}}}')
    with pytest.raises(HistoryFileError, match="nested too deeply"):
        parse(text)


# ---------------------------------------------------------------- values

@pytest.mark.parametrize(("change", "message"), [
    ({"answered_at": "9999-12-31T00:00:00+00:00"}, "in the future"),
    ({"answered_at": "9999-12-31T23:00:00-05:00"}, "out of range"),
    ({"answered_at": "0001-01-01T00:00:00+00:00"}, "before 1970"),
    ({"answered_at": "0001-01-01T00:00:00+05:00"}, "out of range"),
    ({"version": 2**70}, "version"),
    ({"seed": 2**70}, "seed"),
    ({"seed": -1}, "seed"),
    ({"verdict": "correct", "score": 0.0}, "a correct answer scores more than 0"),
    ({"verdict": "incorrect", "score": 1.0}, "an incorrect answer scores less than 1"),
    ({"hints_used": 2**70}, "hints_used"),
])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_row_out_of_range_is_one_line_and_changes_nothing(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    change: dict[str, Any], message: str, fmt: str,
) -> None:
    path = history_file(tmp_path, {}, change, fmt=fmt)  # the bad row second
    err = one_line_exit_2(capsys, "history", "import", str(path))
    assert message in err and ("attempt 2" in err or "line 3" in err), err
    unchanged(data)


def test_a_mock_session_in_the_future_or_too_large_is_refused(tmp_path: Path) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"started_at": "9999-01-01T00:00:00+00:00"}, "in the future"),
        ({"minutes": 2**70}, "minutes")]
    for mock, message in cases:
        path = history_file(tmp_path, mocks=({"started_at": "2025-03-01T00:00:00+00:00",
                                              "minutes": 30, "n_questions": 3, **mock},))
        with Store.open(tmp_path / f"{message}.db") as store, \
                pytest.raises(HistoryFileError, match=message):
            import_history(store, parse(path.read_text()))


@pytest.mark.parametrize("value", ['"1"', "1.0", "true", "null"])
def test_a_history_format_that_is_no_whole_number_is_refused(value: str) -> None:
    text = f'{{"format": "quiz-history", "history_format": {value}, "attempts": []}}'
    with pytest.raises(HistoryFileError, match="history_format: not a whole number"):
        parse(text)


# ---------------------------------------------------------------- the merge itself

def test_the_summary_tables_match_a_recount_after_an_import(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        for i in range(40):
            store.record_attempt(attempt(i, verdict=("correct", "partial", "incorrect")[i % 3],
                                         score=(1.0, 0.5, 0.0)[i % 3],
                                         template_id=f"memory/t{i % 4}"))
        text = export_history(store)
    with Store.open(tmp_path / "b.db") as store:
        store.record_attempt(attempt(1000, template_id="memory/t1"))
        import_history(store, parse(text))
        conn = store._conn
        groups = conn.execute("SELECT template_id, topic, tags, attempts, correct, partial, "
                              "score_sum FROM attempt_groups ORDER BY 1, 2, 3").fetchall()
        recount = conn.execute(
            "SELECT template_id, topic, tags, count(*), sum(verdict = 'correct'), "
            "sum(verdict = 'partial'), total(score) FROM attempts GROUP BY 1, 2, 3 "
            "ORDER BY 1, 2, 3").fetchall()
        assert [tuple(r) for r in groups] == [tuple(r) for r in recount]
        quarters = conn.execute("SELECT quarter, attempts, correct FROM attempt_quarters "
                                "ORDER BY 1").fetchall()
        again = conn.execute(f"SELECT {quarter_of('answered_at')} AS q, count(*), "
                             "sum(verdict = 'correct') FROM attempts GROUP BY q "
                             "ORDER BY q").fetchall()
        assert [tuple(r) for r in quarters] == [tuple(r) for r in again]
        # The trigger the import set aside is back: a new answer is counted.
        store.record_attempt(attempt(2000, template_id="memory/t9"))
        assert conn.execute("SELECT attempts FROM attempt_groups WHERE template_id = "
                            "'memory/t9'").fetchone()[0] == 1


def test_a_refused_import_leaves_the_history_and_its_trigger_as_they_were(
    tmp_path: Path,
) -> None:
    path = history_file(tmp_path, {}, {}, {"seed": -1})
    with Store.open(tmp_path / "h.db") as store:
        with pytest.raises(HistoryFileError), path.open() as handle:
            import_rows(store, read_rows(handle))
        assert store.count_attempts() == 0
        names = [r[0] for r in store._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")]
        assert "attempts_summary_insert" in names


# ---------------------------------------------------------------- CSV injection

FORMULAS = ["=HYPERLINK(\"http://x.example\",\"click\")", "+1+1", "-2+3", "@SUM(A1)",
            "\tcmd", "\r=1", "'=already quoted", "''", "'plain", "a=b", "-", "="]


def test_csv_export_escapes_formula_cells_and_import_reads_them_back(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        for i, text in enumerate(FORMULAS):
            store.record_attempt(attempt(i, answer_text=text, mistake=text or None,
                                         verdict="partial", score=0.5))
        text_csv = export_history(store, "csv")
        text_json = export_history(store, "json")
    cells = [row for row in csv.reader(io.StringIO(text_csv, newline=""))][1:]
    for row in cells:
        for cell in row:
            assert cell[:1] not in ("=", "+", "-", "@", "\t", "\r"), row
    # JSON stays exact; CSV reads back what was typed.
    assert [a["answer"] for a in json.loads(text_json)["attempts"]] == FORMULAS
    assert [a.answer for a in parse(text_csv, "csv").attempts] == FORMULAS
    assert [a.mistake for a in parse(text_csv, "csv").attempts] == FORMULAS
    with Store.open(tmp_path / "b.db") as store:
        import_history(store, parse(text_csv, "csv"))
        assert export_history(store, "csv") == text_csv


def test_a_bulk_import_builds_the_same_indexes_and_rows(tmp_path: Path) -> None:
    """A large import sets the indexes aside and builds them at the end: the schema and
    what a query reads are the same as a row-by-row import's."""
    with Store.open(tmp_path / "a.db") as store:
        for i in range(30):
            store.record_attempt(attempt(i, template_id=f"memory/t{i % 3}"))
        text = export_history(store)
    dumps = []
    for expected in (None, 10**6):
        with Store.open(tmp_path / f"b{expected}.db") as store:
            import_history_expected(store, text, expected)
            conn = store._conn
            schema = sorted(tuple(r) for r in conn.execute(
                "SELECT type, name, sql FROM sqlite_master"))
            assert store.integrity_ok()
            dumps.append((schema, export_history(store)))
    assert dumps[0] == dumps[1]


def import_history_expected(store: Store, text: str, expected: int | None) -> None:

    import_rows(store, read_rows(io.StringIO(text)), expected=expected)
