"""Property tests of the readers: any text at all is read or refused as Unreadable, and
generated well-formed answers always read to the value they were built from."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest
import sympy
from helpers import FUZZ_EXAMPLES
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from quiz.core.reading import Unreadable, read_choice, read_formula, read_number
from solver.units import BASE_UNITS, DAY, HOUR, MINUTE, MONTH, YEAR

FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None,
                suppress_health_check=list(HealthCheck))

SYMBOLS = {name: sympy.Symbol(name) for name in ("P", "D", "N", "B", "d_h")}
CHOICES = ["all-reduce", "all-gather", "ring", "tree"]

# Pieces of real answers, so that random text lands near the grammar's edges far more
# often than arbitrary characters would.
PIECES = [
    "0", "1", "7", "10", "130", "999", ".", ",", " ", "  ", "e", "E", "-", "+", "−", "^",
    "**", "*", "x", "×", "·", "(", ")", "[", "]", "{", "}", "/", "²", "⁴", "⁻", "%", "~",
    "≈", "B", "b", "GB", "Gb", "TiB", "gb", "s", "ms", "days", "year", "FLOP", "TFLOPS",
    "FLOP/s", "K", "M", "T", "bn", "billion", "per", "P", "D", "N", "d_h", "PD", "nan", "inf",
    "\u00a0", "\u202e", "\x00", "٣", "10^", "e400", "e-400", "1,13", "1 130", "about ",
]  # fmt: skip


def _never_crashes(text: str) -> None:
    for unit in BASE_UNITS:
        try:
            read_number(text, unit)
        except Unreadable as refused:
            assert refused.message and refused.example
    try:
        read_formula(text, SYMBOLS)
    except Unreadable as refused:
        assert refused.message and refused.example
    for multi in (False, True):
        try:
            read_choice(text, CHOICES, multi)
        except Unreadable as refused:
            assert refused.message and refused.example


@FUZZ
@given(text=st.text())
def test_arbitrary_text_is_read_or_unreadable_never_an_error(text: str) -> None:
    _never_crashes(text)


@FUZZ
@given(text=st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_answer_shaped_text_is_read_or_unreadable_never_an_error(text: str) -> None:
    _never_crashes(text)


# ---------------------------------------------------------------- well-formed numbers

SPELLINGS: dict[str, list[tuple[str, float]]] = {
    "B": [
        ("", 1), (" B", 1), (" bytes", 1), (" kB", 1e3), (" MB", 1e6), ("GB", 1e9),
        (" TB", 1e12), (" terabytes", 1e12), (" PB", 1e15), (" KiB", 2**10), (" MiB", 2**20),
        (" GiB", 2**30), ("TiB", 2**40), (" Gb", 1e9 / 8), (" Gbit", 1e9 / 8), (" bits", 1 / 8),
        (" billion", 1e9),
    ],
    "s": [
        ("", 1), (" s", 1), (" sec", 1), (" ms", 1e-3), (" µs", 1e-6), (" min", MINUTE),
        ("h", HOUR), (" hours", HOUR), (" d", DAY), (" days", DAY), (" weeks", 7 * DAY),
        (" months", MONTH), (" yr", YEAR), (" years", YEAR), (" centuries", 100 * YEAR),
    ],
    "FLOP": [
        ("", 1), (" FLOP", 1), (" FLOPs", 1), (" TFLOP", 1e12), (" PFLOP", 1e15),
        (" EFLOP", 1e18), ("B", 1e9), ("T", 1e12), (" trillion", 1e12),
    ],
    "param": [
        ("", 1), ("K", 1e3), ("M", 1e6), ("B", 1e9), (" bn", 1e9), (" billion", 1e9),
        ("T", 1e12), (" params", 1), ("B params", 1e9), (" million parameters", 1e6),
    ],
    "B/s": [
        ("", 1), (" B/s", 1), (" GB/s", 1e9), (" Gb/s", 1e9 / 8), (" Gbps", 1e9 / 8),
        (" GB per second", 1e9), (" MiB/s", 2**20), (" TB/s", 1e12),
    ],
    "FLOP/s": [
        ("", 1), (" FLOP/s", 1), (" TFLOP/s", 1e12), (" TFLOPS", 1e12), (" PFLOPS", 1e15),
        (" GFLOP/s", 1e9),
    ],
    "1": [("", 1), ("%", 0.01), (" percent", 0.01), ("x", 1), (" GPUs", 1), ("K", 1e3)],
    "tokens": [("", 1), (" tokens", 1), ("T tokens", 1e12), (" billion tokens", 1e9),
               ("K", 1e3), (" tok", 1)],
    "requests": [("", 1), (" requests", 1), (" req", 1), ("K requests", 1e3)],
    "1/s": [("", 1), ("/s", 1), (" per second", 1), (" per minute", 1 / 60), ("/h", 1 / 3600),
            (" steps/s", 1), ("k/s", 1e3), (" Hz", 1)],
    "tokens/s": [("", 1), (" tokens/s", 1), (" tok/s", 1), ("k tokens/s", 1e3),
                 (" tokens per second", 1), (" tokens/min", 1 / 60), (" million tokens/s", 1e6)],
    "requests/s": [("", 1), (" requests/s", 1), (" req/s", 1), (" requests per minute", 1 / 60),
                   ("/s", 1)],
}  # fmt: skip


@dataclass(frozen=True)
class NumberAnswer:
    text: str
    unit: str
    value: float


@st.composite
def number_answers(draw: st.DrawFn) -> NumberAnswer:
    unit = draw(st.sampled_from(BASE_UNITS))
    suffix, factor = draw(st.sampled_from(SPELLINGS[unit]))
    whole = draw(st.integers(0, 10**7))
    decimals = draw(st.text("0123456789", max_size=4))
    exponent = draw(st.integers(-30, 30))
    negative = draw(st.booleans())
    grouped = draw(st.sampled_from(["", ",", " ", "\u202f"]))
    digits = f"{whole:,}".replace(",", grouped) if grouped and whole >= 1000 else str(whole)
    mantissa = f"{digits}.{decimals}" if decimals else digits
    style = draw(st.sampled_from(["", "e{}", "E{}", " x 10^{}", "×10^({})", "*10**{}", "·10{}"]))
    if style == "·10{}":
        sup = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
        power = f"·10{sup}"
    elif style:
        power = style.format(exponent)
    else:
        power, exponent = "", 0
    prefix = draw(st.sampled_from(["", "~", "≈ ", "about "]))
    sign = "-" if negative else ""
    text = f"{prefix}{sign}{mantissa}{power}{suffix}"
    value = float(
        Fraction(f"{whole}.{decimals or 0}") * Fraction(10) ** exponent * Fraction(factor)
    )
    return NumberAnswer(text, unit, -value if negative else value)


@FUZZ
@given(answer=number_answers())
def test_well_formed_numbers_read_to_the_value_they_were_built_from(answer: NumberAnswer) -> None:
    reading = read_number(answer.text, answer.unit)
    assert reading.value == pytest.approx(answer.value, rel=1e-12, abs=1e-300), answer.text


# ---------------------------------------------------------------- well-formed formulas

POINT = {
    "P": Fraction(3),
    "D": Fraction(7),
    "N": Fraction(5),
    "B": Fraction(11),
    "d_h": Fraction(2),
}


@dataclass(frozen=True)
class Formula:
    text: str
    value: Fraction
    compound: bool  # needs parentheses to be an operand


def _leaf() -> st.SearchStrategy[Formula]:
    names = st.sampled_from(sorted(POINT)).map(lambda n: Formula(n, POINT[n], False))
    integers = st.integers(0, 999).map(lambda i: Formula(str(i), Fraction(i), False))
    decimals = st.tuples(st.integers(0, 99), st.integers(1, 99)).map(
        lambda t: Formula(f"{t[0]}.{t[1]:02d}", Fraction(f"{t[0]}.{t[1]:02d}"), False)
    )
    return st.one_of(names, integers, decimals)


def _wrap(f: Formula, brackets: str) -> str:
    return f"{brackets[0]}{f.text}{brackets[1]}" if f.compound else f.text


@st.composite
def _node(draw: st.DrawFn, children: st.SearchStrategy[Formula]) -> Formula:
    op = draw(st.sampled_from(["+", "-", "*", "/", "^", "neg"]))
    brackets = draw(st.sampled_from(["()", "[]"]))
    left = draw(children)
    if op == "neg":
        return Formula(f"-{_wrap(left, brackets)}", -left.value, True)
    if op == "^":
        power = draw(st.integers(0, 3))
        assume(left.value != 0 or power > 0)
        spelled = draw(st.sampled_from(["^{}", "**{}", " ^ {}", "sup"]))
        exponent = "⁰¹²³"[power] if spelled == "sup" else spelled.format(power)
        base = f"({left.text})" if left.compound or left.text.startswith("-") else left.text
        return Formula(f"{base}{exponent}", left.value**power, True)
    right = draw(children)
    lhs, rhs = _wrap(left, brackets), _wrap(right, brackets)
    if op == "+":
        return Formula(f"{lhs} + {rhs}", left.value + right.value, True)
    if op == "-":
        return Formula(f"{lhs} - {rhs}", left.value - right.value, True)
    if op == "/":
        assume(right.value != 0)
        return Formula(f"{lhs}/{rhs}", left.value / right.value, True)
    # Implicit multiplication only before a name or a bracket, as the reader allows.
    implicit = rhs[0] in "([" or rhs[0].isalpha()
    times = draw(st.sampled_from(["*", " * ", "×", "·", " "] if implicit else ["*", " × "]))
    return Formula(f"{lhs}{times}{rhs}", left.value * right.value, True)


FORMULAS = st.recursive(_leaf(), lambda children: _node(children), max_leaves=8)


@FUZZ
@given(formula=FORMULAS)
def test_well_formed_formulas_read_to_the_value_they_were_built_from(formula: Formula) -> None:
    reading = read_formula(formula.text, SYMBOLS)
    point = {SYMBOLS[name]: sympy.Rational(v.numerator, v.denominator) for name, v in POINT.items()}
    got = reading.expr.xreplace(point)
    assert got == sympy.Rational(formula.value.numerator, formula.value.denominator), formula.text
    # What the reader shows can be typed back in.
    assert read_formula(reading.read_as, SYMBOLS).expr.xreplace(point) == got
