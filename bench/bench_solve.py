"""Solver speed, as ratios against baselines measured in the same run.

(a) a one-shot `quiz solve --json` process vs `python -c "import sympy"`, run alternately;
    target <= 1.5x.
(b) evaluating a derived quantity in-process after warm-up vs the same formula written as
    plain Python arithmetic; target <= 1 ms absolute.
(c) one-shot `quiz ask` and `quiz check` of a number, a choice and a formula question,
    the variant cache cold and warm, vs `import sympy` (target <= 1.2x) and vs
    `python -c pass`.

Run: python bench/bench_solve.py [--rounds N] [--only a|b|c]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from timing import summary

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The processes' environment: bytecode is cached, as in an ordinary install (with
PYTHONDONTWRITEBYTECODE set, quiz's own modules are compiled again on every start)."""


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=ENV)
    return time.perf_counter() - t


ASKED = {  # answer kind -> (variant, an answer to check)
    "number": ("memory/model-state#3", "128 GB"),
    "choice": ("parallelism/activations-only-axis#1", "b"),
    "formula": ("compute/flops-formula#0", "6*P*D"),
}


def ask_and_check(rounds: int) -> None:
    """(c) one-shot `quiz ask` and `quiz check` for a number, a choice and a formula
    question, with the variant cache cold (never asked: the solver draws it) and warm
    (read back from the data folder's cache), vs `import sympy` and vs a bare
    `python -c pass`, every command once per round in turn; target <= 1.2x sympy.

    The compiled-bank cache is warm in every row (bench_startup times a cold bank).
    """
    py = sys.executable
    script = os.path.join(os.path.dirname(py), "quiz")  # the installed console script
    with tempfile.TemporaryDirectory() as tmp:
        rows: dict[str, tuple[list[str], str | None]] = {  # name -> (command, cache to drop)
            "python -c pass": ([py, "-c", "pass"], None),
            "import sympy": ([py, "-c", "import sympy"], None)}
        for kind, (ref, answer) in ASKED.items():
            data = os.path.join(tmp, kind)  # a data folder per question: its own cache
            variants = os.path.join(data, "cache", "variants.db")
            quiz = [py, "-m", "quiz.cli", "--data-dir", data]
            for state in ("cold", "warm"):
                drop = variants if state == "cold" else None
                rows[f"ask {kind} {state}"] = ([*quiz, "ask", ref, "--json"], drop)
                rows[f"check {kind} {state}"] = (
                    [*quiz, "check", ref, "--answer", answer, "--json"], drop)
        if os.path.exists(script):
            ref, _ = ASKED["number"]
            rows["ask number warm (console script)"] = (
                [script, "--data-dir", os.path.join(tmp, "number"), "ask", ref, "--json"],
                None)
        for cmd, _ in rows.values():  # warm-up: bytecode, the compiled bank, the variants
            _wall(cmd)
        times: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(rounds):
            for name, (cmd, drop) in rows.items():
                if drop is not None:  # cold: this question was never asked
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(drop)
                times[name].append(_wall(cmd))
    bare = statistics.median(times["python -c pass"])
    sympy = statistics.median(times["import sympy"])
    for name, values in times.items():
        m = statistics.median(values)
        ratios = "" if name == "python -c pass" else f"; {m / bare:.1f}x pass"
        if name not in ("python -c pass", "import sympy"):
            ratios = f"; {m / sympy:.2f}x import sympy (target <= 1.2x){ratios}"
        print(f"(c) {name:<32} {summary(values)}{ratios}")


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
    ap.add_argument("--only", choices=["a", "b", "c"], help="run one row group")
    ns = ap.parse_args()
    if ns.only in (None, "a"):
        one_shot(ns.rounds)
    if ns.only in (None, "c"):
        ask_and_check(ns.rounds)
    if ns.only in (None, "b"):
        in_process(2000)
