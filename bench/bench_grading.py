"""Read-and-grade latency per answer kind, and the time to self-test the whole bank.

Run: python bench/bench_grading.py [--seeds 100] [--rounds 30]

For every answer kind in the bundled bank it grades, per variant, the key's display and a
wrong answer, timing each `grade()` call (reading + grading, the path a keypress takes
on Enter). It prints the median and p99 per kind, each also as a ratio to a baseline
timed in the same process (splitting the typed text into words). Targets: p99 <= 16 ms
for numbers, <= 250 ms for formulas. Then it times `check_template` over the whole bank
for --seeds seeds. Prints, never asserts.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from questions.loader import load_bank
from questions.variants import make_variant
from quiz.core.grading import grade
from quiz.core.selftest import check_template

WRONG = {"number": "42", "formula": "2*x", "choice": "a", "multi": "a", "table": "dp: -",
         "layout": "tp=1 pp=1 mb=1 zero=0"}


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency(rounds: int) -> None:
    bank = load_bank()
    times: dict[str, list[float]] = defaultdict(list)
    base: list[float] = []
    for t in bank.templates.values():
        for seed in range(rounds):
            v = make_variant(t, seed)
            for pv in v.parts:
                grade(pv, pv.key.display)  # warm caches (first-time symbolic work)
                for text in (pv.key.display, WRONG[pv.kind]):
                    start = time.perf_counter()
                    grade(pv, text)
                    times[pv.kind].append(time.perf_counter() - start)
                    start = time.perf_counter()
                    text.strip().lower().split()
                    base.append(time.perf_counter() - start)
    b = statistics.median(base)
    print(f"baseline (str.split of the answer): median {b * 1e6:.2f} us")
    for kind, ts in sorted(times.items()):
        med, p99 = statistics.median(ts), _p(ts, 0.99)
        print(f"{kind:<8} n={len(ts):>5}  median {med * 1e3:7.3f} ms  p99 {p99 * 1e3:7.3f} ms"
              f"  (p99 = {p99 / b:,.0f}x baseline)")
    print("targets: number p99 <= 16 ms, formula p99 <= 250 ms")


def selftest(seeds: int) -> None:
    bank = load_bank()
    start = time.perf_counter()
    failures = sum(len(check_template(t, seeds=seeds)) for t in bank.templates.values())
    took = time.perf_counter() - start
    start = time.perf_counter()
    for t in bank.templates.values():
        make_variant(t, 0)
    one = time.perf_counter() - start
    print(f"self-test of {len(bank.templates)} templates x {seeds} seeds: {took:.1f} s, "
          f"{failures} failures ({took / one:.0f}x the time to draw one variant of each)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=10)
    ns = ap.parse_args()
    latency(ns.rounds)
    selftest(ns.seeds)
