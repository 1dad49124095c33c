"""`quiz layout`: search every layout of a model on a cluster, or evaluate one.

Without layout keys it prints the best layouts with their breakdowns; with some
(`--set tp=8 --set pp=2 ...`) it evaluates that layout, the keys it leaves out chosen
best for it, and says where it ranks against the best of the (`--fix`-constrained)
search and why.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from quiz.commands.args import whole

if TYPE_CHECKING:
    from solver.layouts import Ranking
    from solver.perf import Evaluation, Workload

_ALIASES = {"mb": "micro_batch"}


def add_parser(sub: Any) -> None:
    """Register `quiz layout` on the subcommand parsers."""
    p = sub.add_parser("layout")
    p.add_argument("--model", help="model preset, e.g. llama3-70b")
    p.add_argument("--gpu", help="GPU preset, e.g. h100")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="workload key (gpus, seq, global_batch or tokens_per_batch, ...), "
                   "model constant, or a layout key describing one layout")
    p.add_argument("--fix", action="append", metavar="KEY=VALUE",
                   help="constrain the search, e.g. recompute=full or tp=8")
    p.add_argument("--top", type=whole(1, 10_000), default=5,
                   help="how many layouts to list (5)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


MAX_LAYOUT_VALUE = 1_000_000
"""The largest value a layout key (tp, pp, dp, micro_batch, ...) takes on the command
line: far past any cluster."""


def _layout_value(key: str, raw: str) -> int | str:
    from solver.perf import RECOMPUTE, LayoutImpossible

    if key == "recompute":
        if raw not in RECOMPUTE:
            raise LayoutImpossible(f"recompute is none, selective or full, not {raw!r}")
        return raw
    # ASCII digits, bounded: int() also takes "1_000", other scripts' digits and
    # thousands of digits, which the layout search would then run with.
    if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_LAYOUT_VALUE:
        low = 0 if key == "zero" else 1
        raise LayoutImpossible(f"{key} takes a whole number from {low} to "
                               f"{MAX_LAYOUT_VALUE:,}, not {raw!r}")
    value = int(raw)
    if key == "zero" and value not in (0, 1, 2, 3):
        raise LayoutImpossible("zero is a ZeRO stage: 0, 1, 2 or 3")
    if key not in ("zero", "recompute_layers") and value < 1:
        raise LayoutImpossible(f"{key} must be at least 1")
    return value


def split(pairs: dict[str, str]) -> tuple[dict[str, str], dict[str, int | str]]:
    """Separate workload keys from layout keys (`mb` is read as `micro_batch`)."""
    from solver.perf import LAYOUT_KEYS

    work: dict[str, str] = {}
    layout: dict[str, int | str] = {}
    for key, raw in pairs.items():
        key = _ALIASES.get(key, key)
        if key in LAYOUT_KEYS:
            layout[key] = _layout_value(key, raw)
        else:
            work[key] = raw
    if layout.get("recompute_layers") and "recompute" not in layout:
        layout["recompute"] = "full"    # recomputing some layers is full recomputation
    return work, layout


def _refuse_workload_fixes(keys: dict[str, str]) -> None:
    """`--fix` constrains the layout search; any other key there was once dropped
    without a word (`--fix gpus=8` searched the default cluster).

    Raises:
        SolverError: the first key that is no layout key, saying where it belongs.
    """
    from solver.errors import SolverError
    from solver.keys import KEYS
    from solver.perf import LAYOUT_KEYS

    for key, raw in keys.items():
        layout = ", ".join(sorted(LAYOUT_KEYS))
        if key in KEYS or key == "tokens_per_batch":
            raise SolverError(f"--fix {key}={raw}: {key} is no layout key; describe the "
                              f"workload with --set {key}={raw} (--fix takes {layout})")
        raise SolverError(f"--fix {key}={raw}: no layout key is named {key!r} (--fix "
                          f"takes {layout})")


def workload(model: str | None, gpu: str | None, sets: dict[str, str]) -> Workload:
    """The workload the flags describe.

    Raises:
        SolverError: unknown preset or key, a bad value, a missing input.
    """
    from solver.errors import SolverError
    from solver.inputs import parse_value, resolve_inputs
    from solver.perf import workload_from_inputs

    sets = dict(sets)
    tokens = sets.pop("tokens_per_batch", None)
    if tokens is not None:
        seq = resolve_inputs(model, gpu, {"seq": sets["seq"]} if "seq" in sets else {})
        per = float(parse_value("tokens", tokens)) / float(seq.values["seq"])
        if per < 1 or per != int(per):
            raise SolverError(f"tokens_per_batch ({tokens}) is not a whole number of "
                              f"{int(float(seq.values['seq']))}-token sequences")
        sets["global_batch"] = str(int(per))
    inputs = resolve_inputs(model, gpu, {**sets, "microbatches": "1"})
    return workload_from_inputs(inputs)


def _workload_with_kept_plans(args: argparse.Namespace, sets: dict[str, str]) -> Workload:
    """:func:`workload`, its solver quantities run from the plans the data folder keeps
    (:mod:`questions.plancache`): once derived, ``quiz layout`` imports no sympy (its
    start-up was most of its time: the search itself is 70-250 ms)."""
    from questions.plancache import PlanFile
    from quiz.commands.common import plan_cache
    from solver import light

    source = PlanFile(plan_cache(args))
    with light.using(source):
        w = workload(args.model, args.gpu, sets)
    source.save()
    return w


def run(args: argparse.Namespace) -> int:
    """Run `quiz layout`; returns the exit code."""
    from quiz.commands.solve import parse_sets
    from solver.layouts import complete, filled_in, rank

    work, chosen = split(parse_sets(args.set or []))
    not_layout, fixed = split(parse_sets(args.fix or []))
    _refuse_workload_fixes(not_layout)
    w = _workload_with_kept_plans(args, work)
    ranking = rank(w, fixed)
    given = {**fixed, **chosen}
    mine = complete(w, given) if chosen else None
    filled = filled_in(w, given, mine) if mine is not None else ""
    if args.json:
        out = to_json(ranking, mine, args.top)
        out["filled_in"] = filled or None
        print(json.dumps(out, indent=2))
    else:
        print(render(w, ranking, mine, args.top, model=args.model, gpu=args.gpu,
                     filled=filled))
    return 0


def to_json(ranking: Ranking, mine: Evaluation | None, top: int) -> dict[str, Any]:
    """DESIGN.md's `quiz layout --json` object."""
    best = ranking.best
    out: dict[str, Any] = {
        "layout": mine.to_json() if mine else None, "best": best.to_json(),
        "rank": None, "ratio_to_best": None,
        "candidates": [c.to_json() for c in ranking.candidates[:top]],
        "fastest": ranking.fastest.to_json(), "note": ranking.note or None}
    if mine is not None and mine.fits:
        out["rank"] = ranking.rank_of(mine)
        out["ratio_to_best"] = best.step_time / mine.step_time
    return out


