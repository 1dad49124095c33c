"""Portable history (`quiz history export|import`: quiz.core.store's fileformat, writer,
validate and merge): export, merge, validation, backups and the FSRS rebuild."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler
from helpers import LOCAL, T0, Clock, record, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.core.schedule import Drill
from quiz.core.settings import Settings
from quiz.core.store import Attempt, Store
from quiz.core.store.fileformat import HISTORY_FORMAT, HistoryFileError
from quiz.core.store.merge import backup_before_import, import_history
from quiz.core.store.validate import parse
from quiz.core.store.writer import export_history


def attempt(**overrides: object) -> Attempt:
    fields: dict[str, object] = {
        "template_id": "memory/model-state", "template_version": 1, "seed": 7,
        "mode": "drill", "answer_text": "1.13 TB", "verdict": "correct", "score": 1.0,
        "topic": "memory", "answered_at": T0, "seconds": 42.0, "tags": ("rapid-fire-1",),
    }
    fields.update(overrides)
    return Attempt(**fields)  # type: ignore[arg-type]


def open_store(folder: Path, name: str = "history.db") -> Store:
    return Store.open(folder / name, now=Clock(T0 + timedelta(days=30)), tz=LOCAL)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path) as opened:
        yield opened


def drill_answer(store: Store, a: Attempt) -> None:
    """Record an attempt the way the drill does: attempt, then its card's review."""
    record(Drill(store, Settings()), a)


# ----------------------------------------------------------------------- round trip

texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
attempts_st = st.builds(
    attempt,
    template_id=st.sampled_from(["memory/model-state", "comm/tp-bytes", "a,b\"c"]),
    seed=st.integers(0, 10**12 - 1),
    mode=st.sampled_from(["drill", "practice"]),
    answer_text=texts,
    verdict=st.sampled_from(["correct", "partial", "incorrect"]),
    score=st.floats(0, 1),
    mistake=st.none() | st.sampled_from(["forgot-optimizer", "bits, not bytes"]),
    seconds=st.floats(0, 1e4),
    answered_at=st.integers(0, 10**6).map(lambda s: T0 + timedelta(seconds=s, microseconds=s)),
    tags=st.lists(st.sampled_from(["rapid-fire-1", "memory", "two words", 'a;b,"c']),
                  max_size=2,
                  unique=True).map(tuple),
).filter(lambda a: (a.verdict != "correct" or a.score > 0)
         and (a.verdict != "incorrect" or a.score < 1))  # what grading gives


@settings(max_examples=25)
@given(items=st.lists(st.tuples(attempts_st, st.booleans()), max_size=8),
       fmt=st.sampled_from(["json", "csv"]))
