"""Layout questions: read a proposed layout and judge it with the layout engine.

A layout is typed as ``tp=8 pp=2 cp=1 ep=1 mb=1 zero=1`` (optionally ``dp=``,
``interleave=`` and ``recompute=none|selective|full``; dp follows from the GPU count).
The engine (:mod:`solver.perf`, :mod:`solver.layouts`, calibrated on published runs)
judges it: can it be built, does it fit, and how its step time compares with the best
layout the engine finds. Keys the learner leaves out are chosen best for the layout.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from solver.engine import Inputs
from solver.errors import SolverError
from solver.keys import Value

if TYPE_CHECKING:
    from solver.layouts import Ranking
    from solver.perf import Evaluation, Workload

FIELDS = ("tp", "pp", "cp", "ep", "dp", "mb", "zero", "interleave", "recompute")
_PAIR = re.compile(r"^\s*([a-z_]+)\s*[=:]\s*([a-z]{4,9}|\d{1,6})\s*$")
_RECOMPUTE = ("none", "selective", "full")


class LayoutError(ValueError):
    """A layout text that cannot be read."""


@dataclass(frozen=True)
class Layout:
    """A proposed layout (dp may be left to follow from the GPU count; interleave and
    recompute, when left out, are chosen best for it)."""

    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    mb: int = 1
    zero: int = 0
    dp: int | None = None
    interleave: int | None = None
    recompute: str | None = None

    @property
    def display(self) -> str:
        """The canonical typed form."""
        dp = f" dp={self.dp}" if self.dp is not None else ""
        extra = f" interleave={self.interleave}" if self.interleave else ""
        extra += f" recompute={self.recompute}" if self.recompute else ""
        return (f"tp={self.tp} pp={self.pp} cp={self.cp} ep={self.ep}{dp} mb={self.mb} "
                f"zero={self.zero}{extra}")

    def given(self) -> dict[str, int | str]:
        """The layout keys as the engine names them (those the learner left out omitted)."""
        out: dict[str, int | str] = {"tp": self.tp, "pp": self.pp, "cp": self.cp,
                                     "ep": self.ep, "micro_batch": self.mb,
                                     "zero": self.zero}
        for name in ("dp", "interleave", "recompute"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def overrides(self) -> dict[str, Value]:
        """The solver keys this layout sets."""
        out: dict[str, Value] = {k: v for k, v in self.given().items() if k != "zero"}
        out["zero"] = str(self.zero)
        return out


def read_layout(text: str) -> Layout:
    """Read `tp=8 pp=2 zero=1 ...` (commas, spaces or semicolons between pairs).

    Raises:
        LayoutError: with what was wrong and an example that works.
    """
    if len(text) > 200:
        raise LayoutError("that is too long for a layout; e.g. tp=8 pp=2 mb=1 zero=1")
    values: dict[str, int | str] = {}
    for chunk in re.split(r"[,;\s]+(?=[a-z])", text.strip().lower()):
        if not chunk:
            continue
        m = _PAIR.match(chunk)
        if not m:
            raise LayoutError(f"cannot read {chunk!r}; write pairs like tp=8 pp=2 mb=1 "
                              "zero=1")
        name, raw = m.group(1), m.group(2)
        name = {"micro_batch": "mb", "zero_stage": "zero", "v": "interleave"}.get(name, name)
        if name not in FIELDS:
            raise LayoutError(f"unknown axis {name!r}; use {', '.join(FIELDS)}")
        if name in values:
            raise LayoutError(f"{name} is given twice")
        if name == "recompute":
            if raw not in _RECOMPUTE:
                raise LayoutError("recompute is none, selective or full")
            values[name] = raw
            continue
        if not raw.isdigit():
            raise LayoutError(f"{name} takes a whole number, not {raw!r}")
        values[name] = int(raw)
    if not values:
        raise LayoutError("no layout given; e.g. tp=8 pp=2 mb=1 zero=1")
    if int(values.get("zero", 0)) > 3:
        raise LayoutError("zero is a ZeRO stage: 0, 1, 2 or 3")
    if any(int(v) < 1 for k, v in values.items() if k not in ("zero", "recompute")):
        raise LayoutError("every degree is at least 1")
    return Layout(**values)  # type: ignore[arg-type]


def workload_for(inputs: Inputs) -> Workload:
    """The engine's workload for a question's resolved inputs (layout keys ignored)."""
    from solver.engine import resolve_inputs
    from solver.perf import LAYOUT_KEYS, workload_from_inputs

    given = {k: v for k, v in inputs.values.items() if inputs.origin.get(k) == "set"
             and k not in LAYOUT_KEYS and k != "microbatches"}
    model_gpu = {k: v for k, v in inputs.values.items()
                 if inputs.origin.get(k) in ("model", "gpu")}
    return workload_from_inputs(resolve_inputs(None, None, {**model_gpu, **given,
                                                             "microbatches": 1}))


RANKINGS_KEPT = 256
"""Searches remembered (one per workload): a variant is drawn twice by the self-test, and
drawing, grading and feedback each rank the same workload; a search takes 0.1-0.5 s."""

_RANKINGS: OrderedDict[tuple[object, ...], Ranking | str] = OrderedDict()
"""A workload's every figure -> its ranking, or why nothing fits; least recently used
dropped first."""
_RANKINGS_LOCK = threading.Lock()


def ranking_for(inputs: Inputs) -> Ranking:
    """Search the question's workload (once per workload: see :data:`RANKINGS_KEPT`).

    Raises:
        SolverError: when no layout fits (with the closest).
    """
    return ranked(workload_for(inputs))


def workload_key(w: Workload) -> tuple[object, ...]:
    """Every figure of a workload, hashable: the whole of what a search reads."""
    from dataclasses import fields

    return tuple(tuple(sorted(v.items())) if isinstance(v, Mapping) else v
                 for v in (getattr(w, f.name) for f in fields(w)))


def ranked(w: Workload) -> Ranking:
    """:func:`solver.layouts.rank` of a workload, remembered by :func:`workload_key`.

    Raises:
        SolverError: when no layout fits (with the closest).
    """
    from solver.layouts import NothingFits, rank

    key = workload_key(w)
    with _RANKINGS_LOCK:  # grading runs in worker threads too
        got = _RANKINGS.get(key)
        if got is not None:
            _RANKINGS.move_to_end(key)
    if got is None:
        try:
            got = rank(w)
        except NothingFits as exc:
            got = str(exc)
        with _RANKINGS_LOCK:
            _RANKINGS[key] = got
            if len(_RANKINGS) > RANKINGS_KEPT:
                _RANKINGS.popitem(last=False)
    if isinstance(got, str):
        raise SolverError(got)
    return got


def key_of(e: Evaluation) -> Layout:
    """The typed form of an engine layout (what the learner is shown as the key)."""
    lay = e.layout
    return Layout(tp=lay.tp, pp=lay.pp, cp=lay.cp, ep=lay.ep, mb=lay.micro_batch,
                  zero=lay.zero, interleave=lay.interleave if lay.interleave > 1 else None,
                  recompute=lay.recompute if lay.recompute != "none" else None)


@dataclass(frozen=True)
class Best:
    """The best layout found and its step time."""

    layout: Layout
    step_time: float
    memory: float

    @property
    def display(self) -> str:
        """The canonical typed form of the best layout."""
        return self.layout.display


def best_layout(inputs: Inputs, model: str | None = None, gpu: str | None = None) -> Best:
    """The layout the engine ranks first (the simplest among the near-fastest).

    Raises:
        SolverError: when no layout fits in memory.
    """
    best = ranking_for(inputs).best
    return Best(key_of(best), best.step_time, best.memory_per_gpu)


@dataclass(frozen=True)
class Judgement:
    """What the engine makes of a typed layout.

    Attributes:
        legal: the layout can be built (reason says why not).
        evaluation: the engine's evaluation (None when illegal).
        best: the engine's best layout for the same workload.
        workload: the workload both were evaluated on.
        reason: why it is illegal.
    """

    legal: bool
    evaluation: Evaluation | None = None
    best: Evaluation | None = None
    workload: Workload | None = None
    reason: str = ""

    @property
    def fits(self) -> bool:
        """It fits in memory."""
        return self.evaluation is not None and self.evaluation.fits

    @property
    def inside_node(self) -> bool:
        """TP stays inside one node."""
        return self.evaluation is not None and self.evaluation.tp_link == "NVLink"


def judge(layout: Layout, inputs: Inputs) -> Judgement:
    """Evaluate a typed layout for the question's model, GPU, cluster and batch."""
    from solver.layouts import complete
    from solver.perf import LayoutImpossible

    try:
        w = workload_for(inputs)
        ranking = ranking_for(inputs)
        e = complete(w, layout.given())
    except (LayoutImpossible, SolverError) as exc:
        return Judgement(False, reason=str(exc))
    return Judgement(True, e, ranking.best, w)


