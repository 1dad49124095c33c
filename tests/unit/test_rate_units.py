"""Counts and rates as answer units (tokens, requests, 1/s, tokens/s, requests/s), and
how-to-answer examples that are never the question's key."""

from __future__ import annotations

import pytest
from helpers import bundled_bank
from hypothesis import given, settings
from hypothesis import strategies as st

from questions.kinds.formula import known
from questions.loader import parse_template
from questions.variants import make_variant
from quiz.core.grading import grade
from quiz.core.reading import Unreadable, read_number
from solver.units import BASE_UNITS, RATE_UNITS, example_values, format_value


@pytest.mark.parametrize(("value", "unit", "shown"), [
    (4336.13, "tokens/s", "4,340 tokens/s"),
    (1.0, "tokens/s", "1 token/s"),
    (2.5e7, "tokens/s", "25 million tokens/s"),
    (185.0, "requests", "185 requests"),
    (1.0, "requests", "1 request"),
    (15e12, "tokens", "15 trillion tokens"),
    (2.5, "1/s", "2.5/s"),
    (7.5, "requests/s", "7.5 requests/s"),
])
def test_counts_and_rates_show_their_words(value: float, unit: str, shown: str) -> None:
    assert format_value(value, unit) == shown


@pytest.mark.parametrize(("text", "unit", "value"), [
    ("1200 tokens/s", "tokens/s", 1200),
    ("1.2k tokens/s", "tokens/s", 1200),
    ("72,000 tokens per minute", "tokens/s", 1200),
    ("1,200 tok/s", "tokens/s", 1200),
    ("1200", "tokens/s", 1200),
    ("2.5 per second", "1/s", 2.5),
    ("150 per minute", "1/s", 2.5),
    ("9000/h", "1/s", 2.5),
    ("1.2k/s", "1/s", 1200),
    ("3 requests/s", "requests/s", 3),
    ("180 req/min", "requests/s", 3),
    ("18 requests", "requests", 18),
    ("15T tokens", "tokens", 15e12),
    ("18", "requests", 18),
    ("1200 tokens/s", "1/s", 1200),  # rates convert among themselves, like counts
    ("18 requests", "1", 18),
])
def test_counts_and_rates_read_in_any_time_unit(text: str, unit: str, value: float) -> None:
    assert read_number(text, unit).value == pytest.approx(value)


@pytest.mark.parametrize(("text", "unit"), [
    ("5 GB/s", "tokens/s"), ("12 days", "1/s"), ("1200 tokens/s", "tokens"),
    ("3 TB", "requests"), ("40 tokens", "tokens/s"),
])
def test_a_rate_is_not_a_count_nor_a_bandwidth(text: str, unit: str) -> None:
    with pytest.raises(Unreadable, match="Expected a"):
        read_number(text, unit)


def test_a_tokens_per_second_template_reads_and_grades_its_key_in_words() -> None:
    t = parse_template("""
schema = 1
id = "inference/my-decode-rate"
title = "Decode rate of a batch"
topic = "inference"
prompt = "How many tokens per second does {model} decode on {gpu.short} at batch {micro_batch}?"
[params.model]
choices = ["llama3-8b"]
[params.gpu]
choices = ["h100"]
[params.micro_batch]
choices = [16, 32]
[answer]
expr = "micro_batch / decode_step_time"
unit = "tokens/s"
bare_unit = "tokens/min"
""")
    pv = make_variant(t, 0).parts[0]
    assert pv.key.unit == "tokens/s" and pv.key.display.endswith(" tokens/s")
    assert pv.key.value is not None
    assert grade(pv, pv.key.display).verdict == "correct"
    per_minute = f"{pv.key.value * 60:.0f}"
    assert grade(pv, per_minute).verdict == "correct"  # a bare number is per minute here
    assert grade(pv, f"{pv.key.value / 1000:.3g}k tokens/s").verdict == "correct"


def test_the_serving_quantities_carry_their_units() -> None:
    from solver.quantities import QUANTITIES

    assert QUANTITIES["decode_tokens_per_s"].unit == "tokens/s"
    assert QUANTITIES["decode_tokens_per_s_user"].unit == "tokens/s"
    assert QUANTITIES["kv_capacity_requests"].unit == "requests"
    assert QUANTITIES["kv_capacity_tokens"].unit == "tokens"


