"""`quiz templates validate` on a corpus of broken templates: every problem is reported as
`FILE:LINE: FIELD: reason` on the line it comes from, and the exit code is 1.

Each file in `broken/` starts with one or more `# expect: LINE: FIELD: fragment` lines: the
validator must print a line starting `FILE:LINE: FIELD: ` whose reason holds the fragment.
A `# warn: LINE: FIELD: fragment` line expects a warning there instead (`FILE:LINE:
FIELD: warning: ...`): it is printed, but a file with warnings alone validates (exit 0).
To add a case, add a file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from questions.loader import MAX_BYTES
from questions.scaffold import scaffold
from quiz.cli import main

BROKEN = Path(__file__).parent / "broken"
CASES = sorted(BROKEN.glob("*.toml"))
EXPECT = re.compile(r"^# expect: (\d+): (\S+): (.+)$", re.MULTILINE)
WARN = re.compile(r"^# warn: (\d+): (\S+): (.+)$", re.MULTILINE)


@pytest.fixture(autouse=True)
def _no_user_templates(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    monkeypatch.setenv("QUIZ_DATA_DIR", str(tmp_path / "data"))


def validate(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[str]]:
    code = main(["templates", "validate", *map(str, paths)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out.splitlines()


def assert_reported(lines: list[str], path: Path, line: int, field: str, fragment: str) -> None:
    prefix = f"{path}:{line}: {field}: "
    hits = [x for x in lines if x.startswith(prefix)]
    assert hits, f"no line starts with {prefix!r}; got:\n" + "\n".join(lines)
    assert any(fragment in x for x in hits), f"{fragment!r} not in {hits}"


def test_the_corpus_covers_at_least_fifteen_kinds_of_breakage() -> None:
    assert len(CASES) >= 15
    assert all(EXPECT.search(p.read_text(encoding="utf-8"))
               or WARN.search(p.read_text(encoding="utf-8")) for p in CASES)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_broken_template_is_reported_on_its_line(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    code, lines = validate(capsys, path)
    text = path.read_text(encoding="utf-8")
    assert code == (1 if EXPECT.search(text) else 0), lines
    for line, field, fragment in EXPECT.findall(text):
        assert_reported(lines, path, int(line), field, fragment)
    for line, field, fragment in WARN.findall(text):
        assert_reported(lines, path, int(line), field, "warning: ")
        assert_reported(lines, path, int(line), field, fragment)


def test_every_output_line_of_a_broken_file_is_located(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, lines = validate(capsys, *CASES)
    located = re.compile(r"^.+\.toml:\d+: \S+: .+$")
    problems = [x for x in lines if not x.endswith("with problems") and ": ok (" not in x]
    assert problems and all(located.match(x) for x in problems), problems


def test_a_two_megabyte_file_is_refused_before_it_is_parsed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    big = tmp_path / "big.toml"
    body = scaffold("memory/big")
    big.write_text(body + "# padding\n" * (2 * 1024 * 1024 // 10), encoding="utf-8")
    assert big.stat().st_size > 2 * 1024 * 1024 > MAX_BYTES
    code, lines = validate(capsys, big)
    assert code == 1
    assert_reported(lines, big, 1, "(file)", "over the 256 KB limit")


def test_a_file_that_is_not_utf8_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('title = "caf\u00e9"\n'.encode("latin-1"))
    code, lines = validate(capsys, bad)
    assert code == 1
    assert_reported(lines, bad, 1, "(file)", "not UTF-8")


def test_a_missing_file_is_reported_not_raised(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, lines = validate(capsys, tmp_path / "nowhere.toml")
    assert code == 1
    assert_reported(lines, tmp_path / "nowhere.toml", 1, "(file)", "cannot read")


def test_hostile_templates_run_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def system(command: str) -> int:
        calls.append(command)
        return 0

    monkeypatch.setattr(os, "system", system)
    code, _ = validate(capsys, BROKEN / "hostile_formula.toml",
                       BROKEN / "hostile_expression.toml")
    assert code == 1 and calls == []


def test_a_folder_is_validated_file_by_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = tmp_path / "memory" / "good.toml"
    good.parent.mkdir()
    good.write_text(scaffold("memory/good"), encoding="utf-8")
    (tmp_path / "memory" / "typo.toml").write_text(
        (BROKEN / "misspelled_quantity.toml").read_text(encoding="utf-8"), encoding="utf-8")
    code, lines = validate(capsys, tmp_path)
    assert code == 1
    assert f"{good}: ok (memory/good, 5 seeds, 28 checks)" in lines
    assert any("typo.toml:15: answer.quantity:" in x for x in lines)
    assert lines[-1] == "2 files, 1 with problems"
