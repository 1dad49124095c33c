"""How much of the draw budgets each template uses, counted (not timed): the work the
budgets of questions.params bound, so that they can be set with a margin over a bank.

For each template: the steps of one try (``TRY_STEPS`` + ``PARAM_STEPS`` a parameter
+ a step a term of the constraints), its dearest variant over the seeds (tries and
steps, against ``MAX_DRAW_STEPS``) and its draw coverage (tries, seeds and steps,
against ``COVERAGE_STEPS``). The counts are those of ``quiz templates test``: memos and
the tries the self-test hands the coverage change how fast a try is, not how many.

    python bench/draw_budgets.py                       # the bundled bank, 20 seeds
    python bench/draw_budgets.py FILE_OR_FOLDER... [--seeds N] [--top N]

Results and decisions: bench/README.md, "s5-selftest, 2026-12-02 fifth stop".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from questions.catalog import load_bank
from questions.errors import TemplateError
from questions.loader import Bank, load_template
from questions.params import (
    COVERAGE_SEEDS,
    COVERAGE_STEPS,
    MAX_DRAW_STEPS,
    PARAM_STEPS,
    TRY_STEPS,
    compiled,
    draw_coverage,
    draw_params,
)
from questions.schema import Template


def used(t: Template, seeds: int) -> tuple[int, int, int, int, int]:
    """(steps a try, tries of the dearest variant, coverage tries, coverage seeds,
    variants refused) of `t` over `seeds` seeds (variants: over the seeds the coverage
    draws too, at least COVERAGE_SEEDS)."""
    steps = TRY_STEPS + PARAM_STEPS * len(t.params) + compiled(t).terms
    dearest = refused = 0
    for seed in range(max(seeds, COVERAGE_SEEDS)):
        tries = [0]

        def count(*_: object, tries: list[int] = tries) -> None:
            tries[0] += 1

        try:
            draw_params(t, seed, count)
        except TemplateError:
            refused += 1
        dearest = max(dearest, tries[0])
    coverage = draw_coverage(t, seeds)
    return steps, dearest, coverage.tries, coverage.seeds, refused


def templates(paths: list[str]) -> list[tuple[str, Template]]:
    """The templates of the files and folders given (none: the bundled bank)."""
    if not paths:
        bank: Bank = load_bank([], bundled=True)
        return sorted(bank.templates.items())
    out: list[tuple[str, Template]] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            out += sorted(load_bank([path], bundled=False).templates.items())
            continue
        try:
            out.append((name, load_template(path)))
        except TemplateError as exc:
            print(f"{name}: not loaded ({str(exc).splitlines()[0][:80]})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="template files or folders")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--top", type=int, default=10, help="templates shown, dearest first")
    args = parser.parse_args()
    rows = []
    for name, t in templates(args.paths):
        try:
            rows.append((name, *used(t, args.seeds)))
        except TemplateError as exc:
            print(f"{name}: cannot be compiled ({str(exc)[:80]})")
    if not rows:
        return
    print(f"{len(rows)} templates at {args.seeds} seeds (coverage: at least "
          f"{COVERAGE_SEEDS}); budgets: a variant {MAX_DRAW_STEPS:,} steps, the coverage "
          f"{COVERAGE_STEPS:,}")
    print(f"{'template':44} {'steps/try':>9} {'variant':>14} {'coverage':>24} refused")
    for name, steps, dearest, tries, seeds, refused in sorted(
            rows, key=lambda r: -r[1] * r[3])[:args.top]:
        print(f"{name[-44:]:44} {steps:9,} {dearest:4} {dearest * steps:9,} "
              f"{tries:5} {seeds:4} {tries * steps:13,} {refused:7}")
    variant = max(r[1] * r[2] for r in rows)
    coverage = max(r[1] * r[3] for r in rows)
    short = sum(1 for r in rows if r[4] < max(args.seeds, COVERAGE_SEEDS))
    print(f"dearest variant {variant:,} steps ({variant / MAX_DRAW_STEPS:.1%} of its "
          f"budget); dearest coverage {coverage:,} ({coverage / COVERAGE_STEPS:.1%}); "
          f"coverages cut short: {short}; dearest try {max(r[1] for r in rows):,} steps")


if __name__ == "__main__":
    main()