@settings(max_examples=200, deadline=None)
@given(unit=st.sampled_from(BASE_UNITS),
       key=st.floats(1e-9, 1e27, allow_nan=False, allow_infinity=False))
def test_examples_read_back_and_are_never_near_the_key(unit: str, key: float) -> None:
    for example in example_values(unit, avoid=key):
        value = read_number(example, unit).value
        assert not 1 / 3 < value / key < 3, (example, key)


def test_a_refusal_never_offers_the_key_as_its_example() -> None:
    for unit in BASE_UNITS:
        first = read_number(example_values(unit)[0], unit).value
        with pytest.raises(Unreadable) as caught:
            read_number("plenty", unit, avoid=first)
        assert caught.value.example == example_values(unit, avoid=first)[0]
        assert read_number(caught.value.example, unit).value != first


def test_rates_are_base_units_of_their_own() -> None:
    assert set(RATE_UNITS) <= set(BASE_UNITS)


def test_a_formula_refusal_never_offers_the_key_or_a_known_mistake() -> None:
    from quiz.core.kinds.formula import key_example, letters_of
    from solver.formula import formulas_equivalent, read_formula

    bank = bundled_bank()
    formulas = [t for t in bank.templates.values() if t.kind == "formula"]
    assert formulas
    for t in formulas:
        pv = make_variant(t, 0).parts[0]
        g = grade(pv, "6PD +")
        assert g.verdict == "invalid"
        example = g.feedback.rsplit("For example: ", 1)[1]
        mistakes = [m.formula for m in known(pv) if m.formula]
        assert example == key_example(pv.key, mistakes)
        letters = letters_of(pv.key)
        shown = read_formula(example, letters).expr
        for other in (pv.key.formula, *mistakes):
            assert other is not None
            assert not formulas_equivalent(shown, read_formula(other, letters).expr,
                                           list(letters.values())), (t.id, example)


def test_a_choice_example_is_never_the_key() -> None:
    from quiz.core.grading import read_answer
    from quiz.core.kinds.choice import example_picks

    bank = bundled_bank()
    choices = [t for t in bank.templates.values() if t.kind in ("choice", "multi")]
    assert choices
    for t in choices:
        for seed in range(3):
            pv = make_variant(t, seed).parts[0]
            example = example_picks(pv)
            assert set(example.split(", ")) != set(pv.key.correct), (t.id, seed)
            with pytest.raises(Unreadable) as caught:
                read_answer(pv, "zz")
            assert caught.value.example == example.upper()


def test_the_previews_warm_up_reads_no_key_and_works_the_example_out_once() -> None:
    """The answer box reads a formula part's warm-up texts ahead of the typing: they are
    never equivalent to the key or a known mistake, one reads and one is refused, and
    after them a typed refusal works out no example again (it is remembered per key)."""
    from quiz.core.kinds import formula
    from quiz.core.kinds.formula import letters_of
    from quiz.core.session import preview, preview_warmups
    from solver.formula import formulas_equivalent, read_formula

    bank = bundled_bank()
    formulas = [t for t in bank.templates.values() if t.kind == "formula"]
    assert formulas
    for t in formulas:
        pv = make_variant(t, 3).parts[0]
        warm = preview_warmups(pv)
        read, refused = (preview(pv, text) for text in warm)
        assert read.startswith("read as ") and refused.startswith("can't read: ")
        letters = letters_of(pv.key)
        for other in (pv.key.formula, *(m.formula for m in known(pv) if m.formula)):
            assert other is not None
            assert not formulas_equivalent(read_formula(warm[0], letters).expr,
                                           read_formula(other, letters).expr,
                                           list(letters.values())), (t.id, warm)
        worked_out = formula._key_example.cache_info().misses
        assert preview(pv, "6*").startswith("can't read: ")
        assert preview(pv, "6*(").startswith("can't read: ")
        assert formula._key_example.cache_info().misses == worked_out
    number = make_variant(next(t for t in bank.templates.values() if t.kind == "number"), 0)
    assert preview_warmups(number.parts[0]) == ()
