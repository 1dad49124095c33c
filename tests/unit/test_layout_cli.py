"""`quiz layout` as people and scripts call it: the JSON contract, breakdowns, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

SEED = ["layout", "--model", "llama3-70b", "--gpu", "h100", "--set", "gpus=512",
        "--set", "seq=8192", "--set", "global_batch=1024"]
L_KEYS = {"tp", "pp", "cp", "ep", "dp", "zero", "interleave", "micro_batch", "recompute",
          "fits", "memory_per_gpu", "memory", "step_time", "time", "mfu", "hfu",
          "tokens_per_s_per_gpu"}


def test_json_follows_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, *SEED, "--top", "3", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"layout", "best", "rank", "ratio_to_best", "candidates"} <= set(data)
    assert data["layout"] is None and data["rank"] is None and data["ratio_to_best"] is None
    assert len(data["candidates"]) == 3
    for lay in [data["best"], *data["candidates"]]:
        assert set(lay) >= L_KEYS
        assert lay["memory_per_gpu"] == pytest.approx(sum(lay["memory"].values()))
        assert lay["step_time"] == pytest.approx(sum(lay["time"].values()))
    assert data["best"]["tp"] == 8 and data["best"]["dp"] == 64


def test_a_given_layout_is_ranked_against_the_best(capsys: pytest.CaptureFixture[str]
                                                   ) -> None:
    code, out, _ = run_cli(capsys, *SEED, "--set", "tp=16", "--json")
    data = json.loads(out)
    assert code == 0 and data["layout"]["tp"] == 16
    assert data["rank"] > 1
    assert data["ratio_to_best"] == pytest.approx(
        data["best"]["step_time"] / data["layout"]["step_time"])
    assert data["ratio_to_best"] < 0.5


def test_human_output_names_what_costs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, *SEED, "--set", "tp=16")
    assert code == 0
    assert "TP 16 crosses nodes" in out and "Recommended layout:" in out and "memory:" in out


def test_a_layout_that_does_not_fit_says_by_how_much(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, out, _ = run_cli(capsys, *SEED, "--set", "tp=1", "--set", "pp=1",
                           "--set", "cp=1", "--set", "zero=0", "--set", "recompute=none")
    assert code == 0 and "It does not fit" in out and "over" in out


def test_fix_constrains_the_search(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, *SEED, "--fix", "recompute=full", "--json")
    data = json.loads(out)
    assert code == 0
    assert all(c["recompute"] == "full" for c in data["candidates"])


@pytest.mark.parametrize("extra, words", [
    (["--set", "tp=3"], "does not divide"),
    (["--fix", "recompute=maybe"], "recompute is"),
    (["--set", "tp=eight"], "whole number"),
    (["--set", "bogus=1"], "unknown key"),
    (["--fix", "unknown=1"], "no layout key is named"),
    (["--fix", "gpus=8"], "gpus is no layout key"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                          extra: list[str], words: str) -> None:
    code, out, err = run_cli(capsys, *SEED, *extra)
    assert code == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1


def test_missing_inputs_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "layout", "--model", "llama3-70b", "--gpu", "h100")
    assert code == 2 and "global_batch" in err


def test_nothing_fits_is_an_error_naming_the_closest(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, out, err = run_cli(capsys, "layout", "--model", "llama3-70b", "--gpu", "h100",
                             "--set", "gpus=8", "--set", "global_batch=8")
    assert code == 2 and out == "" and "nothing fits" in err and "closest is" in err


def test_one_scale_for_rank_ratio_and_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, *SEED, "--set", "tp=8", "--set", "zero=3", "--json")
    assert code == 0
    data = json.loads(out)
    times = [c["step_time"] for c in data["candidates"]]
    assert times == sorted(times)
    faster = sum(1 for c in data["candidates"] if c["step_time"] < data["layout"]["step_time"]
                 and c["key"] != data["layout"]["key"])
    assert data["rank"] == 1 + faster
    assert data["ratio_to_best"] == pytest.approx(
        data["best"]["step_time"] / data["layout"]["step_time"])
    # Keys not given are named: the axes left out are not used.
    assert data["layout"]["pp"] == data["layout"]["cp"] == 1
    assert "pp=1 cp=1 ep=1" in data["filled_in"]


def test_filled_in_keys_are_named_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, *SEED, "--set", "tp=8", "--set", "zero=3")
    assert code == 0
    filled = [line for line in out.splitlines() if "Filled in:" in line]
    assert len(filled) == 1 and "mb=" in filled[0]
    assert "ranks" in out and "by step time" in out


@pytest.mark.parametrize("text", ["TP8 x FSDP64", "tp=8 fsdp=64", "TP=8, ZeRO-3",
                                  "8-way tensor parallel, FSDP across nodes"])
def test_layout_answers_complete_as_quiz_layout_does(text: str) -> None:
    from questions.layout import read_layout
    from solver.engine import resolve_inputs
    from solver.layouts import complete
    from solver.perf import workload_from_inputs

    lay = read_layout(text)
    assert (lay.tp, lay.zero) == (8, 3)
    w = workload_from_inputs(resolve_inputs("llama3-70b", "h100", {
        "gpus": 512, "seq": 8192, "global_batch": 1024, "microbatches": 1}))
    e = complete(w, lay.given())
    assert (e.layout.tp, e.layout.pp, e.layout.cp, e.layout.dp) == (8, 1, 1, 64)


def test_the_recommended_layout_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "layout", "--model", "llama3-405b", "--gpu", "h100",
                           "--set", "gpus=16384", "--set", "global_batch=2048", "--top", "3")
    assert code == 0
    assert "PP 16 splits the 126 layers" in out and "TP 8 stays inside a node" in out
    assert "7 layers on the first" in out


def test_a_layout_runs_its_quantities_from_the_kept_plans(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's seed case: the second run in a data folder imports no sympy."""
    from test_stored_variants import fresh_process

    call = ["layout", "--model", "llama3-70b", "--gpu", "h100", "--set", "gpus=512",
            "--set", "seq=8192", "--set", "global_batch=1024", "--json"]
    code, want, _ = run_cli(capsys, "--data-dir", str(tmp_path / "other"), *call)
    assert code == 0
    data = str(tmp_path / "data")
    assert fresh_process(data, [call])[0] == want
    assert fresh_process(data, [call]) == (want, set())
