"""The interviewer's follow-ups (issue 31): one input of a variant changed, asked about
the effect, keyed by evaluating the changed variant (the solver, or the layout engine)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import pytest
from helpers import bundled_bank, run_cli, seeds

from questions.derivation import explanation_of
from questions.errors import TemplateError
from questions.followups import (
    NotApplicable,
    by_family,
    changed_template,
    changed_variant,
    count,
    draw,
    family_of,
    layout_moves,
    specs,
    standard_set,
)
from questions.kinds import choice
from questions.loader import Bank, parse_template
from questions.schema import Scalar
from questions.variants import Variant, make_variant
from quiz.core.grading import grade
from solver.inputs import Inputs

SEEDS = seeds(1, 20)
"""Seeds per follow-up sweep: a whole-bank sweep, so one locally, 20 under
QUIZ_FUZZ=full (CI)."""
SEED_CASE = "layout/lay-out-cluster"


def bank() -> Bank:
    return bundled_bank()


def followed_templates() -> list[str]:
    """Every layout question and scenario of the bundled bank."""
    b = bank()
    return sorted(tid for tid, s in b.summaries.items()
                  if s.topic in ("layout", "scenario") or s.kind == "layout")


@cache
def variant(tid: str, seed: int) -> Variant:
    return make_variant(bank().templates[tid], seed)


def seed_case() -> Variant:
    """Llama 3 70B on 512 H100s, 8K tokens, 1,024 sequences (ARCHITECTURE.md's case)."""
    t = bank().templates[SEED_CASE]
    for seed in range(200):
        p = variant(SEED_CASE, seed).params
        if (p["gpu"], p["gpus"], p["seq"], p["global_batch"]) == ("h100", 512, 8192, 1024):
            return variant(SEED_CASE, seed)
    raise AssertionError(f"no seed of {t.id} draws the seed case")


def family_k(v: Variant, family: str) -> int:
    k = by_family(v.template, family)
    assert k is not None, family
    return k


# ---------------------------------------------------------------- the whole bank


def test_every_layout_question_and_scenario_has_a_standard_set() -> None:
    ids = followed_templates()
    assert len(ids) >= 10
    for tid in ids:
        t = bank().templates[tid]
        assert standard_set(t), tid
        assert count(t) >= 3, tid


@pytest.mark.parametrize("tid", followed_templates())
def test_three_followups_draw_and_grade_over_the_seeds(tid: str) -> None:
    """At least three follow-ups of every variant draw; typing each key back grades
    correct, and an unreadable answer is invalid."""
    for seed in SEEDS:
        v = variant(tid, seed)
        graded = 0
        for k in range(1, count(v.template) + 1):
            try:
                fu = draw(v, k)
            except NotApplicable:
                continue
            assert fu.changes and fu.said and fu.pv.prompt.startswith(fu.said.split()[0])
            g = grade(fu.pv, fu.pv.key.display)
            assert g.verdict == "correct", (v.id, k, fu.family, g.feedback)
            assert grade(fu.pv, "}{ hostile ((( text").verdict in ("invalid", "incorrect")
            assert explanation_of(fu.pv)
            graded += 1
            if graded == 3:
                break
        assert graded >= 3, f"{v.id}: only {graded} follow-ups apply"


# ---------------------------------------------------------------- keys from the engine


def _inputs_after(v: Variant, changes: Mapping[str, tuple[Scalar, Scalar]]) -> Inputs:
    """The changed variant's inputs, resolved here from its parameters."""
    from solver.inputs import resolve_inputs

    p: dict[str, Scalar] = {**v.params, **{k: b for k, (_, b) in changes.items()}}
    model, gpu = str(p.pop("model")), str(p.pop("gpu"))
    return resolve_inputs(model, gpu, {**p, "microbatches": 1})


def test_layout_key_is_the_changed_variants_own_layout_key() -> None:
    """Half the nodes, lay it out again: the key is what drawing the layout question
    with that GPU count gives."""
    for seed in range(8):
        v = variant(SEED_CASE, seed)
        fu = draw(v, family_k(v, "gpusx0.5-layout"))
        new = {k: b for k, (_, b) in fu.changes.items()}
        direct = make_variant(changed_template(v.template, new), seed).parts[0]
        assert fu.pv.key.display == direct.key.display
        assert fu.pv.key.value == pytest.approx(direct.key.value)


def test_engine_keys_equal_the_engine_on_the_changed_inputs() -> None:
    from solver.layouts import complete, rank
    from solver.perf import workload_from_inputs

    v = seed_case()
    before = rank(workload_from_inputs(v.inputs)).best
    for family in ("seq131072-axis", "moe8-layout", "gpugb200-axis", "global_batchx0.5-step_time",
                   "precisionfp8-mfu", "seqx2-memory"):
        fu = draw(v, family_k(v, family))
        after_in = _inputs_after(v, fu.changes)
        w1 = workload_from_inputs(after_in)
        assert fu.before is not None and fu.after is not None
        assert fu.before.layout == before.layout
        if family == "seqx2-memory":
            given = {k: x for k, x in before.layout.as_dict().items() if k != "dp"}
            direct = complete(w1, given)
            assert fu.pv.key.value == pytest.approx(direct.memory_per_gpu)
            continue
        best = rank(w1).best
        assert fu.after.layout == best.layout, family
        if family == "seq131072-axis" or family == "gpugb200-axis":
            truth = layout_moves(before.layout.as_dict(), best.layout.as_dict())
            right = fu.pv.spec.choices[ord(fu.pv.key.correct[0]) - ord("a")]
            assert right == truth or (not truth and right.startswith("Nothing"))
        elif family == "global_batchx0.5-step_time":
            assert fu.pv.key.value == pytest.approx(best.step_time)
        elif family == "precisionfp8-mfu":
            assert fu.pv.key.value == pytest.approx(best.mfu)


def test_part_followups_key_is_the_changed_variants_part() -> None:
    for tid in ("scenario/serve-it", "scenario/pipeline-it", "layout/layout-memory"):
        for seed in range(5):
            v = variant(tid, seed)
            for k in range(1, count(v.template) + 1):
                try:
                    fu = draw(v, k)
                except NotApplicable:
                    continue
                new = {x: b for x, (_, b) in fu.changes.items()}
                part = fu.extra["part"]
                direct = changed_variant(v, new).parts[part - 1]
                assert fu.pv.key == direct.key, (v.id, k)


# ---------------------------------------------------------------- the chain


def test_the_seed_case_chain() -> None:
    """128K tokens -> context parallelism; half the nodes -> a new layout; a MoE of the
    same active size -> expert parallelism."""
    v = seed_case()
    long = draw(v, family_k(v, "seq131072-axis"))
    assert long.changes["seq"] == (8192, 131072)
    assert long.changes["global_batch"] == (1024, 64)  # the same tokens per step
    assert long.after is not None and long.after.layout.cp > 1
    right = long.pv.spec.choices[ord(long.pv.key.correct[0]) - ord("a")]
    assert "CP" in right
    across = next(m for m in choice.known(long.pv)
                  if m.name == "TP across nodes for long context")
    g = grade(long.pv, across.choice[0])
    assert g.verdict == "incorrect" and g.mistake == "TP across nodes for long context"

    half = draw(v, family_k(v, "gpusx0.5-layout"))
    assert half.changes == {"gpus": (512, 256)}
    assert grade(half.pv, half.pv.key.display).verdict == "correct"
    assert grade(half.pv, "tp=16 pp=1 cp=1 ep=1 mb=1 zero=3").mistake == "TP across nodes"

    moe = draw(v, family_k(v, "moe8-layout"))
    assert moe.changes["experts"] == (0, 8) and moe.changes["experts_active"][1] == 2
    assert moe.after is not None and moe.before is not None
    assert moe.after.layout != moe.before.layout
    # the same active size: the FLOPs per token stay; the parameters grow
    assert moe.after.mfu > 0 and explanation_of(moe.pv).count("before") >= 1


def test_explanation_sets_the_engine_breakdown_side_by_side() -> None:
    v = seed_case()
    fu = draw(v, family_k(v, "seqx2-memory"))
    text = explanation_of(fu.pv)
    assert "before" in text and "same after" in text
    for line in ("memory per GPU", "activations", "step time", "MFU"):
        assert line in text


def test_same_seed_same_followup_and_a_missing_one_is_one_line() -> None:
    v = seed_case()
    a, b = draw(v, 1), draw(make_variant(v.template, v.seed), 1)
    assert a.to_json() == b.to_json() and a.pv.key == b.pv.key
    with pytest.raises(TemplateError, match="no follow-up 99"):
        draw(v, 99)


def test_a_moe_cannot_become_a_moe() -> None:
    t = bank().templates["scenario/train-moe"]
    v = make_variant(t, 0)
    k = by_family(t, "moe8-part")
    assert k is not None
    with pytest.raises(NotApplicable, match="already a mixture of experts"):
        draw(v, k)


# ---------------------------------------------------------------- [[followups]]

TEMPLATE = '''
schema = 1
id = "layout/fu-test"
title = "Follow-up test"
topic = "layout"
answer_kind = "layout"
prompt = "Lay out {model} on {gpus} {gpu} GPUs, {global_batch} x {seq} tokens."
[params.model]
choices = ["llama3-70b"]
[params.gpu]
choices = ["h100"]
[params.gpus]
choices = [512]
[params.seq]
choices = [8192]
[params.global_batch]
choices = [1024]
[answer]
explanation = "x"
'''


def _template(extra: str) -> str:
    return TEMPLATE + extra


def test_declared_followups_come_first_and_replace_the_standard_ones() -> None:
    t = parse_template(_template('''
[[followups]]
change = "seq"
to = [131072]
ask = "axis"
prompt = "The team wants longer documents."
[[followups]]
change = "gpus"
factor = [0.25]
ask = "fits"
'''))
    every = specs(t)
    assert [s.change for s in every[:2]] == ["seq", "gpus"]
    # the declared one replaces the standard one of its family (seq131072-axis)
    assert sum(1 for s in every if family_of(s) == "seq131072-axis") == 1
    assert len(every) == len(standard_set(t)) + 1
    v = make_variant(t, 0)
    fu = draw(v, 1)
    assert fu.changes["seq"][1] == 131072
    assert fu.pv.prompt.startswith("The team wants longer documents.")
    fits = draw(v, 2)
    assert fits.changes == {"gpus": (512, 128)}
    assert grade(fits.pv, fits.pv.key.display).verdict == "correct"


@pytest.mark.parametrize(("table", "field", "reason"), [
    ('change = "weather"\nto = [1]\nask = "axis"', "change", "Input should be"),
    ('change = "seq"\nto = [1024]\nfactor = [2.0]\nask = "axis"', "to", "exactly one"),
    ('change = "gpu"\nfactor = [2.0]\nask = "axis"', "factor", "takes to"),
    ('change = "gpu"\nto = ["h1000"]\nask = "axis"', "to", "did you mean h100"),
    ('change = "seq"\nto = ["long"]\nask = "axis"', "to", "whole numbers"),
    ('change = "seq"\nfactor = [1.0]\nask = "axis"', "factor", "not 1"),
    ('change = "precision"\nto = ["fp4"]\nask = "mfu"', "to", "precision is one of"),
    ('change = "gpus"\nto = [1000000000]\nask = "layout"', "to", "at most 1.04858e+06"),
    ('change = "seq"\nto = [true]\nask = "axis"', "to", "not true/false"),
    ('change = "seq"\nfactor = [2.0]\nask = "part"\npart = 3', "part", "does not exist"),
    ('change = "seq"\nfactor = [2.0]\nask = "axis"\npart = 1', "part", '"part" only'),
    ('change = "seq"\nfactor = [2.0]\nask = "guess"', "ask", "Input should be"),
    ('change = "seq"\nfactor = [2.0]\nask = "axis"\nvibes = 1', "vibes", "unknown field"),
])
def test_a_bad_followup_is_one_line_on_its_field(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 table: str, field: str,
                                                 reason: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(_template("[[followups]]\n" + table + "\n"), encoding="utf-8")
    code, out, err = run_cli(capsys, "templates", "validate", str(path))
    assert code == 1
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert any("followups" in line and field in line and reason in line
               for line in lines), lines


# ---------------------------------------------------------------- the command line


def test_ask_followup_json_is_ask_json_plus_followup(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    v = seed_case()
    code, out, _ = run_cli(capsys, "ask", f"{v.id}", "--followup", "1", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"template", "seed", "prompt", "params", "answer_kind", "choices", "expected",
            "explanation"} <= set(data)
    fu = data["followup"]
    assert fu["index"] == 1 and fu["of"] == v.id
    assert fu["changes"]["seq"] == [8192, 131072]
    assert data["params"]["seq"] == 131072


def test_check_followup_grades_the_expected_display(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    v = seed_case()
    for k in (1, 2, 4):
        _, out, _ = run_cli(capsys, "ask", v.id, "--followup", str(k), "--json")
        display = json.loads(out)["expected"]["display"]
        code, out, _ = run_cli(capsys, "check", SEED_CASE, "--seed", str(v.seed),
                               "--followup", str(k), "--answer", display, "--json")
        data = json.loads(out)
        assert code == 0 and data["verdict"] == "correct", data["feedback"]
        assert data["followup"]["index"] == k


@pytest.mark.parametrize("answer", ["__import__('os').system('echo pwned')", "", "x" * 5000,
                                    "tp=99999999 pp=-1", "\x1b[31m"])
def test_hostile_followup_answers_are_invalid(capsys: pytest.CaptureFixture[str],
                                              answer: str) -> None:
    v = seed_case()
    code, out, _ = run_cli(capsys, "check", v.id, "--followup", "2", "--answer", answer,
                           "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "invalid" and data["score"] == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["ask", "layout/lay-out-cluster#0", "--followup", "99"], "no follow-up 99"),
    (["ask", "layout/lay-out-cluster#0", "--followup", "1", "--steps"], "cannot be combined"),
    (["ask", "memory/model-state#0", "--followup", "1"], "has no follow-ups"),
    (["check", "scenario/train-moe#0", "--followup", "7", "--answer", "1"],
     "already a mixture of experts"),
])
def test_followup_errors_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                      message: str) -> None:
    code, _out, err = run_cli(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_followup_zero_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "ask", "layout/lay-out-cluster#0", "--followup", "0")
    assert exc.value.code == 2
    assert "--followup" in capsys.readouterr().err


def test_plain_ask_and_check_read_as_a_question(capsys: pytest.CaptureFixture[str]) -> None:
    v = seed_case()
    code, out, _ = run_cli(capsys, "ask", v.id, "--followup", "1")
    assert code == 0 and "follow-up 1 (seq131072-axis)" in out and "--followup 1" in out
    code, out, _ = run_cli(capsys, "check", v.id, "--followup", "1", "--answer", "a")
    assert code == 0 and "follow-up 1:" in out and "before" in out


def test_a_spoken_followup_is_graded_as_a_checklist_of_the_changed_figures() -> None:
    """The bank's 30-second answer asks again with sequences twice as long: the old
    answer's activation figures are now wrong, the model state still right."""
    v = variant("layout/thirty-second-answer", 3)
    fu = draw(v, family_k(v, "seqx2-part1"))
    assert fu.pv.kind == "spoken" and fu.changes["seq"][1] == 2 * fu.changes["seq"][0]
    assert grade(fu.pv, fu.pv.key.display).verdict == "correct"
    old = grade(fu.pv, v.parts[0].key.display)
    assert old.verdict == "partial" and old.checklist is not None
    wrong = {i.label for i in old.checklist.items if i.status in ("wrong", "mistake")}
    assert any("activation" in label for label in wrong)
    assert not any("model state" in label for label in wrong)


def test_the_self_test_reports_a_followup_that_never_applies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A MoE cannot become a MoE: `quiz templates test` says so on the table's line."""
    text = TEMPLATE.replace('"llama3-70b"', '"mixtral-8x7b"').replace(
        "[512]", "[256]") + '''
[[examples]]
answer = "{key}"
verdict = "correct"
[[followups]]
change = "moe"
to = [16]
ask = "layout"
'''
    path = tmp_path / "never.toml"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(capsys, "templates", "test", str(path), "--seeds", "2")
    assert code == 1
    line = next(x for x in (out + err).splitlines() if "followups[0]" in x)
    assert line.startswith(f"{path}:") and "followups[0].change: applies to none" in line
