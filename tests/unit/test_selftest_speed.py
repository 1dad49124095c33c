"""The self-test's speed comes from caches keyed by content; each gives what the work it
saves would give, stays bounded, and the self-test still catches what it caught.

Caches: a formula's substitution printed from a plan printed once
(:func:`solver.engine.substituted`, :func:`solver.pretty.pretty`), a layout search per
workload (:func:`questions.layout.ranked`), the presets parsed once per content
(:func:`solver.engine.resolve_inputs`), a solve per content (:func:`solver.engine.solve`),
a paragraph's span read once per unit (:mod:`quiz.core.rubric`); and the self-test checks
a seed that draws an earlier seed's parameters once.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import sympy as sp
from helpers import bundled_bank, spy
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace as struct_replace

import questions.kinds
import questions.layout as qlayout
import questions.params as qparams
import questions.text as qtext
import quiz.core.rubric as rubric
import quiz.core.selftest as selftest
import solver.engine as engine
import solver.inputs as inputs
import solver.layouts as slayouts
from questions.derivation import derivation_of
from questions.loader import load_template
from questions.schema import Template
from questions.variants import draw_params, make_variant
from quiz.core.selftest import (
    Failure,
    check_examples,
    check_follow,
    check_part,
    check_steps,
    check_template,
)
from solver.keys import Value
from solver.presets import MODELS, Preset
from solver.pretty import _Printer, pretty
from solver.quantities import QUANTITIES

BANK = bundled_bank()


@cache
def formulas() -> list[sp.Expr]:
    """Every step's formula under a few sets of conventions (derived on first use, not
    while the suite is collected: some 4 s of CPU on every worker)."""
    found: dict[sp.Expr, None] = {}
    conventions: list[tuple[str, dict[str, Value]]] = [
        ("llama3-70b", {}), ("gpt3-175b", {"recompute": "full", "zero": 3}),
        ("mixtral-8x7b", {"attention_term": "causal", "tp": 2})]
    for model, over in conventions:
        ctx = engine.ctx_of(engine.resolve_inputs(model, "h100", over).values)
        for q in QUANTITIES:
            try:
                d = engine.derivation(q, ctx)
            except engine.SolverError:
                continue
            found.update(dict.fromkeys(n.local for n in d.nodes))
    return list(found)


FORMULAS = st.deferred(lambda: st.sampled_from(formulas()))
NUMBERS = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 8.0, 0.5, 1e-3, 3e-12, 12345678.0, 7.055e10,
                     -3.0, -0.25, float("inf"), float("-inf"), float("nan")]),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e30, max_value=1e30),
    st.integers(-10**9, 10**9).map(float))


def outcome(f: Callable[[], str]) -> str:
    """What printing gives: the text, or the kind of error it raises."""
    try:
        return f()
    except (OverflowError, ValueError):
        # A number no text can show (inf, nan, a float past range): the two printers meet
        # it at different operations, so either refusal is the same outcome.
        return "raises: not a printable number"
    except Exception as exc:  # the same failure either way is what is compared
        return f"raises {type(exc).__name__}"


def test_the_formulas_cover_the_solver() -> None:
    assert len(formulas()) > 100


@settings(max_examples=150, deadline=None)
@given(FORMULAS, st.data())
def test_a_substitution_printed_from_its_plan_is_what_sympy_prints(
    local: sp.Expr, data: st.DataObject
) -> None:
    env = {s.name: data.draw(NUMBERS) for s in local.free_symbols}
    want = outcome(lambda: engine._Substituted(env).doprint(local))
    assert outcome(lambda: engine.substituted(local, env)) == want


@settings(max_examples=150, deadline=None)
@given(FORMULAS, st.data())
def test_a_pretty_substitution_from_its_plan_is_what_the_printer_walks_to(
    local: sp.Expr, data: st.DataObject
) -> None:
    env = {s.name: data.draw(NUMBERS) for s in local.free_symbols}
    assert outcome(lambda: pretty(local, env)) == outcome(lambda: _Printer(env).show(local))


def test_a_power_of_a_number_that_is_not_whole_is_bracketed() -> None:
    h = sp.Symbol("hidden", positive=True)
    assert pretty(h**2, {"hidden": 8}) == "8²"
    assert pretty(h**2, {"hidden": 0.5}) == "(0.5)²"
    assert pretty(h**2, {"hidden": 8}) == "8²"  # the plan is shared; its brackets are not


def test_sympy_decides_a_terms_sign_by_its_text_so_negatives_print_as_sympy_does() -> None:
    x, y = sp.symbols("x y", positive=True)
    assert engine.substituted(x + y, {"x": 2, "y": -3}) == "2 - 3"
    assert engine.substituted(x + y, {"x": 2, "y": 3}) == "2 + 3"


# ---------------------------------------------------------------- layout searches


def layout_inputs() -> engine.Inputs:
    return engine.resolve_inputs("llama3-8b", "h100", {"gpus": 16, "global_batch": 64,
                                                       "seq": 4096})


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The workloads actually searched (the remembered ones start empty)."""
    monkeypatch.setattr(qlayout, "_RANKINGS", type(qlayout._RANKINGS)())
    return spy(monkeypatch, slayouts, "rank")


