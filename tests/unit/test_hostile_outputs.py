"""Hostile output paths (``--out``) of every command that writes a file the user names:
only a regular file or a new path is replaced, anything else is one line and exit 2 with
the thing at the path untouched, and a write that fails leaves no half file behind.

Bug (issue 26): `quiz history export --out X` and `quiz export anki --out X` renamed a
temporary file over X whatever X was, so `--out /dev/null` run as root destroyed the
device node; `--out ''` crashed; a deck that could not be written was a traceback.
"""

from __future__ import annotations

import errno
import io
import os
import resource
import socket
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import cpu_guard, run_cli

from quiz.core.store import Store

ROOT = os.geteuid() == 0
ONE_TEMPLATE = ("--template", "memory/model-state", "--variants", "1")


@pytest.fixture
def data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    folder = tmp_path / "data"
    monkeypatch.setenv("QUIZ_DATA_DIR", str(folder))
    return folder


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with cpu_guard(30, 120):
        try:
            return run_cli(capsys, *argv)
        except SystemExit as exc:  # a usage error, raised by argparse
            out, err = capsys.readouterr()
            return int(str(exc.code)), out, err


def one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = cli(capsys, *argv)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("quiz: "), err
    assert "internal error" not in err and "Traceback" not in err
    return err


def a_char_device(path: Path) -> None:
    if not ROOT:
        pytest.skip("making a device file needs root")
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is


def a_fifo(path: Path) -> None:
    os.mkfifo(path)


def a_folder(path: Path) -> None:
    path.mkdir()


def a_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))


def a_link_to_a_fifo(path: Path) -> None:
    os.mkfifo(path.with_name("fifo"))
    path.symlink_to("fifo")


NOT_FILES: list[Callable[[Path], None]] = [a_char_device, a_fifo, a_folder, a_socket,
                                           a_link_to_a_fifo]
COMMANDS = {"history": ("history", "export", "--out"),
            "anki": ("export", "anki", *ONE_TEMPLATE, "--out")}


def kind_of(path: Path) -> tuple[int, int]:
    st = path.lstat()
    return st.st_mode, st.st_rdev


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("make", NOT_FILES, ids=[m.__name__ for m in NOT_FILES])
def test_an_output_that_is_no_regular_file_is_refused_and_left_as_it_was(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], None], command: str,
) -> None:
    target = tmp_path / "out"
    make(target)
    before = kind_of(target)
    err = one_line_exit_2(capsys, *COMMANDS[command], str(target))
    assert (str(target) in err and "regular file" in err) or "is a folder" in err
    assert kind_of(target) == before
    assert sorted(p.name for p in tmp_path.iterdir() if "partial" in p.name) == []


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_output_name_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str], command: str, value: str,
) -> None:
    err = one_line_exit_2(capsys, *COMMANDS[command], value)
    assert "needs a file name" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_in_a_missing_folder_is_one_line(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
) -> None:
    err = one_line_exit_2(capsys, *COMMANDS[command], str(tmp_path / "nowhere" / "x"))
    assert "no such folder" in err


def test_a_regular_file_is_replaced_whole_keeping_its_mode_and_a_link_is_followed(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "history.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    code, _, err = cli(capsys, "history", "export", "--out", str(link))
    assert code == 0, err
    assert link.is_symlink() and target.read_text().startswith("{")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []


def test_dash_is_standard_output_for_both_exports(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, _ = cli(capsys, "history", "export", "--out", "-")
    assert code == 0 and out.startswith("{") and not (Path.cwd() / "-").exists()
    raw = io.BytesIO()
    # Held by name: a wrapper nobody refers to may be collected at any moment, and
    # collecting it closes `raw` (seen once in a loaded full run).
    stdout = io.TextIOWrapper(raw)
    monkeypatch.setattr(sys, "stdout", stdout)
    code, _, err = cli(capsys, "export", "anki", *ONE_TEMPLATE, "--out", "-")
    stdout.flush()
    deck = raw.getvalue()
    monkeypatch.undo()
    assert code == 0, err
    assert deck[:2] == b"PK"  # a zip: the deck itself


@pytest.mark.parametrize("fault", [OSError(errno.ENOSPC, "No space left on device"),
                                   OSError(errno.EFBIG, "File too large"),
                                   sqlite3.OperationalError("database or disk is full")],
                         ids=["disk-full", "file-size-limit", "sqlite-full"])
def test_a_deck_that_cannot_be_written_is_one_line_and_leaves_nothing(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, fault: Exception,
) -> None:
    import genanki

    def fail(self: object, path: str) -> None:
        Path(path).write_bytes(b"PK half")
        raise fault

    monkeypatch.setattr(genanki.Package, "write_to_file", fail)
    target = tmp_path / "deck.apkg"
    target.write_bytes(b"the previous deck")
    err = one_line_exit_2(capsys, "export", "anki", *ONE_TEMPLATE, "--out", str(target))
    assert "cannot write" in err
    assert target.read_bytes() == b"the previous deck"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "deck.apkg"]


def test_a_history_export_that_cannot_be_written_is_one_line_and_leaves_nothing(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quiz.core.store import writer

    Store.open(data / "history.db").close()

    def full(store: object, fmt: str, handle: io.TextIOBase) -> int:
        handle.write("{")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer, "write_history", full)
    target = tmp_path / "h.json"
    err = one_line_exit_2(capsys, "history", "export", "--out", str(target))
    assert "No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_a_file_size_limit_during_the_deck_export_is_one_line_exit_2(tmp_path: Path) -> None:
    """The real thing: `ulimit -f` in a child process (Python ignores SIGXFSZ, so the
    write fails with EFBIG instead of killing the process)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))

    target = tmp_path / "deck.apkg"
    done = subprocess.run(
        [sys.executable, "-m", "quiz.cli", "--data-dir", str(tmp_path / "data"), "export",
         "anki", *ONE_TEMPLATE, "--out", str(target)],
        capture_output=True, text=True, preexec_fn=limit, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "cannot write" in done.stderr
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []
