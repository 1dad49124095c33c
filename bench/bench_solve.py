"""Solver speed, as ratios against baselines measured in the same run.

(a) a one-shot `quiz solve --json` process vs `python -c "import sympy"`, run alternately;
    target <= 1.5x.
(b) evaluating a derived quantity in-process after warm-up vs the same formula written as
    plain Python arithmetic; target <= 1 ms absolute.
(c) one-shot `quiz ask` and `quiz check` vs `import sympy`; target <= 1.2x.

Run: python bench/bench_solve.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The processes' environment: bytecode is cached, as in an ordinary install (with
PYTHONDONTWRITEBYTECODE set, quiz's own modules are compiled again on every start)."""


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=ENV)
    return time.perf_counter() - t


def ask_and_check(rounds: int) -> None:
    """(c) one-shot `quiz ask` and `quiz check` (one template, from the compiled catalog)
    vs `import sympy`, alternating; target <= 1.2x."""
    quiz = [sys.executable, "-m", "quiz.cli"]
    with tempfile.TemporaryDirectory() as data:
        commands = {
            "ask": [*quiz, "--data-dir", data, "ask", "memory/model-state#3"],
            "check": [*quiz, "--data-dir", data, "check", "memory/model-state#3",
                      "--answer", "128 GB"],
        }
        base = [sys.executable, "-c", "import sympy"]
        for cmd in commands.values():  # warm-up: bytecode, the compiled-bank cache
            _wall(cmd)
        times: dict[str, list[float]] = {"import sympy": [], **{k: [] for k in commands}}
        for _ in range(rounds):
            times["import sympy"].append(_wall(base))
            for name, cmd in commands.items():
                times[name].append(_wall(cmd))
    mb = statistics.median(times["import sympy"])
    for name, values in times.items():
        m = statistics.median(values)
        print(f"(c) {name}: min {min(values) * 1000:.0f} ms, median {m * 1000:.0f} ms"
              + ("" if name == "import sympy" else f"; ratio {m / mb:.2f}x (target <= 1.2x)"))


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
    ask_and_check(ns.rounds)
    in_process(2000)
