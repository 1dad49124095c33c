"""The time to self-test the whole bank, and read-and-grade latency per answer kind.

Run: python bench/bench_grading.py [--seeds 100] [--rounds 10] [--workers 1,2]
                                   [--double] [--slowest] [--only selftest|latency]

First it runs `quiz templates test --seeds N -j W` over the whole bank as an author does
(a fresh process, the bank cache compiled), once per --workers count W, alternating with
`python -c "import sympy"` as the baseline: median wall seconds (start-up included) and
its ratio to the baseline, CPU seconds of the command and its workers, and CPU per
template-seed. --double adds the bank plus a copy of it under new ids (twice the
templates; the copies' examples, written for the draws of the original ids, fail
there, as expected); --slowest times each template in this process. Targets: 100 seeds <= 10 s
wall on 2 cores, and a cost per template-seed that stays flat as the bank grows.

Then, for every answer kind in the bundled bank, it grades per variant the key's display
and wrong answers (each known mistake as the self-test types it, else another seed's
key), timing each `grade()` call (reading + grading, the path a keypress takes on Enter),
against a baseline timed in the same process (splitting the typed text into words).
Targets: p99 <= 16 ms for numbers, <= 250 ms for formulas. Prints, never asserts.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench_startup import big_bank
from timing import summary

from questions.catalog import load_bank
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


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Run a command: (wall seconds, CPU seconds of it and its workers, last line)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return wall, cpu, (done.stdout.strip().splitlines() or [""])[-1]


def selftest(seeds: int, workers: list[int], rounds: int, double: bool) -> None:
    """`quiz templates test --seeds N -j W` over the whole bank, as an author runs it (a
    fresh process; the bank cache already compiled), once per W, alternating with the
    baseline `python -c "import sympy"` (the floor of any process that draws a variant);
    with --double, also over the bank plus a copy of it under new ids (twice the
    templates: the cost per template-seed should stay flat)."""
    quiz = [sys.executable, "-c", "import sys; from quiz.cli import main; "
            "sys.exit(main(sys.argv[1:]))", "templates", "test", "--seeds", str(seeds)]
    baseline = [sys.executable, "-c", "import sympy"]
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "QUIZ_DATA_DIR": str(Path(folder) / "data")}
        env.pop("QUIZ_TEMPLATES", None)
        copies = Path(folder) / "copies"
        if double:
            big_bank(copies, len(load_bank(bundled=True).templates))
        more = ["--templates", str(copies)] if double else []
        subprocess.run([*quiz[:3], "templates", "list", *more], capture_output=True,
                       env=env, check=True)  # compile the bank cache, as an author has it
        cases: dict[str, list[str]] = {"import sympy": baseline}
        for w in workers:
            cases[f"bank, -j {w}"] = [*quiz, "-j", str(w)]
        if double:
            for w in workers:
                cases[f"bank x2, -j {w}"] = [*quiz, "-j", str(w), "--templates", str(copies)]
        runs: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
        for _ in range(rounds):
            for name, command in cases.items():  # alternating: noise hits every case
                runs[name].append(_run(command, env))
    base = statistics.median(w for w, _, _ in runs["import sympy"])
    print(f"self-test, {seeds} seeds, {rounds} round(s); median wall, CPU with workers, "
          f"per template-seed CPU; baseline import sympy {base:.2f} s")
    for name, got in runs.items():
        if name == "import sympy":
            continue
        wall = statistics.median(w for w, _, _ in got)
        cpu = statistics.median(c for _, c, _ in got)
        templates = int(got[-1][2].split()[0])
        print(f"  {name:<14} {wall:6.1f} s wall ({wall / base:4.1f}x import sympy), "
              f"{cpu:6.1f} s CPU, {cpu / templates / seeds * 1e3:5.2f} ms per "
              f"template-seed; {got[-1][2]}")
    print("targets: whole bank at 100 seeds <= 10 s wall on 2 cores; per template-seed "
          "flat as the bank doubles")


def slowest(seeds: int) -> None:
    """CPU per template-seed of each template (this process, one after another)."""
    bank = load_bank(bundled=True)
    per: dict[str, float] = {}
    for tid in sorted(bank.templates):
        cpu = time.process_time()
        check_template(bank.templates[tid], seeds=seeds)
        per[tid] = (time.process_time() - cpu) / seeds
    print(f"per template-seed CPU, one process: {summary(list(per.values()))}")
    top = sorted(per.items(), key=lambda item: -item[1])[:5]
    print("  slowest: " + ", ".join(f"{tid} {c * 1e3:.1f} ms" for tid, c in top))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=10,
                    help="latency: variants per template; self-test: runs per case")
    ap.add_argument("--workers", default=f"1,{os.cpu_count() or 1}",
                    help="process counts to run the self-test on, comma-separated")
    ap.add_argument("--double", action="store_true",
                    help="also self-test the bank plus a copy of it (scaling)")
    ap.add_argument("--slowest", action="store_true",
                    help="also time each template in this process")
    ap.add_argument("--only", choices=("latency", "selftest"))
    ns = ap.parse_args()
    if ns.only != "latency":
        selftest(ns.seeds, list(dict.fromkeys(int(w) for w in ns.workers.split(","))),
                 ns.rounds if ns.only == "selftest" else 1, ns.double)
        if ns.slowest:
            slowest(ns.seeds)
    if ns.only != "selftest":
        latency(ns.rounds)
