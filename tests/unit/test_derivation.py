"""Worked solutions are structured derivations, printed as a person writes formulas."""

from __future__ import annotations

import re

import pytest
import sympy as sp
from helpers import bundled_bank

from questions.derivation import Derivation, convention_words, derivation_of, explain, show_expr
from questions.variants import make_variant
from quiz.tui.data import derivation_blocks
from solver.engine import solve
from solver.pretty import pretty
from solver.quantities import sym

BANK = bundled_bank()

# sympy's own spellings that a teacher would never write on a whiteboard
_MACHINE = re.compile(r"Min\(|Max\(|\*\*|=True|=False|-0 \+|\[0 1\]|\(-\d+ \+")


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_every_worked_solution_reads_like_a_teachers(template_id: str) -> None:
    for seed in (0, 1):
        for pv in make_variant(BANK.templates[template_id], seed).parts:
            d = explain(pv)
            text = d.text()
            assert not _MACHINE.search(text), (pv.index, _MACHINE.search(text), text)
            # no solution ends with an expression nobody explains
            assert d.steps or d.intro, (pv.index, text)
            for step in d.steps:
                assert step.why.strip(), (pv.index, step)
                assert step.unit and step.result


def test_expression_answers_end_with_an_explained_step() -> None:
    pv = make_variant(BANK.get("compute/mfu-vs-hfu"), 1).parts[0]
    d = explain(pv)
    assert d.combination is not None
    assert "0.75" in d.combination.formula and "6/8" in d.combination.why
    assert d.combination.result == pv.key.display


def test_mfu_from_throughput_quotes_the_parameter_count_in_one_step() -> None:
    d = explain(make_variant(BANK.get("compute/mfu-from-throughput"), 1).parts[0])
    params = [s for s in d.steps if s.quantity == "params"]
    assert len(params) == 1 and not params[0].formula
    assert not any(s.quantity == "attention_params_layer" for s in d.steps)


def test_each_step_carries_what_a_learner_can_be_asked() -> None:
    d = explain(make_variant(BANK.get("communication/allreduce-time"), 1).parts[0])
    step = next(s for s in d.steps if s.quantity == "dp_allreduce_bytes")
    assert step.unit == "B" and step.value > 0 and step.result.endswith("GB")
    assert step.question == "What is the gradient all-reduce bytes per rank per step?"
    assert step.to_json()["substitution"] == step.substitution


def test_conventions_are_in_words() -> None:
    assert "2(N−1)/N" in convention_words("ring_exact", True)
    assert "rounded to 2" in convention_words("ring_exact", False)
    assert "ZeRO-3" in convention_words("zero", "3")


def test_the_app_renders_the_structure_not_its_text() -> None:
    pv = make_variant(BANK.get("memory/model-state"), 3).parts[0]
    d = derivation_of(pv)
    kinds = [b.kind for b in derivation_blocks(d)]
    assert kinds[-1] == "answer" and "step" in kinds and "math" in kinds
    graded = d.with_mistake("weights only", "Only the weights.")
    assert derivation_blocks(graded)[-1].text.endswith("weights only")
    assert graded.to_json()["mistake"] == ["weights only", "Only the weights."]
    assert Derivation().text() == ""


def test_formulas_print_as_written() -> None:
    assert pretty(sp.Min(sym("microbatches"), sym("pp"))) == "min(microbatches, pp)"
    total = sym("optimizer_bytes") + sym("master_bytes") + sym("grad_bytes") + \
        sym("weight_bytes")
    assert pretty(total) == "weight_bytes + grad_bytes + master_bytes + optimizer_bytes"
    assert pretty(total, {"weight_bytes": 2, "grad_bytes": 2, "master_bytes": 4,
                          "optimizer_bytes": 8}) == "2 + 2 + 4 + 8"
    assert pretty(sym("hidden") ** 2) == "hidden²"
    assert pretty(32 - sym("pp"), {"pp": 0}) == "32 − 0"
    step = solve("dp_allreduce_bytes", model="llama3-8b", overrides={"dp": 8}).steps[-1]
    assert step.pretty.endswith("·(dp − 1)/dp") and "(8 − 1)/8" in step.pretty_substituted


def test_template_expressions_keep_the_authors_order() -> None:
    import ast

    tree = ast.parse("floor((gpus * hbm_bytes - weight_bytes * params) / kv)",
                     mode="eval").body
    assert show_expr(tree) == "⌊(gpus·hbm_bytes − weight_bytes·params)/kv⌋"
    tree = ast.parse("a - (b + c)", mode="eval").body
    assert show_expr(tree) == "a − (b + c)"
