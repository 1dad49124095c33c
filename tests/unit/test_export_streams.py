"""`quiz history export` streams: the same bytes as the whole-history export wrote before
it streamed (golden files written by that version), in a fixed memory at any size.

The golden files in ``exports/`` were written by the export of commit 7f3b27d (which
read every attempt into memory, then wrote the text) from :func:`fixed_history`; a change
to the files' bytes is a change to the format, and needs a new ``history_format``. The
one change since: a file with guided attempts says ``history_format`` 2 (see
``fileformat.HISTORY_FORMAT``), so that an older quiz refuses it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import Clock, per_profile, run_cli, spy
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.core.store import Attempt, Review, Store, Verdict
from quiz.core.store.fileformat import HistoryFileError
from quiz.core.store.merge import import_history
from quiz.core.store.records import ATTEMPT_COLUMNS, attempt_to_row
from quiz.core.store.validate import parse
from quiz.core.store.writer import export_history, write_history

GOLDEN = Path(__file__).parent / "exports"
T = datetime(2025, 3, 10, 15, 0, tzinfo=UTC)


def fixed_history(path: Path, *, guided: bool) -> None:
    """A history with what an export must carry exactly: answers with quotes, commas,
    line ends and non-ASCII text, tags with commas, floats that print long, named
    mistakes, hints, mock sessions (one unfinished), reviews (two for one attempt: the
    first counts), times out of id order, and (when ``guided``) a guided attempt."""
    answers = ["1.13 TB", 'say "hi", then\nnewline', "café ≈ 3×10¹²", "cr\ronly", "",
               "  spaced  ", "=SUM(A1)", "x,y"]
    with Store.open(path, now=Clock(T), tz=UTC) as store:
        mock = store.start_mock(minutes=30, n_questions=3, started_at=T - timedelta(days=2))
        store.finish_mock(mock, score=0.1 + 0.2, report={"note": "müde", "parts": [1, 2]},
                          finished_at=T - timedelta(days=2) + timedelta(minutes=25))
        store.start_mock(minutes=15, n_questions=2, started_at=T - timedelta(days=1))
        ids = []
        for i in range(16):
            verdict: Verdict = ("correct", "partial", "incorrect")[i % 3]
            ids.append(store.record_attempt(Attempt(
                template_id=f"topic-{i % 3}/t{i % 5}", template_version=1 + i % 2,
                seed=i * 7919, mode=("drill", "practice", "mock")[i % 3],
                answer_text=answers[i % len(answers)], verdict=verdict,
                score={"correct": 1.0, "partial": 0.1 + 0.2, "incorrect": 0.0}[verdict],
                mistake="forgot-optimizer" if verdict != "correct" else None,
                hints_used=i % 2, hint_cost=0.05 * (i % 2), seconds=1 / 3 + i,
                answered_at=T - timedelta(hours=i * 7 % 11, microseconds=i),
                topic=f"topic-{i % 3}", tags=("rapid-fire-1", "a, b") if i % 4 else (),
                session_id=mock if i % 3 == 2 else None, guided=guided and i == 5)))
        for n, attempt_id in enumerate(ids[::3]):
            store.put_card("topic-0/t0", "{}", Review(
                template_id="topic-0/t0", rating=1 + n % 4, state_before=n % 4,
                reviewed_at=T + timedelta(minutes=n), attempt_id=attempt_id))
        store.put_card("topic-0/t0", "{}", Review(
            template_id="topic-0/t0", rating=4, state_before=2,
            reviewed_at=T + timedelta(hours=5), attempt_id=ids[0]))


@pytest.mark.parametrize("guided", [False, True], ids=["plain", "guided"])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_writes_the_same_bytes_as_before_it_streamed(
        tmp_path: Path, fmt: str, guided: bool) -> None:
    path = tmp_path / "history.db"
    fixed_history(path, guided=guided)
    want = (GOLDEN / f"{'guided' if guided else 'plain'}.{fmt}").read_bytes()
    with Store.open(path, tz=UTC) as store:
        assert export_history(store, fmt).encode() == want
        out = tmp_path / f"out.{fmt}"
        with out.open("w", encoding="utf-8", newline="") as handle:
            assert write_history(store, fmt, handle) == 16
    assert out.read_bytes() == want


def test_export_of_an_empty_history_is_a_valid_empty_file(tmp_path: Path) -> None:
    with Store.open(tmp_path / "h.db", tz=UTC) as store:
        document = json.loads(export_history(store, "json"))
        assert document["attempts"] == [] and document["mock_sessions"] == []
        assert export_history(store, "csv").count("\r\n") == 1


def test_export_command_writes_the_golden_bytes_to_a_file_and_to_stdout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixed_history(tmp_path / "history.db", guided=True)
    out = tmp_path / "out.csv"
    code, printed, _ = run_cli(capsys, "--data-dir", str(tmp_path), "history", "export",
                               "--out", str(out))
    assert code == 0 and "Exported 16 attempt(s)" in printed
    assert out.read_bytes() == (GOLDEN / "guided.csv").read_bytes()
    code, printed, _ = run_cli(capsys, "--data-dir", str(tmp_path), "history", "export")
    assert code == 0 and printed == (GOLDEN / "guided.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_refuses_a_hand_edited_row_by_name_and_leaves_no_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    """A row the file's rules refuse (only a hand edit with the CHECK constraints off
    stores one) is one line naming the attempt and the field, exit 2, and no file (nor
    a half-written one) under the name asked for."""
    fixed_history(tmp_path / "history.db", guided=False)
    raw = sqlite3.connect(tmp_path / "history.db")
    raw.execute("PRAGMA ignore_check_constraints = ON")
    raw.execute("UPDATE attempts SET answer_text = ? WHERE id = 3", ("a" * 2001,))
    raw.commit()
    raw.close()
    out = tmp_path / f"out.{fmt}"
    for target in (["--out", str(out)], ["--format", fmt]):
        code, _, err = run_cli(capsys, "--data-dir", str(tmp_path), "history", "export",
                               *target)
        assert code == 2
        assert err.count("\n") == 1 and "attempt 3 cannot be exported: answer:" in err
        assert "Traceback" not in err and "internal error" not in err
    assert sorted(p.name for p in tmp_path.iterdir()
                  if p.name.startswith(("out", ".out"))) == []


def test_export_reads_the_attempts_in_pages_whatever_their_number(tmp_path: Path) -> None:
    """The shape that keeps memory fixed: one query over the attempts, read a page at a
    time (never fetchall), whatever the history's size."""
    path = tmp_path / "history.db"
    fixed_history(path, guided=False)
    with Store.open(path, tz=UTC) as store:
        seen: list[str] = []
        store._conn.set_trace_callback(seen.append)
        export_history(store, "json")
        store._conn.set_trace_callback(None)
    # (besides an indexed test for a guided attempt, which decides the file's format)
    over_attempts = [q for q in seen if "FROM attempts" in q and "EXISTS" not in q]
    assert len(over_attempts) == 1 and len(seen) <= 5, seen


