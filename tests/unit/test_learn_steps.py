"""Learn mode's steps: every template of the bank walks through, step by step, to its key.

The acceptance test of issue 16: over the whole bank and 20 seeds (5 locally), every template (every
part of a scenario) yields at least one askable step; each step's key, typed back,
grades correct with the same reader and grader as the question; the last step of a
number part is the part's key; and no step asks a value already asked in the walk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import bundled_bank, per_profile, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from questions.loader import load_template
from questions.steps import LearnStep, step_phrase, walk
from questions.variants import make_variant
from quiz.core.grading import grade
from solver.units import format_value

BANK = bundled_bank()
SEEDS = per_profile(1, 20)
"""Seeds per template (a whole-bank sweep): one locally, the acceptance sweep's 20
under QUIZ_FUZZ=full (CI)."""


def _check_part(steps: tuple[LearnStep, ...], pv: object) -> list[str]:
    from questions.variants import PartVariant

    assert isinstance(pv, PartVariant)
    where = f"part {pv.index}"
    if not steps:
        return [f"{where}: no askable step"]
    out = []
    last = steps[-1]
    if pv.kind == "number":
        assert pv.key.value is not None
        if not (last.final and last.pv is pv and last.key.value == pv.key.value):
            out.append(f"{where}: the last step ({last.quantity}) is not the part's key")
    elif pv.kind in ("choice", "multi") and steps[0].quantity.startswith("option:"):
        yes = {s.quantity.removeprefix("option:") for s in steps if s.key.display == "yes"}
        if yes != set(pv.key.correct):
            out.append(f"{where}: the options answered yes {sorted(yes)} are not the key")
    elif pv.kind == "table":
        cells = {s.quantity.removeprefix("row:"): s.key.cells[s.quantity[4:]] for s in steps}
        if cells != pv.key.cells:
            out.append(f"{where}: the rows' steps are not the table's key")
    return out


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_every_template_walks_through_to_its_key(template_id: str) -> None:
    failures: list[str] = []
    for seed in range(SEEDS):
        v = make_variant(BANK.templates[template_id], seed)
        w = walk(v)
        asked: list[tuple[str, float]] = []
        for pv in v.parts:
            failures += [f"#{seed} {f}" for f in _check_part(w.part_steps(pv.index), pv)]
        for s in w.steps:
            g = grade(s.pv, s.key.display)
            if g.verdict != "correct":
                failures.append(f"#{seed} step {s.index} ({s.quantity}): its key "
                                f"{s.key.display!r} grades {g.verdict}: {g.feedback}")
            if s.key.value is not None and s.key.unit is not None:
                if any(u == s.key.unit and abs(x - s.key.value) <= 1e-6 * abs(x)
                       for u, x in asked):
                    failures.append(f"#{seed} step {s.index} ({s.quantity}) asks "
                                    f"{s.key.display} again")
                asked.append((s.key.unit, s.key.value))
        assert [s.index for s in w.steps] == list(range(1, len(w.steps) + 1))
        assert len({(s.part, s.quantity) for s in w.steps}) == len(w.steps)
    assert failures == []


def test_a_step_knows_the_templates_named_mistake() -> None:
    # memory/model-state's "12 bytes per parameter" (bytes_per_param = 12) is a mistake
    # of its first step too.
    w = walk(make_variant(BANK.get("memory/model-state"), 3))
    first = w.step(1)
    assert first.quantity == "bytes_per_param" and first.key.display == "16 B"
    g = grade(first.pv, "12 B")
    assert g.verdict == "partial" and g.mistake == "12 bytes per parameter"
    assert "Adam" in first.explanation and "2 + 2 + 4 + 8" in first.explanation


def test_a_preset_value_is_shown_not_asked() -> None:
    w = walk(make_variant(BANK.get("memory/model-state"), 3))
    assert [s.quantity for s in w.steps] == ["bytes_per_param", "model_state_bytes"]
    assert [g.quantity for g in w.steps[1].given] == ["params"]


def test_a_step_reads_units_like_the_question() -> None:
    last = walk(make_variant(BANK.get("memory/model-state"), 3)).steps[-1]
    assert grade(last.pv, "0.128 TB").verdict == "correct"
    assert grade(last.pv, "128").verdict == "invalid"  # 128 what?
    assert grade(last.pv, "119.66 GB").verdict == "partial"  # the GiB number labelled GB


def test_a_multi_select_without_arithmetic_is_asked_option_by_option() -> None:
    v = make_variant(BANK.get("pipeline/bubble-reducers"), 0)
    steps = walk(v).steps
    assert [s.quantity for s in steps] == [f"option:{c}" for c in "abcdef"]
    assert grade(steps[0].pv, "y").verdict == "correct"
    wrong = next(s for s in steps if s.key.display == "no")
    g = grade(wrong.pv, "yes")
    assert g.verdict == "incorrect" and "wrong" in wrong.explanation


def test_a_table_is_asked_row_by_row() -> None:
    steps = walk(make_variant(BANK.get("parallelism/zero-stages-table"), 0)).steps
    assert [s.quantity for s in steps] == ["row:zero0", "row:zero1", "row:zero2",
                                           "row:zero3"]
    assert grade(steps[2].pv, "zero2: o g").verdict == "correct"
    assert grade(steps[2].pv, "zero2: o").verdict != "correct"


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), index=st.integers(0, 5))
def test_any_step_graded_in_its_base_unit_is_correct(seed: int, index: int) -> None:
    v = make_variant(BANK.get("memory/layout-memory-per-gpu"), seed)
    steps = walk(v).steps
    s = steps[index % len(steps)]
    assert s.key.value is not None and s.key.unit is not None
    typed = f"{s.key.value:.6g} {s.key.unit if s.key.unit not in ('1', 'param') else ''}"
    assert grade(s.pv, typed.strip()).verdict == "correct"
    assert walk(make_variant(BANK.get("memory/layout-memory-per-gpu"), seed)).steps[
        index % len(steps)].prompt == s.prompt  # the same seed, the same walk


def test_prompts_come_from_the_quantitys_meaning() -> None:
    assert step_phrase("params_per_gpu", "") == "the number of parameters one GPU holds"
    assert step_phrase("pp_bubble_share", "bubble as a fraction of total step time, "
                       "(p-1)/(v*m + p-1)") != "the result"
    assert step_phrase("active_params", "parameters one token passes through (MoE: "
                       "top-k)") == "the parameters one token passes through"
    assert format_value(16.0, "B") == "16 B"


# ---------------------------------------------------------------- [[steps]] in templates

_TEMPLATE = '''
id = "test/steps"
title = "Model state with friendlier steps"
topic = "memory"
prompt = "How many bytes of model state does {model} need?"
[params.model]
choices = ["llama3-8b"]
[answer]
quantity = "model_state_bytes"
'''


def _write(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "steps.toml"
    path.write_text(_TEMPLATE + extra, encoding="utf-8")
    return path


def test_a_template_gives_a_step_a_friendlier_prompt(tmp_path: Path) -> None:
    t = load_template(_write(tmp_path, '''
[[steps]]
quantity = "bytes_per_param"
prompt = "First: how many bytes does Adam keep per parameter?"
'''))
    steps = walk(make_variant(t, 0)).steps
    assert steps[0].prompt == "First: how many bytes does Adam keep per parameter?"


def test_a_template_skips_a_step(tmp_path: Path) -> None:
    t = load_template(_write(tmp_path, '''
[[steps]]
quantity = "bytes_per_param"
skip = true
'''))
    steps = walk(make_variant(t, 0)).steps
    assert [s.quantity for s in steps] == ["model_state_bytes"]
    assert "bytes_per_param" in [g.quantity for g in steps[0].given]


@pytest.mark.parametrize(("extra", "field", "reason"), [
    ('[[steps]]\nquantity = "bytes_per_param"\n', "steps[0].prompt", "either a prompt"),
    ('[[steps]]\nquantity = "bytes_per_parm"\nskip = true\n', "steps[0].quantity",
     "did you mean bytes_per_param"),
    ('[[steps]]\nquantity = "params"\npart = 2\nskip = true\n', "steps[0].part",
     "part 2 does not exist"),
    ('[[steps]]\nquantity = "params"\nskip = true\nprompt = "x"\n', "steps[0].skip",
     "not both"),
])
def test_a_bad_steps_table_names_file_field_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, field: str, reason: str,
) -> None:
    path = _write(tmp_path, extra)
    code, out, err = run_cli(capsys, "templates", "validate", str(path))
    assert code == 1
    line = (out + err).strip().splitlines()[0]
    assert line.startswith(f"{path}:") and field in line and reason in line


# ---------------------------------------------------------------- the command line


def test_ask_steps_json_follows_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "ask", "memory/layout-memory-per-gpu#3", "--steps",
                           "--json")
    steps = json.loads(out)
    assert code == 0 and len(steps) >= 3
    for i, s in enumerate(steps, 1):
        assert {"index", "quantity", "prompt", "expected"} <= set(s)
        assert s["index"] == i and {"value", "unit", "display"} <= set(s["expected"])
    _, whole, _ = run_cli(capsys, "ask", "memory/layout-memory-per-gpu#3", "--json")
    assert steps[-1]["expected"]["value"] == json.loads(whole)["expected"]["value"]


def test_check_one_step_gives_the_usual_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "memory/model-state", "--seed", "3", "--step",
                           "1", "--answer", "12 B", "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "partial" and data["step"] == 1
    assert data["mistake"] == "12 bytes per parameter"
    assert {"template", "seed", "verdict", "score", "read_as", "expected", "mistake",
            "feedback", "explanation"} <= set(data)
    _, out, _ = run_cli(capsys, "check", "memory/model-state#3", "--step", "2", "--answer",
                        "128 GB", "--json")
    assert json.loads(out)["verdict"] == "correct"


def test_check_a_step_that_does_not_exist_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(capsys, "check", "memory/model-state#3", "--step", "9",
                             "--answer", "1")
    assert code == 2 and "no step 9" in err and len(err.strip().splitlines()) == 1


def test_ask_steps_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "ask", "memory/model-state#3", "--steps")
    assert code == 0 and "1. First, work out the bytes of model state per parameter." in out
    assert "key: 128 GB" in out and "--step K" in out


def test_templates_test_reports_a_step_the_part_does_not_have(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = _write(tmp_path, '[[steps]]\nquantity = "tp_bytes"\nprompt = "Why?"\n')
    code, out, err = run_cli(capsys, "templates", "test", str(path), "--seeds", "2")
    assert code == 1 and "'tp_bytes' is not a step of part 1" in out + err


def test_a_step_names_the_values_its_formula_reads() -> None:
    # A formula question states no numbers: the step says which it works with.
    (step,) = walk(make_variant(BANK.get("compute/flops-formula"), 0)).steps
    assert step.inputs == ("tokens = 15 trillion",)
    steps = walk(make_variant(BANK.get("memory/layout-memory-per-gpu"), 0)).steps
    layer = next(s for s in steps if s.quantity == "activation_bytes_layer")
    assert "seq = 8,192" in layer.inputs and "tp = 8" in layer.inputs
    assert next(s for s in steps if s.quantity == "bytes_per_param").inputs == ()
