"""Number answers: a value with a unit, graded within a tolerance.

The order of checks: read it (unreadable is *invalid* and costs nothing), then the key,
then other accepted conventions, then the template's known mistakes, then the generic
slips (GB vs GiB, bits vs bytes, off by a thousand), then a near miss. The first match
decides.
"""

from __future__ import annotations

import math
import re

from questions.kinds.number import GIB_DISPLAY_SLIP, answer, known, mistake_value
from questions.variants import KnownMistake, PartVariant
from quiz.core.kinds.base import Grade, Read, by_credit, invalid, relative_error
from quiz.core.reading import MAX_NUMBER_CHARS, Reading, Unreadable, read_number
from solver.units import COUNT_FAMILY, UNITS, format_value

__all__ = ["MAX_NEAR_MISS", "MAX_TOLERANCE", "accepted_text", "check_key", "generic_slips",
           "grade", "mistake_answer", "mistake_clash", "read", "tolerance_words"]


def read(pv: PartVariant, text: str) -> Read:
    """Read a number the way a candidate types it.

    Besides what :func:`quiz.core.reading.read_number` reads: words around the number
    that do not change it (``about``, ``roughly``, ``~``, ``or so``, a remark in
    brackets such as ``(unchanged)``), a left-hand side (``M = 22.8 GB``), a count with
    its noun (``128 collectives``, ``310 token copies``), products and quotients of
    plain numbers with one unit (``2*14e9*2*31/32 B``, ``7/32``), lower-case byte
    prefixes on a bytes question (``17 gb``, said in the read-as line), money where the
    question asks for dollars (``$1.89``, ``$8.45M``, ``7.5 cents``, ``0.88 $/Mtok``),
    the inequality a threshold question is answered with (``B > 312.5``, ``at least
    313``), and a bare number in the unit the prompt named. A bare number where bytes,
    a time or a rate is asked and the prompt names no unit is refused (799 what?), and
    so is ``m`` on a time question (minutes or metres?). A bare count of FLOPs reads as
    that count (``3.5e24``).

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    key = pv.key
    unit = key.unit
    assert unit is not None and key.value is not None
    if len(text) > MAX_NUMBER_CHARS:
        r = read_number(text, unit, avoid=key.value)  # refuses with its own message
        return Read(r, r.read_as)
    notes: list[str] = []
    cleaned = _COMPOUND.sub(r"\1-\2", _unwrap(text))
    money = None
    if unit == "1" and money_question(pv):
        cleaned, money = _money(cleaned, pv)
    if threshold_question(pv):
        cleaned = _unwrap(_THRESHOLD.sub("", cleaned, count=1))
    cleaned = _arithmetic(cleaned, unit)
    if unit == "B" and (m := _LOWER_BYTES.match(cleaned)):
        cleaned = f"{m['number']}{m['prefix'].upper()}B"
        notes.append(f"'{m['prefix']}b' read as {m['prefix'].upper()}B: the question asks "
                     "for bytes")
    if unit == "s" and (m := _METRES.match(cleaned)):
        raise Unreadable("'m' could be minutes or metres: write min for minutes",
                         f"{m['number']} min")
    if _BARE.match(cleaned):
        bare = answer(pv.spec).bare_unit
        if bare:
            cleaned = f"{cleaned} {bare}"  # the prompt named the unit a bare number is in
        elif unit in _NEEDS_UNIT or (unit == "FLOP" and abs(_plain(cleaned)) < _FLOP_COUNT):
            word = key.display.split()[-1] if " " in key.display else unit
            raise Unreadable(f"add a unit: {cleaned} what?", f"{cleaned} {word}")
        elif unit == "1" and money is None and _percent_allowed(pv) and key.value <= 1 \
                and 1 < _plain(cleaned) <= 100 and not any(
                    relative_error(_plain(cleaned), m.value) <= key.tolerance
                    for m in known(pv)):
            # (a named mistake above 1, such as a bubble times v, is read as typed)
            cleaned = f"{cleaned} %"
            notes.append("read as a percentage: a fraction cannot exceed 1")
    try:
        r = read_number(cleaned, unit, avoid=key.value)
    except Unreadable:
        m = _NOUN.match(cleaned)
        if unit not in _COUNTABLE or m is None or not _count_words(m["noun"]):
            raise
        r = read_number(m["body"], unit, avoid=key.value)  # "128 collectives"
    if money is None and unit == "1" and money_question(pv):
        money = (1.0, r.read_as)  # a plain number in the question's dollars
    if money is not None:
        factor, typed = money
        value = r.value * factor
        shown = dollars(value, per_million_tokens(pv))
        read_as = shown if typed == shown else f"{typed} = {shown}"
        r = Reading(value, r.unit, read_as, r.text)
    read_as = r.read_as + (f" ({'; '.join(notes)})" if notes else "")
    reading = Reading(r.value, r.unit, read_as, cleaned)
    return Read(reading, read_as)


_HEDGE_BEFORE = re.compile(
    r"^(?:(?:~|≈|∼|≃|about|approximately|approx\.?|around|roughly|circa|ca\.|nearly|"
    r"almost|some|close to|just (?:over|under)|on the order of|of order)\s*)+",
    re.IGNORECASE)
_HEDGE_AFTER = re.compile(
    r"(?:(?:\s*,\s*|\s+)(?:approximately|approx\.?|roughly|about|in total|each|total|"
    r"in all|overall)(?!\w)|\s*\((?P<remark>[^()\d]*)\))+\s*$", re.IGNORECASE)


def _unwrap(text: str) -> str:
    """The number and its unit without the words around them that never change it:
    hedges before or after (``about``, ``~``, ``or so``), a left-hand side
    (``M = 22.8 GB``, ``B ≈ 312``) and a remark in brackets (``(unchanged)``)."""
    cleaned = text.strip().rstrip(".!").strip()
    for _ in range(3):
        before = cleaned
        cleaned = _HEDGE_BEFORE.sub("", cleaned).strip()
        if (m := _LHS.match(cleaned)) and not re.search(r"[=≈]", cleaned[m.end():]):
            cleaned = cleaned[m.end():]
        if re.search(r"\d", cleaned) and (m := _HEDGE_AFTER.search(cleaned)) and \
                re.search(r"\d", cleaned[:m.start()]):
            cleaned = cleaned[:m.start()].strip()
        if cleaned == before:
            break
    return cleaned


# ------------------------------------------------------------------ money

_MONEY_WORDS = re.compile(r"\bdollars?\b|\$|\bUSD\b|\bcents?\b", re.IGNORECASE)
_PER_MTOK_PROMPT = re.compile(r"\b(?:a|one|per|1)\s+million\s+(?:\w+\s+)?tokens\b|"
                              r"/\s*M\s*tok|\bper\s+1M\b", re.IGNORECASE)
_CURRENCY_BEFORE = re.compile(r"^(?:US\s*\$|\$|USD\b)\s*", re.IGNORECASE)
_PER_MTOK = re.compile(
    r"\s*(?:\$|dollars?|usd)?\s*(?:/|\bper\b|\ba\b|\bfor\b)\s*(?:(?:a|one|1)\s*)?"
    r"(?:M|mn|mil|million)\s*(?:generated\s+|output\s+)?(?:tok|toks|tokens?)?\s*$",
    re.IGNORECASE)
_PER_TOKEN = re.compile(
    r"\s*(?:\$|dollars?|usd)?\s*(?:/|\bper\b|\ba\b)\s*(?:generated\s+|output\s+)?"
    r"(?:tok|tokens?)\s*$", re.IGNORECASE)
_CENTS = re.compile(r"\s*(?:cents?|¢)\s*$", re.IGNORECASE)
_CURRENCY_AFTER = re.compile(r"\s*(?:\$|dollars?|usd|bucks)\s*$", re.IGNORECASE)


def money_question(pv: PartVariant) -> bool:
    """The question asks for an amount of money (its last paragraph says dollars)."""
    question = pv.prompt.strip().split("\n\n")[-1]
    return bool(_MONEY_WORDS.search(question))


def per_million_tokens(pv: PartVariant) -> bool:
    """The money asked for is per million tokens."""
    return bool(_PER_MTOK_PROMPT.search(pv.prompt.strip().split("\n\n")[-1]))


def dollars(value: float, per_mtok: bool = False) -> str:
    """An amount of money as people write it: "$0.075", "$1.89", "$15.8 million"."""
    shown = format_value(value, "param") if abs(value) >= 1e6 else format_value(value, "1")
    return f"${shown}" + (" per million tokens" if per_mtok else "")


def _money_example(pv: PartVariant) -> str:
    """An amount in dollars to show how to type one, never near the key."""
    key = abs(pv.key.value or 0.0)
    return "$75 million" if 0.8e6 < key < 7.2e6 else "$2.4 million"


def _money(text: str, pv: PartVariant) -> tuple[str, tuple[float, str] | None]:
    """Strip a currency from ``text`` → (the number with any multiplier, (the factor to
    dollars, how it was typed)); (text, None) when no currency is written.

    Raises:
        Unreadable: an amount per million tokens where the question asks for a total.
    """
    typed = " ".join(text.split())
    body = _CURRENCY_BEFORE.sub("", text).strip()
    factor, said = 1.0, body != text.strip()
    for _ in range(3):
        before = body
        if m := _PER_MTOK.search(body):
            if not per_million_tokens(pv):
                raise Unreadable("the question asks for dollars in all, not per million "
                                 "tokens", _money_example(pv))
            body, said = body[:m.start()], True
        elif m := _PER_TOKEN.search(body):
            if not per_million_tokens(pv):
                raise Unreadable("the question asks for dollars in all, not per token",
                                 _money_example(pv))
            body, factor, said = body[:m.start()], factor * 1e6, True  # per million
        if m := _CENTS.search(body):
            body, factor, said = body[:m.start()], factor * 0.01, True
        if m := _CURRENCY_AFTER.search(body):
            body, said = body[:m.start()], True
        body = _CURRENCY_BEFORE.sub("", _unwrap(body)).strip()
        if body == before:
            break
    if not said:
        return text, None
    return body, (factor, typed)


# -------------------------------------------------------------- thresholds

_THRESHOLD_PROMPT = re.compile(r"\b(?:above|below|beyond|under|over|from) which\b|"
                               r"\bat (?:least|most) how\b|\bthreshold\b|\bcrossover\b|"
                               r"\bbreak-?even\b", re.IGNORECASE)
_THRESHOLD = re.compile(
    r"^(?:[A-Za-z][\w_]{0,11}\s*)?(?:>=|=>|≥|>|<=|=<|≤|<)\s*|"
    r"^(?:[A-Za-z][\w_]{0,11}\s+)?(?:is\s+)?(?:above|over|beyond|more than|greater than|"
    r"at least|from|past|below|under|less than|at most|up to)\s+", re.IGNORECASE)


def threshold_question(pv: PartVariant) -> bool:
    """The question asks for a threshold ("above which batch size B ..."), which people
    answer with an inequality (``B > 312.5``, ``at least 313``)."""
    return bool(_THRESHOLD_PROMPT.search(pv.prompt))


_COMPOUND = re.compile(r"\b(GPUs?|gpus?|nodes?)[\s-]+(hours?|hrs?|days?)\b", re.IGNORECASE)
"""GPU-hours written as two words ("138,240 GPU hours")."""

_FLOP_COUNT = 1e6
"""A bare number of FLOPs reads as that count from here up; a smaller one (``153``) is
surely a number in some prefix (ZFLOP?) and asks for the unit."""


def _count_words(noun: str) -> bool:
    """Words after a count that name what is counted (``token copies``), none of them a
    unit of another dimension."""
    for word in noun.split():
        found = UNITS.get(word) or UNITS.get(word.casefold())
        if found is not None and found[1] not in _COUNTABLE:
            return False
    return True


_NEEDS_UNIT = frozenset({"B", "s", "B/s", "FLOP/s"})
"""Where a bare number could mean anything from bytes to terabytes, or from seconds to
days (a prompt that names the unit declares it as the answer's ``bare_unit``)."""
_COUNTABLE = COUNT_FAMILY
_LHS = re.compile(r"^\s*[A-Za-z][\w ()-]{0,40}?\s*[=≈:]\s*(?=\S)")
_LOWER_BYTES = re.compile(r"^(?P<number>.*\d\s*)(?P<prefix>[kmgtp])b$")
_METRES = re.compile(r"^(?P<number>.*\d)\s*m$")
_NOUN = re.compile(r"^(?P<body>[^A-Za-z]*\d[^A-Za-z]*(?:\s*(?:thousand|million|billion|"
                   r"[kKMBT]))?)\s+(?P<noun>[A-Za-z][A-Za-z-]{1,30}"
                   r"(?:\s+[A-Za-z][A-Za-z-]{2,30}){0,2})\s*$")
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
                  tol: float, *, units_only: bool = False) -> tuple[str, float, str] | None:
    """A slip any numeric answer can make, when the typed text supports it:
    (name, credit, feedback), or None.

    * GB vs GiB: the typed number is the key converted between SI and IEC (within
      0.5 %) *and* the typed unit carries the mislabelled prefix; 1 TB for 1.13 TB is
      rounding, not a TiB mislabel.
    * bits vs bytes: a ×8 match (÷8 for a rate), never on a bytes question answered in
      bits (that is read as bytes already).
    * off by a thousand: a ×1000 or ÷1000 match.

    With ``units_only``, only the first (a unit mislabelled, which the grader names
    before any known mistake).
    """
    typed = reading.text
    value = reading.value
    if unit in ("B", "B/s"):
        for n, prefix in ((2, "M"), (3, "G"), (4, "T"), (5, "P")):
            ratio = 2 ** (10 * n) / 10 ** (3 * n)
            si = re.search(rf"(?<![A-Za-z]){prefix}B", typed)
            iec = re.search(rf"(?<![A-Za-z]){prefix}iB", typed, re.IGNORECASE)
            if (si and relative_error(value, key / ratio) <= 0.005) or (
                    iec and relative_error(value, key * ratio) <= 0.005):
                return (f"{prefix}B vs {prefix}iB", 0.5,
                        f"Your number is the key expressed in {prefix}iB but labelled "
                        f"{prefix}B (or the reverse): 1 {prefix}iB = {ratio:.4f} "
                        f"{prefix}B.")
        if units_only:
            return None
        in_bits = re.search(r"\d\s*[kKMGTPE]?i?(?:b|bit|bits)(?:/s|ps)?\s*$", typed)
        if relative_error(value, key * 8) <= tol and not (unit == "B" and in_bits):
            return ("bits vs bytes", 0.25,
                    "That is the key times 8: the key in bits, labelled as bytes (a byte "
                    "is 8 bits).")
        if unit == "B/s" and relative_error(value, key / 8) <= tol:
            return ("bits vs bytes", 0.25,
                    "That is the key divided by 8: a bandwidth in Gb/s must be divided by 8 "
                    "to get GB/s, not the other way round.")
    if units_only:
        return None
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


