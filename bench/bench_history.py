"""A big history: home usable and stats shown with 100k and 1M attempts.

Builds synthetic histories in a temp folder with the project's own API (``Store.open``
creates the schema, the rows are ``records.attempt_to_row`` of ``Attempt`` objects,
inserted with executemany in one transaction, so the summary triggers run as they do
for real answers; FSRS cards come from ``Drill.review``). The bundled bank's templates,
topics and tags are used, answers come every 30-90 s in daily sessions.

Each measurement runs in a fresh process (so peak RSS is its own), alternating the sizes
round by round; the empty history is the baseline:

- open: ``open_light`` (settings, the store, the daily backup);
- home: the home screen's figures (``tui.data.home_summary`` with the catalog's ids);
- usable: open + home, what the person waits for before the menu shows today's counts;
- stats: the stats screen's figures (``tui.data.stats_data``) after opening;
- mistakes: the mistakes screen's data (``core.mistakes.mistakes`` and ``leeches``, the
  bank loaded first as the app has it);
- export: ``quiz history export`` (``writer.write_history``, JSON, to /dev/null);
- cli-stats: ``quiz stats --json``, the whole command as a process (interpreter start
  included: what a script calling it waits for).

Prints min / median / p99 (or max, under 100 samples) per size, the ratio of medians to
the empty history, and each process's peak RSS (the largest over the rounds; the stats
and mistakes processes load the bank, as the app does, so their RSS is mostly sympy and
the templates: compare with the empty history's). Asserts nothing.

Run: python bench/bench_history.py [--sizes 100000 1000000] [--rounds N] [--keep DIR]
[--only home stats ...] [--compare SOURCE]
(``--keep`` builds the histories in DIR once and reuses them on later runs; ``--compare``
runs a source tree of the code before a change, e.g. ``git archive main | tar -x -C
SOURCE``, alternating with this one sample by sample, and prints after/before ratios.)
Targets (issue 15): usable / stats <= 0.3 s / 0.5 s at 100k; <= 0.5 s / 1 s and
<= 250 MB RSS at 1M.

Measured 2026-12-01 on the shared 2-core machine (never quiet: other suites running),
before (7f3b27d, schema 4) and after (schema 5), alternating in the same run, medians of
2 rounds (first round alone in brackets, less loaded), peak RSS per process:

- 1M: usable 1240 -> 515 ms (722 -> 298); stats screen 2430 -> 933 ms (1495 -> 466);
  mistakes 319 s -> 6.7 s, 2413 -> 78 MB (the rest is deriving 50 solutions); export
  191 -> 268 s (noisy), 5621 -> 36 MB; quiz stats --json 6.2 -> 2.6 s, 76 -> 28 MB.
- 100k: usable 250 -> 177 ms; stats 1135 -> 1303 ms (586 -> 551); mistakes 37 -> 8.5 s,
  319 -> 84 MB; export 28 -> 24 s, 592 -> 36 MB; quiz stats --json 7.2 -> 1.7 s.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from timing import summary

PER_DAY = 300
"""Attempts per day of the synthetic history (a heavy user: the 1M history spans 9 years)."""

MEASURE = """
import json, os, resource, sys, time
t0 = time.perf_counter()
from quiz.core.state import open_light, catalog_for
from quiz.tui.data import home_summary, stats_data
data = sys.argv[1]
what = sys.argv[2]
t1 = time.perf_counter()
state = open_light(data)
t2 = time.perf_counter()
ids = catalog_for(state).ids
t3 = time.perf_counter()
out = {"open": t2 - t1}
if what == "home":
    home_summary(state.store, state.settings, ids, None)
    out["home"] = time.perf_counter() - t3
    out["usable"] = out["open"] + out["home"]
elif what == "export":
    from quiz.core.store.writer import write_history
    with open(os.devnull, "w", encoding="utf-8", newline="") as sink:
        t4 = time.perf_counter()
        write_history(state.store, "json", sink)
    out["export"] = time.perf_counter() - t4
