"""Command-line arguments that were taken silently (issue 26): each is one line and
exit 2 now, naming what to give instead, and the reading that stays is checked too."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import cpu_guard, run_cli


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    monkeypatch.setenv("QUIZ_DATA_DIR", str(tmp_path / "data"))


def one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with cpu_guard(30, 60):
        try:
            code, out, err = run_cli(capsys, *argv)
        except SystemExit as exc:
            code, (out, err) = int(str(exc.code)), capsys.readouterr()
    assert code == 2, (out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("quiz: "), err
    return err


LAYOUT = ("layout", "--model", "llama3-8b", "--gpu", "h100", "--set", "gpus=8",
          "--set", "global_batch=64", "--top", "1")


@pytest.mark.parametrize(("fix", "says"), [
    ("unknown=1", "no layout key is named 'unknown'"),
    ("gpus=8", "--set gpus=8"),
    ("seq=4096", "--set seq=4096"),
    ("tokens_per_batch=1M", "--set tokens_per_batch=1M"),
])
def test_layout_fix_takes_layout_keys_only(
    capsys: pytest.CaptureFixture[str], fix: str, says: str,
) -> None:
    err = one_line_exit_2(capsys, *LAYOUT, "--fix", fix)
    assert says in err and "--fix takes" in err


def test_layout_fix_of_a_layout_key_still_constrains_the_search(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with cpu_guard(60, 120):
        code, out, err = run_cli(capsys, *LAYOUT, "--fix", "tp=2", "--json")
    assert code == 0, err
    assert '"tp": 2' in out


@pytest.mark.parametrize("value", ["1_000", "\u0668", "9" * 30, "-1", "2.0"])
@pytest.mark.parametrize("flag", ["--fix", "--set"])
def test_a_layout_key_takes_ascii_digits_within_a_bound(
    capsys: pytest.CaptureFixture[str], flag: str, value: str,
) -> None:
    err = one_line_exit_2(capsys, *LAYOUT, flag, f"tp={value}")
    assert "tp takes a whole number from 1 to 1,000,000" in err


@pytest.mark.parametrize("top", ["0", "-1", "1_000", "99999999999"])
def test_layout_top_is_a_bounded_whole_number(
    capsys: pytest.CaptureFixture[str], top: str,
) -> None:
    err = one_line_exit_2(capsys, *LAYOUT[:-2], "--top", top)
    assert "--top" in err


@pytest.mark.parametrize("extra", [("--part", "2"), ("--part", "1"),
                                   ("--earlier", "1 TB")])
def test_a_step_is_not_given_with_a_part_or_earlier_answers(
    capsys: pytest.CaptureFixture[str], extra: tuple[str, str],
) -> None:
    err = one_line_exit_2(capsys, "check", "memory/model-state", "--seed", "1", "--step",
                          "1", "--answer", "16", *extra)
    assert "--step" in err and extra[0] in err


@pytest.mark.parametrize("command", [("solve", "params"), LAYOUT])
def test_active_experts_on_a_dense_model_are_refused(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...],
) -> None:
    model = () if "--model" in command else ("--model", "llama3-8b")
    err = one_line_exit_2(capsys, *command, *model, "--set", "experts_active=99")
    assert "experts_active" in err and "dense" in err


def test_one_active_expert_on_a_dense_model_reads_as_the_dense_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(capsys, "solve", "params", "--model", "llama3-8b", "--set",
                             "experts_active=1", "--json")
    plain = run_cli(capsys, "solve", "params", "--model", "llama3-8b", "--json")[1]
    assert code == 0, err
    assert out.split('"value"')[1][:30] == plain.split('"value"')[1][:30]