def mistake_answer(pv: PartVariant, m: KnownMistake) -> str | None:
    """The mistake's value in the key's unit (a count: the whole number)."""
    value = mistake_value(m)
    if pv.key.value is None:
        return None
    if _count_mode(pv):
        return str(round(value))
    return format_value(value, pv.key.unit or "1", digits=4)


def mistake_clash(pv: PartVariant, m: KnownMistake) -> str | None:
    """A mistake whose value is within the key's tolerance is graded right first."""
    value, key = mistake_value(m), pv.key
    if key.value is not None and relative_error(value, key.value) <= key.tolerance:
        return (f"{m.name!r} gives {value:.4g}, within the tolerance of the key "
                f"{key.value:.4g}")
    return None


def _count_mode(pv: PartVariant) -> str:
    from questions.kinds.number import count_mode

    return count_mode(pv.spec)


def tolerance_words(pv: PartVariant) -> str:
    """A count is graded exactly (or its floor and ceiling); any other value within its
    tolerance."""
    return {"exact": "graded exactly (a whole number)",
            "either": "its floor or ceiling graded correct"}.get(
        _count_mode(pv), f"tolerance {pv.key.tolerance:.0%}")


def accepted_text(pv: PartVariant) -> str:
    """The range that grades right, and the other conventions' values."""
    key = pv.key
    if key.value is None or not key.unit:
        return ""
    low = key.value - key.tolerance * abs(key.value)
    high = key.value + key.tolerance * abs(key.value)
    text = (f"Accepted: {format_value(low, key.unit)} to {format_value(high, key.unit)} "
            f"(±{key.tolerance:.0%})")
    others = "; ".join(f"{a.name}: {format_value(a.value, key.unit)}" for a in pv.accepted)
    return text + (f". Also accepted: {others}" if others else "")


