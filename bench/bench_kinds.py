"""The answer kinds' lazy tables: what they buy on a one-shot `quiz check`.

`questions.kinds.KINDS` and `quiz.core.kinds.KINDS` are `questions.lazytable.LazyTable`s:
a kind's modules are imported when the kind is first looked up, so `quiz check` of a
number answer imports the number kind and not the formula, choice, table, layout and
spoken ones. Paired, in fresh processes, alternating round by round, from a warm variant
cache: the command as it is (lazy) and the same command after every kind of both tables
was looked up first (what eager tables would import). Prints the CPU time of each (the
process's own: user + system, interpreter start-up included) and the ratio eager/lazy
per pair, median and range. Asserts nothing.

Run: python bench/bench_kinds.py [--pairs 12]
Figure it serves: one-shot `quiz check` <= 1.2x `import sympy` (issue 30).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile

CALL = ["check", "memory/model-state#3", "--answer", "128 GB", "--json"]

CHILD = r'''
import contextlib, io, resource, sys
if sys.argv[1] == "eager":
    from questions.kinds import KINDS as QUESTION_KINDS
    from quiz.core.kinds import KINDS as CORE_KINDS
    for table in (QUESTION_KINDS, CORE_KINDS):
        for name in list(table):
            table[name]
from quiz.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[2:])
usage = resource.getrusage(resource.RUSAGE_SELF)
print(usage.ru_utime + usage.ru_stime)
'''


def _cpu(mode: str, data: str) -> float:
    out = subprocess.run([sys.executable, "-c", CHILD, mode, "--data-dir", data, *CALL],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=12)
    args = parser.parse_args()
    data = tempfile.mkdtemp()
    _cpu("lazy", data)  # draws and stores the variant, fills the compiled bank
    _cpu("lazy", data)
    lazy, eager = [], []
    for i in range(args.pairs):
        order = ("lazy", "eager") if i % 2 == 0 else ("eager", "lazy")
        got = {mode: _cpu(mode, data) for mode in order}
        lazy.append(got["lazy"])
        eager.append(got["eager"])
    ratios = [e / lz for e, lz in zip(eager, lazy, strict=True)]
    print(f"pairs {args.pairs}: lazy CPU median {statistics.median(lazy):.3f} s "
          f"[{min(lazy):.3f}-{max(lazy):.3f}], eager {statistics.median(eager):.3f} s "
          f"[{min(eager):.3f}-{max(eager):.3f}], eager/lazy median "
          f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]")


if __name__ == "__main__":
    main()
