"""Solver speed, as ratios against baselines measured in the same run.

(a) a one-shot `quiz solve --json` process vs `python -c "import sympy"`, run alternately;
    target <= 1.5x.
(b) evaluating a derived quantity in-process after warm-up vs the same formula written as
    plain Python arithmetic; target <= 1 ms absolute.
(c) one-shot `quiz ask` and `quiz check` of a number, a choice and a formula question,
    warm (the variant asked before), cold (a seed never asked, of a template asked
    before), first (the template never asked: the plans file dropped) and fresh (a new
    data folder: the bank compiled too), vs `import sympy` (target <= 1.2x) and vs
    `python -c pass`; each row also gives its median CPU time against `import sympy`'s
    (steadier than wall time on a loaded machine).
(d) the one-shot machinery, each paired with the same command without it in the same
    round: QUICK_EXIT (a warm `quiz check` ending with os._exit, against `main(argv)`,
    which exits the ordinary way), the plans file (a new seed with its plans kept,
    against the template's first ask, which derives them) and the predraw (a new seed
    after a first ask that derived the first seeds' plans too, against one after a first
    ask that did not, both without the shipped plans, as for a user's template; and the
    first asks themselves).

(e) the plans shipped with the package (solver/plans.tsv): the first `quiz solve`,
    `quiz layout` (the seed case) and `quiz check` of a number template in a NEW data
    folder, with the shipped plans and without them (solver.shipped.get answering None: every
    plan derived, as before), paired in the same round, vs `import sympy`; `quiz check`
    also with the compiled bank copied in (the draw alone: compiling the bank in a new
    folder imports sympy through questions.loader's name check, the bank's business).

Run: python bench/bench_solve.py [--rounds N] [--only a|b|c|d|e]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
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
    return _timed(cmd)[0]


def _timed(cmd: list[str]) -> tuple[float, float]:
    """The command's wall time and its CPU time (user + system, from the OS's account
    of finished children): on a machine others load, CPU time moves far less."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


ASKED = {  # answer kind -> (template, an answer to check)
    "number": ("memory/model-state", "128 GB"),
    "choice": ("parallelism/activations-only-axis", "b"),
    "formula": ("compute/flops-formula", "6*P*D"),
}
BASELINES = ("python -c pass", "import sympy", "import sympy, os._exit")
ASKED_SEED = 3
"""The seed of the warm and first rows (cold rows ask seeds from 1000 on, each once)."""


