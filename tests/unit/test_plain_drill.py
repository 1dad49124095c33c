"""`quiz drill --plain`: the commands it promises and the worked solution after answers."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from helpers import run_cli

from quiz import locations


def _drill(tmp_path: Path, capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch, typed: str) -> str:
    data = tmp_path / "data"
    data.mkdir()
    locations.config_path(data).write_text("new_per_day = 2\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code, out, err = run_cli(capsys, "--data-dir", str(data), "drill", "--plain")
    assert code == 0, err
    return out


def _labels(out: str) -> list[str]:
    return re.findall(r"^\[([\w/.-]+#\d+)\]", out, re.MULTILINE)


def test_skip_puts_the_question_after_the_rest_and_costs_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = _drill(tmp_path, capsys, monkeypatch, ":skip\n:skip\n:quit\n")
    first, second, again = _labels(out)
    assert first != second
    assert again.split("#")[0] == first.split("#")[0]  # the skipped template is back
    assert out.count("Skipped: it comes back after the rest.") == 2
    assert "Worked solution:" not in out  # nothing was answered
    assert out.rstrip().endswith("Stopped. 0 answered.")


def test_hint_unknown_commands_and_the_list_of_commands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = _drill(tmp_path, capsys, monkeypatch, ":help\n:hint\n")
    for command in (":hint", ":skip", ":quit"):
        assert f"  {command}  " in out  # listed at the start
    assert "Unknown command :help; type :hint, :skip, :quit or an answer." in out
    assert "(costs" in out or "No more hints." in out  # the hint, with what it costs
    assert len(_labels(out)) == 1  # end of input stops on the same question
    assert out.rstrip().endswith("Stopped. 0 answered.")


def test_an_answer_is_followed_by_its_verdict_and_worked_solution(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = _drill(tmp_path, capsys, monkeypatch, "1 TB\n:quit\n")
    assert _labels(out)[0].startswith("memory/model-state#")  # day one starts there
    verdict = re.search(r"\b(CORRECT|PARTIAL|INCORRECT) \(score", out)
    assert verdict is not None
    solution = out.split("Worked solution:\n", 1)[1]
    assert "model_state_bytes" in solution and "Answer:" in solution
    assert out.rstrip().endswith("Stopped. 1 answered.")
