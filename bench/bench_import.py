"""`quiz history import` of a big history file: CPU, wall time and peak RSS, paired.

Writes a synthetic history file as `quiz history export` would (JSON or CSV): the
bundled bank's templates, topics and tags, an answer every 30-90 s, three verdicts,
an FSRS rating on every attempt (the drill reviews a card per answer), a mock session
every 500 attempts with its attempts linked. Then runs the whole command, `python -m
quiz.cli --data-dir NEW history import FILE`, in a fresh process into a new data folder,
and reads its CPU time and peak RSS from wait4. The baseline, in the same run,
alternating round by round, is reading and decoding the same file in a fresh process
(``quiz.core.store.reader`` row by row with the JSON module, as the import did before
it validated spans): ``CPU / decode`` says what the import costs beyond reading the
file, whatever the machine's load.

A big file is read and prepared by a second process while the first inserts
(``quiz.core.store.pipeline``); ``--single`` also runs, round by round, the same code
with that process off (the whole import in one process, as small files are done): the
figure the pipeline serves is the wall time, ``wall / single``, paired by round. CPU
and peak RSS count both processes (wait4 of the command: its child is waited for; the
peak is the larger process's).

Prints per run (decode, after, single with ``--single``, before with ``--compare``):
median (min-max) wall and CPU seconds, the CPU ratio to the round's decode, the peak
RSS; the after/before CPU and after/single wall ratios paired by round. Asserts nothing.

Run: python bench/bench_import.py [--rows 1000000] [--rounds 2] [--format json|csv]
[--keep DIR] [--compare SOURCE] [--single]
(``--keep`` writes the file into DIR once and reuses it; ``--compare`` also runs a
source tree of the code before a change, e.g. ``git archive main quiz questions solver |
tar -x -C SOURCE``.) Goal (issue 26): 1,000,000 rows in <= 30 s and <= 300 MB peak
RSS. The figures and what bought them: bench/README.md, "History import".
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


def write_file(path: Path, rows: int, fmt: str, seed: int = 7) -> None:
    """A history file of ``rows`` attempts, as the exporter lays it out."""
    from questions.catalog import build
    from questions.loader import bank_files
    from quiz.core.store.writer import csv_row, json_list

    entries = list(build(bank_files([])).entries.values())
    rng = random.Random(seed)
    when = datetime.now(UTC) - timedelta(seconds=61 * rows + 86400)
    mocks: list[dict[str, object]] = []

    def attempts() -> Iterator[dict[str, Any]]:
        nonlocal when
        for i in range(rows):
            entry = rng.choice(entries)
            verdict = rng.choices(("correct", "partial", "incorrect"), (7, 1, 2))[0]
            when += timedelta(seconds=rng.uniform(30, 90))
            stamp = when.isoformat(timespec="microseconds")
            mock = None
            if i % 500 == 0:
                mocks.append({"started_at": stamp, "finished_at": None, "minutes": 30,
                              "n_questions": 5, "score": None, "report": None})
            if i % 500 < 5:
                mock = mocks[-1]["started_at"]
            yield {"template": entry.id, "version": 1, "seed": rng.randrange(10**9),
                   "mode": "mock" if mock else "drill", "answer": "1.13 TB",
                   "verdict": verdict,
                   "score": {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}[verdict],
                   "mistake": None, "hints_used": 0, "hint_cost": 0.0,
                   "seconds": round(rng.uniform(10, 120), 3), "answered_at": stamp,
                   "topic": entry.topic, "tags": list(entry.tags),
                   "rating": {"correct": 3, "partial": 2, "incorrect": 1}[verdict],
                   "mock": mock}

    with path.open("w", encoding="utf-8", newline="") as out:
        if fmt == "json":
            out.write('{\n "format": "quiz-history",\n "history_format": 1,\n "attempts": ')
            json_list(attempts(), out)
            out.write(',\n "mock_sessions": ')
            json_list(mocks, out)
            out.write("\n}\n")
        else:
            import csv

            writer = csv.writer(out, lineterminator="\r\n")
            writer.writerow(["history_format", "template", "version", "seed", "mode",
                             "answer", "verdict", "score", "mistake", "hints_used",
                             "hint_cost", "seconds", "answered_at", "topic", "tags",
                             "rating"])
            for row in attempts():
                row["mode"] = "drill"  # CSV carries no mock sessions
                writer.writerow(csv_row(row, False))


def measure(file: Path, source: Path | None, decode: bool = False, single: bool = False
            ) -> tuple[float, float, float, str]:
    """One import in a fresh process into a new data folder (or, ``decode``: only
    reading and decoding the file, row by row with the JSON module, as the import did
    before; ``single``: the import with the pipeline's second process off): (wall
    seconds, CPU seconds, peak RSS MB, its output)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.TemporaryDirectory(prefix="bench-import-") as data, \
            tempfile.TemporaryFile("w+") as out:
        args = ["--data-dir", data, "history", "import", str(file)]
        command = ([sys.executable, "-P", "-c", _DECODE, str(file)] if decode
                   else [sys.executable, "-P", "-c", _SINGLE, *args] if single
                   else [sys.executable, "-P", "-m", "quiz.cli", *args])
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, text=True,
                                 env=env)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        text = out.read().strip()
    if status != 0:
        raise SystemExit(f"import failed ({status}): {text}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text


_DECODE = """
import sys
from pathlib import Path
from quiz.core.store import reader
with reader.open_file(Path(sys.argv[1])) as handle:
    print(sum(1 for _ in reader.rows(handle, None, sys.argv[1])), "rows decoded")
"""


_SINGLE = """
import sys
from quiz.core.store import pipeline
pipeline.PIPE_ROWS = 10**12
from quiz.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):7.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--format", choices=("json", "csv"), default="json")
    ap.add_argument("--keep", type=Path, help="write the files here once and reuse them")
    ap.add_argument("--compare", type=Path, help="a source tree of the code before")
    ap.add_argument("--single", action="store_true",
                    help="also run the import in one process (the pipeline off)")
    ns = ap.parse_args()
    folder = ns.keep or Path(tempfile.mkdtemp(prefix="bench-import-files-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"history-{ns.rows}.{ns.format}"
    if not path.exists():
        start = time.perf_counter()
        write_file(path, ns.rows, ns.format)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.0f} MB) in "
              f"{time.perf_counter() - start:.1f} s", flush=True)
    runs: dict[str, tuple[Path | None, bool, bool]] = {
        "decode": (None, True, False), "after": (None, False, False)}
    if ns.single:
        runs["single"] = (None, False, True)
    if ns.compare:
        runs["before"] = (ns.compare, False, False)
    times: dict[str, list[float]] = {name: [] for name in runs}
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    ratios: dict[str, list[float]] = {name: [] for name in runs}
    peaks: dict[str, float] = {}
    for round_ in range(ns.rounds):
        for name, (source, decode, single) in runs.items():
            seconds, cpu, rss, text = measure(path, source, decode, single)
            times[name].append(seconds)
            cpus[name].append(cpu)
            ratios[name].append(cpu / cpus["decode"][-1])
            peaks[name] = max(peaks.get(name, 0.0), rss)
            print(f"round {round_ + 1} {name:>6}: {seconds:8.2f} s (CPU {cpu:7.2f} s) "
                  f"{rss:7.0f} MB  {text[:60]}", flush=True)
    print(f"\n{ns.rows:,} rows ({ns.format}), {ns.rounds} rounds: median (min-max)")
    print(f"{'run':>6}  {'wall s':>20}  {'CPU s':>20}  {'CPU / decode':>20}  peak MB")
    for name in runs:
        print(f"{name:>6}  {_spread(times[name]):>20}  {_spread(cpus[name]):>20}  "
              f"{_spread(ratios[name]):>20}  {peaks[name]:7.0f}")
    if ns.compare:
        paired = [a / b for a, b in zip(cpus["after"], cpus["before"], strict=True)]
        print(f"after/before CPU, paired by round: {_spread(paired)}")
        paired = [a / b for a, b in zip(times["after"], times["before"], strict=True)]
        print(f"after/before wall, paired by round: {_spread(paired)}")
    if ns.single:
        paired = [a / b for a, b in zip(times["after"], times["single"], strict=True)]
        print(f"after/single wall, paired by round: {_spread(paired)}")
    print("goal: <= 30 s and <= 300 MB at 1,000,000 rows")


if __name__ == "__main__":
    main()
