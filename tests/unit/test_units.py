"""How values are shown, and that every shown value reads back as the same value."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.core.reading import read_number
from solver.units import BASE_UNITS, DAY, MONTH, UNITS, YEAR, format_both, format_value

DISPLAYS = [
    (1.128e12, "B", "1.13 TB"),
    (2.28e9, "B", "2.28 GB"),
    (33.55e6, "B", "33.6 MB"),
    (2**25, "B", "33.6 MB"),
    (0.5, "B", "0.5 B"),
    (3.136e7, "s", "363 days"),
    (1.603e10, "s", "508 years"),
    (1.6e10, "s", "507 years"),
    (0.438, "s", "0.438 s"),
    (0.0012, "s", "1.2 ms"),
    (0.05, "s", "50 ms"),
    (90.0, "s", "1.5 min"),
    (7200.0, "s", "2 h"),
    (86400.0, "s", "1 day"),
    (11 * 86400.0, "s", "11 days"),
    (YEAR, "s", "1 year"),
    (59.99, "s", "1 min"),
    (2e-6, "s", "2 µs"),
    (6.35e24, "FLOP", "6.35e24 FLOP"),
    (6.3e24, "FLOP", "6.3e24 FLOP"),
    (396e12, "FLOP/s", "396 TFLOP/s"),
    (989e12, "FLOP/s", "989 TFLOP/s"),
    (50e9, "B/s", "50 GB/s"),
    (450e9, "B/s", "450 GB/s"),
    (70.55e9, "param", "70.6 billion"),
    (8.82e9, "param", "8.82 billion"),
    (175e9, "param", "175 billion"),
    (1.2e6, "param", "1.2 million"),
    (1.05e12, "param", "1.05 trillion"),
    (512.0, "param", "512"),
    (0.125, "1", "0.125"),
    (16.4, "1", "16.4"),
    (512.0, "1", "512"),
    (16384.0, "1", "16,384"),
    (1.5e-5, "1", "1.5e-5"),
    (2.5e6, "1", "2.5e6"),
]


@pytest.mark.parametrize(("value", "unit", "shown"), DISPLAYS)
def test_values_show_with_the_best_prefix_and_three_digits(
    value: float, unit: str, shown: str
) -> None:
    assert format_value(value, unit) == shown


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [(1.128e12, "B", "1.03 TiB"), (2**31, "B", "2 GiB"), (1020 * 1024, "B", "0.996 MiB")],
)
def test_binary_prefixes_on_request(value: float, unit: str, shown: str) -> None:
    assert format_value(value, unit, binary=True) == shown


def test_bytes_show_both_prefix_systems_other_units_one() -> None:
    assert format_both(1.128e12, "B") == "1.13 TB (1.03 TiB)"
    assert format_both(512, "B") == "512 B"
    assert format_both(396e12, "FLOP/s") == "396 TFLOP/s"


@pytest.mark.parametrize("unit", BASE_UNITS)
def test_zero_and_negative_values_show_plainly(unit: str) -> None:
    assert format_value(0.0, unit).startswith("0")
    assert format_value(-0.0, unit) == format_value(0.0, unit)
    assert format_value(-1.128e12, unit).startswith("-")


@pytest.mark.parametrize("unit", BASE_UNITS)
def test_no_display_looks_like_python_repr(unit: str) -> None:
    for exponent in range(-15, 40):
        shown = format_value(1.234 * 10.0**exponent, unit)
        assert "e+" not in shown and "e-0" not in shown and ".0 " not in shown, shown


def test_digits_controls_precision() -> None:
    assert format_value(1.128e12, "B", digits=4) == "1.128 TB"
    assert format_value(1.128e12, "B", digits=1) == "1 TB"
    with pytest.raises(ValueError):
        format_value(1.0, "B", digits=0)


def test_an_unknown_base_unit_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown base unit"):
        format_value(1.0, "GB")


def test_time_factors_follow_the_julian_year() -> None:
    assert YEAR == 365.25 * DAY == 31_557_600
    assert round(MONTH / DAY, 2) == 30.44
    assert UNITS["month"] == (MONTH, "s")


def test_units_tell_bits_from_bytes_by_case() -> None:
    assert UNITS["GB"] == (1e9, "B")
    assert UNITS["Gb"] == (1e9 / 8, "B")
    assert UNITS["Gb/s"] == (1e9 / 8, "B/s")
    assert UNITS["GiB"] == (2.0**30, "B")
    assert "gb" not in UNITS  # ambiguous: the reader asks which was meant


def test_every_unit_maps_to_a_base_unit() -> None:
    for spelling, (factor, base) in UNITS.items():
        assert base in BASE_UNITS, spelling
        assert factor > 0 and math.isfinite(factor), spelling


def test_units_module_does_not_import_sympy() -> None:
    code = "import sys, solver.units; print('sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


_MAGNITUDES = st.floats(min_value=1e-9, max_value=1e27, allow_nan=False, allow_infinity=False)


@settings(max_examples=500, deadline=None)
@given(magnitude=_MAGNITUDES, negative=st.booleans(), unit=st.sampled_from(BASE_UNITS))
def test_every_display_reads_back_within_half_a_percent(
    magnitude: float, negative: bool, unit: str
) -> None:
    value = -magnitude if negative else magnitude
    for shown in (format_value(value, unit), format_both(value, unit)):
        assert read_number(shown, unit).value == pytest.approx(value, rel=0.005 + 1e-12), shown


@settings(max_examples=300, deadline=None)
@given(magnitude=_MAGNITUDES, unit=st.sampled_from(["B", "B/s"]))
def test_binary_displays_read_back_too(magnitude: float, unit: str) -> None:
    shown = format_value(magnitude, unit, binary=True)
    assert read_number(shown, unit).value == pytest.approx(magnitude, rel=0.005 + 1e-12), shown


@pytest.mark.parametrize("unit", ["B", "s", "FLOP", "param", "B/s", "1", "tokens/s"])
def test_the_largest_floats_show_without_overflowing_when_rounded(unit: str) -> None:
    # Regression: rounding 1.7976e308 to 3 digits overflowed to inf, and showing it
    # raised IndexError; `quiz check ... --answer "1.7976e308 FLOP"` was an internal error.
    for value in (1.7976e308, -1.5e308):
        for digits in (1, 3):
            assert "e" in format_value(value, unit, digits=digits)


def test_answers_at_the_ends_of_the_floats_are_read_not_a_crash() -> None:
    # Regression: "5e-324 B" raised ZeroDivisionError (10.0**-324 is 0.0), and 1e-320
    # read as "10e-321".
    assert read_number("1.7976e308 FLOP", "FLOP").read_as.endswith("1.8e308 FLOP")
    assert read_number("5e-324 B", "B").read_as.endswith("4.94e-324 B")
    assert read_number("1e-320", "1").read_as.endswith("1e-320")