MAX_TOLERANCE = 0.5
"""Largest relative tolerance, whatever the template and the tolerance setting say: the
accepted band [key/2, 3*key/2] never reaches 0 or a negative number."""
MAX_NEAR_MISS = 0.9
"""Largest relative error still called close (half credit); below 1, so 0 never is."""

_BARE = re.compile(r"^\s*[~≈]?\s*[-+]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def _named(pv: PartVariant, r: Reading, first: tuple[str, float, str] | None,
           hits: list[tuple[str, float, str]]) -> Grade:
    """The grade of an answer a named mistake explains. A unit slip (GB for GiB) is
    named alone: it explains the number before any arithmetic does. Where several
    mistakes give the same number, the feedback names each of them (the first, in the
    template's order, is the one recorded), and the credit is the best of theirs."""
    key = pv.key
    if first is not None:
        hits = [first]
    seen: dict[str, tuple[str, float, str]] = {}
    for hit in hits:
        seen.setdefault(hit[0], hit)
    named = list(seen.values())
    generic = {"bits vs bytes", "off by a thousand"}
    also = _coinciding_degree(pv, r) if {h[0] for h in named} <= generic else None
    if len(named) == 1 and also is None:
        name, credit, feedback = named[0]
        return Grade(by_credit(credit), credit, r.read_as, name, feedback, key)
    credit = named[0][1]  # the one recorded: the template's own mistake comes first
    parts = [f"{name}: {feedback}" for name, _, feedback in named]
    if also is not None:
        parts.append(also)
    feedback = (f"{len(parts)} different slips give this number, so it is one of them: "
                + " Or ".join(parts))
    return Grade(by_credit(credit), credit, r.read_as, named[0][0], feedback, key)


