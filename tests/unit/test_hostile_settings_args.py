"""Hostile settings files, command-line arguments and clocks: each works or ends in one
line and exit 2, never a traceback, a hang or a silently wrong reading."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from fsrs import Rating, Scheduler
from helpers import LOCAL, T0, Clock, cpu_guard, run_cli

from quiz.core.schedule import Drill
from quiz.core.settings import MAX_SETTINGS_BYTES, Settings, load_settings
from quiz.core.store import Store


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, warm_data_dir: Path) -> None:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    monkeypatch.setenv("QUIZ_DATA_DIR", str(warm_data_dir))


# ---------------------------------------------------------------- settings files

def nested_tables(path: Path) -> None:
    path.write_text("x = " + "{a=" * 30_000 + "1" + "}" * 30_000 + "\n")


def nested_arrays(path: Path) -> None:
    path.write_text("x = " + "[" * 60_000 + "]" * 60_000 + "\n")


def deep_dotted_key(path: Path) -> None:
    path.write_text(".".join(["a"] * 60_000) + " = 1\n")


def a_fifo(path: Path) -> None:
    os.mkfifo(path)


def a_directory(path: Path) -> None:
    path.mkdir()


def link_to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def too_large(path: Path) -> None:
    path.write_text("# " + "x" * MAX_SETTINGS_BYTES + "\n")


def not_utf8(path: Path) -> None:
    path.write_bytes(b"theme = \"\xff\"\n")


SETTINGS: list[Callable[[Path], None]] = [nested_tables, nested_arrays, deep_dotted_key,
                                          a_fifo, a_directory, link_to_dev_zero, too_large,
                                          not_utf8]


@pytest.mark.parametrize("make", SETTINGS, ids=[m.__name__ for m in SETTINGS])
def test_a_hostile_settings_file_falls_back_to_defaults_with_a_warning(
    tmp_path: Path, make: Callable[[Path], None], capsys: pytest.CaptureFixture[str],
) -> None:
    """A deeply nested config.toml once crashed every command."""
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)  # the autouse fixture made it (a warm cache inside)
    make(data / "config.toml")
    with cpu_guard():
        settings, warnings = load_settings(data / "config.toml")
        assert settings == Settings()
        assert len(warnings) == 1 and str(data / "config.toml") in warnings[0]
        code, _, err = run_cli(capsys, "stats", "--json")
    assert code == 0 and "Traceback" not in err


def test_a_bom_keeps_the_settings(tmp_path: Path) -> None:
    """A UTF-8 BOM once dropped every setting."""
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbfnew_per_day = 3\n")
    settings, warnings = load_settings(path)
    assert settings.new_per_day == 3 and warnings == []


# ---------------------------------------------------------------- arguments

ONE_LINE_EXIT_2 = [
    ("mock", "--questions", "-1"),  # once an IntegrityError traceback
    ("mock", "--questions", "0"),
    ("mock", "--minutes", "-5"),
    ("mock", "--minutes", "٥"),
    ("practice", "--difficulty", "٣"),
    ("solve", "params", "--model", "llama3-8b", "--set", "layers=٨"),  # other digits
    ("solve", "params", "--model", "llama3-8b", "--set", "layers=8", "--set", "layers=4"),
    ("solve", "params", "--set", "=8"),
    ("ask", "memory/model-state#1234567890123"),  # 13 digits
    ("ask", "memory/model-state", "--seed", "1" * 30),
    ("ask", "memory/model-state", "--seed", "٨"),
    ("ask", "memory/model-state#٨"),
    ("ask", "memory/model-state#-1"),
    ("ask", "memory/model-state#1", "--seed", "2"),
    ("check", "memory/model-state", "--seed", "1", "--answer", "1", "--part", "0"),
    ("templates", "new", "memory/x\n"),
    ("templates", "new", "memory/x\x00y"),
    ("templates", "new", "../../etc/passwd"),
    ("templates", "preview", "memory/model-state", "--seed", "1" * 13),
    # the input paths added with learn mode, follow-through and the closing answer
    ("check", "memory/model-state", "--seed", "3", "--step", "0", "--answer", "16 B"),
    ("check", "memory/model-state", "--seed", "3", "--step", "-1", "--answer", "16 B"),
    ("check", "memory/model-state", "--seed", "3", "--step", "٢", "--answer", "16 B"),
    ("check", "memory/model-state", "--seed", "3", "--step", "99", "--answer", "16 B"),
    ("check", "memory/model-state", "--seed", "3", "--step", "9" * 40, "--answer", "16 B"),
    ("ask", "memory/model-state#3", "--steps", "--part", "9"),
    ("check", "scenario/lay-it-out", "--seed", "1", "--earlier", "__import__('os')",
     "--answer", "1"),
    ("check", "scenario/lay-it-out", "--seed", "1", "--part", "3", "--earlier",
     "1;" * 10_000, "--answer", "1"),
    ("mock", "--closing-minutes", "0"),
    ("mock", "--closing-minutes", "-3"),
    ("mock", "--closing-minutes", "٣"),
    ("mock", "--closing-minutes", "31"),
    ("learn", "../../etc/passwd", "--plain"),
    ("learn", "memory/model-state#٨", "--plain"),
    ("learn", "memory/model-state#-1", "--plain"),
    ("learn", "\x00", "--plain"),
    # template ids for `templates test` and the start of an id for practice and learn
    ("templates", "test", "memory/no-such\x00"),
    ("templates", "test", "__import__('os').system('true')"),
    ("templates", "test", "x" * 5_000),
    ("templates", "test", "-j", "0"),
    ("templates", "test", "-j", "9" * 400),
    ("templates", "test", "--workers", "__import__('os')"),
    ("practice", "memory/model-state/../../x"),
    ("learn", "memory/zz\u202e", "--plain"),
]


@pytest.mark.parametrize("argv", ONE_LINE_EXIT_2, ids=[" ".join(a)[:40] for a in
                                                       ONE_LINE_EXIT_2])
def test_a_bad_argument_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], tmp_path: Path,
) -> None:
    if argv[:2] == ("templates", "new"):
        argv = (*argv, "--dir", str(tmp_path / "new"))
    with cpu_guard():
        try:
            code, out, err = run_cli(capsys, *argv)
        except SystemExit as exc:  # argparse's usage errors exit from inside main()
            code, (out, err) = int(str(exc.code)), capsys.readouterr()
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("quiz: "), err
    assert not (tmp_path / "new").exists()


def test_the_largest_seed_works_in_both_forms(capsys: pytest.CaptureFixture[str]) -> None:
    seed = "9" * 12
    _, a, _ = run_cli(capsys, "ask", f"memory/model-state#{seed}", "--json")
    _, b, _ = run_cli(capsys, "ask", "memory/model-state", "--seed", seed, "--json")
    assert a == b and f'"seed": {seed}' in a


@pytest.mark.parametrize(("answer", "says"), [("1/0", "division by zero"),
                                              ("1 / 0 TB", "division by zero"),
                                              # a product or quotient of numbers reads
                                              # (issue 9); a sum is named as not allowed
                                              ("3/4 + 1 TB", "no sums")])
def test_a_division_as_a_number_says_what_is_wrong(
    capsys: pytest.CaptureFixture[str], answer: str, says: str,
) -> None:
    code, out, _ = run_cli(capsys, "check", "memory/model-state", "--seed", "1", "--answer",
                           answer)
    assert code == 0 and out.startswith("INVALID") and says in out.lower()


# ---------------------------------------------------------------- the clock

def test_cards_reviewed_while_the_clock_was_ahead_fall_due_by_the_corrected_clock(
    tmp_path: Path,
) -> None:
    """After the clock jumps forward and back, a card reviewed in the "future" once
    stayed out of the queue until that future came."""
    clock = Clock(T0 + timedelta(days=700))  # the clock jumps two years ahead
    with Store.open(tmp_path / "history.db", now=clock, tz=LOCAL) as store:
        drill = Drill(store, Settings(), scheduler=Scheduler(enable_fuzzing=False))
        due = drill.review("a", Rating.Easy, clock.value)
        interval = due - clock.value
        assert timedelta(days=1) < interval < timedelta(days=60)
        clock.value = T0  # ...and back: when that review happened is unknown
        assert drill.queue(["a"]) == ["a"]
        assert drill.counts_today(["a"])["due_now"] == 1
        again = drill.review("a", Rating.Good, clock.value)
        assert clock.value < again < clock.value + 2 * interval
        assert drill.queue(["a"]) == []
