"""Units: every spelling the answer reader knows, and how values are shown to people.

Values cross module boundaries as floats in a base unit named by a string (see
``docs/ARCHITECTURE.md``): ``"B"`` bytes, ``"FLOP"``, ``"s"``, ``"param"``, ``"B/s"``,
``"FLOP/s"`` and ``"1"`` (fractions, ratios, plain counts).

This module is imported by the first screen and by ``quiz --help``, so it must stay pure
Python and import in well under 5 ms: no sympy, no third-party code.

>>> format_value(1.128e12, "B")
'1.13 TB'
>>> format_both(1.128e12, "B")
'1.13 TB (1.03 TiB)'
>>> format_value(3.136e7, "s")
'363 days'
>>> spellings()["GiB"]
(1073741824.0, 'B')
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Final

COUNT_UNITS: Final[tuple[str, ...]] = ("tokens", "requests")
"""Counts with a noun: shown with it ("18 requests"), read like any count."""
RATE_UNITS: Final[tuple[str, ...]] = ("1/s", "tokens/s", "requests/s")
"""Counts per second ("2.5/s", "1,230 tokens/s")."""
BASE_UNITS: Final[tuple[str, ...]] = ("B", "FLOP", "s", "param", "B/s", "FLOP/s", "1",
                                      *COUNT_UNITS, *RATE_UNITS)
"""The base units a value may carry, in the order the docs list them."""
COUNT_FAMILY: Final = frozenset({"param", "1", *COUNT_UNITS})
"""Counts, which convert freely: "16 GPUs" is as good as "16"."""
RATE_FAMILY: Final = frozenset(RATE_UNITS)
"""Counts per second, which convert freely among themselves too."""

# ---------------------------------------------------------------- definitions
#
# Why a hand-written table instead of pint or astropy.units: those libraries take
# 100-500 ms to import and would put that floor under every screen that shows a number;
# the few dozen factors needed here are fixed by standards and cannot drift:
#   * SI decimal prefixes (BIPM, SI Brochure 9th ed., table 7): k=1e3 ... Y=1e24.
#   * IEC 80000-13 binary prefixes: Ki=2**10 ... Yi=2**80.
#   * A bit is 1/8 byte (IEC 80000-13: 1 B = 8 bit).
#   * Time: 1 min = 60 s, 1 h = 3600 s, 1 d = 86400 s (SI accepted units); the year is the
#     Julian year of 365.25 d (IAU, used for light-years), and a month is 1/12 of it
#     (30.4375 d), the usual average month.

_SI_PREFIXES: Final[tuple[tuple[str, str, float], ...]] = (
    ("k", "kilo", 1e3),
    ("M", "mega", 1e6),
    ("G", "giga", 1e9),
    ("T", "tera", 1e12),
    ("P", "peta", 1e15),
    ("E", "exa", 1e18),
    ("Z", "zetta", 1e21),
    ("Y", "yotta", 1e24),
)
_IEC_PREFIXES: Final[tuple[tuple[str, str, float], ...]] = (
    ("Ki", "kibi", 2.0**10),
    ("Mi", "mebi", 2.0**20),
    ("Gi", "gibi", 2.0**30),
    ("Ti", "tebi", 2.0**40),
    ("Pi", "pebi", 2.0**50),
    ("Ei", "exbi", 2.0**60),
    ("Zi", "zebi", 2.0**70),
    ("Yi", "yobi", 2.0**80),
)

MINUTE: Final = 60.0
HOUR: Final = 3600.0
DAY: Final = 86400.0
WEEK: Final = 7 * DAY
YEAR: Final = 365.25 * DAY
"""The Julian year, 365.25 days."""
MONTH: Final = YEAR / 12

_TIME_SPELLINGS: Final[tuple[tuple[float, tuple[str, ...]], ...]] = (
    (1e-9, ("ns", "nsec", "nanosecond", "nanoseconds")),
    (1e-6, ("us", "µs", "μs", "usec", "microsecond", "microseconds")),
    (1e-3, ("ms", "msec", "msecs", "millisecond", "milliseconds")),
    (1.0, ("s", "sec", "secs", "second", "seconds")),
    (MINUTE, ("m", "min", "mins", "minute", "minutes")),
    (HOUR, ("h", "hr", "hrs", "hour", "hours")),
    (DAY, ("d", "day", "days")),
    (WEEK, ("w", "wk", "wks", "week", "weeks")),
    (MONTH, ("mo", "mos", "month", "months")),
    (YEAR, ("y", "yr", "yrs", "year", "years")),
    (10 * YEAR, ("decade", "decades")),
    (100 * YEAR, ("century", "centuries")),
    (1000 * YEAR, ("millennium", "millennia")),
)

# Count nouns a person may add after a plain count ("16.4 GPUs", "9x", "35%").
_COUNT_NOUNS: Final[tuple[str, ...]] = (
    "GPU", "GPUs", "gpu", "gpus", "node", "nodes", "rank", "ranks",
    "layer", "layers", "step", "steps", "microbatch", "microbatches", "micro-batch",
    "micro-batches", "sequence", "sequences", "head", "heads", "expert", "experts",
    "x", "×", "times",
    # Counts the prompts themselves name: billed hours, failures, copies and slots.
    "GPU-hour", "GPU-hours", "gpu-hour", "gpu-hours", "GPU-day", "GPU-days",
    "node-hour", "node-hours", "node-day", "node-days",
    "interruption", "interruptions", "failure", "failures", "copy", "copies",
    "slot", "slots", "collective", "collectives", "replica", "replicas",
)  # fmt: skip

_TOKEN_NOUNS: Final = ("token", "tokens", "tok", "toks")
_REQUEST_NOUNS: Final = ("request", "requests", "req", "reqs")

MULTIPLIERS: Final[dict[str, float]] = {
    "k": 1e3, "K": 1e3, "thousand": 1e3,
    "m": 1e6, "M": 1e6, "mn": 1e6, "mil": 1e6, "million": 1e6,
    "b": 1e9, "B": 1e9, "bn": 1e9, "billion": 1e9,
    "t": 1e12, "T": 1e12, "tn": 1e12, "trillion": 1e12,
    "quadrillion": 1e15,
}  # fmt: skip
"""Count suffixes ("8.8B", "70.5 bn", "15T"), honoured when the expected unit is a count.