def test_a_workload_is_searched_once_however_often_it_is_ranked(searches: list[Any]) -> None:
    inputs = layout_inputs()
    first = qlayout.ranking_for(inputs)
    assert qlayout.best_layout(inputs).display == qlayout.key_of(first.best).display
    qlayout.judge(qlayout.read_layout("tp=1 pp=1 mb=1 zero=1"), inputs)
    assert len(searches) == 1


def test_a_workload_that_differs_in_any_figure_is_searched_again(searches: list[Any]) -> None:
    w = qlayout.workload_for(layout_inputs())
    qlayout.ranked(w)
    constants = {**w.constants}
    constants[next(iter(constants))] *= 1.5
    qlayout.ranked(replace(w, constants=constants))
    qlayout.ranked(replace(w, hbm_bytes=w.hbm_bytes * 2))
    qlayout.ranked(w)
    assert len(searches) == 3


def test_nothing_fits_is_remembered_as_the_same_one_line_error(searches: list[Any]) -> None:
    w = replace(qlayout.workload_for(layout_inputs()), hbm_bytes=1e9)
    messages = []
    for _ in range(2):
        with pytest.raises(engine.SolverError) as caught:
            qlayout.ranked(w)
        messages.append(str(caught.value))
    assert len(searches) == 1
    assert messages[0] == messages[1]
    assert messages[0].startswith("nothing fits in memory")


