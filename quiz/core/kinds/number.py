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
from quiz.core.reading import MAX_NUMBER_CHARS, Reading, Unreadable, read_number
from solver.units import COUNT_FAMILY, UNITS, format_value

__all__ = ["MAX_NEAR_MISS", "MAX_TOLERANCE", "check_key", "generic_slips", "grade", "read"]


def read(pv: PartVariant, text: str) -> Read:
    """Read a number the way a candidate types it.

    Besides what :func:`quiz.core.reading.read_number` reads: a left-hand side
    (``M = 22.8 GB``), a remark in words (``22.8 GB (unchanged)``), a count with its noun
    (``128 collectives``), products and quotients of plain numbers with one unit
    (``2*14e9*2*31/32 B``, ``7/32``), lower-case byte prefixes on a bytes question
    (``17 gb``, said in the read-as line), and a bare number in the unit the prompt
    named. A bare number where bytes, FLOPs or a rate are asked and the prompt names no
    unit is refused (799 what?), and so is ``m`` on a time question (minutes or metres?).

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    key = pv.key
    unit = key.unit
    assert unit is not None and key.value is not None
    if len(text) > MAX_NUMBER_CHARS:
        r = read_number(text, unit, avoid=key.value)  # refuses with its own message
        return Read(r, r.read_as)
    cleaned = text.strip()
    notes: list[str] = []
    if (m := _LHS.match(cleaned)) and "=" not in cleaned[m.end():]:
        cleaned = cleaned[m.end():]
    if m := _REMARK.match(cleaned):
        cleaned = m["body"]
    cleaned = _arithmetic(cleaned, unit)
    if unit == "B" and (m := _LOWER_BYTES.match(cleaned)):
        cleaned = f"{m['number']}{m['prefix'].upper()}B"
        notes.append(f"'{m['prefix']}b' read as {m['prefix'].upper()}B: the question asks "
                     "for bytes")
    if unit == "s" and (m := _METRES.match(cleaned)):
        raise Unreadable("'m' could be minutes or metres: write min for minutes",
                         f"{m['number']} min")
    if _BARE.match(cleaned):
        bare = pv.spec.answer.bare_unit
        if bare:
            cleaned = f"{cleaned} {bare}"  # the prompt named the unit a bare number is in
        elif unit in _NEEDS_UNIT:
            word = key.display.split()[-1] if " " in key.display else unit
            raise Unreadable(f"add a unit: {cleaned.lstrip('~≈ ')} what?",
                             f"{cleaned.lstrip('~≈ ')} {word}")
        elif unit == "1" and _percent_allowed(pv) and key.value <= 1 and \
                1 < _plain(cleaned) <= 100 and not any(
                    m.value is not None and relative_error(_plain(cleaned), m.value)
                    <= key.tolerance for m in pv.mistakes):
            # (a named mistake above 1, such as a bubble times v, is read as typed)
            cleaned = f"{cleaned} %"
            notes.append("read as a percentage: a fraction cannot exceed 1")
    try:
        r = read_number(cleaned, unit, avoid=key.value)
    except Unreadable:
        m = _NOUN.match(cleaned)
        if unit not in _COUNTABLE or m is None or m["noun"] in UNITS:
            raise
        r = read_number(m["body"], unit, avoid=key.value)  # "128 collectives"
    read_as = r.read_as + (f" ({'; '.join(notes)})" if notes else "")
    reading = Reading(r.value, r.unit, read_as, cleaned)
    return Read(reading, read_as)


_NEEDS_UNIT = frozenset({"B", "FLOP", "B/s", "FLOP/s"})
"""Where a bare number could mean anything from bytes to terabytes."""
_COUNTABLE = COUNT_FAMILY
_LHS = re.compile(r"^\s*[A-Za-z][\w ()-]{0,40}?\s*=\s*(?=\S)")
_REMARK = re.compile(r"^(?P<body>.*?\d.*?\S)\s*\((?P<remark>[^()\d]*)\)\s*$")
_LOWER_BYTES = re.compile(r"^(?P<number>.*\d\s*)(?P<prefix>[kmgtp])b$")
_METRES = re.compile(r"^(?P<number>.*\d)\s*m$")
_NOUN = re.compile(r"^(?P<body>[^A-Za-z]*\d[^A-Za-z]*(?:\s*(?:thousand|million|billion|"
                   r"[kKMBT]))?)\s+(?P<noun>[A-Za-z][A-Za-z-]{1,30})\s*$")
_NUM = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d{1,3})?"
_PRODUCT = re.compile(rf"^\s*(?P<expr>{_NUM}(?:\s*[*/×·x]\s*{_NUM}){{1,20}})\s*"
                      r"(?P<unit>[^\d*/×·+()=-]*)$")
_SCIENTIFIC = re.compile(r"[*×x·]\s*10\s*(?:\^|\*\*|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺])")
_SUM = re.compile(rf"{_NUM}\s*[-+]\s*{_NUM}|\(")


def _arithmetic(text: str, unit: str) -> str:
    """``2*14e9*2*31/32 B`` → its value with the unit; sums and brackets are refused
    with a message saying so (a product of plain numbers is all a number answer reads).
    """
    if _SCIENTIFIC.search(text):
        return text  # 7.47×10¹¹, 6.3 x 10^24: the reader's own notation
    m = _PRODUCT.match(text)
    if m is None:
        if _SUM.search(text) and re.search(r"[*/×·]", text):
            raise Unreadable("only products and quotients of plain numbers are read in a "
                             "number answer (no sums or brackets): work those out first",
                             "2*14e9*2*31/32 B")
        return text
    from fractions import Fraction

    value = Fraction(1)
    for op, number in re.findall(rf"(^|[*/×·x])\s*({_NUM})", m["expr"].replace(" ", "")):
        n = Fraction(number)
        if op == "/":
            if n == 0:
                raise Unreadable("that is a division by zero", "7/32")
            value /= n
        else:
            value *= n
    try:
        result = float(value)
    except OverflowError:  # 9e307*9: past float range (it crashed the reader)
        raise Unreadable("that number is too large to work with", "2*14e9*2*31/32 B") from None
    if result == 0 and value != 0:
        raise Unreadable("that number is too small to work with", "2*14e9*2*31/32 B")
    return f"{result:.15g} {m['unit'].strip()}".strip()


def _plain(text: str) -> float:
    return float(text.strip().lstrip("~≈ ").replace(",", ""))


def _percent_allowed(pv: PartVariant) -> bool:
    """The prompt offers a percentage (a bare 31.3 is then 31.3 %, not 31.3)."""
    return "percent" in pv.prompt.lower()


def check_key(pv: PartVariant) -> str | None:
    """A numeric key must be a finite positive number."""
    value = pv.key.value
    if value is None or not math.isfinite(value) or value <= 0:
        return f"not a finite positive number: {value}"
    return None


def generic_slips(key: float, unit: str, reading: Reading,
                  tol: float) -> tuple[str, float, str] | None:
    """A slip any numeric answer can make, when the typed text supports it:
    (name, credit, feedback), or None.

    * GB vs GiB: the typed number is the key converted between SI and IEC (within
      0.5 %) *and* the typed unit carries the mislabelled prefix; 1 TB for 1.13 TB is
      rounding, not a TiB mislabel.
    * bits vs bytes: a ×8 match (÷8 for a rate), never on a bytes question answered in
      bits (that is read as bytes already).
    * off by a thousand: a ×1000 or ÷1000 match.
    """
    typed = reading.text
    value = reading.value
    if unit in ("B", "B/s"):
        for n, prefix in ((2, "M"), (3, "G"), (4, "T"), (5, "P")):
            ratio = 2 ** (10 * n) / 10 ** (3 * n)
            si = re.search(rf"(?<![A-Za-z]){prefix}B", typed)
            iec = re.search(rf"(?<![A-Za-z]){prefix}iB", typed)
            if (si and relative_error(value, key / ratio) <= 0.005) or (
                    iec and relative_error(value, key * ratio) <= 0.005):
                return (f"{prefix}B vs {prefix}iB", 0.5,
                        f"Your number is the key expressed in {prefix}iB but labelled "
                        f"{prefix}B (or the reverse): 1 {prefix}iB = {ratio:.4f} "
                        f"{prefix}B.")
        in_bits = re.search(r"\d\s*[kKMGTPE]?i?(?:b|bit|bits)(?:/s|ps)?\s*$", typed)
        if relative_error(value, key * 8) <= tol and not (unit == "B" and in_bits):
            return ("bits vs bytes", 0.25,
                    "That is the key times 8: the key in bits, labelled as bytes (a byte "
                    "is 8 bits).")
        if unit == "B/s" and relative_error(value, key / 8) <= tol:
            return ("bits vs bytes", 0.25,
                    "That is the key divided by 8: a bandwidth in Gb/s must be divided by 8 "
                    "to get GB/s, not the other way round.")
    for factor in (1e3, 1e-3):
        if relative_error(value, key * factor) <= tol:
            return ("off by a thousand", 0.0,
                    "Right digits, wrong power of ten: off by a thousand. Check the unit "
                    "prefix (k, M, G, T) or a forgotten conversion.")
    return None


def rounding_tolerance(key: float) -> float:
    """The relative error of the key rounded to two significant figures, at worst: an
    interviewer accepts 1.3 s for 1.26 s, 140 GB for 135 GB, 130 million for 125 million.

    >>> round(rounding_tolerance(1.26), 4), round(rounding_tolerance(9.9), 4)
    (0.0397, 0.0051)
    """
    if key == 0 or not math.isfinite(key):
        return 0.0
    half_unit = 0.5 * 10.0 ** (math.floor(math.log10(abs(key))) - 1)
    return float(half_unit / abs(key) * (1 + 1e-9))


def right_count(value: float, key: float) -> bool:
    """Whether two counts round to the same whole number."""
    return round(value) == round(key)


def _count_mode(pv: PartVariant) -> str:
    from questions.kinds.number import count_mode

    return count_mode(pv.spec.answer)


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
    count = _count_mode(pv)
    if count:
        low, high = (math.floor(key.value), math.ceil(key.value)) if count == "either" \
            else (round(key.value), round(key.value))
        right = low - 1e-9 <= r.value <= high + 1e-9
        accept = 0.0  # other conventions: the same count, exactly
    else:
        right = relative_error(r.value, key.value) <= max(tol, rounding_tolerance(key.value))
        accept = tol
    if right:
        return Grade("correct", 1.0, r.read_as, None,
                     f"Correct: the key is {key.display}.", key)
    for acc in pv.accepted:
        if relative_error(r.value, acc.value) <= max(accept, 1e-9):
            return Grade("correct", 1.0, r.read_as, None,
                         f"Correct under another convention ({acc.name}): {acc.note} "
                         f"This app's default gives {key.display}.", key)
    for m in pv.mistakes:
        if m.value is None:
            continue
        if count:  # a count matches a mistake's count: its floor, its ceiling
            hit = math.floor(m.value) - 1e-9 <= r.value <= math.ceil(m.value) + 1e-9 \
                and not right_count(m.value, key.value)
        else:
            hit = relative_error(m.value, key.value) > tol and \
                relative_error(r.value, m.value) <= tol
        if hit:
            verdict = by_credit(m.credit)
            return Grade(verdict, m.credit, r.read_as, m.name, m.feedback, key)
    slip = generic_slips(key.value, key.unit, r, tol)
    if slip is not None:
        name, credit, feedback = slip
        return Grade(by_credit(credit), credit, r.read_as, name, feedback, key)
    err = relative_error(r.value, key.value)
    if count:
        return Grade("incorrect", 0.0, r.read_as, None,
                     f"Not quite: a count is right only exactly; the key is "
                     f"{key.display}.", key)
    if err <= min(2.5 * tol, MAX_NEAR_MISS):
        # Close is not right, and an unnamed miss earns no credit.
        return Grade("incorrect", 0.0, r.read_as, None,
                     f"Close, but {err:.1%} off; the tolerance is {tol:.0%}. Check your "
                     f"arithmetic: the key is {key.display}.", key)
    direction = "high" if r.value > key.value else "low"
    times = r.value / key.value if key.value else math.inf
    return Grade("incorrect", 0.0, r.read_as, None,
                 f"Not quite: {format_value(r.value, key.unit)} is {times:.3g}x the key "
                 f"({key.display}), too {direction}.", key)