else:
    bank = catalog_for(state).bank()
    import quiz.core.session  # the app imports it (sympy) behind the home, before stats
    t4 = time.perf_counter()
    if what == "stats":
        stats_data(state, bank, None)
    else:
        from quiz.core.mistakes import leeches, mistakes
        mistakes(state.store, bank)
        leeches(state.store)
    out[what] = time.perf_counter() - t4
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
state.store.close()
print(json.dumps(out))
"""

CLI = "import sys; from quiz.cli import main; sys.exit(main(sys.argv[1:]))"
"""What the ``quiz`` console script runs."""

PROCESSES = ("home", "stats", "mistakes", "export", "cli-stats")
"""What each round runs, one fresh process each."""


def build_history(data: Path, size: int, seed: int = 15) -> float:
    """Write a history of ``size`` attempts into the data folder ``data``; seconds taken."""
    from questions.catalog import build
    from questions.loader import bank_files
    from quiz import locations
    from quiz.core.schedule import Drill
    from quiz.core.settings import Settings
    from quiz.core.store import Attempt, Store, Verdict
    from quiz.core.store.records import ATTEMPT_COLUMNS, attempt_to_row

    start = time.perf_counter()
    catalog = build(bank_files([]))
    entries = list(catalog.entries.values())
    rng = random.Random(seed)
    now = datetime.now(UTC)
    days = max(1, size // PER_DAY)
    verdicts: tuple[Verdict, ...] = ("correct", "partial", "incorrect")
    data.mkdir(parents=True, exist_ok=True)
    with Store.open(locations.db_path(data)) as store:
        rows = []
        counts = [PER_DAY] * (days - 1) + [size - PER_DAY * (days - 1)]
        for back, count in zip(range(days, 0, -1), counts, strict=True):
            when = (now - timedelta(days=back)).replace(hour=rng.randrange(6, 14), minute=0)
            for _ in range(count):
                entry = rng.choice(entries)
                verdict = rng.choices(verdicts, (7, 1, 2))[0]
                when += timedelta(seconds=rng.uniform(30, 90))
                rows.append(attempt_to_row(Attempt(
                    template_id=entry.id, template_version=1, seed=rng.randrange(2**31),
                    mode="drill", answer_text="1.13 TB", verdict=verdict,
                    score={"correct": 1.0, "partial": 0.5, "incorrect": 0.0}[verdict],
                    topic=entry.topic, answered_at=when, seconds=rng.uniform(10, 120),
                    tags=tuple(entry.tags))))
        marks = ", ".join("?" * len(ATTEMPT_COLUMNS.split(",")))
        with store.transaction() as conn:
            conn.executemany(f"INSERT INTO attempts ({ATTEMPT_COLUMNS}) VALUES ({marks})", rows)
        drill = Drill(store, Settings())
        for entry in entries:
            drill.review(entry.id, 3, now - timedelta(days=2))
    return time.perf_counter() - start


def measure(data: Path, what: str, source: Path | None = None) -> dict[str, float]:
    """Run one measurement in a fresh process: its figures and its peak RSS (MB).

    ``source``: a source tree to run instead of the installed one (put first on the
    path), e.g. the code before a change, extracted by ``git archive``."""
    # -P: "-c" would put the working folder first on the path, before ``source``.
    if what == "cli-stats":
        argv = [sys.executable, "-P", "-c", CLI, "--data-dir", str(data), "stats", "--json"]
    else:
        argv = [sys.executable, "-P", "-c", MEASURE, str(data), what]
    # Output to files, not pipes: the child must never wait for us to read (stats --json
    # of a 1M history prints more than a pipe holds) while we wait for it (wait4, which
    # gives its own peak RSS).
    with tempfile.TemporaryFile("w+") as out_file, tempfile.TemporaryFile("w+") as err_file:
        start = time.perf_counter()
        env = dict(os.environ)
        if source is not None:
            env["PYTHONPATH"] = os.pathsep.join(
                [str(source), *filter(None, [env.get("PYTHONPATH")])])
        child = subprocess.Popen(argv, stdout=out_file, stderr=err_file, text=True, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        err_file.seek(0)
        printed, problems = out_file.read(), err_file.read()
    if child.returncode != 0:
        raise SystemExit(f"{what} failed ({child.returncode}): {problems.strip()}")
    out = {"cli-stats": wall} if what == "cli-stats" else dict(json.loads(printed))
    out["rss_mb"] = usage.ru_maxrss / 1024
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the histories here once and reuse them")
    parser.add_argument("--only", nargs="+", choices=PROCESSES, default=list(PROCESSES),
                        help="run only these processes")
    parser.add_argument("--compare", type=Path, default=None, metavar="SOURCE",
                        help="also run the source tree SOURCE (e.g. the code before a change, "
                        "from git archive) in the same rounds, alternating, and print the "
                        "ratio of medians to it")
    args = parser.parse_args()
    sizes = [0, *args.sizes]
    trees: dict[str, Path | None] = {"": None} if args.compare is None \
        else {"before": args.compare, "after": None}
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        folders = {}
        for size in sizes:
            folders[size] = root / f"h{size}"
            if (folders[size] / "history.db").exists():
                print(f"reusing the history of {size:,} attempts in {folders[size]}")
                continue
            # In a child: building a 1M history makes this process large, and a child
            # forked later would report that as its own peak RSS.
            with concurrent.futures.ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn")) as pool:
                took = pool.submit(build_history, folders[size], size).result()
            print(f"built a history of {size:,} attempts in {took:.1f} s")
        samples: dict[tuple[str, int, str], list[float]] = {}
        rss: dict[tuple[str, int, str], float] = {}
        for size in sizes:  # warm-up: bytecode, the bank cache, today's backup
            for source in trees.values():
                measure(folders[size], "home", source)
        for _ in range(args.rounds):
            for size in sizes:  # sizes alternate within a round: paired with the empty
                for what in args.only:
                    for label, source in trees.items():  # and the trees, sample by sample
                        out = measure(folders[size], what, source)
                        slot = (label, size, what)
                        rss[slot] = max(rss.get(slot, 0.0), out.pop("rss_mb"))
                        for name, value in out.items():
                            samples.setdefault((label, size, name), []).append(value)
    keys = [k for k in ("open", "home", "usable", "stats", "mistakes", "export", "cli-stats")
            if any(name == k for _, _, name in samples)]
    for label in trees:
        base = {key: statistics.median(samples[(label, 0, key)]) for key in keys
                if key != "home"}
        for size in sizes:
            print(f"{label + ': ' if label else ''}history of {size:,} attempts; peak RSS (MB): "
                  + ", ".join(f"{what} {rss[(label, size, what)]:.0f}" for what in args.only))
            for key in keys:
                values = samples[(label, size, key)]
                ratio = (f"  {statistics.median(values) / base[key]:5.2f}x empty"
                         if key in base and size else "")
                if label == "after":
                    before = statistics.median(samples[("before", size, key)])
                    ratio += f"  {statistics.median(values) / before:5.2f}x before"
                print(f"  {key:<9} {summary(values)}{ratio}")
    print("targets: usable <= 300 ms / stats <= 500 ms at 100k; <= 500 ms / 1 s and "
          "<= 250 MB at 1M")


if __name__ == "__main__":
    main()