Only the reader decides when they apply: "B" means billion for a parameter count but
bytes for a memory size, so they are kept out of `UNITS`.
"""

WORD_MULTIPLIERS: Final[frozenset[str]] = frozenset(
    {"thousand", "million", "billion", "trillion", "quadrillion"}
)
"""Multipliers spelled as words: unambiguous, so accepted before any unit ("2 million s")."""


@functools.cache
def spellings() -> dict[str, tuple[float, str]]:
    """:data:`UNITS`, built on first use (3,357 spellings, about 2 ms): a question is
    shown before anything is read, and `quiz drill`'s first one does not wait for it
    (the start-up worker imports the reader, which builds them, after that frame)."""
    units: dict[str, tuple[float, str]] = {}

    def add(factor: float, base: str, *names: str) -> None:
        for name in names:
            units[name] = (factor, base)

    # Bytes: SI and IEC prefixes, symbols and words. "KB" is wrong SI but universal.
    add(1.0, "B", "B", "byte", "bytes", "Byte", "Bytes")
    for sym, word, factor in (*_SI_PREFIXES, *_IEC_PREFIXES):
        add(factor, "B", f"{sym}B", f"{word}byte", f"{word}bytes")
    add(1e3, "B", "KB")
    # Bits: the lower-case "b" is what tells a network's 400 Gb/s from 400 GB/s.
    # "kb" is left out on purpose: in lower case it is too often a sloppy "kB".
    add(0.125, "B", "b", "bit", "bits")
    # "Gib" is left out too: it would make the common lower-case "gib" ambiguous.
    for sym, word, factor in (*_SI_PREFIXES, *_IEC_PREFIXES):
        if sym in "MGTPEZY":
            add(factor / 8, "B", f"{sym}b")
        add(factor / 8, "B", f"{sym}bit", f"{word}bit", f"{word}bits")
    add(1e3 / 8, "B", "Kb", "Kbit")

    # Rates of bytes and bits: every spelling above over a second, plus "ps" forms.
    for spelling, (factor, _) in list(units.items()):
        add(factor, "B/s", f"{spelling}/s", f"{spelling}/sec")
    for spelling in ("b", "kb", "Kb", "Mb", "Gb", "Tb", "Pb", "Eb"):
        add(units[spelling if spelling != "kb" else "Kb"][0], "B/s", f"{spelling}ps")
    for sym, _, factor in _SI_PREFIXES:
        add(factor, "B/s", f"{sym}Bps")
    add(1.0, "B/s", "Bps")
    add(1e3, "B/s", "KBps")

    # FLOP counts and rates. "FLOPs" (lower-case s) is a count, "FLOPS" a rate; the
    # reader also lets the expected unit settle the common mix-up between the two.
    add(1.0, "FLOP", "FLOP", "FLOPs", "flop")
    add(1.0, "FLOP/s", "FLOPS", "FLOP/s", "FLOPs/s", "flop/s", "FLOP/sec")
    for sym, word, factor in _SI_PREFIXES:
        add(factor, "FLOP", f"{sym}FLOP", f"{sym}FLOPs", f"{word}FLOP", f"{word}FLOPs")
        add(factor, "FLOP/s", f"{sym}FLOPS", f"{sym}FLOP/s", f"{sym}FLOPs/s", f"{sym}FLOP/sec")

    for factor, spellings in _TIME_SPELLINGS:
        add(factor, "s", *spellings)

    add(1.0, "param", "param", "params", "parameter", "parameters")
    add(1.0, "1", *_COUNT_NOUNS)
    add(1.0, "tokens", *_TOKEN_NOUNS)
    add(1.0, "requests", *_REQUEST_NOUNS)
    add(0.01, "1", "%", "percent", "pct")

    # Counts per unit of time: "/s", "tokens/s", "requests per minute", "steps/h".
    for factor, spellings in _TIME_SPELLINGS:
        for spelling in spellings:
            add(1 / factor, "1/s", f"/{spelling}")
            add(1 / factor, "tokens/s", *(f"{n}/{spelling}" for n in _TOKEN_NOUNS))
            add(1 / factor, "requests/s", *(f"{n}/{spelling}" for n in _REQUEST_NOUNS))
            add(1 / factor, "1/s", *(f"{n}/{spelling}" for n in _COUNT_NOUNS
                                     if n not in ("x", "×", "times")))
    add(1.0, "1/s", "Hz")
    return units


if TYPE_CHECKING:
    UNITS: dict[str, tuple[float, str]]
    """Every unit spelling the reader accepts → (factor to the base unit, base unit).

    Keys are case-sensitive ("Gb" is gigabits, "GB" gigabytes). Count suffixes such as
    the "B" of "70.5B" live in `MULTIPLIERS` because their meaning depends on the
    question.
    """


def __getattr__(name: str) -> dict[str, tuple[float, str]]:
    if name == "UNITS":  # built on first use: see spellings()
        return spellings()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------- display

_SI_SYMBOLS: Final = tuple((factor, sym) for sym, _, factor in _SI_PREFIXES)
_IEC_SYMBOLS: Final = tuple((factor, sym) for sym, _, factor in _IEC_PREFIXES)
_COUNT_WORDS: Final = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand"))
# (scale, singular, plural, smallest mantissa shown in this unit before a smaller one).
# Seconds start at 0.1 so that 0.438 s reads as "0.438 s" (how the domain quotes it)
# rather than "438 ms".
_TIME_DISPLAY: Final = (
    (YEAR, "year", "years", 1.0),
    (DAY, "day", "days", 1.0),
    (HOUR, "h", "h", 1.0),
    (MINUTE, "min", "min", 1.0),
    (1.0, "s", "s", 0.1),
    (1e-3, "ms", "ms", 1.0),
    (1e-6, "µs", "µs", 1.0),
    (1e-9, "ns", "ns", 1.0),
)


def _round_sig(value: float, digits: int) -> float:
    """`value` rounded to `digits` significant digits (correctly rounded, via repr)."""
    if value == 0 or not math.isfinite(value):
        return value
    rounded = float(f"{value:.{digits - 1}e}")
    # Rounding up the largest floats overflows (1.7976e308 -> 2e308 = inf): keep them.
    return rounded if math.isfinite(rounded) else value


def _decade(value: float) -> int:
    """The power of ten of the leading digit of a nonzero finite `value`."""
    return int(f"{value:e}".split("e")[1])


def _fixed(value: float, digits: int, *, group: bool = True) -> str:
    """`value` in plain notation with `digits` significant digits, no trailing zeros.

    Integers keep all their digits (rounded to `digits`), grouped by commas, so that
    16384 rounded to three digits reads "16,400" and never "1.64e+04".
    """
    value = _round_sig(value, digits)
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - _decade(value))
    text = f"{value:,.{decimals}f}" if group else f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _scientific(value: float, digits: int) -> str:
    """`value` as "6.35e24": mantissa with `digits` significant digits, bare exponent."""
    value = _round_sig(value, digits)
    if value == 0:
        return "0"
    # The mantissa as printed, not divided out: 10.0**-324 is 0.0, and dividing a
    # subnormal loses digits (1e-320 showed as "10e-321").
    mantissa, _, exponent = f"{value:.{digits - 1}e}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa if int(exponent) == 0 else f"{mantissa}e{int(exponent)}"


def _plain(value: float, digits: int) -> str:
    """A number with no unit: plain notation for everyday sizes, scientific otherwise."""
    rounded = _round_sig(value, digits)
    if rounded != 0 and not 1e-3 <= abs(rounded) < 1e6:
        return _scientific(value, digits)
    return _fixed(value, digits)


def _prefixed(value: float, digits: int, unit: str) -> str:
    """SI prefix: the largest one that leaves a mantissa of at least 1 after rounding."""
    # Divide the already rounded value: 33.55e6 / 1e6 is 33.549999... in binary, and
    # rounding that would give "33.5" where the decimal value says "33.6".
    rounded = _round_sig(value, digits)
    for factor, symbol in reversed(_SI_SYMBOLS):
        if abs(rounded) >= factor:
            mantissa = _round_sig(rounded / factor, digits)
            if abs(mantissa) >= 1000:  # beyond yotta: keep the unit, go scientific
                return f"{_scientific(value / factor, digits)} {symbol}{unit}"
            return f"{_fixed(mantissa, digits)} {symbol}{unit}"
    return f"{_plain(value, digits)} {unit}"


def _prefixed_binary(value: float, digits: int, unit: str) -> str:
    """Binary prefixes switch one step early so a mantissa never reaches 1000."""
    rounded = abs(_round_sig(value, digits))
    chosen: tuple[float, str] | None = None
    for factor, symbol in _IEC_SYMBOLS:
        if rounded >= factor:
            chosen = (factor, symbol)
    if chosen is None:
        return f"{_plain(value, digits)} {unit}"
    factor, symbol = chosen
    mantissa = _round_sig(value / factor, digits)
    bigger = [(f, s) for f, s in _IEC_SYMBOLS if f > factor]
    if abs(mantissa) >= 1000 and bigger:
        factor, symbol = bigger[0]
        mantissa = _round_sig(value / factor, digits)
    if abs(mantissa) >= 1000:
        return f"{_scientific(value / factor, digits)} {symbol}{unit}"
    return f"{_fixed(mantissa, digits)} {symbol}{unit}"


def _time(value: float, digits: int) -> str:
    magnitude = abs(value)
    for scale, singular, plural, smallest in _TIME_DISPLAY:
        mantissa = _round_sig(magnitude / scale, digits)
        if mantissa >= smallest:
            if scale == YEAR and mantissa >= 1e6:
                return f"{_scientific(value / scale, digits)} years"
            text = _fixed(value / scale, digits)
            return f"{text} {singular if text in ('1', '-1') else plural}"
    return f"{_plain(value, digits)} s"


def _count(value: float, digits: int) -> str:
    rounded = _round_sig(value, digits)  # before dividing, as in `_prefixed`
    if abs(rounded) >= 1e15:
        return _scientific(value, digits)
    for scale, word in _COUNT_WORDS:
        if abs(rounded) >= scale:
            return f"{_fixed(rounded / scale, digits)} {word}"
    return _plain(value, digits)


def format_value(value: float, unit: str, *, binary: bool = False, digits: int = 3) -> str:
    """Show a value in a base unit the way a person would write it.

    Args:
        value: the value in the base unit `unit`.
        unit: one of `BASE_UNITS`.
        binary: for bytes and bytes per second, use IEC prefixes (GiB) instead of SI (GB).
        digits: significant digits to keep (at least 1).

    Returns:
        Text such as "1.13 TB", "363 days", "6.35e24 FLOP", "396 TFLOP/s", "70.6 billion"
        or "0.125"; never Python's "1e+12" style.

    Raises:
        ValueError: if `unit` is not a base unit or `digits` is below 1.

    >>> format_value(0.0012, "s")
    '1.2 ms'
    >>> format_value(6.35e24, "FLOP")
    '6.35e24 FLOP'
    >>> format_value(8.82e9, "param")
    '8.82 billion'
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, not {digits}")
    if unit not in BASE_UNITS:
        raise ValueError(f"unknown base unit {unit!r}; expected one of {', '.join(BASE_UNITS)}")
    if not math.isfinite(value):
        text = "not a number" if math.isnan(value) else ("-∞" if value < 0 else "∞")
        return text if unit == "1" else f"{text} {unit}"
    # -0.0 and 0.0, 2 and 2.0 show alike, so they may share a remembered text.
    return _shown(float(value) or 0.0, unit, binary, digits)