def test_export_import_into_an_empty_store_export_gives_the_same_file(
    items: list[tuple[Attempt, bool]], fmt: str,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with open_store(folder, "a.db") as source:
            for a, reviewed in sorted(items, key=lambda item: item[0].answered_at):
                if reviewed:
                    drill_answer(source, a)
                else:
                    source.record_attempt(a)
            first = export_history(source, fmt)
        with open_store(folder, "b.db") as target:
            result = import_history(target, parse(first, fmt))
            assert result.added == len(items)
            assert export_history(target, fmt) == first
            # A second import of the same file changes nothing.
            again = import_history(target, parse(first, fmt))
            assert (again.added, again.already) == (0, len(items))
            assert export_history(target, fmt) == first


def test_json_export_carries_mock_sessions_and_their_attempts(store: Store) -> None:
    session = store.start_mock(minutes=30, n_questions=2, started_at=T0)
    store.record_attempt(attempt(mode="mock", session_id=session))
    store.finish_mock(session, score=0.5, report={"note": "ok"}, finished_at=T0)
    text = export_history(store, "json")
    with open_store(store.path.parent, "other.db") as other:
        import_history(other, parse(text))
        [mock] = other.mock_history()
        assert (mock.minutes, mock.score, mock.report) == (30, 0.5, {"note": "ok"})
        assert other.attempts()[0].session_id == mock.id
        assert export_history(other, "json") == text


# ----------------------------------------------------------------------- merging


def test_import_merges_two_machines_histories_without_duplicates(tmp_path: Path) -> None:
    shared = attempt(answered_at=T0)
    with open_store(tmp_path, "laptop.db") as laptop, open_store(tmp_path, "desk.db") as desk:
        drill_answer(laptop, shared)
        drill_answer(desk, shared)
        drill_answer(laptop, attempt(answered_at=T0 + timedelta(days=1), verdict="incorrect",
                                     score=0.0))
        drill_answer(desk, attempt(template_id="comm/tp-bytes", topic="comm",
                                   answered_at=T0 + timedelta(hours=1)))
        result = import_history(laptop, parse(export_history(desk, "csv"), "csv"))
        assert (result.added, result.already) == (1, 1)
        assert len(laptop.attempts()) == 3
        assert [a.answered_at for a in laptop.attempts()] == sorted(
            a.answered_at for a in laptop.attempts())


def test_cards_are_rebuilt_from_the_merged_review_log(tmp_path: Path) -> None:
    times = [T0, T0 + timedelta(days=1), T0 + timedelta(days=4)]
    ratings = [Rating.Good, Rating.Again, Rating.Good]
    with open_store(tmp_path, "a.db") as a, open_store(tmp_path, "b.db") as b:
        # Machine a saw the first and last review, machine b the middle one.
        for when in (times[0], times[2]):
            drill_answer(a, attempt(answered_at=when, seconds=60.0))
        drill_answer(b, attempt(answered_at=times[1], verdict="incorrect", score=0.0))
        import_history(a, parse(export_history(b)))
        reviews = a.reviews()
        assert [r.rating for r in reviews] == [int(r) for r in ratings]
        expected = Card(card_id=1, due=times[0])
        scheduler = Scheduler(enable_fuzzing=False)
        states = [0]
        for when, rating in zip(times, ratings, strict=True):
            expected, _ = scheduler.review_card(expected, rating, review_datetime=when)
            states.append(int(expected.state))
        # The middle review now sees the card as the first review left it, not as new.
        assert [r.state_before for r in reviews] == states[:3] == [0, 1, 1]
        card = Card.from_json(a.get_card("memory/model-state") or "")
        assert (card.state, card.due, card.stability) == (
            expected.state, expected.due, expected.stability)


# ----------------------------------------------------------------------- refusing


def test_a_bad_row_refuses_the_whole_file_and_names_the_row(store: Store) -> None:
    good = attempt()
    with open_store(store.path.parent, "src.db") as src:
        src.record_attempt(good)
        src.record_attempt(attempt(answered_at=T0 + timedelta(1)))
        document = json.loads(export_history(src))
    document["attempts"][1]["score"] = 1.5
    with pytest.raises(HistoryFileError, match=r"f\.json: attempt 2: score: .*less than or"):
        parse(json.dumps(document), source="f.json")
    assert store.attempts() == []


@pytest.mark.parametrize(("text", "message"), [
    ('{"format": "quiz-history", "history_format": 99, "attempts": []}',
     "newer quiz (history format 99; this version reads up to 2): upgrade quiz"),
    ("history_format,template\n7,x\n", "newer quiz (history format 7"),
    ("{nope", "not valid JSON"),
    ('{"a": 1}', "not a quiz history file"),
    ("name,score\nx,1\n", "not a quiz history file"),
    ("", "empty file"),
])
def test_unreadable_or_newer_files_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(HistoryFileError, match=r"^f: ") as info:
        parse(text, source="f")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_csv_tags_with_spaces_survive_a_round_trip(store: Store) -> None:
    store.record_attempt(attempt(tags=("rapid-fire-1", "my own tag")))
    [row] = parse(export_history(store, "csv"), "csv").attempts
    assert row.tags == ("rapid-fire-1", "my own tag")


def test_csv_row_errors_name_the_line(store: Store) -> None:
    store.record_attempt(attempt())
    lines = export_history(store, "csv").splitlines()
    lines.append(lines[1].replace("correct", "great"))
    with pytest.raises(HistoryFileError, match=r"^h\.csv: line 3: verdict: "):
        parse("\n".join(lines), "csv", source="h.csv")
    assert HISTORY_FORMAT == 2  # (format 2 only for files with guided attempts)


def test_backup_before_import_is_a_readable_copy_of_the_history(store: Store,
                                                                 tmp_path: Path) -> None:
    store.record_attempt(attempt())
    backup = backup_before_import(store, tmp_path / "backups")
    assert "before-import" in backup.name
    rows = sqlite3.connect(str(backup)).execute("SELECT count(*) FROM attempts").fetchone()
    assert rows == (1,)
    second = backup_before_import(store, tmp_path / "backups")
    assert second != backup and second.exists()


# ----------------------------------------------------------------------- the command


def test_history_export_and_import_on_the_command_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    with open_store(tmp_path / "one") as one:
        drill_answer(one, attempt(answered_at=datetime.now(UTC)))
    out = tmp_path / "h.csv"
    code, printed, err = run_cli(capsys, "--data-dir", str(tmp_path / "one"), "history",
                                 "export", "--out", str(out))
    assert (code, err) == (0, "")
    assert "Exported 1 attempt(s)" in printed and out.read_text().startswith("history_format")
    code, printed, err = run_cli(capsys, "--data-dir", str(tmp_path / "two"), "history",
                                 "import", str(out))
    assert (code, err) == (0, "")
    assert "Imported 1 new attempt(s)" in printed and "Backup" in printed
    assert list((tmp_path / "two" / "backups").iterdir())
    code, printed, _ = run_cli(capsys, "--data-dir", str(tmp_path / "two"), "stats", "--json")
    assert json.loads(printed)["attempts"] == 1
    code, printed, _ = run_cli(capsys, "--data-dir", str(tmp_path / "two"), "history",
                               "export", "--format", "csv")
    assert printed == out.read_bytes().decode()


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    (b"\xff\xfe\x00garbage", "not a text file"),
    (b"hello\n", "not a quiz history file"),
])
def test_history_import_errors_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, message: str,
) -> None:
    path = tmp_path / "in.json"
    if content is not None:
        path.write_bytes(content)
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path), "history", "import",
                             str(path))
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "backups").exists()  # refused before anything was touched