_DEGREES = ("tp", "pp", "dp", "cp", "ep")
_PER_GPU = re.compile(r"\b(?:one|each|per|a single) (?:GPU|rank)\b", re.IGNORECASE)


def _coinciding_degree(pv: PartVariant, r: Reading) -> str | None:
    """A parallelism degree of the question equal to the factor the answer is off by
    (8x the key when tp = 8): forgetting to divide by it gives the same number as the
    unit slip that factor also names (bits for bytes), so both are said."""
    key = pv.key.value
    if not key or r.value <= 0:
        return None
    ratio = r.value / key
    for name in _DEGREES:
        degree = pv.env.get(name)
        if degree is None or degree < 2 or not _PER_GPU.search(pv.prompt):
            continue  # a figure for the whole model or node is divided by no degree
        for factor, how in ((degree, "not dividing"), (1 / degree, "dividing twice")):
            if factor in (8, 1 / 8, 1000, 1e-3) and relative_error(ratio, factor) <= 0.01:
                return (f"{how} by {name} = {degree:g} gives {factor:g} times the key "
                        "as well.")
    return None


_RULED_OUT: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("causal", re.compile(r"\b(?:full|whole|entire)\b[^.?;]{0,12}\bsquare\b")),
    ("ring factor rounded", re.compile(r"\bexact ring factor\b")),
)
"""A convention (a word of its name) and what a prompt says that asks for the other one:
"counting the whole s×s square" rules causal halving out as surely as "no causal
halving" does."""