@functools.lru_cache(maxsize=8192)
def _shown(value: float, unit: str, binary: bool, digits: int) -> str:
    """:func:`format_value` of a finite float (-0.0 folded), remembered: a variant shows
    and reads back the same few values many times (the key, its reading, its step)."""
    if unit == "B":
        return _prefixed_binary(value, digits, "B") if binary else _prefixed(value, digits, "B")
    if unit == "B/s":
        return _prefixed_binary(value, digits, "B/s") if binary else _prefixed(value, digits, "B/s")
    if unit == "FLOP/s":
        return _prefixed(value, digits, "FLOP/s")
    if unit == "FLOP":
        return f"{_scientific(value, digits)} FLOP"
    if unit == "s":
        return _time(value, digits)
    if unit == "param":
        return _count(value, digits)
    large = abs(_round_sig(value, digits)) >= 1e6
    if unit in RATE_UNITS:
        number = _count(value, digits) if large else _plain(value, digits)
        noun = unit if number not in ("1", "-1") else unit.replace("s/", "/")
        return f"{number}/s" if unit == "1/s" else f"{number} {noun}"
    if value.is_integer() and abs(value) < 1e6:
        # Plain counts (GPUs, micro-batches) are exact: 16384 GPUs, not "16,400".
        number = f"{int(value):,}"
    elif unit in COUNT_UNITS and large:
        number = _count(value, digits)  # "15 trillion tokens"
    else:
        number = _plain(value, digits)
    if unit in COUNT_UNITS:
        return f"{number} {unit[:-1] if number in ('1', '-1') else unit}"
    return number