def test_the_remembered_searches_are_bounded(
    searches: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(qlayout, "RANKINGS_KEPT", 2)
    w = qlayout.workload_for(layout_inputs())
    for batch in (64, 128, 256, 64):
        qlayout.ranked(replace(w, global_batch=batch))
    assert len(qlayout._RANKINGS) == 2
    assert len(searches) == 4  # 64 was dropped (least recently used) and searched again


# ---------------------------------------------------------------- presets


@pytest.fixture
def nothing_resolved() -> None:
    """No presets parsed and no resolution remembered yet."""
    inputs._PRESET_LAYERS.clear()
    inputs._RESOLVED.clear()


@pytest.mark.usefixtures("nothing_resolved")
def test_presets_are_parsed_once_then_only_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = spy(monkeypatch, inputs, "parse_value")
    first = engine.resolve_inputs("llama3-70b", "h100", {"tp": 8})
    parsed = len(calls)
    calls.clear()
    other = engine.resolve_inputs("llama3-70b", "h100", {"tp": 4})
    assert calls == ["tp"]
    assert parsed > 10
    assert other.values["tp"] == 4 and other.values["layers"] == first.values["layers"]


@pytest.mark.usefixtures("nothing_resolved")
def test_a_resolution_is_remembered_whole_and_each_caller_gets_a_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = engine.resolve_inputs("llama3-70b", "h100", {"tp": 8, "seq": 4096})
    calls = spy(monkeypatch, inputs, "parse_value")
    derived = spy(monkeypatch, inputs, "_derive_defaults")
    again = engine.resolve_inputs("llama3-70b", "h100", {"tp": 8, "seq": 4096})
    assert calls == [] and derived == []
    assert (again.values, again.origin, again.warnings) == \
        (first.values, first.origin, first.warnings)
    assert list(again.values) == list(first.values)  # the same order, too
    again.values["layers"] = 1  # a caller's copy, never the remembered one
    again.origin["layers"] = "set"
    again.warnings.append("changed")
    third = engine.resolve_inputs("llama3-70b", "h100", {"tp": 8, "seq": 4096})
    assert (third.values, third.origin, third.warnings) == \
        (first.values, first.origin, first.warnings)


@pytest.mark.usefixtures("nothing_resolved")
@pytest.mark.parametrize(("key", "a", "b"), [
    ("tp", 2, 2.0), ("biases", 1, True), ("grad_bytes", 0.0, -0.0), ("tp", 2, "2")])
def test_overrides_equal_in_value_but_not_in_kind_are_resolved_apart(
    monkeypatch: pytest.MonkeyPatch, key: str, a: Any, b: Any
) -> None:
    engine.resolve_inputs("llama3-8b", None, {key: a})
    calls = spy(monkeypatch, inputs, "parse_value")
    engine.resolve_inputs("llama3-8b", None, {key: b})
    assert calls == [key]


@pytest.mark.usefixtures("nothing_resolved")
def test_remembered_resolutions_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "RESOLVED_KEPT", 3)
    for tp in (1, 2, 4, 8, 1):
        engine.resolve_inputs("llama3-8b", "h100", {"tp": tp})
    assert len(inputs._RESOLVED) <= 3


def test_a_preset_whose_content_changed_is_parsed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert engine.resolve_inputs("llama3-8b").values["layers"] == 32
    old = MODELS["llama3-8b"]
    monkeypatch.setitem(MODELS, "llama3-8b",
                        Preset(old.name, old.title, old.source, {**old.values, "layers": 16}))
    assert engine.resolve_inputs("llama3-8b").values["layers"] == 16


def test_remembered_presets_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "PRESET_LAYERS_KEPT", 3)
    engine._PRESET_LAYERS.clear()
    for model in list(MODELS)[:5]:
        engine.resolve_inputs(model)
    assert len(engine._PRESET_LAYERS) <= 3


# ---------------------------------------------------------------- the self-test's strength


def template(tid: str) -> Template:
    return BANK.templates[tid]


def test_a_template_drawn_differently_each_time_fails_as_not_deterministic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = template("memory/model-state")
    assert check_template(t, seeds=2) == []
    real = qparams._draw
    calls = [0]

    def drifting(spec: Any, rng: random.Random) -> Any:  # a draw with a memory of its own
        value = real(spec, rng)
        calls[0] += 1
        if calls[0] % 3:
            return value
        return spec.choices[(spec.choices.index(value) + 1) % len(spec.choices)] \
            if spec.choices else value * 2

    monkeypatch.setattr(qparams, "_draw", drifting)
    failures = [f for f in check_template(t, seeds=8) if f.check == "deterministic"]
    assert failures, "a variant that changes between draws passed the self-test"


