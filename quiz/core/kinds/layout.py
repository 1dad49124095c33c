"""Layout answers: a parallel layout (``tp=8 pp=2 mb=1 zero=1``), judged by the solver's
step-time model against the best layout it finds."""

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
    return Read(layout, layout.display)


def grade(pv: PartVariant, text: str, scale: float) -> Grade:
    from questions.layout import judge

    key = pv.key
    try:
        layout = read(pv, text).value
    except Unreadable as exc:
        return invalid(pv, exc.message)
    from solver.engine import resolve_inputs

    base = resolve_inputs(pv.model, pv.gpu, pv.overrides)
    j = judge(layout, base, pv.model, pv.gpu, pv.overrides)
    read_as = layout.display
    if not j.legal:
        return Grade("incorrect", 0.0, read_as, "illegal layout",
                     f"That layout cannot be built: {j.reason}.", key)
    if not j.fits:
        return Grade("incorrect", 0.0, read_as, "does not fit",
                     f"It does not fit: {j.reason}. Shard more (ZeRO, TP or PP) or "
                     "recompute activations.", key)
    assert key.value is not None
    ratio = min(1.0, key.value / j.step_time) if j.step_time > 0 else 0.0
    if not j.inside_node:
        return Grade("partial", round(min(ratio, 0.3), 4), read_as, "TP across nodes",
                     f"It fits ({j.reason}), but TP spans more than one node: its "
                     "per-layer collectives would run on the network, far slower than "
                     "NVLink.", key)
    if ratio >= 0.85:  # the step-time model is rough: within 15% of the best is right
        return Grade("correct", 1.0, read_as, None,
                     f"A good layout: {j.reason}. The best found takes "
                     f"{format_value(key.value, 's')} per step ({key.display}).", key)
    return Grade("partial", round(ratio, 4), read_as, None,
                 f"Legal and it fits ({j.reason}), but the best layout found steps in "
                 f"{format_value(key.value, 's')} ({key.display}): yours reaches "
                 f"{ratio:.0%} of its speed.", key)