def format_both(value: float, unit: str) -> str:
    """Like `format_value`, but bytes are shown in SI and IEC units side by side.

    Args:
        value: the value in the base unit `unit`.
        unit: one of `BASE_UNITS`.

    Returns:
        "1.13 TB (1.03 TiB)" for bytes (just "512 B" when both read the same); for any
        other unit the same text as `format_value`.

    >>> format_both(2**31, "B")
    '2.15 GB (2 GiB)'
    """
    decimal = format_value(value, unit)
    if unit != "B":
        return decimal
    binary = format_value(value, unit, binary=True)
    return decimal if binary == decimal else f"{decimal} ({binary})"


# ---------------------------------------------------------------- examples

# Two values per unit, far apart (and none a reference figure of the domain), each with
# the spellings that show how to type it; `example_values` picks the one far from a key.
_EXAMPLE_VALUES: Final[dict[str, tuple[float, float]]] = {
    "B": (3.2e12, 48e9), "s": (17 * DAY, 0.12), "FLOP": (4.2e23, 7.5e19),
    "param": (12.5e9, 350e6), "B/s": (25e9, 2.4e12), "FLOP/s": (120e12, 2.2e15),
    "1": (0.35, 16), "tokens": (2.5e12, 3500), "requests": (12, 900),
    "1/s": (2.5, 140), "tokens/s": (1450, 36), "requests/s": (7.5, 320),
}


