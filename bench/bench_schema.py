"""The template schema's import and model build, this tree against another one.

One `[answer]` and one `[[mistakes]]` model per answer kind (issue 30) must not make the
first ask dearer:
`import questions.schema` now builds the common models only, and a kind's `[answer]`
model is built when a template of that kind is first validated. Paired, in fresh
processes, alternating round by round: the same snippet with this tree's packages and
with those of a base tree (``git archive REV questions solver quiz | tar -x -C DIR``).
Prints the CPU time the snippet itself takes (``time.process_time``, after pydantic's
own import) for each and the ratio this/base per pair, median and range. Asserts
nothing.

Run: python bench/bench_schema.py --base DIR [--pairs 15]
Figure it serves: the first ask (a template validated on a cold bank) must not grow.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM = ("import time, pydantic\n"
        "class _Warm(pydantic.BaseModel):\n    x: int = 0\n"  # pydantic's own build code
        "import questions.errors, questions.types, questions.kinds\n")
SNIPPETS = {
    "import questions.schema": "import questions.schema\n",
    "+ one kind's [answer] (number)": (
        "import questions.schema\nfrom questions.kinds import kind_of\n"
        "getattr(kind_of('number'), 'answer_fields', lambda: None)()\n"),
    "+ one kind's [answer] and [[mistakes]] (number)": (
        "import questions.schema\nfrom questions.kinds import kind_of\n"
        "getattr(kind_of('number'), 'answer_fields', lambda: None)()\n"
        "(getattr(kind_of('number'), 'mistake_fields', None) or (lambda: None))()\n"),
    "validate one number template (a first ask on a cold bank)": (
        "import questions.schema\nfrom questions.loader import parse_template\n"
        f"path = {str(ROOT / 'questions' / 'bank' / 'memory' / 'activations-all-layers.toml')!r}\n"
        "parse_template(open(path).read(), path)\n"),
    "+ every kind's [answer]": (
        "import questions.schema\nfrom questions.kinds import KINDS\n"
        "for kind in KINDS.values(): getattr(kind, 'answer_fields', lambda: None)()\n"),
    "validate a number, a choice and a spoken template": (
        "import questions.schema\nfrom questions.loader import parse_template\n"
        f"for name in {['memory/activations-all-layers.toml', 'communication/rail-optimized.toml', 'communication/why-not-tp-across-nodes.toml']!r}:\n"  # noqa: E501
        f"    path = {str(ROOT / 'questions' / 'bank')!r} + '/' + name\n"
        "    parse_template(open(path).read(), path)\n"),
}


def cpu(snippet: str, tree: Path) -> float:
    code = f"{WARM}t = time.process_time()\n{snippet}print(time.process_time() - t)\n"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd="/",
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
    print(f"load {os.getloadavg()}")
    for name, snippet in SNIPPETS.items():
        this, base = [], []
        for _ in range(args.pairs):
            base.append(cpu(snippet, args.base))
            this.append(cpu(snippet, ROOT))
        ratios = [a / b for a, b in zip(this, base, strict=True)]
        ms = [f"{statistics.median(v) * 1000:.1f} ms [{min(v) * 1000:.1f}-"
              f"{max(v) * 1000:.1f}]" for v in (this, base)]
        print(f"{name}: this {ms[0]}, base {ms[1]}; this/base median "
              f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}], "
              f"n={args.pairs}")


if __name__ == "__main__":
    main()
