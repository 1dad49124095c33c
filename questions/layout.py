"""Layout questions: read a proposed layout, judge it, and find the best one.

A layout is the parallelism degrees plus micro-batch size and ZeRO stage, typed as
``tp=8 pp=2 cp=1 ep=1 mb=1 zero=1`` (dp follows from the GPU count). The solver judges
it: legal, fits in memory, TP inside a node, and its estimated step time against the
best legal layout found by searching the small space of sensible choices.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from solver.engine import Inputs, evaluate, resolve_inputs
from solver.errors import SolverError
from solver.keys import Value
from solver.units import format_value

FIELDS = ("tp", "pp", "cp", "ep", "dp", "mb", "zero")
_PAIR = re.compile(r"^\s*([a-z_]+)\s*[=:]\s*(\d{1,6})\s*$")


class LayoutError(ValueError):
    """A layout text that cannot be read."""


@dataclass(frozen=True)
class Layout:
    """A proposed layout (dp may be left to follow from the GPU count)."""

    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    mb: int = 1
    zero: int = 0
    dp: int | None = None

    @property
    def display(self) -> str:
        """The canonical typed form."""
        dp = f" dp={self.dp}" if self.dp is not None else ""
        return (f"tp={self.tp} pp={self.pp} cp={self.cp} ep={self.ep}{dp} mb={self.mb} "
                f"zero={self.zero}")

    def overrides(self) -> dict[str, Value]:
        """The solver keys this layout sets."""
        out: dict[str, Value] = {"tp": self.tp, "pp": self.pp, "cp": self.cp,
                                 "ep": self.ep, "micro_batch": self.mb,
                                 "zero": str(self.zero)}
        if self.dp is not None:
            out["dp"] = self.dp
        return out


def read_layout(text: str) -> Layout:
    """Read `tp=8 pp=2 zero=1 ...` (commas, spaces or semicolons between pairs).

    Raises:
        LayoutError: with what was wrong and an example that works.
    """
    if len(text) > 200:
        raise LayoutError("that is too long for a layout; e.g. tp=8 pp=2 mb=1 zero=1")
    values: dict[str, int] = {}
    for chunk in re.split(r"[,;\s]+(?=[a-z])", text.strip().lower()):
        if not chunk:
            continue
        m = _PAIR.match(chunk)
        if not m:
            raise LayoutError(f"cannot read {chunk!r}; write pairs like tp=8 pp=2 mb=1 "
                              "zero=1")
        name, value = m.group(1), int(m.group(2))
        name = {"micro_batch": "mb", "zero_stage": "zero"}.get(name, name)
        if name not in FIELDS:
            raise LayoutError(f"unknown axis {name!r}; use {', '.join(FIELDS)}")
        if name in values:
            raise LayoutError(f"{name} is given twice")
        values[name] = value
    if not values:
        raise LayoutError("no layout given; e.g. tp=8 pp=2 mb=1 zero=1")
    if values.get("zero", 0) > 3:
        raise LayoutError("zero is a ZeRO stage: 0, 1, 2 or 3")
    if any(v < 1 for k, v in values.items() if k != "zero"):
        raise LayoutError("every degree is at least 1")
    return Layout(**values)


@dataclass(frozen=True)
class Judgement:
    """What the solver makes of a layout.

    Attributes:
        legal: the layout can be built (reason says why not).
        fits: its memory per GPU fits in the GPU's memory.
        inside_node: TP stays within one node.
        memory: bytes per GPU.
        step_time: estimated seconds per optimizer step.
        reason: one line for the user.
    """

    legal: bool
    fits: bool = False
    inside_node: bool = False
    memory: float = 0.0
    step_time: float = float("inf")
    reason: str = ""


def judge(layout: Layout, base: Inputs, model: str | None, gpu: str | None,
          over: dict[str, Value]) -> Judgement:
    """Evaluate a layout for the question's model, GPU, cluster and batch."""
    fixed = {k: v for k, v in over.items() if k not in ("dp", "microbatches")}
    try:
        inputs = resolve_inputs(model, gpu, {**fixed, **layout.overrides()})
        got = evaluate(["memory_per_gpu", "step_time"], inputs)
    except SolverError as exc:
        return Judgement(False, reason=str(exc))
    hbm = float(inputs.values["hbm_bytes"])
    node = float(inputs.values.get("gpus_per_node", 8))
    memory, step = got["memory_per_gpu"], got["step_time"]
    fits, inside = memory <= hbm, layout.tp <= node
    reason = (f"{format_value(memory, 'B')} per GPU of {format_value(hbm, 'B')}; "
              f"step about {format_value(step, 's')}")
    return Judgement(True, fits, inside, memory, step, reason)


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


def candidates(inputs: Inputs) -> list[Layout]:
    """The sensible layouts: powers of two within a node for tp, divisors for pp."""
    v = inputs.values
    gpus = int(float(v.get("gpus", 1)))
    layers = int(float(v.get("layers", 1)))
    node = int(float(v.get("gpus_per_node", 8)))
    experts = int(float(v.get("experts", 0) or 0))
    tps = [t for t in (1, 2, 4, 8, 16) if t <= node and gpus % t == 0]
    pps = [p for p in (1, 2, 4, 8, 16) if layers % p == 0 and gpus % p == 0]
    eps = [e for e in (1, 2, 4, 8, 16, 32, 64) if (not experts and e == 1)
           or (experts and experts % e == 0)]
    out = []
    for tp, pp, cp, ep, mb, zero in itertools.product(tps, pps, (1, 2), eps, (1, 2),
                                                      (0, 1, 3)):
        if gpus % (tp * pp * cp):
            continue
        out.append(Layout(tp, pp, cp, ep, mb, zero))
    return out


def best_layout(inputs: Inputs, model: str | None = None, gpu: str | None = None) -> Best:
    """Search the candidates for the fastest layout that is legal and fits.

    Raises:
        SolverError: when no candidate fits in memory.
    """
    over: dict[str, Value] = {k: inputs.values[k] for k, origin in inputs.origin.items()
                              if origin in ("set", "model", "gpu")}
    best: Best | None = None
    for layout in candidates(inputs):
        j = judge(layout, inputs, None, None, over)
        if j.legal and j.fits and j.inside_node and (best is None
                                                     or j.step_time < best.step_time):
            best = Best(layout, j.step_time, j.memory)
    if best is None:
        raise SolverError("no layout fits in memory on this cluster")
    return best