def _spellings(value: float, unit: str) -> list[str]:
    """Ways to type `value` in `unit`: its display first, then other notations."""
    shown = format_value(value, unit)
    if unit == "B":
        return [shown, format_value(value, unit, binary=True), f"{value:.2g} B".replace("e+", "e")]
    if unit == "B/s":
        return [shown, format_value(value * 8, "B").replace("B", "b") + "/s"]
    if unit == "s":
        other = f"{_fixed(value / HOUR, 3)} h" if value >= HOUR else \
            f"{_fixed(value * 1e3, 3)} ms"
        return [shown, other]
    if unit in ("param", "tokens") and value >= 1e6:
        words = {" trillion": "T", " billion": "B", " million": "M"}
        number = shown.removesuffix(" tokens")
        for word, letter in words.items():
            number = number.replace(word, letter)
        return [shown, number]
    if unit == "1/s":
        return [shown, f"{_plain(value, 3)} per second"]
    if unit in RATE_UNITS or unit in COUNT_UNITS:
        return [shown, _plain(value, 3)]
    return [shown]


def example_values(unit: str, avoid: float | None = None) -> list[str]:
    """Ways to type a value of `unit`, for "how to answer" lines and refusals.

    The value is never within a factor of 3 of `avoid` (a question's key), so an example
    under a question can never be its answer, and none is a reference figure.

    Raises:
        ValueError: an unknown base unit.

    >>> example_values("B")
    ['3.2 TB', '2.91 TiB', '3.2e12 B']
    >>> example_values("B", avoid=3e12)
    ['48 GB', '44.7 GiB', '4.8e10 B']
    >>> example_values("tokens/s")
    ['1,450 tokens/s', '1,450']
    """
    if unit not in BASE_UNITS:
        raise ValueError(f"unknown base unit {unit!r}; expected one of {', '.join(BASE_UNITS)}")
    first, _ = _EXAMPLE_VALUES[unit]
    near = avoid is not None and avoid != 0 and math.isfinite(avoid) and \
        1 / 3 < abs(first / avoid) < 3
    return list(_examples(unit, near))


@functools.cache
def _examples(unit: str, near: bool) -> tuple[str, ...]:
    # Every reading of a number computes its refusal's example first: formatted once per
    # unit, not per keystroke or per self-test draw (57,000 times in a bank self-test).
    first, second = _EXAMPLE_VALUES[unit]
    return tuple(_spellings(second if near else first, unit))
