"""Latency of the answer readers: `python bench/bench_reading.py`.

Prints median and p99 latency of `read_number`, of `read_formula` + `formulas_equivalent`,
and the slowest hostile input, each also as a ratio to a trivial baseline timed in the
same process (so numbers from a loaded or slower machine stay comparable). It prints and
never asserts; the targets are p99 <= 16 ms for numbers (one frame), <= 250 ms for
formulas, and <= 100 ms for any hostile input.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from quiz.core.reading import (
    Unreadable,
    formulas_equivalent,
    read_choice,
    read_formula,
    read_number,
)
from solver.units import BASE_UNITS, format_both, format_value

NUMBERS = [
    ("1.13e12", "B"), ("1.13 TB", "B"), ("1130GB", "B"), ("1,130 GB", "B"), ("1 130 GB", "B"),
    ("1.03 TiB", "B"), ("6.3 x 10^24", "FLOP"), ("6.3×10²⁴", "FLOP"), ("6.3*10**24", "FLOP"),
    ("6.3 · 10^24", "FLOP"), ("~363 days", "s"), ("≈ 363 d", "s"), ("1 year", "s"),
    ("5 centuries", "s"), ("0.44 s", "s"), ("440 ms", "s"), ("35%", "1"), ("8.8B", "param"),
    ("70.5 billion", "param"), ("70.5 bn", "param"), ("8K", "1"), ("15T", "param"),
    ("400 Gb/s", "B/s"), ("50 GB/s", "B/s"), ("989 TFLOP/s", "FLOP/s"), ("989 TFLOPS", "FLOP/s"),
    ("1.5 EFLOP", "FLOP"), ("1.13 terabytes", "B"), ("2 GiB", "B"), ("32 MiB", "B"),
    ("3 months", "s"), ("2 yr", "s"), ("1.13 TB (1.03 TiB)", "B"), ("16.4 GPUs", "1"),
]  # fmt: skip
NUMBERS += [(format_both(v, u), u) for v, u in [(2.28e9, "B"), (3.136e7, "s"), (6.35e24, "FLOP")]]
NUMBERS += [(format_value(v, u), u) for v, u in [(70.55e9, "param"), (396e12, "FLOP/s")]]

FORMULAS = [
    "6*P*D", "6PD", "2*(N-1)/N*B", "2*B - 2*B/N", "2*B", "3*(N-1)/N*B", "34 s h L",
    "s*h*(34 + 5*N*s/h)", "(P-1)/(D + P - 1)", "((P+D)*(N-B))^3 - 2*h/(P+1)",
    "(N+1)^64 - N^64", "(P^2)^(1/2)",
]  # fmt: skip
# The answer key each formula is compared with (built once sympy is imported).
KEYS = [
    "6*P*D", "6*P*D", "2*(N-1)/N*B", "2*(N-1)/N*B", "2*(N-1)/N*B", "2*(N-1)/N*B",
    "34*s*h*L", "s*h*(34 + 5*N*s/h)", "(P-1)/(D+P-1)", "((P+D)*(N-B))^3 - 2*h/(P+1)",
    "(N+1)^64 - N^64 + 0", "P",
]  # fmt: skip
NAMES = ("P", "D", "N", "B", "s", "h", "L")

HOSTILE = [
    "__import__('os').system('x')", "eval(1)", "10**10**10", "(" * 5000 + ")" * 5000,
    "9" * 100_000, "x" * 100_000, "٣٦٣ days", "NaN", "inf", "-inf", "1e400", "1,13 TB",
    "\x00\x1b[31m", "\u202e", "", "   ", "lambda: 0", "S(1)", "N", "E", "I",
    "(" * 50 + "P" + ")" * 50, "-" * 150 + "P", "P+" * 100 + "P", "2^64^(1/2)",
    "((2^64)^64)^(1/3)", "(123456789012345678901234567890^7+1)^(1/3)", "1e300^64",
    "(P+D+N+B+s+h+L)^64*(P-D)^64/(N-B)^64", "9" * 199, "1" + "0" * 198 + "e400",
    "P^" * 8 + "P", "P^" * 99 + "P", "(" * 49 + "P" + "^P)" * 49, "-" * 149 + "P",
]  # fmt: skip


def _time_ns(call: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def _p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def _quiet(call: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        try:
            return call()
        except Unreadable:
            return None

    return run


def _read_and_compare(
    text: str, key: Any, allowed: Mapping[str, Any], symbols: Sequence[Any]
) -> bool:
    return formulas_equivalent(read_formula(text, allowed).expr, key, symbols)


def _report(name: str, samples: list[float], baseline: float, target: float) -> None:
    median, p99 = statistics.median(samples), _p99(samples)
    print(
        f"{name:<38} median {median:8.3f} ms ({median / baseline:9.0f}x)   "
        f"p99 {p99:8.3f} ms ({p99 / baseline:9.0f}x)   target p99 <= {target:g} ms"
    )


def main() -> None:
    # Baselines: the cheapest possible "reading" of the same text, timed the same way.
    float_ms = statistics.median(_time_ns(lambda: float("1.13e12"), 20_000))
    sample = FORMULAS[2]
    split_ms = statistics.median(_time_ns(lambda: sample.split("*"), 20_000))
    print(f"baseline float('1.13e12')  median {float_ms * 1e3:.3f} µs")
    print(f"baseline str.split         median {split_ms * 1e3:.3f} µs")

    number_samples: list[float] = []
    for text, unit in NUMBERS:
        number_samples += _time_ns(partial(read_number, text, unit), 200)
    _report(f"read_number ({len(NUMBERS)} answers x 200)", number_samples, float_ms, 16)

    start = time.perf_counter()
    import sympy  # what the first formula pays, once per process: reported apart

    print(f"import sympy (once, by the first formula) {1e3 * (time.perf_counter() - start):.0f} ms")
    allowed = {name: sympy.Symbol(name) for name in NAMES}
    symbols = list(allowed.values())
    keys = [read_formula(key, allowed).expr for key in KEYS]

    formula_samples: list[float] = []
    for text, key in zip(FORMULAS, keys, strict=True):
        formula_samples += _time_ns(partial(_read_and_compare, text, key, allowed, symbols), 30)
    _report(f"read_formula+equivalent ({len(FORMULAS)} x 30)", formula_samples, split_ms, 250)

    worst, worst_text = 0.0, ""
    for text in HOSTILE:
        calls = [_quiet(partial(read_number, text, unit)) for unit in BASE_UNITS]
        calls.append(_quiet(partial(read_formula, text, allowed)))
        calls.append(_quiet(partial(read_choice, text, ["ring", "tree"], True)))
        for call in calls:
            slowest = max(_time_ns(call, 3))
            if slowest > worst:
                worst, worst_text = slowest, text
    print(
        f"hostile corpus ({len(HOSTILE)} inputs, every reader) max {worst:8.3f} ms "
        f"({worst / split_ms:9.0f}x str.split)   target <= 100 ms   slowest: {worst_text[:40]!r}"
    )


if __name__ == "__main__":
    main()
