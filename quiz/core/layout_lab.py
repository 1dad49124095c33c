"""The layout lab's state: a workload, a layout, and one key press at a time.

Headless (no Textual): the lab screen is a thin view over :class:`Lab`, and tests drive
it directly. Building a workload derives parameter counts with the solver (sympy, slow
the first time), so :meth:`Lab.load` belongs in a worker; every axis change after that
is plain arithmetic (:func:`solver.perf.evaluate`, microseconds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from solver.keys import Value
from solver.perf import RECOMPUTE, Layout

if TYPE_CHECKING:
    from solver.layouts import Ranking
    from solver.perf import Evaluation, Workload

MODELS = ("llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b", "mixtral-8x7b",
          "deepseek-v3")
"""Model presets the lab cycles through."""

GPUS = ("a100", "h100", "h200", "b200")
"""GPU presets the lab cycles through."""

AXES = ("tp", "pp", "cp", "ep", "zero", "interleave", "micro_batch", "recompute")
"""Layout keys the lab changes."""


@dataclass(frozen=True)
class Setup:
    """What the lab lays out: model, GPU, cluster and batch."""

    model: str = "llama3-70b"
    gpu: str = "h100"
    gpus: int = 512
    seq: int = 8192
    global_batch: int = 1024
    gpus_per_node: int = 8

    @property
    def title(self) -> str:
        """One line naming the workload."""
        return (f"{self.model} on {self.gpus} {self.gpu} ({self.gpus_per_node} per node), "
                f"{self.global_batch} x {self.seq}-token sequences per step")


def build(setup: Setup) -> tuple[Workload, Ranking]:
    """The workload and its search (slow: run in a worker).

    Raises:
        SolverError: a preset or value the solver refuses, or nothing fits.
    """
    from solver.engine import resolve_inputs
    from solver.layouts import rank
    from solver.perf import workload_from_inputs

    w = workload_from_inputs(resolve_inputs(setup.model, setup.gpu, {
        "gpus": setup.gpus, "seq": setup.seq, "global_batch": setup.global_batch,
        "gpus_per_node": setup.gpus_per_node, "microbatches": 1}))
    return w, rank(w)


def lab_for(model: str | None, gpu: str | None, overrides: Mapping[str, Value],
            typed: str = "") -> tuple[Setup, Layout | None]:
    """The lab setup of a layout question, and the learner's layout if it reads."""
    from questions.layout import LayoutError, read_layout

    def num(name: str, default: int) -> int:
        raw = overrides.get(name, default)
        return int(float(raw)) if not isinstance(raw, str) else default

    base = Setup()
    setup = Setup(model or base.model, gpu or base.gpu, num("gpus", base.gpus),
                  num("seq", base.seq), num("global_batch", base.global_batch),
                  num("gpus_per_node", base.gpus_per_node))
    try:
        typed_layout = read_layout(typed)
    except LayoutError:
        return setup, None
    inner = typed_layout.tp * typed_layout.pp * typed_layout.cp
    return setup, Layout(tp=typed_layout.tp, pp=typed_layout.pp, cp=typed_layout.cp,
                         ep=typed_layout.ep, dp=max(1, setup.gpus // inner),
                         zero=typed_layout.zero, interleave=typed_layout.interleave or 1,
                         micro_batch=typed_layout.mb,
                         recompute=typed_layout.recompute or "none",
                         recompute_layers=typed_layout.recompute_layers or 0)


def _divisors(n: int) -> list[int]:
    # From the prime factors: counting up to n hung on a batch of 10^15 (issue 26).
    from solver.layouts import divisors

    return divisors(n)


class Lab:
    """A setup, its workload once loaded, the layout on screen and its evaluation."""

    def __init__(self, setup: Setup | None = None, layout: Layout | None = None) -> None:
        self.setup = setup or Setup()
        self.layout = layout or Layout(tp=8, dp=max(1, self.setup.gpus // 8), zero=1)
        self.workload: Workload | None = None
        self.ranking: Ranking | None = None
        self.error = ""

    def loaded(self, workload: Workload, ranking: Ranking | None) -> None:
        """Take a freshly built workload; keep the layout when it still applies."""
        self.workload, self.ranking = workload, ranking
        self.layout = self._with_dp(self.layout)

    def _with_dp(self, lay: Layout) -> Layout:
        inner = lay.tp * lay.pp * lay.cp
        gpus = self.setup.gpus
        return replace(lay, dp=gpus // inner if gpus % inner == 0 else lay.dp)

    def change_setup(self, field: str, direction: int) -> Setup:
        """The setup after one key press (model/gpu cycle, others halve or double)."""
        s = self.setup
        if field in ("model", "gpu"):
            names = MODELS if field == "model" else GPUS
            current = getattr(s, field)
            i = names.index(current) if current in names else -1
            return replace(s, **{field: names[(i + direction) % len(names)]})  # type: ignore[arg-type]
        value = int(getattr(s, field))
        new = value * 2 if direction > 0 else max(1, value // 2)
        return replace(s, **{field: new})  # type: ignore[arg-type]

    def change(self, axis: str, direction: int) -> None:
        """Step one layout axis up (+1) or down (-1); dp follows from the GPU count."""
        lay = self.layout
        if axis == "zero":
            self.layout = replace(lay, zero=(lay.zero + direction) % 4)
            return
        if axis == "recompute":
            i = RECOMPUTE.index(lay.recompute)
            self.layout = replace(lay, recompute=RECOMPUTE[(i + direction) % 3])
            return
        current = int(getattr(lay, axis))
        if axis in ("tp", "pp", "cp"):
            others = lay.tp * lay.pp * lay.cp // current
            options = _divisors(self.setup.gpus // others)
        elif axis == "micro_batch":
            options = _divisors(max(1, self.setup.global_batch // max(1, lay.dp)))
        else:  # ep, interleave: any small value; the evaluation says if it is illegal
            options = _divisors(64)
        up = [o for o in options if o > current]
        down = [o for o in options if o < current]
        if direction > 0 and up:
            current = up[0]
        elif direction < 0 and down:
            current = down[-1]
        self.layout = self._with_dp(replace(lay, **{axis: current}))  # type: ignore[arg-type]

    def best(self) -> None:
        """Jump to the engine's best layout."""
        if self.ranking is not None:
            self.layout = self.ranking.best.layout

    def evaluate(self) -> Evaluation | str:
        """The layout's evaluation, or one line saying why it cannot be built."""
        from solver.perf import LayoutImpossible, evaluate

        if self.workload is None:
            return self.error or "loading the model…"
        try:
            return evaluate(self.workload, self.layout)
        except LayoutImpossible as exc:
            return str(exc)


def segments(parts: dict[str, float], total: float, width: int) -> list[tuple[str, int]]:
    """Split a bar of `width` cells among the parts in proportion to `total`.

    >>> segments({"a": 1.0, "b": 3.0}, 8.0, 8)
    [('a', 1), ('b', 3)]
    """
    out: list[tuple[str, int]] = []
    acc, drawn = 0.0, 0
    for name, value in parts.items():
        if value <= 0:
            continue
        acc += value
        cells = min(width, round(width * acc / total)) - drawn if total > 0 else 0
        if cells > 0:
            out.append((name, cells))
            drawn += cells
    return out