def ask_and_check(rounds: int) -> None:
    """(c) one-shot `quiz ask` and `quiz check` for a number, a choice and a formula
    question: warm (this ID#SEED was asked before), cold (a seed never asked, of a
    template asked before), first (the template never asked in this data folder: its
    plans derived with sympy) and fresh (a new data folder: the whole bank compiled
    first), vs `import sympy` and vs a bare `python -c pass`, every command once per
    round in turn; target <= 1.2x sympy. Every row draws from the view the compiled
    bank keeps; warm and cold rows run the plans kept in the data folder.

    The compiled-bank cache is warm in every row but fresh (bench_startup times a cold
    bank of 6,500 templates).
    """
    py = sys.executable
    script = os.path.join(os.path.dirname(py), "quiz")  # the installed console script
    fresh = iter(range(1000, 10**6))
    with tempfile.TemporaryDirectory() as tmp:
        # name -> (command, seed or None for a new one each time, caches to drop)
        rows: dict[str, tuple[list[str], int | None, tuple[str, ...]]] = {
            "python -c pass": ([py, "-c", "pass"], None, ()),
            "import sympy": ([py, "-c", "import sympy"], None, ()),
            # The same import without the interpreter's clean-up at exit (about 60 ms
            # once sympy is in), which `quiz ask`/`check` skip: for comparison.
            "import sympy, os._exit": ([py, "-c", "import sympy, os; os._exit(0)"], None,
                                       ())}
        for kind, (tid, answer) in ASKED.items():
            data = os.path.join(tmp, kind)  # a data folder per question: its own cache
            caches = (os.path.join(data, "cache", "drawing.db"),)
            quiz = [py, "-m", "quiz.cli", "--data-dir", data]
            for state in ("warm", "cold", "first"):
                seed = None if state == "cold" else ASKED_SEED
                drop = caches if state == "first" else ()
                rows[f"ask {kind} {state}"] = ([*quiz, "ask", tid, "--json"], seed, drop)
                rows[f"check {kind} {state}"] = (
                    [*quiz, "check", tid, "--answer", answer, "--json"], seed, drop)
        if os.path.exists(script):
            tid, _ = ASKED["number"]
            rows["ask number warm (console script)"] = (
                [script, "--data-dir", os.path.join(tmp, "number"), "ask", tid, "--json"],
                ASKED_SEED, ())
        for kind, (tid, answer) in ASKED.items():
            new = os.path.join(tmp, f"fresh-{kind}")  # a data folder of its own, made anew
            rows[f"ask {kind} fresh"] = ([py, "-m", "quiz.cli", "--data-dir", new, "ask", tid,
                                          "--json"], ASKED_SEED, (new,))
            rows[f"check {kind} fresh"] = ([py, "-m", "quiz.cli", "--data-dir", new, "check",
                                            tid, "--answer", answer, "--json"], ASKED_SEED,
                                           (new,))

        def command(cmd: list[str], seed: int | None, name: str) -> list[str]:
            if name in BASELINES:
                return cmd
            return [*cmd, "--seed", str(next(fresh) if seed is None else seed)]

        for name, (cmd, seed, _) in rows.items():  # warm-up: bytecode, bank, caches
            _wall(command(cmd, seed, name))
        times: dict[str, list[float]] = {name: [] for name in rows}
        cpu: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(rounds):
            for name, (cmd, seed, drop) in rows.items():
                for file in drop:  # first: this template was never asked (fresh: nothing)
                    if os.path.isdir(file):
                        shutil.rmtree(file)
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(file)
                wall, used = _timed(command(cmd, seed, name))
                times[name].append(wall)
                cpu[name].append(used)
    bare = statistics.median(times["python -c pass"])
    sympy = statistics.median(times["import sympy"])
    sympy_cpu = statistics.median(cpu["import sympy"])
    for name, values in times.items():
        m = statistics.median(values)
        ratios = "" if name == "python -c pass" else f"; {m / bare:.1f}x pass"
        if name == "import sympy, os._exit":
            ratios = f"; {m / sympy:.2f}x import sympy{ratios}"
        elif name not in BASELINES:
            ratios = f"; {m / sympy:.2f}x import sympy (target <= 1.2x){ratios}"
        used = statistics.median(cpu[name])
        print(f"(c) {name:<32} {summary(values)}{ratios}; CPU median {used * 1000:.0f} ms "
              f"({used / sympy_cpu:.2f}x import sympy's)")