def test_a_key_that_changes_between_whole_draws_fails_as_not_deterministic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = template("memory/model-state")
    kind = questions.kinds.KINDS["number"]
    calls = [0]

    def drifting(ctx: Any) -> Any:  # the same parameters, another key every other draw
        drawn = kind.draw_key(ctx)
        calls[0] += 1
        if calls[0] % 2:
            return drawn
        return struct_replace(drawn, key=struct_replace(drawn.key, display=drawn.key.display + "0"))

    monkeypatch.setitem(questions.kinds.KINDS, "number", struct_replace(kind, draw_key=drifting))
    failures = [f for f in check_template(t, seeds=2) if f.check == "deterministic"]
    assert [f.detail for f in failures] == ["two keys differ"] * 2


def test_a_key_that_does_not_grade_right_fails_with_warm_caches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = template("memory/model-state")
    assert check_template(t, seeds=2) == []  # every cache warm for this template
    kind = questions.kinds.KINDS["number"]

    def doubled(ctx: Any) -> Any:  # a key shown as twice its value
        drawn = kind.draw_key(ctx)
        shown = f"{2 * (drawn.key.value or 0) / 1e9:.4g} GB"
        return struct_replace(drawn, key=struct_replace(drawn.key, display=shown))

    monkeypatch.setitem(questions.kinds.KINDS, "number", struct_replace(kind, draw_key=doubled))
    failures = check_template(t, seeds=2)
    assert {f.check for f in failures} >= {"key display"}, failures


def test_a_known_mistake_equal_to_the_key_fails_with_warm_caches() -> None:
    t = template("memory/model-state")
    assert check_template(t, seeds=2) == []
    same = t.mistakes[0].model_copy(update={"set": {"bytes_per_param": 16}})
    failures = check_template(t.model_copy(update={"mistakes": [same, *t.mistakes[1:]]}),
                              seeds=2)
    assert [(f.check, f.mistake) for f in failures] == [("mistake", 0)] * 2, failures


# ---------------------------------------------------------------- seeds that repeat a draw


BROKEN = load_template(Path(__file__).parent / "broken" / "mistake_equals_key.toml")


def every_seed_checked(t: Template, seeds: int) -> list[Failure]:
    """The self-test's per-seed checks run on every seed, none skipped."""
    out: list[Failure] = []
    for seed in range(seeds):
        v = make_variant(t, seed)
        for pv in v.parts:
            out += check_part(t, seed, pv) + check_follow(t, seed, pv)
        out += check_steps(t, seed, v)
    return out + check_examples(t)


def test_a_seed_that_repeats_a_draw_fails_as_the_seed_it_repeats() -> None:
    failures = check_template(BROKEN, seeds=8)  # 2 models: 6 seeds repeat a draw
    assert len({f.seed for f in failures}) == 8
    assert failures == every_seed_checked(BROKEN, 8)


def test_each_distinct_draw_is_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    t = template("memory/model-state")
    checked = spy(monkeypatch, selftest, "check_part", lambda t, seed, pv: seed)
    assert check_template(t, seeds=30) == []
    models = {draw_params(t, seed)[0]["model"] for seed in range(30)}
    # seed 0 is checked whole (it also checks [[steps]]), so its model may be checked twice
    assert len(models) <= len(checked) <= len(models) + 1


def test_options_shuffled_per_seed_are_checked_every_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = next(t for t in BANK.templates.values()
             if all(p.answer_kind == "choice" for p in t.all_parts()))
    drawn = spy(monkeypatch, selftest, "make_variant", lambda t, seed: seed)
    worked = spy(monkeypatch, selftest, "variant_with", lambda t, seed, params: seed)
    check_template(t, seeds=6)
    assert set(drawn + worked) == set(range(6))


def test_the_options_order_told_without_a_variant_is_the_variants() -> None:
    shuffled = [t for t in BANK.templates.values() if selftest.shuffles(t)]
    assert len(shuffled) >= 10 and any(len(t.parts) > 1 for t in shuffled)
    for t in shuffled:
        counts = selftest.arrangers(t)
        assert counts is not None
        for tid in (t.id, t.id + "-copy"):  # the order is drawn per id and seed
            u = t.model_copy(update={"id": tid})
            for seed in range(8):
                assert selftest.arranged(tid, seed, counts) == \
                    selftest.arrangement(make_variant(u, seed))


