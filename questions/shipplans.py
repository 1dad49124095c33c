"""Writes (or checks) the plans shipped with the package (:mod:`solver.shipped`).

``python -m questions.shipplans --update`` derives, with the engine, every plan that
drawing seeds 0 to :data:`SEEDS` - 1 of each bundled template reads, that ``quiz solve``
of each quantity at its defaults and in the README's examples reads, and that
``quiz layout``'s workload reads in the README's examples (the seed case first), plus
the quantity catalogue, and writes them to ``solver/plans.tsv`` under the solver's code digest.
Without ``--update`` it says whether the file is current (exit 1 if not).
"""

from __future__ import annotations

import argparse
import contextlib
import sys

SEEDS = 8
"""Seeds 0 .. SEEDS - 1 of every bundled template (the seeds a first ask draws most)."""

SOLVE_CASES: tuple[tuple[str | None, str | None, dict[str, str]], ...] = (
    (None, None, {}),
    ("llama3-70b", None, {}),
    ("llama3-70b", "h100", {}),
    ("llama3-70b", None, {"tp": "8"}),
    ("llama3-70b", "h100", {"tp": "8", "gpus": "512", "zero": "3"}),
)
"""``quiz solve`` cases (model, gpu, --set) run for every quantity: the defaults, and
the README's examples (the last one is the seed case)."""

LAYOUT_CASES: tuple[tuple[str | None, str | None, dict[str, str]], ...] = (
    ("llama3-70b", "h100", {"gpus": "512", "seq": "8192", "global_batch": "1024"}),
    ("llama3-405b", "h100", {"gpus": "16384", "global_batch": "2048"}),
)
"""``quiz layout`` workloads (model, gpu, --set): the seed case and the README's other
example (without a model, ``quiz layout`` stops before reading any plan)."""

UPDATE = "python -m questions.shipplans --update"
"""The command that rewrites the shipped file."""


def derive() -> dict[str, str]:
    """Every shipped text, by key, as the engine derives it now."""
    from questions.catalog import load_bank
    from questions.derivation import derivation_of
    from questions.plancache import Memory
    from questions.variants import make_variant
    from solver import light
    from solver.errors import QuizError
    from solver.inputs import resolve_inputs
    from solver.perf import workload_from_inputs

    rec = Memory()  # keeps what the engine derives
    bank = load_bank(packs=[])
    with light.using(rec):
        light.QUANTITIES.keys()  # the catalogue
        for _, template in sorted(bank.templates.items()):
            for seed in range(SEEDS):
                with contextlib.suppress(QuizError):  # a seed the template cannot draw
                    for part in make_variant(template, seed).parts:
                        derivation_of(part)  # worked out while the recorder is in use
        for model, gpu, sets in SOLVE_CASES:
            for name in sorted(light.QUANTITIES):
                with contextlib.suppress(QuizError, ArithmeticError):  # an input lacking
                    light.result(name, model=model, gpu=gpu, overrides=sets)
        for model, gpu, sets in LAYOUT_CASES:
            workload_from_inputs(resolve_inputs(model, gpu, {**sets, "microbatches": "1"}))
    return rec.texts


def problems() -> list[str]:
    """What is wrong with the shipped file (empty: it is what the engine derives now)."""
    from solver import shipped

    shipped.forget()
    if not shipped.plans():
        return [f"{shipped.FILE} is missing or was written by other solver code: run "
                f"{UPDATE}"]
    have, want = shipped.plans(), derive()
    out = []
    for key in sorted(want.keys() - have.keys()):
        out.append(f"not shipped: {key}")
    for key in sorted(have.keys() - want.keys()):
        out.append(f"shipped but no longer read: {key}")
    for key in sorted(have.keys() & want.keys()):
        if have[key] != want[key]:
            out.append(f"differs from the engine's: {key}")
    if out:
        out.append(f"run {UPDATE}")
    return out


def main() -> int:
    """`python -m questions.shipplans [--update]`."""
    from solver import shipped

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--update", action="store_true", help="rewrite solver/plans.tsv")
    ns = ap.parse_args()
    if ns.update:
        texts = derive()
        shipped.write(texts)
        size = shipped.FILE.stat().st_size
        print(f"wrote {len(texts)} plans ({size:,} bytes) to {shipped.FILE}")
        return 0
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