def test_export_memory_does_not_grow_with_the_history(tmp_path: Path) -> None:
    """Three times the attempts, about the same peak of memory: a page at a time is held,
    never the history (the whole-history export held every row, twice)."""
    peaks = []
    for size in (600, 1800):  # both over a page (500 rows)
        with Store.open(tmp_path / f"{size}.db", now=Clock(T), tz=UTC) as store:
            rows = [attempt_to_row(Attempt(
                template_id=f"t/{i % 7}", template_version=1, seed=i, mode="drill",
                answer_text=f"answer {i} " * 8, verdict="correct", score=1.0,
                topic="memory", answered_at=T + timedelta(seconds=i), seconds=3.0,
                tags=("rapid-fire-1",))) for i in range(size)]
            marks = ", ".join("?" * len(rows[0]))
            with store.transaction() as conn:
                conn.executemany(f"INSERT INTO attempts ({ATTEMPT_COLUMNS}) VALUES ({marks})",
                                 rows)
            del rows
            with open(os.devnull, "w", encoding="utf-8") as sink:
                tracemalloc.start()
                assert write_history(store, "json", sink) == size
                peaks.append(tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
    assert peaks[1] < 1.5 * peaks[0], peaks


def test_import_reads_only_the_attempts_at_the_files_times(tmp_path: Path) -> None:
    """Merging a small file into a big history compares it with the attempts answered at
    the file's times (by the time index), not with every attempt."""
    path = tmp_path / "history.db"
    fixed_history(path, guided=False)
    with Store.open(path, tz=UTC) as store:
        document = json.loads(export_history(store, "json"))
        attempts = [attempt_to_row(Attempt(
            template_id="t/x", template_version=1, seed=i, mode="drill", answer_text="1",
            verdict="correct", score=1.0, topic="memory", seconds=3.0,
            answered_at=T + timedelta(days=1, seconds=i))) for i in range(3000)]
        marks = ", ".join("?" * len(attempts[0]))
        with store.transaction() as conn:
            conn.executemany(f"INSERT INTO attempts ({ATTEMPT_COLUMNS}) VALUES ({marks})",
                             attempts)
        document["attempts"] = document["attempts"][:2] + [
            {**document["attempts"][2], "answer": "new"}]
        read = 0
        stream = store.stream

        def counting(*args: Any, **kwargs: Any) -> Iterator[Any]:
            nonlocal read
            for row in stream(*args, **kwargs):
                read += 1
                yield row

        store.stream = counting  # type: ignore[method-assign]
        result = import_history(store, parse(json.dumps(document), "json"))
        assert (result.added, result.already) == (1, 2)
        assert read == 3  # the three attempts at the file's three times


json_text = st.text(st.characters(codec="utf-8"), max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | json_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_text, inner, max_size=3),
    max_leaves=6)