def test_an_order_told_wrong_stops_the_self_test(monkeypatch: pytest.MonkeyPatch) -> None:
    t = next(t for t in BANK.templates.values() if selftest.shuffles(t))
    monkeypatch.setattr(selftest, "arranged", lambda tid, seed, counts: "|[]")
    with pytest.raises(AssertionError, match=r"is not what selftest\.arranged says"):
        check_template(t, seeds=2)


def test_a_kind_that_arranges_otherwise_has_its_variants_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = next(t for t in BANK.templates.values()
             if all(p.answer_kind == "choice" for p in t.all_parts()))
    want = check_template(t, seeds=6)
    monkeypatch.setattr(selftest, "arrangers", lambda t: None)
    drawn = spy(monkeypatch, selftest, "make_variant", lambda t, seed: seed)
    assert check_template(t, seeds=6, body=selftest.Body()) == want
    assert set(drawn) == set(range(6))


# ---------------------------------------------------------------- solves and spans


def test_a_solve_is_worked_once_per_content(monkeypatch: pytest.MonkeyPatch) -> None:
    engine._SOLVES.clear()
    worked = spy(monkeypatch, engine, "_solve")
    first = engine.solve("model_state_bytes", model="llama3-8b", overrides={"tp": 2})
    assert engine.solve("model_state_bytes", model="llama3-8b", overrides={"tp": 2}) is first
    engine.solve("model_state_bytes", model="llama3-8b", overrides={"tp": 2.0})
    engine.solve("model_state_bytes", model="llama3-70b", overrides={"tp": 2})
    assert len(worked) == 3  # 2 and 2.0 are equal, but not the same input
    old = MODELS["llama3-8b"]
    monkeypatch.setitem(MODELS, "llama3-8b",
                        Preset(old.name, old.title, old.source, {**old.values, "layers": 16}))
    changed = engine.solve("model_state_bytes", model="llama3-8b", overrides={"tp": 2})
    assert changed.value < first.value and len(worked) == 4


def test_remembered_solves_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "SOLVES_KEPT", 3)
    engine._SOLVES.clear()
    for layers in range(1, 8):
        engine.solve("model_state_bytes", model="llama3-8b", overrides={"layers": layers})
    assert len(engine._SOLVES) <= 3


def test_a_span_of_a_paragraph_is_read_once_per_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    rubric._value.cache_clear()
    read = spy(monkeypatch, rubric, "read_number", lambda text, unit, **kw: (text, unit))
    text = "Shard 1.13 TB of state over 64 GPUs with TP 8 inside the node."
    first = [(m.span(), m.reading("B")) for m in rubric.mentions(text)]
    assert first[0] == ("1.13 TB", (1.13e12, "1.13 TB"))
    n = len(read)
    assert [(m.span(), m.reading("B")) for m in rubric.mentions(text)] == first
    assert len(read) == n
    assert len(read) == len(set(read))


def test_a_phrase_is_normalized_once_however_many_answers_are_searched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rubric._phrase.cache_clear()
    patterns = spy(monkeypatch, rubric, "phrase_pattern")
    phrases = ["tp ... inside the node", "tp within a node"]
    for text in ("TP 8 inside the node.", "Not TP inside the node.", "TP within a node"):
        found = rubric.find_phrase(rubric.normalize(text), phrases)
        assert (found is None) == text.startswith("Not")
    assert patterns == phrases  # each phrase once, for three answers


def test_a_phrase_remembered_finds_what_it_found_afresh() -> None:
    hay = rubric.normalize("Not TP across nodes: TP 8 inside the node, so cannot hide.")
    for phrase in ("tp ... across nodes", "tp ... inside", "cannot hide", "..."):
        rubric._phrase.cache_clear()
        first = [rubric.find_phrase(hay, [phrase], negated=n) for n in (False, True)]
        assert [rubric.find_phrase(hay, [phrase], negated=n) for n in (False, True)] == first
    assert rubric.find_phrase(hay, ["cannot hide"]) == (46, "cannot hide")