def machinery(rounds: int) -> None:
    """(d) each piece of the one-shot machinery against the same command without it,
    in the same round (see the module docstring); CPU medians, n and spread."""
    py = sys.executable
    tid, answer = ASKED["number"]
    seeds = iter(range(1000, 10**6))

    def wrapped(before: str, args: list[str]) -> list[str]:
        """`quiz ARGS` through main() as the console script calls it, after `before`."""
        return [py, "-c", f"import sys; {before}; from quiz.cli import main; "
                f"sys.argv = ['quiz', *{args!r}]; sys.exit(main())"]

    with tempfile.TemporaryDirectory() as tmp:
        base = ["--data-dir", tmp]
        plans = os.path.join(tmp, "cache", "drawing.db")
        check = [*base, "check", tid, "--seed", str(ASKED_SEED), "--answer", answer, "--json"]
        subprocess.run([py, "-m", "quiz.cli", *check], check=True, capture_output=True)
        cpu: dict[str, list[float]] = {}

        def run(name: str, cmd: list[str]) -> None:
            cpu.setdefault(name, []).append(_timed(cmd)[1])

        for _ in range(rounds):
            run("import sympy", [py, "-c", "import sympy"])
            run("check warm, QUICK_EXIT", [py, "-m", "quiz.cli", *check])
            run("check warm, ordinary exit",
                [py, "-c", f"import sys; from quiz.cli import main; sys.exit(main({check!r}))"])
            for how, before in (("predraw", "pass"),
                                ("no predraw", "import questions.stored as s; s.PREDRAWN = 0")):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(plans)
                before += "; import solver.shipped as sh; sh.get = lambda key: None"  # derive them
                run(f"first ask ({how})", wrapped(before, [*base, "ask", tid, "--seed",
                                                           str(ASKED_SEED), "--json"]))
                # The new seed without the shipped plans too: the predraw serves what they
                # do not cover (a user's or a pack's template), and with them both arms
                # would read the same shipped rows.
                run(f"new seed after first ask ({how})",
                    wrapped("import solver.shipped as sh; sh.get = lambda key: None",
                            [*base, "ask", tid, "--seed", str(next(seeds)), "--json"]))
            run("new seed, plans kept", [py, "-m", "quiz.cli", *base, "ask", tid, "--seed",
                                         str(next(seeds)), "--json"])
    sympy = statistics.median(cpu["import sympy"])
    for name, values in cpu.items():
        m = statistics.median(values)
        print(f"(d) {name:<38} CPU n={len(values)} median {m * 1000:5.0f} ms "
              f"[{min(values) * 1000:.0f}-{max(values) * 1000:.0f}] ({m / sympy:.2f}x "
              "import sympy's)")
    pairs = (("QUICK_EXIT", "check warm, QUICK_EXIT", "check warm, ordinary exit"),
             ("plans file", "new seed, plans kept", "first ask (no predraw)"),
             ("predraw", "new seed after first ask (predraw)",
              "new seed after first ask (no predraw)"))
    for piece, with_it, without in pairs:
        a, b = statistics.median(cpu[with_it]), statistics.median(cpu[without])
        mean = statistics.mean(cpu[with_it]) / statistics.mean(cpu[without])
        print(f"(d) {piece}: {a / b:.2f}x the CPU without it ({1 - a / b:+.0%} saved); "
              f"means {mean:.2f}x (a seed that needs other derivations is a rare, costly "
              "sample: the mean counts it)")


SOLVE = ["solve", "memory_per_gpu", "--model", "llama3-70b", "--gpu", "h100", "--set", "tp=8",
         "--set", "gpus=512", "--set", "zero=3", "--json"]
LAYOUT = ["layout", "--model", "llama3-70b", "--gpu", "h100", "--set", "gpus=512", "--set",
          "seq=8192", "--set", "global_batch=1024", "--json"]
"""The README's seed case."""


