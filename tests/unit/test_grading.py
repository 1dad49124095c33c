"""Grading behaviour a user meets: tolerance, slips, conventions, hints, bare numbers."""

from __future__ import annotations

import pytest

from questions.catalog import load_bank
from questions.loader import parse_template
from questions.variants import PartVariant, make_variant
from quiz.core.grading import grade
from solver.units import format_value

BANK = load_bank()


def part(template_id: str, seed: int = 0) -> PartVariant:
    return make_variant(BANK.get(template_id), seed).parts[0]


def test_answer_within_tolerance_is_correct_and_near_miss_is_partial() -> None:
    pv = part("memory/model-state")
    assert pv.key.value is not None
    assert grade(pv, format_value(pv.key.value * 1.02, "B")).verdict == "correct"
    near = grade(pv, format_value(pv.key.value * 1.06, "B", digits=4))
    # close is not right, and a miss with no name earns nothing
    assert near.verdict == "incorrect" and near.score == 0 and "Close" in near.feedback


@pytest.mark.parametrize(("typed", "name", "verdict"), [
    ("{tib:.4g} TB", "TB vs TiB", "partial"),      # the TiB number labelled TB
    ("{bits:.4g} TB", "bits vs bytes", "partial"),
    ("{thousand:.4g} TB", "off by a thousand", "incorrect"),
    ("{tb:.1f} TB", None, "correct"),              # rounding, not a mislabel
])
def test_generic_slips_are_named_only_when_the_typed_text_supports_them(
        typed: str, name: str | None, verdict: str) -> None:
    pv = part("memory/model-state", 0)
    assert pv.key.value is not None and pv.key.display.endswith(" TB")
    v = pv.key.value
    text = typed.format(tb=v / 1e12, tib=v / 2**40, bits=v * 8 / 1e12, thousand=v / 1e9)
    g = grade(pv, text)
    assert (g.mistake, g.verdict) == (name, verdict), text


def test_rounding_to_a_tebibyte_is_not_a_tib_mislabel() -> None:
    pv = part("memory/model-state", 0)
    assert pv.key.value is not None
    g = grade(pv, f"{round(pv.key.value / 1e12)} TB")
    assert g.mistake is None


def test_other_convention_is_accepted_with_a_note() -> None:
    # A Llama variant: its MLP is 3.5h wide, so Megatron's 18 + 4f/h = 32, not 34.
    pv = next(p for p in (part("conventions/activation-estimators", s) for s in range(20))
              if "Llama" in p.prompt)
    assert pv.key.value is not None
    acc = pv.accepted[0]
    assert abs(acc.value / pv.key.value - 1) > 0.03
    g = grade(pv, format_value(acc.value, "B", digits=4))
    assert g.verdict == "correct" and "convention" in g.feedback


def test_hints_cost_their_share_of_the_score() -> None:
    pv = part("memory/model-state")
    assert grade(pv, pv.key.display, hint_cost=0.2).score == pytest.approx(0.8)


def test_invalid_answer_scores_nothing_and_says_why() -> None:
    g = grade(part("memory/model-state"), "lots of bytes")
    assert g.verdict == "invalid" and g.score == 0 and "For example" in g.feedback
    assert g.feedback.count("For example") == 1


def test_bare_number_is_read_in_the_unit_the_prompt_names() -> None:
    pv = part("compute/train-time", 3)
    assert pv.key.value is not None
    days = pv.key.value / 86400
    assert grade(pv, f"{days:.4g}").verdict == "correct"
    assert grade(pv, f"{days:.4g} days").verdict == "correct"


def test_compiled_expressions_are_not_shared_between_templates_with_one_id() -> None:
    """Regression: compiled constraints were cached by id(), which Python reuses."""
    text = """
id = "memory/same-id"
title = "Same id, different constraints"
topic = "memory"
prompt = "{model}?"
[params.model]
choices = ["llama3-8b", "llama3-70b"]
[answer]
quantity = "params"
"""
    free = parse_template(text)
    make_variant(free, 0)
    del free
    strict = parse_template(text.replace('topic = "memory"',
                                         'topic = "memory"\nconstraints = ["layers > 100"]'))
    with pytest.raises(ValueError, match="no draw"):
        make_variant(strict, 0)


def test_free_parameters_reach_prompts_and_expressions_but_not_the_solver() -> None:
    t = parse_template("""
id = "compute/free-deadline"
title = "Free parameter"
topic = "compute"
prompt = "Finish {model} in {deadline_days} days."
[params.model]
choices = ["llama3-8b"]
[params.deadline_days]
choices = [30]
free = true
[answer]
expr = "train_flops / (peak_flops * mfu * deadline_days * 86400)"
unit = "1"
""")
    pv = make_variant(t, 0).parts[0]
    assert "30 days" in pv.prompt
    assert pv.key.value == pytest.approx(
        6 * 8.03e9 * 15e12 / (989e12 * 0.4 * 30 * 86400), rel=1e-3)


def test_a_free_parameter_may_not_take_a_solver_name() -> None:
    with pytest.raises(ValueError, match="solver name"):
        parse_template("""
id = "compute/free-clash"
title = "Free parameter clash"
topic = "compute"
prompt = "{tp}"
[params.tp]
choices = [2]
free = true
[answer]
quantity = "params"
""")


def test_read_as_does_not_repeat_what_was_typed() -> None:
    """Regression: a bare "0.071" for seconds read as "0.071 s = 0.071 s = 71 ms"."""
    pv = part("communication/allreduce-time")
    assert grade(pv, "0.071").read_as == "0.071 s = 71 ms"
