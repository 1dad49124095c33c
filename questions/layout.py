"""Layout questions: read a proposed layout and judge it with the layout engine.

A layout is typed as ``tp=8 pp=2 cp=1 ep=1 mb=1 zero=1`` (optionally ``dp=``,
``interleave=``, ``recompute=none|selective|full`` and ``recompute_layers=N``; dp follows
from the GPU count).
The engine (:mod:`solver.perf`, :mod:`solver.layouts`, calibrated on published runs)
judges it: can it be built, does it fit, and how its step time compares with the best
layout the engine finds. Keys the learner leaves out are chosen best for the layout.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from solver.engine import Inputs
from solver.errors import SolverError
from solver.keys import Value

if TYPE_CHECKING:
    from solver.layouts import Ranking
    from solver.perf import Evaluation, Workload

FIELDS = ("tp", "pp", "cp", "ep", "dp", "mb", "zero", "interleave", "recompute",
          "recompute_layers")
_RECOMPUTE = ("none", "selective", "full")
_NAMES = {"micro_batch": "mb", "zero_stage": "zero", "v": "interleave", "tensor": "tp",
          "pipeline": "pp", "context": "cp", "expert": "ep", "data": "dp"}

# One reading per phrasing; the text is matched piece by piece, and anything left over
# must be a filler word. Every number is at most six digits.
_N = r"(?P<n>\d{1,6})"
_AXIS_WORD = r"(?P<axis>tensor|pipeline|context|expert|data)"
_PIECES = [
    # tp=8, TP8, tp 8, zero=3, ZeRO-3, fsdp=64, FSDP64, mb:2, v=2, recompute=full
    ("pair", re.compile(r"(?P<key>recompute)\s*[=:]\s*(?P<value>[a-z]{1,12})")),
    ("pair", re.compile(r"(?<![a-z_])(?P<key>recompute_layers|tp|pp|cp|ep|dp|mb|"
                        r"micro_batch|zero_stage|zero|v|interleave|fsdp|recompute)"
                        r"\s*[=:\- ]?\s*"
                        r"(?P<value>\d{1,6}|none|selective|full)(?![a-z0-9])")),
    ("pair", re.compile(r"(?<![a-z_])(?P<key>tp|pp|cp|ep|dp|mb|micro_batch|zero_stage|"
                        r"zero|v|interleave)\s*[=:]\s*(?P<value>[a-z]{1,12})")),
    # 8-way tensor parallel, 16-way pipeline parallelism
    ("way", re.compile(_N + r"\s*-?\s*way\s+" + _AXIS_WORD
                       + r"(?:[\s-]+parallel(?:ism)?)?")),
    # tensor parallel 8, pipeline parallelism of 16, data parallel = 64
    ("degree", re.compile(_AXIS_WORD + r"[\s-]+parallel(?:ism)?\s*(?:of|=|:)?\s*" + _N)),
    # no TP, no pipeline parallelism
    ("none", re.compile(r"no\s+(?P<axis>tp|pp|cp|ep|tensor|pipeline|context|expert)"
                        r"(?:[\s-]+parallel(?:ism)?)?(?![a-z0-9])")),
    # full recomputation, selective activation recompute, activation checkpointing
    ("recompute", re.compile(r"(?:(?P<r>full|selective|no)\s+)?(?:activation\s+)?"
                             r"(?:recomput(?:e|ation)|checkpointing)")),
    ("zero3", re.compile(r"fsdp|fully[\s-]+sharded(?:[\s-]+data[\s-]+parallel(?:ism)?)?")),
    ("zero1", re.compile(r"distributed\s+optimi[sz]er")),
    ("interleaved", re.compile(r"interleaved(?:\s+schedule)?(?:\s+(?:with\s+)?"
                               + _N + r"\s*(?:chunks|virtual\s+stages)?)?")),
]
_FILLER = frozenset((
    "a", "an", "the", "and", "with", "x", "by", "across", "over", "inside", "within",
    "in", "on", "of", "per", "each", "all", "node", "nodes", "gpu", "gpus", "ranks",
    "rank", "parallel", "parallelism", "sharded", "sharding", "layout", "using", "use",
    "stage", "stages", "data-parallel", "sequence", "sp"))


class LayoutError(ValueError):
    """A layout text that cannot be read."""


@dataclass(frozen=True)
class Layout:
    """A proposed layout (dp may be left to follow from the GPU count; interleave and
    recompute, when left out, are chosen best for it).

    `typed` names the keys the learner gave (empty: all of them, as when the layout is
    built in code): parallel degrees left out are not used, and a left-out zero or
    micro-batch is chosen best, as `quiz layout` completes a partial layout.
    """

    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    mb: int = 1
    zero: int = 0
    dp: int | None = None
    interleave: int | None = None
    recompute: str | None = None
    recompute_layers: int | None = None
    """Of full recomputation, the layers of each stage recomputed (Megatron-LM's
    ``--recompute-num-layers``); None: every layer, or chosen best when left out."""
    typed: tuple[str, ...] = field(default=(), compare=False)

    def _given(self, name: str) -> bool:
        return not self.typed or name in self.typed

    @property
    def display(self) -> str:
        """The canonical typed form (what was given, in the usual order)."""
        parts = [f"{k}={getattr(self, k)}" for k in ("tp", "pp", "cp", "ep")
                 if self._given(k)]
        if self.dp is not None:
            parts.append(f"dp={self.dp}")
        parts += [f"{k}={getattr(self, k)}" for k in ("mb", "zero") if self._given(k)]
        if self.interleave:
            parts.append(f"interleave={self.interleave}")
        if self.recompute:
            parts.append(f"recompute={self.recompute}")
        if self.recompute_layers:
            parts.append(f"recompute_layers={self.recompute_layers}")
        return " ".join(parts)

    @property
    def read_as(self) -> str:
        """The typed form and how the keys left out are completed, for a preview."""
        if not self.typed:
            return self.display
        unused = [k for k in ("tp", "pp", "cp", "ep") if k not in self.typed]
        best = [k for k in ("mb", "zero") if k not in self.typed]
        notes = []
        if unused and "dp" not in self.typed:
            notes.append(" ".join(f"{k}=1" for k in unused))
        elif unused:
            notes.append(f"{', '.join(unused)}: 1, or what the GPU count leaves")
        if best:
            notes.append(f"{' and '.join(best)} chosen best")
        return self.display + (f" ({'; '.join(notes)})" if notes else "")

    def given(self) -> dict[str, int | str]:
        """The layout keys as the engine names them (those the learner left out omitted)."""
        out: dict[str, int | str] = {k: getattr(self, k) for k in ("tp", "pp", "cp", "ep")
                                     if self._given(k)}
        if self._given("mb"):
            out["micro_batch"] = self.mb
        if self._given("zero"):
            out["zero"] = self.zero
        for name in ("dp", "interleave", "recompute", "recompute_layers"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def overrides(self) -> dict[str, Value]:
        """The solver keys this layout sets."""
        out: dict[str, Value] = {k: v for k, v in self.given().items() if k != "zero"}
        if self._given("zero"):
            out["zero"] = str(self.zero)
        return out


def read_layout(text: str) -> Layout:
    """Read a layout as people write it: ``tp=8 pp=2 zero=1``, ``TP8 x FSDP64``,
    ``tp=8 fsdp=64``, ``TP=8, ZeRO-3``, ``8-way tensor parallel, FSDP across nodes``.

    FSDP is ZeRO-3 over the data-parallel ranks (``fsdp=64``: dp = 64); "distributed
    optimizer" is ZeRO-1; "no PP" sets pp = 1.

    Raises:
        LayoutError: with what was wrong and an example that works.
    """
    if len(text) > 200:
        raise LayoutError("that is too long for a layout; e.g. tp=8 pp=2 mb=1 zero=1")
    low = text.strip().lower().replace("×", " x ").replace("*", " x ")
    low = re.sub(r"[,;/+()]", " ", low)
    values: dict[str, int | str] = {}

    def put(name: str, value: int | str) -> None:
        name = _NAMES.get(name, name)
        if name not in FIELDS:
            raise LayoutError(f"unknown axis {name!r}; use {', '.join(FIELDS)}")
        if name in values and values[name] != value:
            raise LayoutError(f"{name} is given twice")
        values[name] = value

    rest = low
    for kind, pattern in _PIECES:
        for m in list(pattern.finditer(rest)):
            _take(kind, m, put)
        rest = pattern.sub(" ", rest)
    left = [w for w in re.split(r"\s+", rest) if w and w not in _FILLER]
    if left:
        word = left[0] if len(left[0]) <= 24 else left[0][:24] + "..."
        raise LayoutError(f"cannot read {word!r}; write pairs like tp=8 pp=2 mb=1 "
                          "zero=1, or e.g. TP8 x FSDP64")
    if not values:
        raise LayoutError("no layout given; e.g. tp=8 pp=2 mb=1 zero=1")
    if int(values.get("zero", 0)) > 3:
        raise LayoutError("zero is a ZeRO stage: 0, 1, 2 or 3")
    if int(values.get("recompute_layers", 1)) < 1:
        raise LayoutError("recompute_layers is at least 1 (leave it out to recompute "
                          "every layer)")
    if any(int(v) < 1 for k, v in values.items() if k not in ("zero", "recompute")):
        raise LayoutError("every degree is at least 1")
    # Megatron's --recompute-num-layers: that many layers of each stage, recomputed in
    # full.
    if "recompute_layers" in values and values.setdefault("recompute", "full") != "full":
        raise LayoutError("recompute_layers counts layers recomputed in full: use it "
                          "with recompute=full")
    typed = tuple(k for k in FIELDS if k in values)
    return Layout(**values, typed=typed)  # type: ignore[arg-type]


def _take(kind: str, m: re.Match[str], put: Callable[[str, int | str], None]) -> None:
    """Record what one matched piece of a layout says."""
    if kind == "pair":
        key, raw = m.group("key"), m.group("value")
        if key == "recompute":
            if raw not in _RECOMPUTE:
                raise LayoutError("recompute is none, selective or full")
            put("recompute", raw)
        elif not raw.isdigit():
            raise LayoutError(f"{key} takes a whole number, not {raw!r}")
        elif key == "fsdp":
            put("dp", int(raw))
            put("zero", 3)
        else:
            put(key, int(raw))
    elif kind in ("way", "degree"):
        put(m.group("axis"), int(m.group("n")))
    elif kind == "none":
        put(m.group("axis"), 1)
    elif kind == "recompute":
        r = m.group("r")
        put("recompute", "none" if r == "no" else r or "full")
    elif kind == "zero3":
        put("zero", 3)
    elif kind == "zero1":
        put("zero", 1)
    elif kind == "interleaved" and m.group("n"):
        put("interleave", int(m.group("n")))


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
    full = lay.recompute == "full"
    return Layout(tp=lay.tp, pp=lay.pp, cp=lay.cp, ep=lay.ep, mb=lay.micro_batch,
                  zero=lay.zero, interleave=lay.interleave if lay.interleave > 1 else None,
                  recompute=lay.recompute if lay.recompute != "none" else None,
                  recompute_layers=lay.recompute_layers if full and lay.recompute_layers
                  else None)


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
    filled: str = ""
    """One line naming the keys the learner left out and what they were completed to
    (as `quiz layout` completes them; :func:`solver.layouts.filled_in`)."""

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
    from solver.layouts import complete, filled_in
    from solver.perf import LayoutImpossible

    try:
        w = workload_for(inputs)
        ranking = ranking_for(inputs)
        e = complete(w, layout.given())
    except (LayoutImpossible, SolverError) as exc:
        return Judgement(False, reason=str(exc))
    return Judgement(True, e, ranking.best, w, filled=filled_in(w, layout.given(), e))


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