def one_shot(rounds: int) -> None:
    """(a) one-shot `quiz solve --json` and `quiz layout --json` (the seed case), first
    (a new data folder: the plans shipped with the package, or derived with sympy when
    the shipped file is stale) and warm (the plans kept), vs
    `import sympy` in the same round; target <= 1.2x. CPU medians (and wall)."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        rows: dict[str, tuple[list[str], str | None]] = {
            "import sympy": ([py, "-c", "import sympy"], None)}
        for name, call in (("solve", SOLVE), ("layout", LAYOUT)):
            for state in ("first", "warm"):
                data = os.path.join(tmp, f"{name}-{state}")
                rows[f"quiz {name} {state}"] = ([py, "-m", "quiz.cli", "--data-dir", data,
                                                 *call], data if state == "first" else None)
        for cmd, _ in rows.values():  # warm-up: bytecode, and the warm rows' plans
            _wall(cmd)
        wall: dict[str, list[float]] = {name: [] for name in rows}
        cpu: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(rounds):
            for name, (cmd, fresh) in rows.items():
                if fresh is not None:
                    shutil.rmtree(fresh, ignore_errors=True)
                w, c = _timed(cmd)
                wall[name].append(w)
                cpu[name].append(c)
    sympy_cpu = statistics.median(cpu["import sympy"])
    sympy_wall = statistics.median(wall["import sympy"])
    for name in rows:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        print(f"(a) {name:<20} CPU n={len(cpu[name])} median {c * 1000:5.0f} ms "
              f"[{min(cpu[name]) * 1000:.0f}-{max(cpu[name]) * 1000:.0f}] "
              f"({c / sympy_cpu:.2f}x import sympy's; target <= 1.2x); wall median "
              f"{w * 1000:.0f} ms ({w / sympy_wall:.2f}x)")


def shipped_plans(rounds: int) -> None:
    """(e) first commands in a new data folder with and without the shipped plans (see
    the module docstring); CPU medians, n and spread, against `import sympy`."""
    py = sys.executable
    tid, answer = ASKED["number"]
    check = ["check", tid, "--seed", str(ASKED_SEED), "--answer", answer, "--json"]
    hows = (("shipped", "pass"),
            ("derived", "import solver.shipped as sh; sh.get = lambda key: None"))
    with tempfile.TemporaryDirectory() as tmp:
        bank = os.path.join(tmp, "bank")
        subprocess.run([py, "-m", "quiz.cli", "--data-dir", bank, "templates", "list"],
                       check=True, capture_output=True)
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(bank, "cache", "drawing.db"))
        cpu: dict[str, list[float]] = {}
        for r in range(-1, rounds):  # round -1: warm-up (bytecode)
            sympy = _timed([py, "-c", "import sympy"])[1]
            if r >= 0:
                cpu.setdefault("import sympy", []).append(sympy)
            for what, call, bank_kept in (("solve", SOLVE, False), ("layout", LAYOUT, False),
                                          ("check", check, False),
                                          ("check, bank kept", check, True)):
                for how, before in hows:
                    data = os.path.join(tmp, f"new-{r}-{what}-{how}")
                    if bank_kept:
                        shutil.copytree(os.path.join(bank, "cache"),
                                        os.path.join(data, "cache"))
                    cmd = [py, "-c", f"import sys; {before}; from quiz.cli import main; "
                           f"sys.argv = ['quiz', '--data-dir', {data!r}, *{call!r}]; "
                           "sys.exit(main())"]
                    c = _timed(cmd)[1]
                    if r >= 0:
                        cpu.setdefault(f"first {what} ({how})", []).append(c)
    sympy = statistics.median(cpu["import sympy"])
    for name, values in cpu.items():
        m = statistics.median(values)
        print(f"(e) {name:<34} CPU n={len(values)} median {m * 1000:5.0f} ms "
              f"[{min(values) * 1000:.0f}-{max(values) * 1000:.0f}] ({m / sympy:.2f}x "
              "import sympy's; target <= 1.2x)")
    for what in ("solve", "layout", "check", "check, bank kept"):
        a = statistics.median(cpu[f"first {what} (shipped)"])
        b = statistics.median(cpu[f"first {what} (derived)"])
        print(f"(e) shipped plans, first {what}: {a / b:.2f}x the CPU without them "
              f"({1 - a / b:+.0%} saved)")


def in_process(rounds: int) -> None:
    from solver.inputs import resolve_inputs
    from solver.light import evaluate

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
    ap.add_argument("--only", choices=["a", "b", "c", "d", "e"], help="run one row group")
    ns = ap.parse_args()
    if ns.only in (None, "a"):
        one_shot(ns.rounds)
    if ns.only in (None, "c"):
        ask_and_check(ns.rounds)
    if ns.only in (None, "d"):
        machinery(ns.rounds)
    if ns.only in (None, "e"):
        shipped_plans(ns.rounds)
    if ns.only in (None, "b"):
        in_process(2000)