def _bar(value: float, full: float, width: int = 16) -> str:
    filled = max(0, min(width, round(width * value / full))) if full > 0 else 0
    return "█" * filled + "░" * (width - filled)


def comparison(j: Judgement) -> str:
    """The learner's layout beside the key, component by component, with bars."""
    from solver.layouts import MEMORY_NAMES, TIME_NAMES
    from solver.units import format_value

    e, best = j.evaluation, j.best
    if e is None or best is None:
        return ""
    hbm = e.usable
    top = max(e.step_time, best.step_time)
    lines = [f"{'':<24}{'yours':>10}  {'key':>10}",
             f"{'memory per GPU':<24}{format_value(e.memory_per_gpu, 'B'):>10}  "
             f"{format_value(best.memory_per_gpu, 'B'):>10}  of "
             f"{format_value(hbm, 'B')} usable"]
    for k, name in MEMORY_NAMES.items():
        a, b = e.memory.get(k, 0.0), best.memory.get(k, 0.0)
        if a > 0 or b > 0:
            lines.append(f"  {name:<22}{format_value(a, 'B'):>10}  {format_value(b, 'B'):>10}")
    lines.append(f"  {'yours':<10}{_bar(e.memory_per_gpu, max(hbm, e.memory_per_gpu))}"
                 f"  key {_bar(best.memory_per_gpu, max(hbm, e.memory_per_gpu))}")
    lines.append(f"{'step time':<24}{format_value(e.step_time, 's'):>10}  "
                 f"{format_value(best.step_time, 's'):>10}")
    for k, name in TIME_NAMES.items():
        a, b = e.time.get(k, 0.0), best.time.get(k, 0.0)
        ha, hb = e.hidden.get(k, 0.0), best.hidden.get(k, 0.0)
        if a > 0.002 * top or b > 0.002 * top or ha > 0.002 * top or hb > 0.002 * top:
            lines.append(f"  {name[:22]:<22}{format_value(a, 's'):>10}  "
                         f"{format_value(b, 's'):>10}")
        if ha > 0.002 * top or hb > 0.002 * top:
            # Traffic that ran while the GPU computed: on the wire, but not in the step.
            lines.append(f"    {'hidden by compute':<20}{format_value(ha, 's'):>10}  "
                         f"{format_value(hb, 's'):>10}")
    lines.append(f"  {'yours':<10}{_bar(e.step_time, top)}  key {_bar(best.step_time, top)}")
    if any(v > 0.002 * top for v in (*e.hidden.values(), *best.hidden.values())):
        lines.append("  (the step counts exposed time; 'hidden' ran under compute)")
    lines.append(f"{'MFU':<24}{e.mfu:>10.1%}  {best.mfu:>10.1%}")
    return "\n".join(lines)
