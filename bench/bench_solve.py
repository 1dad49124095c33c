"""Solver speed, as ratios against baselines measured in the same run.

(a) a one-shot `quiz solve --json` process vs `python -c "import sympy"`, run alternately;
    target <= 1.5x.
(b) evaluating a derived quantity in-process after warm-up vs the same formula written as
    plain Python arithmetic; target <= 1 ms absolute.

Run: python bench/bench_solve.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def one_shot(rounds: int) -> None:
    solve = [
        sys.executable,
        "-m",
        "quiz.cli",
        "solve",
        "memory_per_gpu",
        "--model",
        "llama3-70b",
        "--gpu",
        "h100",
        "--set",
        "tp=8",
        "--set",
        "gpus=512",
        "--set",
        "zero=3",
        "--json",
    ]
    base = [sys.executable, "-c", "import sympy"]
    a, b = [], []
    for _ in range(rounds):  # alternate so that machine noise hits both alike
        b.append(_wall(base))
        a.append(_wall(solve))
    ma, mb = statistics.median(a), statistics.median(b)
    print(
        f"(a) quiz solve --json: {ma * 1000:.0f} ms; import sympy: {mb * 1000:.0f} ms; "
        f"ratio {ma / mb:.2f}x (target <= 1.5x)"
    )


def in_process(rounds: int) -> None:
    from solver.engine import evaluate, resolve_inputs

    inp = resolve_inputs("llama3-70b", "h100", {"tp": 8, "gpus": 512, "zero": "3"})
    evaluate(["memory_per_gpu"], inp)  # warm-up: derive and lambdify once
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        evaluate(["memory_per_gpu"], inp)
        times.append(time.perf_counter() - t)

    def direct() -> float:
        v = inp.values
        h, L, V, f = (float(v[k]) for k in ("hidden", "layers", "vocab", "ffn"))  # type: ignore[arg-type]
        a, k, d = (float(v[k]) for k in ("heads", "kv_heads", "head_dim"))  # type: ignore[arg-type]
        params = L * (2 * h * a * d + 2 * h * k * d + 3 * h * f + 2 * h) + 2 * V * h + h
        state = 16 * params / 8 / 64
        return state + 34 * 8192 * h / 8 * L

    base = []
    for _ in range(rounds):
        t = time.perf_counter()
        direct()
        base.append(time.perf_counter() - t)
    ma, mb = statistics.median(times), statistics.median(base)
    print(
        f"(b) evaluate(memory_per_gpu) after warm-up: {ma * 1e6:.1f} us "
        f"(target <= 1000 us); plain-Python formula {mb * 1e6:.2f} us; ratio {ma / mb:.0f}x"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ns = ap.parse_args()
    one_shot(ns.rounds)
    in_process(2000)