def convention_excluded(pv: PartVariant, name: str) -> bool:
    """The prompt rules a convention out, by name ("Count the full s×s square (no
    causal halving)") or by asking for what it drops (:data:`_RULED_OUT`): an answer
    under it is then no variant but a mistake."""
    words = re.escape(" ".join(name.casefold().split()))
    prompt = " ".join(pv.prompt.casefold().split())
    if re.search(rf"\b(?:no|not|without|ignore|ignoring)\s+(?:the\s+|any\s+)?{words}\b",
                 prompt):
        return True
    return any(word in name.casefold() and cue.search(prompt) for word, cue in _RULED_OUT)


def binary_label_slip(pv: PartVariant, r: Reading) -> tuple[str, str] | None:
    """A key asked for in GiB (a tool's printout: ``binary``) given as the same bytes
    in GB: the bytes are right, the number the tool prints is not."""
    if not answer(pv.spec).binary or pv.key.unit not in ("B", "B/s"):
        return None
    if not re.search(r"(?<![A-Za-z])[kKMGTPE]B\b|\d\s*(?:B|bytes)\s*$", r.text) or \
            re.search(r"[KMGTPE]iB", r.text):
        return None
    shown = format_value(r.value, pv.key.unit, binary=True)
    return (GIB_DISPLAY_SLIP,
            f"Right bytes, but the tool prints GiB: it divides by 2^30 and shows {shown}, "
            "the number the question asks for.")


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
    if right and (label := binary_label_slip(pv, r)) is not None:
        return Grade("partial", 0.5, r.read_as, label[0], label[1], key)
    if right:
        return Grade("correct", 1.0, r.read_as, None,
                     f"Correct: the key is {key.display}.", key)
    excluded: list[tuple[str, float, str]] = []
    for acc in pv.accepted:
        if relative_error(r.value, acc.value) <= max(accept, 1e-9):
            if convention_excluded(pv, acc.name):
                excluded.append((acc.name, 0.0, f"The question rules this convention out. "
                                 f"{acc.note} The key is {key.display}."))
                continue
            return Grade("correct", 1.0, r.read_as, None,
                         f"Correct under another convention ({acc.name}): {acc.note} "
                         f"This app's default gives {key.display}.", key)
    unit_slip = generic_slips(key.value, key.unit, r, tol, units_only=True)
    hits = [*excluded, *([unit_slip] if unit_slip else [])]
    for m in known(pv):
        if count:  # a count matches a mistake's count: its floor, its ceiling
            hit = math.floor(m.value) - 1e-9 <= r.value <= math.ceil(m.value) + 1e-9 \
                and not right_count(m.value, key.value)
        else:
            hit = relative_error(m.value, key.value) > tol and \
                relative_error(r.value, m.value) <= tol
        if hit:
            hits.append((m.name, m.credit, m.feedback))
            if unit_slip is not None and relative_error(m.value, r.value) <= 0.005:
                unit_slip = hits[-1]  # the template names this unit slip itself
    if not unit_slip and (slip := generic_slips(key.value, key.unit, r, tol)) is not None:
        hits.append(slip)
    if hits:
        return _named(pv, r, unit_slip, hits)
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


def carried_forward(pv: PartVariant, text: str, carried: float, scale: float) -> bool:
    """Whether ``text`` is the amount ``carried`` (this part worked out from the
    learner's own earlier answers) where that differs from the key: a count to the
    unit, any other amount within the part's tolerance (scaled, at most
    :data:`MAX_TOLERANCE`) or the rounding of ``carried``."""
    from questions.kinds.number import count_mode

    key = pv.key
    if key.value is None:
        return False
    try:
        typed = read(pv, text).value.value
    except (Unreadable, ArithmeticError, ValueError):
        return False
    tol = min(key.tolerance * scale, MAX_TOLERANCE)
    if count_mode(pv.spec):  # a count follows through to the unit
        return round(carried) != round(key.value) and round(typed) == round(carried)
    return relative_error(carried, key.value) > tol and \
        relative_error(typed, carried) <= max(tol, rounding_tolerance(carried))