def _line(e: Evaluation) -> str:
    from solver.units import format_value

    return (f"{e.layout.key:<46} step {format_value(e.step_time, 's'):>9}  "
            f"MFU {e.mfu:5.1%}  {e.tokens_per_s_per_gpu:7,.0f} tok/s/GPU  "
            f"{format_value(e.memory_per_gpu, 'B'):>8}/GPU")


def breakdown(e: Evaluation, w: Workload | None = None) -> list[str]:
    """Step time and memory by component, and what the memory counts."""
    from solver.layouts import MEMORY_NAMES, TIME_NAMES
    from solver.units import format_value

    t = ", ".join(f"{TIME_NAMES[k]} {format_value(v, 's')}" for k, v in e.time.items()
                  if v > 0.0005 * e.step_time)
    m = ", ".join(f"{MEMORY_NAMES[k]} {format_value(v, 'B')}" for k, v in e.memory.items()
                  if v > 0)
    lines = [f"    time:   {t}",
             f"    memory: {m} (of {format_value(e.usable, 'B')} usable)"]
    if w is not None:
        lines.append("    " + memory_terms(w, e))
    return lines


def memory_terms(w: Workload, e: Evaluation) -> str:
    """What the memory line counts, in one line: the stage, the gradient precision, the
    sharding in effect, what the GPU offers, and how `quiz solve` differs."""
    from solver.perf import physical_memory
    from solver.units import format_value

    first, mid, last = e.stage_layers
    lay = e.layout
    stage = ("" if lay.pp == 1 else
             f"the {e.memory_stage} pipeline stage's ({first}+{mid}x{lay.pp - 2}+{last} "
             "layers)" if lay.pp > 2 and (first, last) != (mid, mid) else
             f"the {e.memory_stage} pipeline stage's")
    grads = "FP32" if w.grad_bytes >= 4 else "BF16"
    kept = ""
    if lay.zero >= 2 and e.zero_in_step < lay.zero:
        kept = (f"; ZeRO-{lay.zero} keeps the gathered weights"
                + (" and full gradients" if e.zero_in_step == 1 else "")
                + " through the step's micro-batches")
    c = w.constants
    return (f"counts {stage + ' ' if stage else ''}memory with {grads} gradients "
            f"(grad_bytes={w.grad_bytes:g}){kept}; usable = "
            f"{format_value(physical_memory(w), 'B')} HBM - "
            f"{format_value(c.get('cuda_context_bytes', 0.0), 'B')} CUDA context, less "
            f"{c['memory_headroom']:.0%} headroom; quiz solve memory_per_gpu counts the "
            "first stage with ZeRO as written and buffer_bytes instead of the "
            f"{format_value(c['workspace_bytes'], 'B')} workspace")