@settings(max_examples=per_profile(100, 300), deadline=None)
@given(st.dictionaries(json_text, json_values | st.lists(json_text, max_size=3), max_size=6))
def test_an_item_is_written_as_the_json_module_indents_it(item: dict[str, Any]) -> None:
    from quiz.core.store.writer import indented

    assert indented(item) == json.dumps(item, indent=1, ensure_ascii=False)


def test_export_builds_no_model_for_rows_that_keep_the_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost that made the export slow: a pydantic row validated and dumped per
    attempt. A stored row that meets every rule as it is goes to the file directly."""
    from quiz.core.store import writer

    path = tmp_path / "history.db"
    fixed_history(path, guided=True)
    built = spy(monkeypatch, writer, "file_row")
    with Store.open(path, tz=UTC) as store:
        assert export_history(store, "json").encode() == (GOLDEN / "guided.json").read_bytes()
    assert built == []


EDITS = [
    ("template_id", "t" * 201), ("template_id", "t" * 200), ("template_version", -1),
    ("template_version", "2"), ("seed", "7"), ("answer_text", "a" * 2001),
    ("answer_text", "é" * 2000), ("answer_text", 12), ("score", "0.5"), ("score", 1),
    ("mistake", 3), ("hints_used", "1"), ("hint_cost", 2), ("seconds", "3"),
    ("answered_at", "2025-03-10T15:00:00+00:00"),
    ("answered_at", "2025-02-30T15:00:00.000000+00:00"),
    ("answered_at", "2025-03-10T15:00:00.000000+05:30"), ("answered_at", "then"),
    ("answered_at", "2025-03-10 15:00:00.000000+00:00"), ("topic", 5),
    ("tags", '{"a": 1}'), ("tags", "[1]"), ("tags", '["x", "ü"]'), ("tags", "oops"),
    ("tags", 7), ("guided", 1), ("template_id", b"blob"), ("topic", "")]
"""Hand edits of a stored attempt (column, value) into shapes the file's rules judge."""