def test_a_templates_expressions_are_compiled_once_for_its_draws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = BANK.templates["communication/hierarchical-allreduce-bytes"]
    monkeypatch.setattr(qparams, "_LAST", None)
    texts = spy(monkeypatch, qparams, "_expr_texts")
    first = [draw_params(t, seed)[0] for seed in range(5)]
    assert len(texts) <= 2  # its one part's: the content key once (and compiling it)
    # Another template in between, then one equal but for a constraint: each gets its
    # own expressions (the last template is remembered by identity, never by content).
    other = t.model_copy(update={"constraints": ["dp >= 4 * gpus_per_node"]})
    assert qparams.compiled(other).constraints[0].text == "dp >= 4 * gpus_per_node"
    assert qparams.compiled(t).constraints[0].text == "dp >= 2 * gpus_per_node"
    assert [draw_params(t, seed)[0] for seed in range(5)] == first


# ---------------------------------------------------------------- texts shown


def test_a_value_is_worked_into_text_once_per_unit_and_digits() -> None:
    from solver import units

    units._shown.cache_clear()
    shown = [units.format_value(v, "B") for v in (1.13e12, 1.13e12, 1130e9, -0.0, 0.0, 0)]
    assert shown[:3] == ["1.13 TB"] * 3 and shown[3:] == ["0 B"] * 3
    assert units.format_value(1.13e12, "B", binary=True) == "1.03 TiB"
    assert units.format_value(1.13e12, "B", digits=4) == "1.13 TB"
    info = units._shown.cache_info()
    assert (info.misses, info.hits) == (4, 4)  # 1.13e12 thrice, zero thrice: two texts
    assert info.maxsize is not None and info.maxsize <= 10_000


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(
    ["B", "s", "FLOP", "param", "B/s", "FLOP/s", "1", "tokens", "1/s", "tokens/s"]),
    st.booleans(), st.integers(1, 6))
def test_a_remembered_text_is_what_working_it_out_gives(
    value: float, unit: str, binary: bool, digits: int
) -> None:
    from solver import units

    fresh = units._shown.__wrapped__(float(value) or 0.0, unit, binary, digits)
    assert units.format_value(value, unit, binary=binary, digits=digits) == fresh
    assert units.format_value(value, unit, binary=binary, digits=digits) == fresh


def test_a_text_field_is_reflowed_and_split_once(monkeypatch: pytest.MonkeyPatch) -> None:
    qtext._text_plan.cache_clear()
    reflowed = spy(monkeypatch, qtext, "reflow")
    text = "A {model} with\n{layers} layers;\n\n- {hidden:raw} wide"
    env = {"layers": 80.0, "hidden": 8192.0}
    first = qtext._format(text, env, {"model": "llama3-70b"})
    again = qtext._format(text, {**env, "layers": 40.0}, {"model": "llama3-70b"})
    assert first == "A Llama 3 70B with 80 layers;\n\n- 8192.0 wide"
    assert again == first.replace("80", "40")
    assert len(reflowed) == 1


def test_a_parts_derivation_is_worked_once_and_a_copy_for_another_key_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import questions.derivation as qderivation
    from questions.steps import walk

    worked = spy(monkeypatch, qderivation, "_explain")
    v = make_variant(template("memory/model-state"), 3)
    pv = v.parts[0]
    first = qderivation.explain(pv)
    walk(v)
    assert derivation_of(pv) is first and len(worked) == 1  # the walk and the feedback too
    other = struct_replace(pv, key=struct_replace(pv.key, value=2 * (pv.key.value or 0)))
    assert qderivation.explain(other) is not first and len(worked) == 2
