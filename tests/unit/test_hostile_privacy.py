"""Everything under the data folder is private to the user (folders 0700, files 0600),
whichever command creates it first, and a folder an older quiz left readable is made
private again, but never a folder that is not quiz's alone.

Bug (issue 26): a data folder first created by `templates list`, `ask` or `check` was
0755 and stayed so; ``cache/`` was 0755 with 0644 files, and ``cache/variants.db``
holds which questions the user asked.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import cpu_guard, run_cli

from questions.private import private_file, private_folder
from quiz import locations
from quiz.core.settings import Settings, save_settings


@pytest.fixture(autouse=True)
def _usual_umask(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    monkeypatch.delenv("QUIZ_DATA_DIR", raising=False)
    old = os.umask(0o022)  # what most systems give a user: others may read
    yield
    os.umask(old)


def loose(root: Path) -> list[str]:
    """Paths under (and including) ``root`` that someone else could read or enter."""
    found = []
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        want = 0o700 if path.is_dir() else 0o600
        if mode & ~want:
            found.append(f"{oct(mode)} {path.relative_to(root.parent)}")
    return found


COMMANDS = [("templates", "list"), ("ask", "memory/model-state#3"),
            ("check", "memory/model-state", "--seed", "3", "--answer", "1 TB"),
            ("stats",), ("templates", "new", "memory/my-own-question"), ("history", "export")]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[:2]) for a in COMMANDS])
def test_the_first_command_creates_a_private_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...],
) -> None:
    data = tmp_path / "new" / "data"  # its parent is missing too
    with cpu_guard(60, 120):
        code, _, err = run_cli(capsys, "--data-dir", str(data), *argv)
    assert code == 0, err
    assert data.is_dir()
    assert loose(tmp_path / "new") == []


def test_saved_settings_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    save_settings(Settings(), locations.config_path(data), locations.settings_cache_path(data))
    assert loose(data) == []


def test_a_folder_an_older_quiz_left_readable_is_made_private(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    data = tmp_path / "data"
    (data / "cache").mkdir(parents=True, mode=0o755)
    data.chmod(0o755)
    (data / "cache").chmod(0o755)
    for name in ("variants.db", "bank.db"):
        (data / "cache" / name).touch(mode=0o644)
    with cpu_guard(60, 120):
        code, _, err = run_cli(capsys, "--data-dir", str(data), "ask", "memory/model-state#1")
    assert code == 0, err
    assert loose(data) == []


def test_a_shared_or_foreign_folder_is_never_tightened(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # as /tmp: a data folder there must not lock others out
    (shared / "cache").mkdir()
    locations.claim(shared)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    plain = tmp_path / "plain"  # not quiz's: nothing of quiz's in it
    plain.mkdir(mode=0o755)
    plain.chmod(0o755)
    locations.claim(plain)
    assert stat.S_IMODE(plain.stat().st_mode) == 0o755


def test_private_helpers_make_every_missing_level_private(tmp_path: Path) -> None:
    private_folder(tmp_path / "a" / "b" / "c")
    private_file(tmp_path / "x" / "y.db")
    assert loose(tmp_path / "a") == [] and loose(tmp_path / "x") == []
