"""Reading answers as people type them: numbers with units, formulas and choices.

Everything here treats the typed text as hostile. Nothing is ever handed to ``eval``,
``exec``, ``sympify``, ``parse_expr`` or ``sympy.S``: numbers are read by regular
expressions into :class:`decimal.Decimal`, formulas by a small tokenizer and a
recursive-descent parser that builds sympy objects itself from the names it is given.
Every reader caps the length of its input, and the formula reader also caps the token
count, the nesting depth and the size of exponents, so a reply comes back in
milliseconds whatever is typed.

An answer that cannot be read raises :class:`Unreadable`, which says what was wrong and
gives an example that works; the app counts it as *invalid* (no attempt is spent).

Decisions worth knowing (each has a test):

* A bare number is in the expected base unit: ``"363"`` for a time is 363 s.
* Count suffixes ``K M B T`` (and ``bn``, ``million`` ...) apply when the expected unit is
  a count (``param``, ``1``) or ``FLOP``; there ``8.8B`` is 8.8 billion. Where bytes are
  expected ``B`` is a byte and ``b`` a bit (``400 Gb/s`` is 50 GB/s).
* Units match case-sensitively first; a spelling of two or more letters may then match
  case-insensitively when that is unambiguous (``gib`` → GiB, but ``gb`` is refused
  because it could be GB or Gb).
* A unit of the wrong dimension ("5 GB" where a time is expected) is unreadable rather
  than wrong, with a message naming both dimensions.
* A comma followed by exactly three digits groups thousands (``1,130``); any other comma
  is refused with a hint to use a dot, since ``1,13`` is a decimal comma elsewhere.
* Only ASCII digits are read; other scripts' digits are refused with a hint, never
  guessed at. Superscript digits are read in exponents (``6.3×10²⁴``, ``h²``).
* In formulas a run of letters that is not an allowed name is split into allowed names
  when exactly one split exists (``6PD`` is ``6*P*D`` when ``P`` and ``D`` are allowed,
  but not when a name ``PD`` also exists, which then wins). Implicit multiplication is
  inserted only before a name or an opening parenthesis (``2(N-1)``, ``6 P D``,
  ``(a)(b)``); two numbers side by side are refused.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Context, Decimal, localcontext
from typing import TYPE_CHECKING, Final

from solver.formula import (
    SUPERSCRIPT_DIGITS,
    FormulaReading,
    Unreadable,
    clean_text,
    compact,
    formulas_equivalent,
    read_formula,
)
from solver.units import (
    BASE_UNITS,
    COUNT_FAMILY,
    MULTIPLIERS,
    RATE_FAMILY,
    UNITS,
    WORD_MULTIPLIERS,
    example_values,
    format_both,
    format_value,
)

if TYPE_CHECKING:
    pass

__all__ = [
    "ChoiceReading",
    "FormulaReading",
    "Reading",
    "Unreadable",
    "formulas_equivalent",
    "read_choice",
    "read_formula",
    "read_number",
]

MAX_NUMBER_CHARS: Final = 200
"""Longest number answer read; the longest sensible one ("≈ 1,130,000,000,000 bytes") is
far shorter."""
MAX_CHOICE_CHARS: Final = 500
MAX_ANSWER_CHARS: Final = 500
"""Longest text any answer reader accepts (formulas, choices, tables); the TUI's answer
box stops there, so a paste of a novel never reaches a reader."""
MAX_EXPONENT: Final = 400
"""Largest power of ten a number may carry; floats end near 1e308 anyway."""


@dataclass(frozen=True)
class Reading:
    """A number answer as read.

    Attributes:
        value: the value in the base unit `unit`.
        unit: the expected base unit the value was converted to.
        read_as: how it was read, for showing before grading ("1.13e12 B = 1.13 TB").
        text: the text as typed.
    """

    value: float
    unit: str
    read_as: str
    text: str


@dataclass(frozen=True)
class ChoiceReading:
    """A multiple-choice answer as read.

    Attributes:
        picked: the chosen choice texts, in the order of the choices.
        read_as: the picks with their letters ("A: all-reduce; C: ring").
        text: the text as typed.
    """

    picked: tuple[str, ...]
    read_as: str
    text: str


# ---------------------------------------------------------------- numbers

_DIMENSIONS: Final[dict[str, str]] = {
    "B": "an amount of data in bytes",
    "s": "a time",
    "FLOP": "an amount of compute in FLOP",
    "param": "a count",
    "1": "a plain number",
    "tokens": "a count of tokens",
    "requests": "a count of requests",
    "B/s": "a bandwidth in bytes per second",
    "FLOP/s": "a compute rate in FLOP/s",
    "1/s": "a rate per second",
    "tokens/s": "a rate in tokens per second",
    "requests/s": "a rate in requests per second",
}
# Counts convert freely ("16 GPUs" is as good as "16"), and so do rates of counts.
_COUNTS: Final = COUNT_FAMILY
_FAMILIES: Final = (COUNT_FAMILY, RATE_FAMILY)
# Where "B" is billion rather than bytes: counts, their rates, and FLOP totals ("6.3T FLOP").
_COUNT_CONTEXT: Final = COUNT_FAMILY | RATE_FAMILY | {"FLOP"}

_APPROX: Final = re.compile(
    r"(?:(?:~|≈|∼|≃|=|about\b|approx\.?|approximately\b|around\b|roughly\b|circa\b|ca\.)\s*)+",
    re.IGNORECASE,
)
_NON_FINITE: Final = re.compile(r"\b(?:nan|inf|infinity)\b|∞", re.IGNORECASE)
_MANTISSA: Final = re.compile(
    r"""
    (?P<sign>[-+]?)\s*
    (?:
        (?P<int>\d{1,3}(?P<sep>[,\ _'])\d{3}(?!\d)(?:(?P=sep)\d{3}(?!\d))*|\d+)
        (?:\.(?P<frac>\d*))?
      | \.(?P<frac_only>\d+)
    )
    """,
    re.VERBOSE,
)
_E_NOTATION: Final = re.compile(r"[eE](?P<sign>[-+]?)(?P<digits>\d+)")
_TIMES = r"\s*(?:\*|[x×X·⋅•∙])\s*"
_EXPONENT = (
    r"\s*(?:\^|\*\*)\s*(?P<open>[({]?)\s*(?P<sign>[-+]?)\s*(?P<digits>\d+)\s*(?P<close>[)}]?)"
)
_SUPERSCRIPT = r"(?P<sup>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
_TIMES_TEN: Final = re.compile(_TIMES + "10" + _EXPONENT)
_TIMES_TEN_SUP: Final = re.compile(_TIMES + "10" + _SUPERSCRIPT)
_POWER: Final = re.compile(_EXPONENT)
_POWER_SUP: Final = re.compile(_SUPERSCRIPT)
_PARENTHETICAL: Final = re.compile(r"(?P<outer>.*\S)\s+\((?P<inner>[^()]*)\)\s*")
_FLOPS_WORD: Final = re.compile(
    r"(?P<prefix>[kmgtpezy]?|kilo|mega|giga|tera|peta|exa|zetta|yotta)flops")
_FLOP_PREFIX: Final[dict[str, Decimal]] = {
    "": Decimal(1),
    **{p: Decimal(10) ** (3 * (i + 1)) for i, p in enumerate("kmgtpezy")},
    **{p: Decimal(10) ** (3 * (i + 1)) for i, p in enumerate(
        ("kilo", "mega", "giga", "tera", "peta", "exa", "zetta", "yotta"))},
}
_DECIMAL: Final = Context(prec=50, Emax=100_000, Emin=-100_000)


def _by_casefold() -> dict[str, dict[tuple[float, str], str]]:
    """casefolded spelling → {meaning: a spelling with that meaning}."""
    index: dict[str, dict[tuple[float, str], str]] = {}
    for spelling, meaning in UNITS.items():
        index.setdefault(spelling.casefold(), {}).setdefault(meaning, spelling)
    return index


_UNITS_CASEFOLD: Final = _by_casefold()


def _exponent(sign: str, digits: str, example: str) -> int:
    if len(digits) > 4 or int(digits) > MAX_EXPONENT:
        raise Unreadable(
            f"the exponent {sign}{digits} is out of range; exponents up to ±{MAX_EXPONENT} "
            "are read",
            example,
        )
    return -int(digits) if sign == "-" else int(digits)


def _lookup_unit(token: str, example: str) -> tuple[float, str]:
    """A unit spelling → (factor, base): exact, else unambiguous case-insensitive."""
    found = UNITS.get(token)
    if found is not None:
        return found
    if len(token) >= 2:  # one letter is too little to guess case from (b/B, m/M)
        meanings = _UNITS_CASEFOLD.get(token.casefold(), {})
        if len(meanings) == 1:
            return next(iter(meanings))
        if len(meanings) > 1:
            spellings = " or ".join(sorted(meanings.values()))
            raise Unreadable(
                f"{token!r} could be {spellings}: the case of the letters matters here "
                "(GB is gigabytes, Gb gigabits)",
                example,
            )
    raise Unreadable(f"{token!r} is not a unit this quiz knows", example)


def _unit_token(token: str, expected: str, example: str) -> tuple[Decimal, str]:
    """Read one unit word → (factor to base as Decimal, base unit)."""
    if expected in ("FLOP", "FLOP/s"):
        # "FLOPS" and "FLOPs" are used for both counts and rates in the wild; when the
        # question says which it wants, read it that way instead of refusing.
        flops = _FLOPS_WORD.fullmatch(token.casefold())
        if flops is not None:
            return _FLOP_PREFIX[flops["prefix"]], expected
    if "/" in token and token not in UNITS:
        numerator, _, denominator = token.partition("/")
        multiplier = _multiplier(numerator, expected) if numerator else None
        if multiplier is not None and expected in RATE_FAMILY:
            num_factor, num_base = float(multiplier), "1"  # "1.2k/s": a thousand per second
        else:
            num_factor, num_base = _lookup_unit(numerator, example) if numerator \
                else (1.0, "1")
        den_factor, den_base = _lookup_unit(denominator, example)
        if den_base in COUNT_FAMILY and den_factor == 1 and denominator not in _NOT_PER \
                and num_base not in COUNT_FAMILY:
            # An amount per thing ("16 bytes/param", "8.1e11 FLOPs per token"): the
            # question asks for the amount of one, so it reads as that amount.
            return Decimal(repr(num_factor)), num_base
        if den_base != "s" or not (num_base in ("B", "FLOP") or num_base in COUNT_FAMILY):
            raise Unreadable(f"{token!r} is not a rate this quiz knows", example)
        base = f"{num_base}/s"
        if base not in ("B/s", "FLOP/s") and base not in RATE_FAMILY:
            base = "1/s"  # GPUs/s, steps per hour: counts per second
        return Decimal(repr(num_factor)) / Decimal(repr(den_factor)), base
    factor, base = _lookup_unit(token, example)
    return Decimal(repr(factor)), base


_NOT_PER: Final = frozenset({"x", "×", "times"})
"""Count words that are no thing an amount could be per ("GB/x" is no amount per x)."""


def _multiplier(token: str, expected: str) -> Decimal | None:
    if expected in _COUNT_CONTEXT:
        factor = MULTIPLIERS.get(token)
        if factor is None and len(token) >= 2:
            factor = MULTIPLIERS.get(token.casefold())
        if factor is not None:
            return Decimal(repr(factor))
    if token.casefold() in WORD_MULTIPLIERS:
        return Decimal(repr(MULTIPLIERS[token.casefold()]))
    return None


def _read_unit(rest: str, expected: str, example: str) -> tuple[Decimal, str]:
    """Read what follows the number → (factor to the expected unit, normalized text)."""
    rest = rest.strip().rstrip(".").strip()
    if not rest:
        return Decimal(1), ""
    rest = re.sub(r"(?:^|\s+)per\s+", "/", rest, flags=re.IGNORECASE)
    rest = re.sub(r"\s*/\s*", "/", rest)
    tokens = rest.split()
    if len(tokens) > 2:
        raise Unreadable(f"could not read {rest!r} as a unit", example)
    factor = _multiplier(tokens[0], expected)
    if factor is not None and len(tokens) == 1:
        return factor, rest
    if len(tokens) == 2 and factor is None:
        raise Unreadable(f"could not read {rest!r} as a unit", example)
    unit_factor, base = _unit_token(tokens[-1], expected, example)
    if base != expected and not any(base in f and expected in f for f in _FAMILIES):
        raise Unreadable(
            f"expected {_DIMENSIONS[expected]}, but {tokens[-1]!r} is {_DIMENSIONS[base]}",
            example,
        )
    return (factor or Decimal(1)) * unit_factor, rest


_DIVIDED: Final = re.compile(r"\s*/\s*(?P<by>[-+]?(?:\d+(?:\.\d*)?|\.\d+))", re.ASCII)
"""A number divided by a number ("1/0", "3 / 4"), which answers do not work out."""


def _read_plain(text: str, expected: str, example: str) -> tuple[float, str]:
    """Read `text` (cleaned) → (value in the expected base unit, how it was typed)."""
    text = _APPROX.sub("", text, count=1) if text[:1] in "~≈∼≃=aArRcC" else text
    if _NON_FINITE.search(text):
        raise Unreadable("the answer must be a finite number, not infinity or NaN", example)
    match = _MANTISSA.match(text)
    if match is None:
        raise Unreadable("expected a number", example)  # the example says what kind
    pos = match.end()
    if text[pos : pos + 1] == "," and text[pos + 1 : pos + 2].isdigit():
        raise Unreadable(
            "a comma is read only as a thousands separator (1,130); "
            "write decimals with a dot, as in 1.13",
            example,
        )
    sign = match["sign"]
    whole = (match["int"] or "0").replace(match["sep"] or ",", "")
    frac = match["frac"] or match["frac_only"] or ""
    digits = f"{whole}.{frac}" if frac else whole

    exponent = 0
    power_base: int | None = None
    if m := _E_NOTATION.match(text, pos):
        exponent = _exponent(m["sign"], m["digits"], example)
    elif m := _TIMES_TEN.match(text, pos):
        if bool(m["open"]) != bool(m["close"]):
            raise Unreadable("the brackets around the exponent do not match", example)
        exponent = _exponent(m["sign"], m["digits"], example)
    elif m := _TIMES_TEN_SUP.match(text, pos):
        sup = m["sup"].translate(SUPERSCRIPT_DIGITS)
        exponent = _exponent(sup[0] if sup[0] in "+-" else "", sup.lstrip("+-"), example)
    elif (
        match["int"]
        and not match["sep"]
        and match["frac"] is None
        and ((m := _POWER.match(text, pos)) or (m := _POWER_SUP.match(text, pos)))
    ):
        # "10^24", "2^30 B", "2³⁰": an integer raised to a power.
        if "sup" in m.groupdict() and m["sup"] is not None:
            sup = m["sup"].translate(SUPERSCRIPT_DIGITS)
            exponent = _exponent(sup[0] if sup[0] in "+-" else "", sup.lstrip("+-"), example)
        else:
            if bool(m["open"]) != bool(m["close"]):
                raise Unreadable("the brackets around the exponent do not match", example)
            exponent = _exponent(m["sign"], m["digits"], example)
        power_base = int(whole)
        if power_base > 1 and abs(exponent) * math.log10(power_base) > MAX_EXPONENT:
            raise Unreadable(f"{whole}^{exponent} is too large to work with", example)
        if power_base == 0 and exponent <= 0:
            raise Unreadable("zero to the power of zero or less has no value", example)
    if m is not None:
        pos = m.end()
    if divided := _DIVIDED.match(text, pos):
        if float(divided["by"]) == 0:
            raise Unreadable("division by zero has no value", example)
        raise Unreadable("a division is not worked out here: type its result", example)
    factor, unit_text = _read_unit(text[pos:], expected, example)

    with localcontext(_DECIMAL):
        if power_base is not None:
            magnitude = Decimal(power_base) ** exponent
            shown = f"{whole}^{exponent}"
        else:
            magnitude = Decimal(digits).scaleb(exponent)
            shown = digits if exponent == 0 else f"{digits}e{exponent}"
        exact = magnitude * factor
        value = float(exact)
    if not math.isfinite(value):
        raise Unreadable("that number is too large to work with", example)
    if value == 0 and exact != 0:
        raise Unreadable("that number is too small to work with", example)
    if sign == "-":
        value, shown = -value, f"-{shown}"
    if not unit_text:
        return value, ""  # a bare number: the base value says it all
    return value, f"{shown}{'' if unit_text[0] in '%/' else ' '}{unit_text}"


def _describe(value: float, unit: str, typed: str) -> str:
    """The `read_as` text: what was typed, the base value, and the display, deduplicated.

    The typed part is shown only when it says something the display does not (a unit
    that was converted, "B" read as billion); the base value only when it differs from
    the display.
    """
    display = format_both(value, unit)
    if typed in (display, format_value(value, unit), format_value(value, unit, binary=True)):
        typed = ""
    base = compact(value) if unit in _COUNTS else (
        f"{compact(value)}/s" if unit == "1/s" else f"{compact(value)} {unit}")
    if base == display.replace(",", ""):
        base = ""
    if typed == base:  # "0.071 s" typed: the base value says it already
        typed = ""
    return " = ".join(part for part in (typed, base, display) if part)


def read_number(text: str, unit: str, *, avoid: float | None = None) -> Reading:
    """Read a number answer, with or without a unit, into the expected base unit.

    Args:
        text: the answer as typed, e.g. "1.13 TB", "~363 days", "6.3×10²⁴", "8.8B".
        unit: the expected base unit (one of `solver.units.BASE_UNITS`); it decides what
            a bare number means and whether "B" is bytes or billion.
        avoid: a value the example in a refusal must stay well away from (the key).

    Returns:
        The value in `unit`, with `read_as` saying how the text was read.

    Raises:
        Unreadable: the text is not a number, has a unit of another dimension, or breaks a
            limit (length, exponent, characters).
        ValueError: `unit` is not a base unit (a programming error, not a typing one).

    >>> read_number("400 Gb/s", "B/s").value
    50000000000.0
    >>> read_number("1,130 GB", "B").read_as
    '1130 GB = 1.13e12 B = 1.13 TB (1.03 TiB)'
    """
    if unit not in BASE_UNITS:
        raise ValueError(f"unknown base unit {unit!r}; expected one of {', '.join(BASE_UNITS)}")
    example = example_values(unit, avoid)[0]
    cleaned = clean_text(text, MAX_NUMBER_CHARS, example).strip()
    if not cleaned:
        raise Unreadable("the answer is empty", example)
    try:
        value, typed = _read_plain(cleaned, unit, example)
    except Unreadable as refused:
        # "1.13 TB (1.03 TiB)" is how the app shows bytes; accept it back when both
        # halves read and agree, so any displayed answer can be typed in again.
        both = _PARENTHETICAL.fullmatch(cleaned)
        if both is None:
            raise
        try:
            value, typed = _read_plain(both["outer"], unit, example)
            other, _ = _read_plain(both["inner"], unit, example)
        except Unreadable:
            raise refused from None  # the whole text's complaint says the most
        if not math.isclose(value, other, rel_tol=0.01, abs_tol=1e-300):
            raise Unreadable(
                "the value in parentheses does not agree with the one before it", example
            ) from None
    return Reading(value=value, unit=unit, read_as=_describe(value, unit, typed), text=text)


# ---------------------------------------------------------------- choices

_CHOICE_SPLIT: Final = re.compile(r"\s*(?:[,;/&+]|\band\b)\s*|\s+", re.IGNORECASE)
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"


def read_choice(text: str, choices: Sequence[str], multi: bool) -> ChoiceReading:
    """Read a multiple-choice answer.

    Accepts letters ("a", "A, C", "a c", "AC" when several may be picked), numbers
    ("1,3"), or the text of a choice, case-insensitive, where a unique prefix is enough.

    Args:
        text: the answer as typed.
        choices: the choice texts, in the order shown (A, B, C, ...).
        multi: whether more than one choice may be picked.

    Returns:
        The picked choice texts in the order of `choices`.

    Raises:
        Unreadable: nothing matches, a letter or number is out of range, a prefix matches
            several choices, or several are picked where one is asked for.
        ValueError: `choices` is empty.
    """
    if not choices:
        raise ValueError("read_choice needs at least one choice")
    labels = _LETTERS[: len(choices)] if len(choices) <= len(_LETTERS) else ""
    example = "A, C" if multi and len(choices) > 2 else "A"
    if not labels:
        example = "1, 3" if multi else "1"
    cleaned = unicodedata.normalize("NFKC", clean_text(text, MAX_CHOICE_CHARS, example)).strip()
    if not cleaned:
        raise Unreadable("no choice given", example)
    folded = cleaned.casefold()
    # Letters and numbers first; a letter out of range may still begin a choice's text
    # ("e" for "expert parallel"), so that complaint waits until the texts are tried.
    labelled = _choice_labels(folded, labels, len(choices))
    picks = labelled if isinstance(labelled, list) else None
    if picks is None:
        picks = _choice_texts(folded, choices, multi, example)
    if picks is None and not isinstance(labelled, list):
        picks = _choice_label_words(folded, choices)
    if (
        picks is None
        and multi
        and folded.isalpha()
        and len(folded) <= len(labels)
        and all(letter in labels for letter in folded)
    ):
        picks = [labels.index(letter) for letter in folded]  # "AC": letters run together
    if picks is None:
        if isinstance(labelled, str):
            raise Unreadable(labelled, example)
        shown = "/".join(label.upper() for label in labels) if labels else f"1-{len(choices)}"
        raise Unreadable(f"could not match that to a choice; answer with {shown}", example)
    ordered = sorted(set(picks))
    if not multi and len(ordered) > 1:
        raise Unreadable("pick only one choice", example)
    names = [labels[i].upper() if labels else str(i + 1) for i in ordered]
    texts = [choices[i] for i in ordered]
    # an option written as a sentence ends with its full stop; inside the list the ";"
    # ends it ("A: x; B: y.", never "A: x.; B: y.")
    texts = [t[:-1] if t.endswith(".") and not t.endswith("..") else t
             for t in texts[:-1]] + texts[-1:]
    read_as = "; ".join(f"{name}: {t}" for name, t in zip(names, texts, strict=True))
    return ChoiceReading(picked=tuple(choices[i] for i in ordered), read_as=read_as, text=text)


def _choice_labels(folded: str, labels: str, count: int) -> list[int] | str | None:
    """Letters or numbers → indices; a complaint if one is out of range; None otherwise."""
    parts = [part.strip("().") for part in _CHOICE_SPLIT.split(folded)]
    parts = [part for part in parts if part]
    if not parts:
        return None
    picks: list[int] = []
    for part in parts:
        if part.isdigit() and part.isascii():
            number = int(part) if len(part) < 6 else 0
            if not 1 <= number <= count:
                return f"there is no choice {part}; pick from 1 to {count}"
            picks.append(number - 1)
        elif len(part) == 1 and part in _LETTERS:
            if part not in labels:
                last = labels[-1].upper() if labels else "A"
                return f"there is no choice {part.upper()}; pick from A to {last}"
            picks.append(labels.index(part))
        else:
            return None
    return picks


_YES: Final = frozenset({"yes", "y", "yeah", "yep", "true", "correct", "right"})
_NO: Final = frozenset({"no", "n", "nope", "false", "wrong"})
_LABEL_SYNONYMS: Final[dict[str, frozenset[str]]] = {
    "memory": frozenset({"memory", "bandwidth", "hbm", "bandwidth-bound"}),
    "bandwidth": frozenset({"memory", "bandwidth", "hbm"}),
    "arithmetic": frozenset({"arithmetic", "compute", "flops", "math", "flop"}),
    "compute": frozenset({"arithmetic", "compute", "flops", "math", "flop"}),
    "yes": _YES,
    "no": _NO,
}
"""Words that say an option's short label another way: "compute-bound" is the option
labelled "Arithmetic", "nope" the option "No"."""
_LABEL_END: Final = re.compile(r"\s*(?:[:,;(—–]|\s-\s|\.\s|\.$)")


def choice_label(choice: str) -> str | None:
    """An option's short label, when it has one: the words before its first colon,
    comma or dash ("Memory bandwidth: the intensity ..." → "memory bandwidth"), or the
    whole option when it is at most three words ("Yes", "No"); None otherwise."""
    text = choice.casefold().strip()
    m = _LABEL_END.search(text)
    head = text[:m.start()] if m else text
    return head if head and len(head.split()) <= 3 else None


_FILLER: Final = re.compile(r"^(?:(?:it|this|that|decode|the(?: \w+)?(?: step)?)\s*(?:is|'s)"
                            r"|it's|its)\s+")
"""Words before a label that say nothing ("it is memory-bound", "the step is ...")."""


def yes_or_no(text: str) -> str | None:
    """"yes" or "no" for an answer that starts with a word saying it ("Yes, it fits",
    "nope"), else None (an option letter is neither)."""
    first = _first_word(text.casefold())
    return "yes" if first in _YES else "no" if first in _NO else None


def _first_word(text: str) -> str:
    words = re.findall(r"[^\W_]+", text.replace("-bound", " bound"))
    return words[0] if words else ""


def _choice_label_words(folded: str, choices: Sequence[str]) -> list[int] | None:
    """An option named by its short label in other words ("memory-bound", "No, it needs
    two GPUs", "compute bound"): the typed text's first word is the first word of
    exactly one option's label, or a word that says it another way."""
    labels = [choice_label(c) for c in choices]
    if sum(label is not None for label in labels) < len(choices):
        return None  # only options that all have short labels are told apart this way
    if all(label.replace(",", "").isdigit() for label in labels if label is not None):
        # Options labelled by a number ("8: a full node ..."): "TP 8", "tp=8" pick it.
        said = re.findall(r"(?<![\d.])\d[\d,]*(?![\d.])", folded)
        numbered = [i for i, label in enumerate(labels)
                    if label is not None and label.replace(",", "") in
                    {n.replace(",", "") for n in said}]
        return numbered if len(set(said)) == 1 and len(numbered) == 1 else None
    first = _first_word(_FILLER.sub("", folded))
    hits = []
    for i, label in enumerate(labels):
        assert label is not None
        word = _first_word(label)
        if first == word or first in _LABEL_SYNONYMS.get(word, ()):
            hits.append(i)
    return hits if len(hits) == 1 else None


def _words_only(text: str) -> str:
    """Text as its words and numbers, one space apart ("18-byte" and "18byte" are
    "18 byte"; "rank's" is "ranks")."""
    return " ".join(re.findall(r"[^\W\d_]+|\d+", re.sub(r"['’]", "", text)))


def _choice_texts(
    folded: str, choices: Sequence[str], multi: bool, example: str
) -> list[int] | None:
    """Choice texts (or unique prefixes of them) → indices; None when nothing matches."""
    texts = [choice.casefold().strip() for choice in choices]
    bare = [_words_only(t) for t in texts]  # the words, punctuation and spacing aside

    def match(part: str) -> int | None:
        if part in texts:
            return texts.index(part)
        hits = [i for i, t in enumerate(texts) if t.startswith(part)]
        if not hits and (words := _words_only(part)):
            glued = words.replace(" ", "")  # "all-reduce", "allreduce" and "all reduce"
            hits = [i for i, t in enumerate(bare) if t.replace(" ", "") == glued] or (
                [i for i, t in enumerate(bare) if t.replace(" ", "").startswith(glued)]
                if len(glued) >= 8 else
                [i for i, t in enumerate(bare) if t.startswith(words + " ")])
        if len(hits) > 1:
            listed = "; ".join(choices[i] for i in hits)
            raise Unreadable(f"{part!r} matches more than one choice: {listed}", example)
        return hits[0] if hits else None

    whole = match(folded)
    if whole is not None:
        return [whole]
    if not multi:
        return None
    picks: list[int] = []
    for part in re.split(r"\s*[,;]\s*", folded):
        if not part:
            continue
        index = match(part)
        if index is None:
            return None
        picks.append(index)
    return picks or None
