"""Layout answers: a parallel layout (``tp=8 pp=2 mb=1 zero=1``), judged by the layout
engine (solver.perf, calibrated on published runs) against the best layout it finds."""

from __future__ import annotations

from questions.variants import PartVariant
from quiz.core.kinds.base import Grade, Read, invalid
from quiz.core.reading import Unreadable
from solver.units import format_value

__all__ = ["grade", "read"]


def read(pv: PartVariant, text: str) -> Read:
    """Read a layout.

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    from questions.layout import LayoutError, read_layout

    try:
        layout = read_layout(text)
    except LayoutError as exc:
        raise Unreadable(str(exc), "tp=8 pp=2 mb=1 zero=1") from exc
    return Read(layout, layout.read_as)


def grade(pv: PartVariant, text: str, scale: float) -> Grade:
    """Grade a layout with the layout engine: feasibility first, then speed against
    the key, with the two side by side component by component."""
    from questions.layout import comparison, judge
    from solver.engine import resolve_inputs
    from solver.layouts import CP_WORTH, sharding_note, why
    from solver.layouts import reasons as axis_reasons

    key = pv.key
    try:
        layout = read(pv, text).value
    except Unreadable as exc:
        return invalid(pv, exc.message)
    base = resolve_inputs(pv.model, pv.gpu, {**pv.overrides, "microbatches": 1})
    j = judge(layout, base)
    read_as = layout.read_as
    if not j.legal or j.evaluation is None or j.best is None or j.workload is None:
        return Grade("incorrect", 0.0, read_as, "illegal layout",
                     f"That layout cannot be built: {j.reason}.", key)
    e, best, w = j.evaluation, j.best, j.workload
    # Why the key is built as it is, axis by axis: what the learner should take away.
    key_why = (f"\n\nWhy the best layout ({key.display}) is built so: "
               + " ".join(axis_reasons(w, best)))
    table = "\n\n" + comparison(j) + key_why
    reasons = " ".join(why(w, e, best if e.fits else None))
    # What was assumed: keys completed, gradient precision, FSDP's setting.
    grads = (f"Gradients are {'FP32' if w.grad_bytes >= 4 else 'BF16'} "
             f"({w.grad_bytes:g} bytes a parameter).")
    assumed = " ".join(x for x in (j.filled, grads) if x)
    table = "\n\n" + assumed + table
    if not e.fits:
        return Grade("incorrect", 0.0, read_as, "does not fit",
                     f"{reasons} Shard more (ZeRO, TP or PP) or recompute activations."
                     + table, key)
    ratio = min(1.0, best.step_time / e.step_time) if e.step_time > 0 else 0.0
    if e.layout.cp > 1 and best.layout.cp == 1:
        # Judged as the search ranks: CP must buy more than CP_WORTH to be worth it.
        ratio = min(ratio, best.step_time / (e.step_time * (1 + CP_WORTH)))
        reasons += (f" CP {e.layout.cp} is not needed for {w.seq}-token sequences: "
                    "the best layout fits without splitting them.")
    if not j.inside_node:
        return Grade("partial", round(min(ratio, 0.3), 4), read_as, "TP across nodes",
                     f"It fits, but {reasons}" + table, key)
    if ratio < 0.85 and w.experts and e.layout.ep == 1 and best.layout.ep > 1:
        # A mixture of experts laid out as a dense model: the routed experts, most of
        # the bytes, are split only by TP and PP.
        return Grade("partial", round(ratio, 4), read_as, "experts not sharded",
                     f"Legal and it fits, but it reaches {ratio:.0%} of the best layout's "
                     f"speed ({key.display}): with ep=1 every data-parallel rank holds all "
                     f"{w.experts} routed experts of its layers, so only TP and PP can cut "
                     "them, and each expert's GEMM sees few tokens. Expert parallelism "
                     "shards the experts over the data-parallel ranks instead. "
                     f"{reasons}" + table, key)
    if ratio >= 0.85:  # within 15% of the engine's best is a layout an expert accepts
        return Grade("correct", 1.0, read_as, None,
                     f"A good layout: it fits and steps in {format_value(e.step_time, 's')}"
                     f", {ratio:.0%} of the best layout's speed ({key.display})."
                     + "".join(" " + line for line in sharding_note(e)) + table, key)
    return Grade("partial", round(ratio, 4), read_as, None,
                 f"Legal and it fits, but the best layout ({key.display}) steps in "
                 f"{format_value(best.step_time, 's')}: yours reaches {ratio:.0%} of its "
                 f"speed. {reasons}" + table, key)