@pytest.mark.parametrize("fmt", ["json", "csv"])
@pytest.mark.parametrize("edit", EDITS, ids=[f"{c}={str(v)[:12]}" for c, v in EDITS])
def test_the_direct_path_writes_what_the_model_writes_for_each_edit(
        tmp_path_factory: pytest.TempPathFactory, edit: tuple[str, object], fmt: str) -> None:
    same_export_either_way(tmp_path_factory, [(2, edit)], fmt)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.sampled_from(EDITS)), max_size=4),
       st.sampled_from(["json", "csv"]))
def test_the_direct_path_writes_what_the_model_writes_for_any_stored_rows(
        tmp_path_factory: pytest.TempPathFactory, changes: list[tuple[int, tuple[str, object]]],
        fmt: str) -> None:
    same_export_either_way(tmp_path_factory, changes, fmt)


def same_export_either_way(tmp_path_factory: pytest.TempPathFactory,
                           changes: list[tuple[int, tuple[str, object]]], fmt: str) -> None:
    """Rows edited by hand (CHECK constraints off) into shapes the model rules on: the
    export writes the same bytes, or fails the same way, as with every row validated by
    the model."""
    from quiz.core.store import writer

    path = tmp_path_factory.mktemp("h") / "history.db"
    fixed_history(path, guided=False)
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA ignore_check_constraints = ON")
    for row, (column, value) in changes:
        raw.execute(f"UPDATE attempts SET {column} = ? WHERE id = ?", (value, row + 1))
    raw.commit()
    raw.close()

    def export(direct: bool) -> str:
        with Store.open(path, tz=UTC) as store, pytest.MonkeyPatch.context() as patch:
            if not direct:
                patch.setattr(writer, "_plain_item", lambda *args: None)
            try:
                return export_history(store, fmt)
            except Exception as exc:  # the same failure, whichever way
                return f"{type(exc).__name__}: {exc}"

    assert export(direct=True) == export(direct=False)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_reader_of_format_1_refuses_guided_attempts_and_reads_the_rest(
        tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A quiz from before guided attempts would read them as cold answers (reviews for
    the spaced repetition): a file holding one says format 2, which such a reader
    refuses as newer, in one line. A file without one stays format 1, read by all."""
    from quiz.core.store import fileformat

    texts = {}
    for guided in (False, True):
        fixed_history(tmp_path / f"{guided}.db", guided=guided)
        with Store.open(tmp_path / f"{guided}.db", tz=UTC) as store:
            texts[guided] = export_history(store, fmt)
    assert [sum(r.guided for r in parse(texts[g], fmt).attempts) for g in (False, True)] \
        == [0, 1]
    monkeypatch.setattr(fileformat, "HISTORY_FORMAT", 1)  # a reader of format 1
    assert len(parse(texts[False], fmt).attempts) == 16
    with pytest.raises(HistoryFileError, match=r"^h: written by a newer quiz \(history "
                       r"format 2; this version reads up to 1\): upgrade quiz to import it$"):
        parse(texts[True], fmt, source="h")


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_format_1_file_with_guided_attempts_still_imports_as_guided(
        tmp_path: Path, fmt: str) -> None:
    """Files written before the format said 2 for them (format 1 with guided attempts)
    keep their guided attempts guided."""
    text = (GOLDEN / f"guided.{fmt}").read_bytes().decode()
    older = text.replace('"history_format": 2', '"history_format": 1') if fmt == "json" \
        else text.replace("\r\n2,", "\r\n1,")
    assert older != text
    [guided] = [row for row in parse(older, fmt).attempts if row.guided]
    with Store.open(tmp_path / "h.db", tz=UTC) as store:
        import_history(store, parse(older, fmt))
        assert export_history(store, fmt) == text
    assert guided.template == "topic-2/t0"
