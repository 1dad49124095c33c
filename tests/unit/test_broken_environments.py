"""A broken environment is one clear line, never a traceback (issue 10).

Each case breaks the data folder a different way: a regular file where the folder
should be, a folder under a file, a folder nobody may write (``/proc/self``), a path in
``/proc`` that cannot be created, a history file that cannot be opened, a settings file
that cannot be read. Every command then either works (it does not need what is broken)
or prints exactly one line, ``quiz: ...``, and exits 2.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_cli

Setup = Callable[[Path], Path]


def _file(tmp: Path) -> Path:
    (tmp / "plain-file").write_text("not a folder\n")
    return tmp / "plain-file"


def _under_a_file(tmp: Path) -> Path:
    return _file(tmp) / "data"


def _history_is_a_folder(tmp: Path) -> Path:
    (tmp / "data" / "history.db").mkdir(parents=True)
    return tmp / "data"


def _read_only_history(tmp: Path) -> Path:
    from quiz.core.store import Store

    folder = tmp / "data"
    Store.open(folder / "history.db").close()
    for name in os.listdir(folder):
        (folder / name).chmod(0o444)
    folder.chmod(0o555)
    return folder


BROKEN_DATA: dict[str, Setup] = {
    "a regular file": _file,
    "a folder under a file": _under_a_file,
    "a folder nobody may write": lambda tmp: Path("/proc/self"),
    "a missing folder in /proc": lambda tmp: Path("/proc/quiz-no-such-folder"),
    "a history that is a folder": _history_is_a_folder,
}
if os.geteuid() != 0:  # root may write anyway: these only mean something for a user
    BROKEN_DATA["a read-only history"] = _read_only_history

NEEDS_HISTORY = [["stats"], ["stats", "--json"], ["history", "export"],
                 ["drill", "--plain"]]
"""Commands that cannot work without the history."""

NEEDS_NOTHING = [["solve", "params", "--model", "llama3-70b"],
                 ["ask", "memory/model-state#1"],
                 ["check", "memory/model-state#1", "--answer", "1 TB"],
                 ["templates", "list"]]
"""Commands that read the data folder only for optional user templates."""


def _one_line(err: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quiz: "), err


@pytest.mark.parametrize("case", sorted(BROKEN_DATA))
def test_a_broken_data_folder_is_one_line_and_exit_2(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = BROKEN_DATA[case](tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # drill --plain reads answers
    for argv in NEEDS_HISTORY:
        code, _, err = run_cli(capsys, "--data-dir", str(folder), *argv)
        assert code == 2, (argv, err)
        _one_line(err)
    monkeypatch.setenv("QUIZ_DATA_DIR", str(folder))  # the environment variable too
    code, _, err = run_cli(capsys, "stats")
    assert code == 2
    _one_line(err)


@pytest.mark.parametrize("case", ["a regular file", "a missing folder in /proc"])
def test_commands_that_do_not_need_the_data_folder_still_work(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = BROKEN_DATA[case](tmp_path)
    for argv in NEEDS_NOTHING:
        code, out, err = run_cli(capsys, "--data-dir", str(folder), *argv)
        assert code == 0 and out.strip(), (argv, err)
        assert "Traceback" not in err


def test_writing_a_template_into_a_broken_data_folder_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "--data-dir", str(_under_a_file(tmp_path)),
                           "templates", "new", "memory/my-question")
    assert code == 2
    _one_line(err)


def test_an_unreadable_settings_file_is_one_warning_and_the_defaults(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Settings fall back to their defaults by design: a typo in config.toml must not
    # lock anyone out of their history. The warning is one line, naming the file.
    folder = tmp_path / "data"
    (folder / "config.toml").mkdir(parents=True)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run_cli(capsys, "--data-dir", str(folder), "drill", "--plain")
    assert code == 0 and "Stopped" in out
    assert "Traceback" not in err
    warnings = [line for line in err.splitlines() if "config.toml" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: ")


def test_a_bug_is_one_line_naming_a_full_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression: a ValueError from a bug was shown as if it were the user's mistake.
    def broken(args: object) -> int:
        raise ValueError("a bug, not the user's fault")

    monkeypatch.setattr("quiz.commands.stats.run", broken)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    code, _, err = run_cli(capsys, "--data-dir", str(tmp_path / "data"), "stats")
    assert code == 1
    _one_line(err)
    assert "internal error" in err and "bug" in err
    reports = list(tmp_path.glob("quiz-crash-*.txt"))
    assert len(reports) == 1 and "Traceback" in reports[0].read_text()
    assert str(reports[0]) in err