def render(w: Workload, ranking: Ranking, mine: Evaluation | None, top: int, *,
           model: str | None, gpu: str | None, filled: str = "") -> str:
    """The human form: rank, ratio and the list on one scale (step time)."""
    from solver.layouts import reasons, why

    head = (f"{model or 'model'} on {w.gpus} {gpu or 'GPUs'} ({w.gpus_per_node} per node), "
            f"{w.global_batch} sequences of {w.seq} tokens per step")
    lines = [head, ""]
    best = ranking.best
    if mine is not None:
        lines.append("Your layout:")
        lines += ["  " + _line(mine), *breakdown(mine, w)]
        if filled:
            lines.append("  " + filled)
        if mine.fits:
            lines.append("  " + standing(ranking, mine))
        lines += ["  " + s for s in why(w, mine, best if mine.fits else None)]
        if mine.layout != best.layout:
            lines += ["", "Recommended layout:", "  " + _line(best), *breakdown(best, w),
                      *("  " + r for r in reasons(w, best))]
    else:
        n = min(top, len(ranking.candidates))
        lines.append(f"The {n} fastest layouts (one per choice of tp, pp, cp, ep), by step "
                     "time; * marks the recommended one:")
        shown = ranking.candidates[:top]
        for i, e in enumerate(shown, 1):
            mark = "*" if e.layout == best.layout else " "
            lines.append(f"{i:>2}.{mark}" + _line(e))
            lines += breakdown(e, w if i == 1 or e.layout == best.layout else None)
            if e.layout == best.layout:
                lines += ["    " + r for r in reasons(w, e)]
        if not any(e.layout == best.layout for e in shown):
            lines += ["", f"Recommended (ranks {ranking.rank_of(best)}):",
                      "  " + _line(best), *breakdown(best, w),
                      *("  " + r for r in reasons(w, best))]
    if ranking.note:
        lines += ["", f"Note: {ranking.note}."]
    return "\n".join(lines)


def standing(ranking: Ranking, mine: Evaluation) -> str:
    """Where a fitting layout stands, on the one scale of step time."""
    from solver.layouts import PLAUSIBLE_MARGIN

    best = ranking.best
    r, n = ranking.rank_of(mine), ranking.listed_with(mine)
    where = f"ranks {r} of {n} by step time" + (" (nothing listed is faster)" if r == 1
                                                 else "")
    if mine.layout == best.layout:
        return f"{where}; this is the recommended layout."
    ratio = best.step_time / mine.step_time
    if ratio >= 1:
        faster = (ratio - 1) * 100
        return (f"{where}; it steps {faster:.1f}% faster than the recommended layout, "
                f"which is preferred as the simplest within {PLAUSIBLE_MARGIN:.0%} of the "
                "fastest" if faster > 0.05 else
                f"{where}; it steps as fast as the recommended layout")
    return f"{where}; the recommended layout steps in {ratio:.0%} of its time"
