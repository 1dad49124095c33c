"""The compiled bank at scale: what each piece of its machinery buys, paired in one run.

Every figure is a ratio of two arms run alternately in the same run (never a timed
assertion), each arm a fresh ``quiz`` process as a person starts one, timed as CPU
(user + system of the process and the processes it waits for) and wall:

- ``list``: the first ``quiz templates list`` of a 6,500-template bank in a new data
  folder, summarizing the files (as shipped) against compiling them all
  (``LIST_COMPILES`` raised: what the first list did before), with ``import sympy`` and
  the warm list beside it;
- ``pool``: the first full build of that bank (``questions.catalog.build``, what loading
  the bank does) with its files shared over two processes against one;
- ``views``: a template's first ``quiz ask``/``check`` in a data folder whose bank is
  compiled, drawn from the bank's view against validating the cached data;
- ``checkpool``: ``quiz templates test`` of a sample of the bank on two worker
  processes against one;
- ``bodies``: ``quiz templates test`` of a sample of the bank (copies of the bundled
  templates under new ids) with the draws of one template body checked once
  (:class:`quiz.core.selftest.Bodies`) against every copy checking its own;
- ``test``: ``quiz templates test`` of the whole bank in a new data folder (the bank
  compiled, then every template at 20 seeds), once: issue 34's figure (<= 60 s).

    python bench/bench_bank.py list --rounds 5
    python bench/bench_bank.py pool views checkpool --rounds 3
    python bench/bench_bank.py bodies --sample 393 --rounds 1
    python bench/bench_bank.py test

Results and decisions: bench/README.md, "The compiled bank at scale".
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

Arm = Callable[[Path], list[str]]
"""A data folder -> the command line to time in it."""


def timed(command: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(CPU, wall) seconds of a command, its waited-for children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, env=env)
    if done.returncode not in (0, 1):  # 1: `templates test` found failures (the copies'
        done.check_returncode()        # examples are drawn under other ids)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall)


def quiz(*args: str, before: str = "") -> list[str]:
    """``quiz ARGS`` as the script runs it, after the Python statements ``before``."""
    code = (f"import sys\n{before}\nfrom quiz.cli import main\n"
            f"sys.argv = ['quiz', *{list(args)!r}]\nsys.exit(main())")
    return [sys.executable, "-c", code]


def paired(arms: dict[str, Callable[[], tuple[float, float]]], rounds: int,
           prepare: Callable[[], None] = lambda: None) -> dict[str, list[tuple[float, float]]]:
    """Each arm once a round, the order reversed every other round."""
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in arms}
    names = list(arms)
    for i in range(rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            prepare()
            out[name].append(arms[name]())
    return out


def report(title: str, results: dict[str, list[tuple[float, float]]], base: str) -> None:
    print(f"\n{title} (n = {len(results[base])}, load {os.getloadavg()[0]:.1f})")
    for name, runs in results.items():
        cpu = [c for c, _ in runs]
        wall = [w for _, w in runs]
        ratios = [c / b for (c, _), (b, _) in zip(runs, results[base], strict=True)]
        print(f"  {name:<12} CPU median {statistics.median(cpu):6.2f} s "
              f"[{min(cpu):.2f}-{max(cpu):.2f}]  wall median {statistics.median(wall):6.2f} s"
              f"  CPU / {base}: median {statistics.median(ratios):.2f} "
              f"[{min(ratios):.2f}-{max(ratios):.2f}]")


def fresh(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)


def bench_list(work: Path, bank: Path, rounds: int) -> None:
    data = work / "data"
    env = dict(os.environ, QUIZ_DATA_DIR=str(data))

    def run(command: list[str]) -> Callable[[], tuple[float, float]]:
        return lambda: timed(command, env)

    listing = ["templates", "list", "--templates", str(bank)]
    warm = work / "warm"
    fresh(warm)
    subprocess.run(quiz(*listing), check=True, capture_output=True,
                   env=dict(env, QUIZ_DATA_DIR=str(warm)))
    results = paired({
        "summaries": run(quiz(*listing)),
        "compile-all": run(quiz(*listing, before="import quiz.commands.templates as t\n"
                                "t.LIST_COMPILES = 10**9")),
        "sympy": run([sys.executable, "-c", "import sympy"]),
        "warm": lambda: timed(quiz(*listing), dict(env, QUIZ_DATA_DIR=str(warm))),
    }, rounds, prepare=lambda: fresh(data))
    report("first `quiz templates list`, 6,500 templates", results, "sympy")


def bench_pool(work: Path, bank: Path, rounds: int) -> None:
    code = ("import sys\nfrom pathlib import Path\n"
            "import questions.bankpool as p\nimport questions.catalog as c\n"
            "from questions.loader import bank_files\n"
            "p._cores = lambda: 2\np.PER_PROCESS = int(sys.argv[1])\n"
            "cache = Path(sys.argv[2])\n"
            "c.build(bank_files([Path(sys.argv[3])], cache=cache), cache)\n")
    cache = work / "pool" / "bank.db"

    def arm(per: int) -> Callable[[], tuple[float, float]]:
        return lambda: timed([sys.executable, "-c", code, str(per), str(cache), str(bank)])

    results = paired({"processes": arm(1000), "one": arm(10**9)}, rounds,
                     prepare=lambda: fresh(cache.parent))
    report("first full build, 6,500 templates (processes: 2)", results, "one")
    for name, runs in results.items():
        print(f"  {name:<12} wall: " + ", ".join(f"{w:.1f}" for _, w in runs))


IDS = {"choice": "compute/recompute-trade-off", "number": "compute/recompute-hardware-flops"}


def bench_views(work: Path, rounds: int) -> None:
    data = work / "views"
    fresh(data)
    env = dict(os.environ, QUIZ_DATA_DIR=str(data))
    subprocess.run(quiz("templates", "list"), check=True, capture_output=True, env=env)
    no_view = "import questions.catalog as c\nc.Catalog.cached_view = lambda self, tid: None"

    def forget() -> None:  # the first draw of the template in this data folder
        for name in ("variants.db", "drawing.db"):
            (data / "cache" / name).unlink(missing_ok=True)

    for kind, tid in IDS.items():
        for command in (["ask", f"{tid}#3", "--json"],
                        ["check", tid, "--seed", "3", "--answer", "1", "--json"]):
            results = paired({
                "view": lambda c=command: timed(quiz(*c), env),
                "validate": lambda c=command: timed(quiz(*c, before=no_view), env),
            }, rounds, prepare=forget)
            report(f"first `quiz {command[0]}` of a {kind} template", results, "validate")


def bench_checkpool(work: Path, bank: Path, rounds: int, sample: int) -> None:
    some = sample_of(work, bank, sample)
    data = work / "checkpool"
    fresh(data)
    env = dict(os.environ, QUIZ_DATA_DIR=str(data))
    test = ["templates", "test", str(some), "--seeds", "20"]

    def arm(workers: int) -> Callable[[], tuple[float, float]]:
        return lambda: timed(quiz(*test, "-j", str(workers)), env)

    results = paired({"2 workers": arm(2), "1 worker": arm(1)}, rounds)
    report(f"`quiz templates test` of {sample} templates at 20 seeds", results, "1 worker")
    for name, runs in results.items():
        walls = [w for _, w in runs]
        print(f"  {name:<12} wall median {statistics.median(walls):.1f} s; per template "
              f"{statistics.median(walls) / sample:.3f} s, x 6,500 = "
              f"{statistics.median(walls) / sample * 6500 / 60:.0f} min")


def sample_of(work: Path, bank: Path, sample: int) -> Path:
    """The first `sample` files of the bank, in a folder of their own."""
    some = work / f"sample-{sample}"
    fresh(some)
    for path in sorted(bank.glob("*.toml"))[:sample]:
        shutil.copy(path, some / path.name)
    return some


def bench_bodies(work: Path, bank: Path, rounds: int, sample: int) -> None:
    some = sample_of(work, bank, sample)
    data = work / "bodies"
    fresh(data)
    env = dict(os.environ, QUIZ_DATA_DIR=str(data))
    test = ["templates", "test", str(some), "--seeds", "20", "-j", "1"]
    apart = ("import quiz.core.selftest as s\n"
             "s.Bodies.of = lambda self, t: s.Body()")  # every copy on its own
    results = paired({"shared": lambda: timed(quiz(*test), env),
                      "each alone": lambda: timed(quiz(*test, before=apart), env)}, rounds)
    report(f"`quiz templates test` of {sample} templates (copies of "
           f"{len(list((ROOT / 'questions' / 'bank').rglob('*.toml')))} bodies), 1 worker",
           results, "each alone")


def bench_test(work: Path, bank: Path) -> None:
    data = work / "test"
    fresh(data)
    env = dict(os.environ, QUIZ_DATA_DIR=str(data))
    cpu, wall = timed(quiz("templates", "test", "--templates", str(bank)), env)
    print(f"\n`quiz templates test` of the whole bank in a new data folder: CPU {cpu:.1f} s, "
          f"wall {wall:.1f} s (load {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benches", nargs="+",
                        choices=("list", "pool", "views", "checkpool", "bodies", "test"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bank", type=int, default=6_500, help="templates in the bank")
    parser.add_argument("--sample", type=int, default=40,
                        help="templates `checkpool` tests")
    args = parser.parse_args()
    from bench_startup import big_bank

    with tempfile.TemporaryDirectory(prefix="bench-bank-") as tmp:
        work = Path(tmp)
        bank = big_bank(work / "bank", args.bank)
        for name in args.benches:
            if name == "list":
                bench_list(work, bank, args.rounds)
            elif name == "pool":
                bench_pool(work, bank, args.rounds)
            elif name == "views":
                bench_views(work, args.rounds)
            elif name == "bodies":
                bench_bodies(work, bank, args.rounds, args.sample)
            elif name == "test":
                bench_test(work, bank)
            else:
                bench_checkpool(work, bank, args.rounds, args.sample)


if __name__ == "__main__":
    main()
