"""The time to self-test the whole bank, and read-and-grade latency per answer kind.

Run: python bench/bench_grading.py [--seeds 100] [--rounds 10] [--workers 1,2]
                                   [--only selftest|latency]

First (while caches are cold) it times `check_template` over the whole bank for --seeds
seeds on fresh processes, once per --workers count: wall seconds (worker start-up
included), CPU seconds, CPU per template-seed (min/median/p99 over templates) and the
slowest templates, against drawing one variant of each template in the same run. Target:
100 seeds <= 10 s, and a cost per template-seed that stays flat as the bank grows.

Then, for every answer kind in the bundled bank, it grades per variant the key's display
and wrong answers (each known mistake as the self-test types it, else another seed's
key), timing each `grade()` call (reading + grading, the path a keypress takes on Enter),
against a baseline timed in the same process (splitting the typed text into words).
Targets: p99 <= 16 ms for numbers, <= 250 ms for formulas. Prints, never asserts.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from timing import summary

from questions.loader import load_bank
from questions.schema import Template
from questions.variants import PartVariant, make_variant
from quiz.core.grading import grade
from quiz.core.selftest import check_template, mistake_answer

OTHER_SEEDS = 20
"""Seeds tried for a wrong answer when a part has no known mistake to type."""


def wrong_answers(t: Template, pv: PartVariant) -> list[str]:
    """Wrong answers for a part, whatever its kind: what each known mistake types (as the
    self-test grades them), else another seed's key that does not grade correct here."""
    typed = [text for m in pv.mistakes if (text := mistake_answer(pv, m)) is not None]
    if typed:
        return typed
    for seed in range(1, OTHER_SEEDS + 1):
        other = make_variant(t, seed).parts[pv.index - 1].key.display
        if grade(pv, other).verdict != "correct":
            return [other]
    return []


def latency(rounds: int) -> None:
    bank = load_bank()
    times: dict[str, list[float]] = defaultdict(list)
    base: list[float] = []
    without: dict[str, int] = defaultdict(int)
    for t in bank.templates.values():
        for seed in range(rounds):
            v = make_variant(t, seed)
            for pv in v.parts:
                grade(pv, pv.key.display)  # warm caches (first-time symbolic work)
                wrong = wrong_answers(t, pv)
                without[pv.kind] += not wrong
                for text in (pv.key.display, *wrong):
                    start = time.perf_counter()
                    grade(pv, text)
                    times[pv.kind].append(time.perf_counter() - start)
                    start = time.perf_counter()
                    text.strip().lower().split()
                    base.append(time.perf_counter() - start)
    b = statistics.median(base)
    print(f"baseline (str.split of the answer): median {b * 1e6:.2f} us")
    for kind, ts in sorted(times.items()):
        print(f"{kind:<8} {summary(ts)}  (median {statistics.median(ts) / b:,.0f}x baseline)")
    for kind, n in sorted(without.items()):
        if n:
            print(f"{kind}: {n} parts timed with their key only (no wrong answer found)")
    print("targets: number p99 <= 16 ms, formula p99 <= 250 ms")


_BANK: dict[str, Template] = {}
"""A worker's bank, loaded once by :func:`_load` (never once per template: compiling the
whole bank for each of n templates made the bench O(n^2))."""


def _load(cache: Path) -> None:
    _BANK.update(load_bank(cache=cache).templates)


def _check_one(args: tuple[str, int]) -> tuple[str, int, float]:
    """Self-test one template in a worker process: (id, failures, CPU seconds)."""
    template_id, seeds = args
    cpu = time.process_time()
    failures = len(check_template(_BANK[template_id], seeds=seeds))
    return template_id, failures, time.process_time() - cpu


def _draw_each(templates: list[Template]) -> float:
    start = time.perf_counter()
    for t in templates:
        make_variant(t, 0)
    return time.perf_counter() - start


def selftest(seeds: int, workers: int) -> None:
    """The whole bank's self-test over `seeds` seeds on `workers` fresh processes (spawned:
    cold caches, as `quiz templates test` starts), wall time including their start-up,
    against drawing one variant of each template in this process before and after."""
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "bank.db"  # compiled once, as `quiz templates test` finds it
        bank = load_bank(cache=cache)
        ids = sorted(bank.templates)
        templates = [bank.templates[i] for i in ids]
        _draw_each(templates)  # warm: the baseline is a warm draw, the run's pace
        before = _draw_each(templates)
        start = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(workers, initializer=_load,
                                                       initargs=(cache,)) as pool:
            results = pool.map(_check_one, [(i, seeds) for i in ids], chunksize=1)
        took = time.perf_counter() - start
    one = statistics.median([before, _draw_each(templates)])
    failures = sum(f for _, f, _ in results)
    cpu = sum(c for _, _, c in results)
    per = [c / seeds for _, _, c in results]
    print(f"self-test of {len(ids)} templates x {seeds} seeds on {workers} processes: "
          f"{took:.1f} s wall (start-up included), {cpu:.1f} s CPU in check_template, "
          f"{failures} failures ({took / one:.0f}x drawing one variant of each)")
    print(f"  per template-seed CPU: mean {cpu / len(ids) / seeds * 1e3:.2f} ms; "
          f"{summary(per)}")
    slow = sorted(results, key=lambda r: -r[2])[:5]
    print("  slowest: " + ", ".join(f"{i} {c / seeds * 1e3:.1f} ms" for i, _, c in slow))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--workers", default=f"1,{os.cpu_count() or 1}",
                    help="process counts to run the self-test on, comma-separated")
    ap.add_argument("--only", choices=("latency", "selftest"))
    ns = ap.parse_args()
    if ns.only != "latency":  # first, while this process's caches are cold
        for n in dict.fromkeys(int(w) for w in ns.workers.split(",")):
            selftest(ns.seeds, n)
    if ns.only != "selftest":
        latency(ns.rounds)
