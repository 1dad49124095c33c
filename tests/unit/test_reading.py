"""Reading answers as typed: numbers with units, formulas, choices, and hostile input."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sympy
from helpers import race_the_clocks

from quiz.core.reading import (
    Unreadable,
    formulas_equivalent,
    read_choice,
    read_formula,
    read_number,
)
from solver.formula import MAX_DEPTH, formula_ratio
from solver.units import BASE_UNITS, DAY, MONTH, YEAR

# ---------------------------------------------------------------- numbers

ACCEPTED = [
    ("1.13e12", "B", 1.13e12),
    ("1.13 TB", "B", 1.13e12),
    ("1130GB", "B", 1.13e12),
    ("1,130 GB", "B", 1.13e12),
    ("1 130 GB", "B", 1.13e12),
    ("1\u00a0130 GB", "B", 1.13e12),  # no-break space, as some keyboards insert
    ("1.03 TiB", "B", 1.03 * 2**40),
    ("1.13 terabytes", "B", 1.13e12),
    ("2 GiB", "B", 2.0 * 2**30),
    ("32 MiB", "B", 32.0 * 2**20),
    ("2^30 B", "B", 2.0**30),
    ("1 Gbit", "B", 1e9 / 8),
    ("16 b", "B", 2.0),
    ("8.8B", "B", 8.8),  # bytes expected: B is a byte
    ("6.3 x 10^24", "FLOP", 6.3e24),
    ("6.3×10²⁴", "FLOP", 6.3e24),
    ("6.3*10**24", "FLOP", 6.3e24),
    ("6.3 · 10^24", "FLOP", 6.3e24),
    ("6.3 x 10^(24)", "FLOP", 6.3e24),
    ("10^24", "FLOP", 1e24),
    ("6.3e24 FLOPs", "FLOP", 6.3e24),
    ("1 PFLOP", "FLOP", 1e15),
    ("1.5 EFLOP", "FLOP", 1.5e18),
    ("2M", "FLOP", 2e6),
    ("6.3T FLOP", "FLOP", 6.3e12),
    ("~363 days", "s", 363 * DAY),
    ("≈ 363 d", "s", 363 * DAY),
    ("about 363 days", "s", 363 * DAY),
    ("1 year", "s", YEAR),
    ("2 yr", "s", 2 * YEAR),
    ("5 centuries", "s", 500 * YEAR),
    ("3 months", "s", 3 * MONTH),
    ("2 weeks", "s", 14 * DAY),
    ("3 h", "s", 3 * 3600.0),
    ("3 hours", "s", 3 * 3600.0),
    ("5 min", "s", 300.0),
    ("0.44 s", "s", 0.44),
    ("1.5×10⁻³ s", "s", 1.5e-3),
    ("1.5 x 10^-3", "s", 1.5e-3),
    ("440 ms", "s", 0.44),
    ("363", "s", 363.0),
    ("35%", "1", 0.35),
    ("35 percent", "1", 0.35),
    ("9x", "1", 9.0),
    ("16.4 GPUs", "1", 16.4),
    ("8K", "1", 8e3),
    ("8.8B", "param", 8.8e9),
    ("8.8B params", "param", 8.8e9),
    ("70.5 billion", "param", 70.5e9),
    ("70.5 bn", "param", 70.5e9),
    ("15T", "param", 15e12),
    ("1.2 million", "param", 1.2e6),
    ("400 Gb/s", "B/s", 50e9),
    ("400 Gbps", "B/s", 50e9),
    ("400 Gbit/s", "B/s", 50e9),
    ("50 GB/s", "B/s", 50e9),
    ("50 GB per second", "B/s", 50e9),
    ("989 TFLOP/s", "FLOP/s", 989e12),
    ("989 TFLOPS", "FLOP/s", 989e12),
    ("396 tflops", "FLOP/s", 396e12),
    ("−5", "1", -5.0),  # U+2212 minus sign
    (".5", "1", 0.5),
]


@pytest.mark.parametrize(("text", "unit", "value"), ACCEPTED)
def test_accepted_forms_read_to_their_exact_value(text: str, unit: str, value: float) -> None:
    reading = read_number(text, unit)
    assert reading.value == pytest.approx(value, rel=1e-12)
    assert reading.unit == unit
    assert reading.text == text
    assert reading.read_as


def test_read_as_shows_the_base_value_and_the_display() -> None:
    assert read_number("1.13e12", "B").read_as == "1.13e12 B = 1.13 TB (1.03 TiB)"
    assert read_number("1.13 TB", "B").read_as == "1.13e12 B = 1.13 TB (1.03 TiB)"
    assert read_number("400 Gb/s", "B/s").read_as == "400 Gb/s = 5e10 B/s = 50 GB/s"
    assert read_number("8.8B", "param").read_as == "8.8 B = 8.8e9 = 8.8 billion"
    assert read_number("35%", "1").read_as == "35% = 0.35"


def test_b_means_billion_for_counts_and_bytes_for_memory() -> None:
    assert read_number("70.5B", "param").value == 70.5e9
    assert read_number("70.5B", "1").value == 70.5e9
    assert read_number("70.5B", "B").value == 70.5


def test_bits_are_told_apart_from_bytes() -> None:
    assert read_number("400 Gb/s", "B/s").value == read_number("50 GB/s", "B/s").value


def test_flops_follows_the_expected_unit() -> None:
    assert read_number("6 TFLOPS", "FLOP").value == 6e12
    assert read_number("6 TFLOPs", "FLOP/s").value == 6e12


def test_unit_case_is_forgiven_only_when_unambiguous() -> None:
    assert read_number("1.5 gib", "B").value == 1.5 * 2**30
    assert read_number("5 MIN", "s").value == 300.0
    with pytest.raises(Unreadable, match="GB or Gb"):
        read_number("5 gb", "B")


def test_a_unit_of_the_wrong_dimension_names_both_dimensions() -> None:
    with pytest.raises(Unreadable) as caught:
        read_number("5 GB", "s")
    assert "time" in caught.value.message and "bytes" in caught.value.message
    assert caught.value.example == "17 days"  # never a reference figure (363 days is one)
    with pytest.raises(Unreadable, match="count"):
        read_number("8.8 GB", "param")


def test_a_decimal_comma_is_refused_with_a_hint() -> None:
    with pytest.raises(Unreadable, match="dot"):
        read_number("1,13 TB", "B")
    with pytest.raises(Unreadable, match="dot"):
        read_number("1.130,5 GB", "B")


@pytest.mark.parametrize("text", ["0^0", "0^-1", "0⁰"])
def test_zero_to_a_power_without_value_is_unreadable_not_a_decimal_error(text: str) -> None:
    # Regression: "0^0" reached Decimal's 0 ** 0, which raises InvalidOperation.
    with pytest.raises(Unreadable, match="no value"):
        read_number(text, "B")


def test_a_displayed_answer_with_both_prefixes_reads_back() -> None:
    assert read_number("1.13 TB (1.03 TiB)", "B").value == 1.13e12
    with pytest.raises(Unreadable, match="does not agree"):
        read_number("1.13 TB (2 TiB)", "B")


def test_an_unknown_expected_unit_is_a_programming_error_not_a_typo() -> None:
    with pytest.raises(ValueError) as caught:
        read_number("5", "GB")
    assert not isinstance(caught.value, Unreadable)


def test_unreadable_is_a_value_error_whose_text_is_the_message() -> None:
    with pytest.raises(ValueError) as caught:
        read_number("five", "1")
    assert isinstance(caught.value, Unreadable)
    assert str(caught.value) == caught.value.message


def test_unreadable_messages_are_sentences() -> None:
    refused = Unreadable("the answer is empty", "1")
    assert refused.message == "The answer is empty."
    assert Unreadable("Too long!", "1").message == "Too long!"


def test_reading_numbers_never_imports_sympy() -> None:
    code = (
        "import sys; from quiz.core.reading import read_number; "
        "read_number('1.13 TB', 'B'); print('sympy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- hostile input

HOSTILE = [
    "__import__('os').system('x')",
    "eval(1)",
    "10**10**10",
    "(" * 5000 + ")" * 5000,
    "9" * 100_000,
    "x" * 100_000,
    "٣٦٣ days",
    "１２ GB",  # full-width digits
    "NaN",
    "inf",
    "-inf",
    "∞",
    "1e400",
    "1,13 TB",
    "\x00\x1b[31m",
    "1\x00",
    "\u202e",
    "5\u200b GB",  # zero-width space
    "",
    "   ",
    "lambda: 0",
    "S(1)",
    "N",
    "E",
    "I",
]


@pytest.mark.parametrize("unit", BASE_UNITS)
@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t)[:30])
def test_hostile_numbers_are_unreadable_with_message_and_example(text: str, unit: str) -> None:
    with pytest.raises(Unreadable) as caught:
        read_number(text, unit)
    assert caught.value.message and caught.value.example


_PD = {"P": sympy.Symbol("P"), "D": sympy.Symbol("D")}


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t)[:30])
def test_hostile_formulas_are_unreadable_with_message_and_example(text: str) -> None:
    with pytest.raises(Unreadable) as caught:
        read_formula(text, _PD)
    assert caught.value.message and caught.value.example


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t)[:30])
def test_hostile_choices_never_crash(text: str) -> None:
    try:
        read_choice(text, ["all-reduce", "all-gather", "ring"], multi=True)
    except Unreadable as caught:
        assert caught.message and caught.example


# ---------------------------------------------------------------- formulas

P, D = _PD["P"], _PD["D"]
N, B = sympy.Symbol("N"), sympy.Symbol("B")
_NB = {"N": N, "B": B}


@pytest.mark.parametrize("text", ["6*P*D", "6 P D", "6PD", "6·P·D", "6 × P × D", "6(P)(D)", "6pd"])
def test_six_p_d_reads_the_same_in_every_spelling(text: str) -> None:
    reading = read_formula(text, _PD)
    assert reading.expr == 6 * P * D
    assert reading.read_as == "6*D*P"


def test_a_run_of_letters_prefers_a_whole_allowed_name() -> None:
    pd = sympy.Symbol("PD")
    assert read_formula("6PD", {**_PD, "PD": pd}).expr == 6 * pd


def test_a_run_of_letters_that_splits_two_ways_is_refused() -> None:
    names = {name: sympy.Symbol(name) for name in ("a", "ab", "b", "ba")}
    with pytest.raises(Unreadable, match="Unknown name"):
        read_formula("aba", names)


def test_unknown_names_are_listed_with_the_allowed_ones() -> None:
    with pytest.raises(Unreadable) as caught:
        read_formula("6*P*T", _PD)
    assert "'T'" in caught.value.message and "D, P" in caught.value.message


def test_sympy_names_mean_only_the_symbols_given() -> None:
    reading = read_formula("2*(N-1)/N*B", _NB)
    assert reading.expr.free_symbols == {N, B}
    assert not reading.expr.atoms(sympy.Function)
    assert reading.expr.subs({N: 4, B: 10}) == 15
    # N(1) is N times 1 here, never sympy's numeric-evaluation function.
    assert read_formula("N(1)", _NB).expr == N


def test_names_match_case_insensitively_when_unique() -> None:
    assert read_formula("n*b", _NB).expr == N * B
    both = {"N": N, "n": sympy.Symbol("n")}
    assert read_formula("n", both).expr == sympy.Symbol("n")


def test_precedence_follows_school_arithmetic() -> None:
    assert read_formula("-P^2", _PD).expr == -(P**2)
    assert read_formula("2^3^2", _PD).expr == 512
    assert read_formula("1/2P", _PD).expr == P / 2
    assert read_formula("P²", _PD).expr == P**2
    assert read_formula("P**-1", _PD).expr == 1 / P
    assert read_formula("1.5e3*P", _PD).expr == 1500 * P
    assert read_formula("0.1", _PD).expr == sympy.Rational(1, 10)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("2 3", "operator"),
        ("P 2", "operator"),
        ("1/0", "divides by zero"),
        ("P/(D-D)", "divides by zero"),
        ("P^65", "64"),
        ("10**10**10", "64"),
        ("(P", "never closed"),
        ("P)", "no matching"),
        ("P+", "ends"),
        ("P+" * 101 + "P", "more than 200"),
        ("(" * (MAX_DEPTH + 1) + "P" + ")" * (MAX_DEPTH + 1), "nested"),
        ("-" * 160 + "P", "nested too deeply"),
        ("P = D", "'='"),
        ("1e999", "exponents"),
        ("1e350", "outside the range"),
        ("P^" * 9 + "P", "stacked"),
        ("((2^64)^64)^(1/3)", "roots"),
    ],
)
def test_broken_formulas_say_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(Unreadable, match=f"(?i){problem}"):
        read_formula(text, _PD)


def test_nesting_up_to_the_limit_reads() -> None:
    text = "(" * MAX_DEPTH + "P" + ")" * MAX_DEPTH
    assert read_formula(text, _PD).expr == P


def test_ring_all_reduce_forms_are_equivalent() -> None:
    ring = read_formula("2*(N-1)/N*B", _NB).expr
    assert formulas_equivalent(ring, read_formula("2*B - 2*B/N", _NB).expr, [N, B])
    assert not formulas_equivalent(ring, read_formula("2*B", _NB).expr, [N, B])


def test_equivalence_respects_the_sign_of_symbols() -> None:
    assert formulas_equivalent(sympy.sqrt(P**2), P, [P])
    assert not formulas_equivalent(sympy.sqrt(P**2), P, [P], positive=False)


def test_equivalence_is_exact_where_floats_would_cancel() -> None:
    lhs = (P + 1) ** 64 - P**64
    rhs = sum(sympy.binomial(64, k) * P**k for k in range(64))
    assert formulas_equivalent(lhs, rhs, [P])
    assert not formulas_equivalent(lhs, rhs + 1, [P])


@pytest.mark.parametrize(
    ("a", "b"),
    [("x", "x"), (None, P), (sympy.zoo, P), (sympy.nan, sympy.nan), (P, sympy.oo)],
)
def test_equivalence_never_raises_on_odd_input(a: object, b: object) -> None:
    assert formulas_equivalent(a, b, [P]) in (True, False)


def test_equivalence_compares_float_coefficients_with_a_tolerance() -> None:
    assert formulas_equivalent(0.5 * P, P / 2, [P])
    assert not formulas_equivalent(0.5000001 * P, P / 2, [P])


def test_equivalence_of_a_power_tower_too_large_to_evaluate_is_false() -> None:
    # Regression: evaluating P^P^P^P at P ~ 50 kept mpmath busy for minutes.
    tower = read_formula("P^P^P^P", _PD).expr
    assert formulas_equivalent(tower, tower * (P + 1) / (P + 1), [P]) in (True, False)
    assert not formulas_equivalent(tower, P, [P])


def test_equivalence_gives_up_as_false_when_out_of_budget() -> None:
    assert formulas_equivalent(P + D, D + P + 0 * P, [P, D], budget=0) in (True, False)
    assert not formulas_equivalent((P + 1) ** 2, P**2 + 2 * P + 1, [P], budget=0)


def test_equivalence_does_not_depend_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression (issue 30): a 0.2 s wall-clock budget graded an equivalent formula
    # incorrect on a slow or loaded machine.
    rewritten = read_formula("6*P*D*(P^2-1)/((P-1)*(P+1))", _PD).expr
    other = read_formula("3*D*(P+P^2)/(1+P)*2", _PD).expr
    assert formulas_equivalent(rewritten, 6 * P * D, [P, D])
    assert formula_ratio(other, 3 * P * D, [P, D]) == 2
    race_the_clocks(monkeypatch)
    assert formulas_equivalent(rewritten, 6 * P * D, [P, D])
    assert formula_ratio(other, 3 * P * D, [P, D]) == 2


# ---------------------------------------------------------------- choices

CHOICES = ["all-reduce", "all-gather", "ring", "expert parallel"]


@pytest.mark.parametrize(
    ("text", "multi", "picked"),
    [
        ("a", False, ("all-reduce",)),
        ("C", False, ("ring",)),
        ("(b)", False, ("all-gather",)),
        ("3", False, ("ring",)),
        ("ring", False, ("ring",)),
        ("RING", False, ("ring",)),
        ("all-g", False, ("all-gather",)),
        ("e", False, ("expert parallel",)),  # no choice E, but a unique prefix
        ("A, C", True, ("all-reduce", "ring")),
        ("a c", True, ("all-reduce", "ring")),
        ("c and a", True, ("all-reduce", "ring")),
        ("1,3", True, ("all-reduce", "ring")),
        ("AC", True, ("all-reduce", "ring")),
        ("ring, all-reduce", True, ("all-reduce", "ring")),
    ],
)
def test_choices_read_by_letter_number_or_text(
    text: str, multi: bool, picked: tuple[str, ...]
) -> None:
    assert read_choice(text, CHOICES, multi).picked == picked


def test_choice_read_as_pairs_letters_with_texts() -> None:
    assert read_choice("a, c", CHOICES, True).read_as == "A: all-reduce; C: ring"


def test_choice_read_as_has_no_stop_before_a_semicolon() -> None:
    """Options written as sentences once read "A: x.; C: z." (a stray stop before each
    ";"); the last one keeps its stop, an ellipsis stays."""
    sentences = ["Reduce all.", "Gather all.", "Use a ring...", "Split experts."]
    assert read_choice("a, c, d", sentences, True).read_as == \
        "A: Reduce all; C: Use a ring...; D: Split experts."
    assert read_choice("a", sentences, False).read_as == "A: Reduce all."


@pytest.mark.parametrize(
    ("text", "multi", "problem"),
    [
        ("all", False, "more than one"),
        ("a, c", False, "only one"),
        ("5", False, "no choice 5"),
        ("f", False, "no choice F"),
        ("tree", False, "could not match"),
        ("", False, "no choice"),
    ],
)
def test_unmatched_choices_say_why(text: str, multi: bool, problem: str) -> None:
    with pytest.raises(Unreadable, match=f"(?i){problem}"):
        read_choice(text, CHOICES, multi)
