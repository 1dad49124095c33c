"""`quiz solve` as other programs call it: the JSON contract and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from quiz.cli import main

run = run_cli


def test_json_follows_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "model_state_bytes", "--model", "llama3-70b", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"quantity", "value", "unit", "display", "formula", "inputs", "steps"} <= set(data)
    assert data["unit"] == "B" and data["display"] == "1.13 TB"
    assert data["inputs"]["params"] == pytest.approx(70.55e9, rel=1e-3)
    assert all({"text", "formula", "value"} <= set(s) for s in data["steps"])


def test_human_output_shows_formula_substitution_and_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "solve", "tp_bytes", "--model", "llama3-70b", "--set", "tp=8")
    assert code == 0
    assert "tp_bytes = " in out and "75.2 GB" in out and "Answer: tp_bytes = " in out


def test_list_names_every_contract_quantity(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--list", "--json")
    names = {row["quantity"] for row in json.loads(out)}
    contract = {"params", "model_state_bytes", "activation_bytes_layer", "activation_bytes",
                "memory_per_gpu", "zero_bytes_per_gpu", "min_gpus_memory", "train_flops",
                "train_time", "compute_time_microbatch", "dp_allreduce_bytes", "fsdp_bytes",
                "tp_bytes", "pp_p2p_bytes", "pp_bubble", "cp_bytes", "ep_alltoall_bytes",
                "kv_cache_bytes", "comm_time", "mfu"}
    assert code == 0 and contract <= names


@pytest.mark.parametrize("value", ["70.5e9", "70.5B", "70500M", "70.5 billion"])
def test_set_accepts_counts_as_people_write_them(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code, out, _ = run(capsys, "solve", "model_state_bytes", "--set", f"params={value}",
                       "--json")
    assert code == 0 and json.loads(out)["value"] == pytest.approx(16 * 70.5e9)


def test_unused_key_is_accepted_and_ignored(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "train_flops", "--model", "llama3-8b",
                       "--set", "tp=2", "--json")
    assert code == 0 and "tp" not in json.loads(out)["leaves"]


BAD = [
    (["solve", "model_state_byte"], "did you mean model_state_bytes"),
    (["solve", "params", "--model", "llama4"], "unknown model"),
    (["solve", "params", "--gpu", "h1000"], "unknown gpu"),
    (["solve", "params", "--set", "hiden=8192"], "did you mean hidden"),
    (["solve", "params", "--model", "llama3-8b", "--set", "layers=-4"], "greater than 0"),
    (["solve", "params", "--model", "llama3-8b", "--set", "layers=0"], "greater than 0"),
    (["solve", "params", "--model", "llama3-8b", "--set", "layers=nan"], "needs a number"),
    (["solve", "params", "--model", "llama3-8b", "--set", "hidden=1e400"], "too large"),
    (["solve", "params", "--model", "llama3-8b", "--set", "layers=many"], "needs a number"),
    (["solve", "params", "--model", "llama3-8b", "--set", "layers=3.5"], "whole number"),
    (["solve", "params", "--set", "tied_embeddings=maybe"], "true or false"),
    (["solve", "params", "--set", "mlp=relu"], "one of swiglu, gelu"),
    (["solve", "params", "--set", "tp"], "KEY=VALUE"),
    (["solve", "tp_bytes", "--model", "llama3-70b", "--set", "tp=3"], "not divisible by tp"),
    (["solve", "params", "--model", "llama3-70b", "--set", "pp=3"], "not divisible by pp"),
    (["solve", "memory_per_gpu", "--model", "llama3-70b", "--set", "gpus=512",
      "--set", "dp=8", "--set", "tp=8"], "but gpus = 512"),
    (["solve", "train_flops", "--model", "mixtral-8x7b"], "needs tokens"),
    (["solve", "mfu", "--gpu", "h100", "--set", "mfu=1.5"], "at most 1"),
    (["solve"], "needs a QUANTITY"),
    (["solve", "params", "--frobnicate"], "unrecognized arguments"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_on_stderr_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_odd_layout_warns_but_answers(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "tp_bytes", "--model", "llama3-70b", "--set",
                         "tp=16", "--json")
    assert code == 0 and "larger than a node" in err


def test_real_process_prints_no_traceback() -> None:
    proc = subprocess.run([sys.executable, "-m", "quiz.cli", "solve", "params", "--set",
                           "layers=-1"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("typed", "value"), [("70.5bn", 70.5e9), ("70,500,000,000", 70.5e9),
                                              ("2^36", 2.0**36), ("70.5 billion", 70.5e9)])
def test_set_reads_numbers_as_answers_are_read(
        capsys: pytest.CaptureFixture[str], typed: str, value: float) -> None:
    # Regression: --set had a number parser of its own that refused what answers accept.
    code, out, _ = run(capsys, "solve", "model_state_bytes", "--set", f"params={typed}",
                       "--json")
    assert code == 0 and json.loads(out)["value"] == pytest.approx(16 * value)


def test_keys_lists_every_key_with_unit_default_and_meaning(
        capsys: pytest.CaptureFixture[str]) -> None:
    from solver.keys import KEYS

    code, out, _ = run(capsys, "solve", "--keys")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["key", "group", "unit", "default", "meaning"]
    hbm = next(x for x in lines if x.startswith("hbm_bw "))
    assert "B/s" in hbm and "3.35e+12" in hbm and "HBM bandwidth" in hbm
    code, out, _ = run(capsys, "solve", "--keys", "--json")
    assert {r["key"] for r in json.loads(out)} == set(KEYS)


def test_presets_lists_models_and_gpus_with_short_names(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--presets")
    assert code == 0
    b200 = next(x for x in out.splitlines() if x.startswith("b200 "))
    assert b200.split()[:3] == ["b200", "gpu", "B200"] and "NVIDIA B200" in b200
    assert any(x.startswith("llama3-70b ") for x in out.splitlines())


SOLVES = [["solve", "memory_per_gpu", "--model", "llama3-70b", "--gpu", "h100", "--set",
           "tp=8", "--set", "zero=3", "--json"],
          ["solve", "tp_bytes", "--model", "llama3-70b", "--set", "tp=8"],
          ["solve", "model_state_bytes", "--model", "llama3-8b", "--json"]]


def test_a_solve_runs_from_the_kept_plans_and_prints_what_the_engine_derives(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The data folder keeps the plans a solve derived (a draw's plans are completed
    with the expanded formula): the same command again imports no sympy."""
    from test_stored_variants import fresh_process

    data = str(tmp_path / "data")
    engine = str(tmp_path / "engine")
    assert run(capsys, "--data-dir", data, "ask", "memory/model-state#1")[0] == 0
    want = ""
    for call in SOLVES:
        code, out, _ = run(capsys, "--data-dir", engine, *call)
        assert code == 0
        want += out
    assert fresh_process(data, SOLVES)[0] == want  # derived (some plans from the draw)
    assert fresh_process(data, SOLVES) == (want, set())


@pytest.mark.parametrize("quantity", ["dropped_tokens", "expert_capacity", "padded_slots"])
def test_a_quantity_that_divides_by_a_zero_input_is_one_line_not_a_crash(
        quantity: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Expert quantities of a dense model (experts = 0) divided by zero: an internal
    error with a crash report; now one line naming the quantity, exit 2."""
    code = main(["--data-dir", str(tmp_path), "solve", quantity])
    err = capsys.readouterr().err
    assert code == 2 and quantity in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1
    assert main(["--data-dir", str(tmp_path), "solve", quantity,
                 "--model", "mixtral-8x7b"]) == 0


def test_a_formula_without_a_value_is_named_where_it_runs() -> None:
    """The plan's run names the step and the inputs that are 0; the error is a
    SolverError (one line at the command line) and an ArithmeticError (a drawn value out
    of range, for the template checks)."""
    from solver import light
    from solver.errors import SolverError, Undefined

    with pytest.raises(Undefined, match=r"divides by .*experts.* = 0") as caught:
        light.result("expert_capacity")
    assert isinstance(caught.value, SolverError) and isinstance(caught.value, ArithmeticError)
