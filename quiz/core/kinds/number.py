"""Number answers: a value with a unit, graded within a tolerance.

The order of checks: read it (unreadable is *invalid* and costs nothing), then the key,
then other accepted conventions, then the template's known mistakes, then the generic
slips (GB vs GiB, bits vs bytes, off by a thousand), then a near miss. The first match
decides.
"""

from __future__ import annotations

import math
import re

from questions.variants import PartVariant
from quiz.core.kinds.base import Grade, Read, by_credit, invalid, relative_error
from quiz.core.reading import MAX_NUMBER_CHARS, Unreadable, read_number
from solver.units import format_value

__all__ = ["MAX_NEAR_MISS", "MAX_TOLERANCE", "check_key", "generic_slips", "grade", "read"]


def read(pv: PartVariant, text: str) -> Read:
    """Read a number with its unit (a bare number in the unit the prompt named).

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    key = pv.key
    assert key.unit is not None
    bare = pv.spec.answer.bare_unit
    # The length check comes first: _BARE backtracks quadratically on long digit runs.
    if bare and len(text) <= MAX_NUMBER_CHARS and _BARE.match(text):
        text = f"{text.strip()} {bare}"  # the prompt named the unit a bare number is in
    r = read_number(text, key.unit)
    return Read(r, r.read_as)


def check_key(pv: PartVariant) -> str | None:
    """A numeric key must be a finite positive number."""
    value = pv.key.value
    if value is None or not math.isfinite(value) or value <= 0:
        return f"not a finite positive number: {value}"
    return None


def generic_slips(key: float, unit: str) -> list[tuple[str, float, float, str]]:
    """Slips any numeric answer can make: (name, value, credit, feedback)."""
    slips: list[tuple[str, float, float, str]] = []
    if unit in ("B", "B/s"):
        for n, prefix in ((3, "G"), (4, "T"), (2, "M")):
            ratio = 2 ** (10 * n) / 10 ** (3 * n)
            slips.append((f"{prefix}B vs {prefix}iB", key / ratio, 0.5,
                          f"Your number is the key expressed in {prefix}iB but labelled "
                          f"{prefix}B (or the reverse): 1 {prefix}iB = {ratio:.4f} "
                          f"{prefix}B."))
        slips.append(("bits vs bytes", key * 8, 0.25,
                      "That is the key in bits: a byte is 8 bits (Gb vs GB)."))
        slips.append(("bits vs bytes", key / 8, 0.25,
                      "That is the key divided by 8: a bandwidth in Gb/s must be divided "
                      "by 8 to get GB/s, not the other way round."))
    for factor, words in ((1e3, "a thousand"), (1e-3, "a thousand"), (1e6, "a million"),
                          (1e-6, "a million")):
        slips.append((f"off by {words}", key * factor, 0.0,
                      f"Right digits, wrong power of ten: off by {words}. Check the unit "
                      "prefix (k, M, G, T) or a forgotten conversion."))
    return slips


MAX_TOLERANCE = 0.5
"""Largest relative tolerance, whatever the template and the tolerance setting say: the
accepted band [key/2, 3*key/2] never reaches 0 or a negative number."""
MAX_NEAR_MISS = 0.9
"""Largest relative error still called close (half credit); below 1, so 0 never is."""

_BARE = re.compile(r"^\s*[~≈]?\s*[-+]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def grade(pv: PartVariant, text: str, scale: float) -> Grade:
    key = pv.key
    assert key.value is not None and key.unit is not None
    try:
        r = read(pv, text).value
    except Unreadable as exc:
        return invalid(pv, exc.message, exc.example)
    tol = min(key.tolerance * scale, MAX_TOLERANCE)
    if relative_error(r.value, key.value) <= tol:
        return Grade("correct", 1.0, r.read_as, None,
                     f"Correct: the key is {key.display}.", key)
    for acc in pv.accepted:
        if relative_error(r.value, acc.value) <= tol:
            return Grade("correct", 1.0, r.read_as, None,
                         f"Correct under another convention ({acc.name}): {acc.note} "
                         f"This app's default gives {key.display}.", key)
    for m in pv.mistakes:
        if m.value is not None and relative_error(m.value, key.value) > tol and \
                relative_error(r.value, m.value) <= tol:
            verdict = by_credit(m.credit)
            return Grade(verdict, m.credit, r.read_as, m.name, m.feedback, key)
    for name, value, credit, feedback in generic_slips(key.value, key.unit):
        if relative_error(value, key.value) > tol and relative_error(r.value, value) <= tol:
            verdict = by_credit(credit)
            return Grade(verdict, credit, r.read_as, name, feedback, key)
    err = relative_error(r.value, key.value)
    if err <= min(2.5 * tol, MAX_NEAR_MISS):
        return Grade("partial", 0.5, r.read_as, None,
                     f"Close, but {err:.1%} off; the tolerance is {tol:.0%}. Check your "
                     f"rounding: the key is {key.display}.", key)
    direction = "high" if r.value > key.value else "low"
    times = r.value / key.value if key.value else math.inf
    return Grade("incorrect", 0.0, r.read_as, None,
                 f"Not quite: {format_value(r.value, key.unit)} is {times:.3g}x the key "
                 f"({key.display}), too {direction}.", key)
