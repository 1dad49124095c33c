"""Search every layout of a workload with the performance model of :mod:`solver.perf`.

All factorizations ``tp * pp * cp * dp = gpus`` (with ``ep`` carved from ``dp * cp``),
every interleave that divides a stage, micro-batch sizes, ZeRO stages and recompute
policies. Dominated choices are skipped rather than evaluated: ZeRO 0-2 cost the same
traffic (so only the least sharding that fits is kept), more recomputation only adds
time (so it is tried only when less does not fit), and a larger micro-batch never fits
where a smaller one does not. 16,384 GPUs search in a fraction of a second.

Among layouts within :data:`PLAUSIBLE_MARGIN` of the fastest, the simplest comes first
(fewer axes, TP inside a node, no CP unless memory needs it): that is the key a person
should learn, and the search says so in :attr:`Ranking.note`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from solver.errors import SolverError
from solver.perf import (
    Evaluation,
    Layout,
    LayoutImpossible,
    Workload,
    evaluate,
    memory_of,
    usable_memory,
)

PLAUSIBLE_MARGIN = 0.03
"""Layouts this close to the fastest step time count as equally good; the simpler wins."""

CP_WORTH = 0.10
"""Context parallelism must shorten the step by more than this to be preferred: it earns
its complexity only when the sequence needs it (activations that do not fit otherwise,
or attention that dominates), not to shave a few percent off a short-sequence run."""

MAX_MICRO_BATCH = 16
"""Largest micro-batch the search tries (larger ones only grow the bubble and memory)."""

Fixed = Mapping[str, int | str]


def divisors(n: int) -> list[int]:
    """The divisors of n, ascending.

    >>> divisors(12)
    [1, 2, 3, 4, 6, 12]
    """
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def complexity(w: Workload, lay: Layout) -> float:
    """How much a person must set up and reason about: lower is simpler."""
    score = sum(1.0 for d in (lay.tp, lay.pp, lay.cp, lay.ep) if d > 1)
    score += 3.0 * (lay.tp > w.gpus_per_node) + 1.0 * (lay.cp > 1)
    score += 0.5 * (lay.interleave > 1) + 0.5 * (lay.zero == 3)
    score += 0.5 * (lay.recompute != "none") + 0.25 * (lay.micro_batch > 1)
    return score


def _ok(fixed: Fixed, name: str, value: int | str) -> bool:
    return name not in fixed or fixed[name] == value


def _aligned(size: int, node: int) -> bool:
    """A group of `size` consecutive ranks fills whole nodes or divides one."""
    return node % size == 0 if size <= node else size % node == 0


def _structures(w: Workload, fixed: Fixed) -> Iterator[tuple[int, int, int, int, int]]:
    for tp in divisors(w.gpus):
        if not _ok(fixed, "tp", tp) or w.heads % tp or (w.kv_heads % tp
                                                       and tp % w.kv_heads) \
                or not _aligned(tp, w.gpus_per_node):
            continue
        for pp in divisors(w.gpus // tp):
            if not _ok(fixed, "pp", pp) or w.layers % pp:
                continue
            for cp in divisors(w.gpus // (tp * pp)):
                if not _ok(fixed, "cp", cp) or (cp > 1 and w.seq % (2 * cp)) \
                        or not _aligned(tp * cp, w.gpus_per_node):
                    continue
                dp = w.gpus // (tp * pp * cp)
                if not _ok(fixed, "dp", dp) or w.global_batch % dp:
                    continue
                eps = [e for e in divisors(dp * cp) if w.experts % e == 0] \
                    if w.experts else [1]
                for ep in eps:
                    if _ok(fixed, "ep", ep):
                        yield tp, pp, cp, ep, dp


def search(w: Workload, fixed: Fixed | None = None) -> list[Evaluation]:
    """Every layout worth considering that fits, fastest first (before plausibility).

    Args:
        w: the workload.
        fixed: layout keys to hold (`--fix`), e.g. ``{"recompute": "full"}``.
    """
    fixed = dict(fixed or {})
    zeros = [z for z in (1, 0, 2, 3) if _ok(fixed, "zero", z)]
    recomputes = [r for r in ("none", "selective", "full") if _ok(fixed, "recompute", r)
                  and (r != "selective" or not w.flash_attention
                       or fixed.get("recompute") == "selective")]
    out: list[Evaluation] = []
    for tp, pp, cp, ep, dp in _structures(w, fixed):
        stage = w.layers // pp
        vs = [v for v in divisors(stage) if v <= 8 and (pp > 1 or v == 1)
              and _ok(fixed, "interleave", v)]
        per_rank = w.global_batch // dp
        bs = [b for b in divisors(per_rank) if b <= MAX_MICRO_BATCH
              and _ok(fixed, "micro_batch", b)]
        for v in vs:
            for b in bs:
                m = per_rank // b
                if v > 1 and m % pp:
                    continue
                # ZeRO over a single data-parallel rank shards nothing: stage 0 only.
                found = _best_fitting(w, Layout(tp, pp, cp, ep, dp, 0, v, b, "none"),
                                      zeros if dp * cp > 1 or 0 not in zeros else [0],
                                      recomputes)
                if not found:
                    break   # a larger micro-batch needs more memory still
                out.extend(found)
    out.sort(key=lambda e: e.step_time)
    return out


def _best_fitting(w: Workload, base: Layout, zeros: list[int],
                  recomputes: list[str]) -> list[Evaluation]:
    """The undominated (zero, recompute) choices that fit for one structure."""
    found: list[Evaluation] = []
    usable = usable_memory(w)
    for r in recomputes:
        for z in zeros:
            lay = Layout(base.tp, base.pp, base.cp, base.ep, base.dp, z, base.interleave,
                         base.micro_batch, r)
            if sum(memory_of(w, lay).values()) > usable:
                continue
            e = evaluate(w, lay, checked=True)
            found.append(e)
            if z == 1 and 0 in zeros:   # zero 0 costs the same time: keep it if it fits
                e0 = evaluate(w, Layout(**{**lay.as_dict(), "zero": 0}),  # type: ignore[arg-type]
                              checked=True)
                if e0.fits:
                    found.append(e0)
            break
        if found and found[-1].layout.zero != 3:
            return found
    return found


@dataclass(frozen=True)
class Ranking:
    """The outcome of a search.

    Attributes:
        candidates: the best layout of each structure (tp, pp, cp, ep), best first:
            the simplest within :data:`PLAUSIBLE_MARGIN` of the fastest, then by time.
        fastest: the layout with the smallest step time (may differ from the best).
        note: why the best is not the fastest, when it is not.
    """

    candidates: list[Evaluation]
    fastest: Evaluation
    note: str = ""

    @property
    def best(self) -> Evaluation:
        """The layout to learn."""
        return self.candidates[0]

    def rank_of(self, e: Evaluation) -> int:
        """1-based rank of an evaluated layout among all searched layouts."""
        return 1 + sum(1 for c in self.candidates if c.step_time < e.step_time
                       and c.layout != e.layout)


class NothingFits(SolverError):
    """No layout fits; `closest` is the one that misses by the least."""

    def __init__(self, message: str, closest: Evaluation | None) -> None:
        super().__init__(message)
        self.closest = closest


def rank(w: Workload, fixed: Fixed | None = None) -> Ranking:
    """Search and order the layouts: simplest among the near-fastest first.

    Raises:
        NothingFits: when no layout fits in memory (with the closest one).
    """
    found = search(w, fixed)
    if not found:
        closest = closest_miss(w, fixed)
        where = ""
        if closest is not None:
            over = closest.memory_per_gpu - closest.usable
            where = (f"; closest is {closest.layout.key} at "
                     f"{closest.memory_per_gpu / 1e9:.1f} GB per GPU, "
                     f"{over / 1e9:.1f} GB over")
        raise NothingFits("nothing fits in memory" + where, closest)
    fastest = found[0]
    per_structure: dict[tuple[int, int, int, int], Evaluation] = {}

    def judged(e: Evaluation) -> float:
        return e.step_time * (1 + CP_WORTH if e.layout.cp > 1 else 1.0)

    limit = min(judged(e) for e in found) * (1 + PLAUSIBLE_MARGIN)

    def order(e: Evaluation) -> tuple[int, float, float]:
        t = judged(e)
        return (0, complexity(w, e.layout), t) if t <= limit else (1, 0.0, t)

    for e in sorted(found, key=order):
        lay = e.layout
        per_structure.setdefault((lay.tp, lay.pp, lay.cp, lay.ep), e)
    candidates = list(per_structure.values())
    best = candidates[0]
    note = ""
    if best.layout != fastest.layout:
        gain = 100 - fastest.step_time / best.step_time * 100
        why = (f"context parallelism is preferred only when it saves more than "
               f"{CP_WORTH:.0%}" if fastest.layout.cp > 1 and best.layout.cp == 1 else
               f"within {PLAUSIBLE_MARGIN:.0%} the simpler layout is preferred")
        note = f"{fastest.layout.key} steps {gain:.1f}% faster, but {why}"
    return Ranking(candidates, fastest, note)


def closest_miss(w: Workload, fixed: Fixed | None = None) -> Evaluation | None:
    """The legal layout that needs the least memory (for "nothing fits" messages)."""
    best: Evaluation | None = None
    fixed = dict(fixed or {})
    for tp, pp, cp, ep, dp in _structures(w, fixed):
        z = 3 if _ok(fixed, "zero", 3) else int(fixed["zero"])
        r = "full" if _ok(fixed, "recompute", "full") else str(fixed["recompute"])
        b = 1 if _ok(fixed, "micro_batch", 1) else int(fixed["micro_batch"])
        v = int(fixed.get("interleave", 1))
        lay = Layout(tp, pp, cp, ep, dp, z, v, b, r)
        try:
            e = evaluate(w, lay)
        except LayoutImpossible:
            continue
        if best is None or e.memory_per_gpu < best.memory_per_gpu:
            best = e
    return best


def complete(w: Workload, given: Fixed) -> Evaluation:
    """Evaluate a partly given layout: the keys it leaves out are chosen best for it.

    When no completion fits, the least-memory completion is returned (``fits`` false),
    so that the caller can say by how much, per component, it misses.

    Raises:
        LayoutImpossible: the given keys cannot be built.
    """
    found = search(w, given)
    if found:
        return min(found, key=lambda e: e.step_time)
    partial: dict[str, int | str] = {"tp": 1, "pp": 1, "cp": 1, "ep": 1, "zero": 3,
                                     "interleave": 1, "micro_batch": 1,
                                     "recompute": "full", **given}
    if "dp" not in given:
        inner = int(partial["tp"]) * int(partial["pp"]) * int(partial["cp"])
        if w.gpus % inner:
            raise LayoutImpossible(f"tp*pp*cp = {inner} does not divide the {w.gpus} GPUs")
        partial["dp"] = w.gpus // inner
    lay = Layout(**partial)  # type: ignore[arg-type]
    return evaluate(w, lay)


TIME_NAMES = {"compute": "compute", "recompute": "recomputation", "tp": "TP collectives",
              "cp": "CP K/V exchange", "ep": "EP all-to-alls", "pp_send": "pipeline sends",
              "fsdp": "ZeRO-2/3 collectives", "bubble": "pipeline bubble",
              "dp": "data-parallel traffic", "optimizer": "optimizer step"}
"""Readable names of the step-time components."""

MEMORY_NAMES = {"weights": "weights", "gradients": "gradients",
                "optimizer": "optimizer states", "activations": "activations",
                "logits": "logits", "buffers": "buffers"}
"""Readable names of the memory components."""


def _s(v: float) -> str:
    from solver.units import format_value

    return format_value(v, "s")


def _b(v: float) -> str:
    from solver.units import format_value

    return format_value(v, "B")


def why(w: Workload, e: Evaluation, best: Evaluation | None = None) -> list[str]:
    """What to change, in a few lines: memory overflow, links, and where time goes.

    Args:
        w: the workload.
        e: the layout to explain.
        best: the key to compare with (omitted: explain `e` alone).
    """
    lay, out = e.layout, []
    if not e.fits:
        over = e.memory_per_gpu - e.usable
        parts = ", ".join(f"{MEMORY_NAMES[k]} {_b(v)}" for k, v in
                          sorted(e.memory.items(), key=lambda kv: -kv[1]) if v > 0)
        out.append(f"It does not fit: {_b(e.memory_per_gpu)} per GPU is {_b(over)} over "
                   f"the {_b(e.usable)} usable ({parts}).")
    if e.tp_link == "network" and lay.tp > 1:
        out.append(f"TP {lay.tp} crosses nodes: its all-reduces on the network cost "
                   f"{_s(e.time['tp'])} per step.")
    if lay.cp > 1 and e.cp_link == "network":
        out.append(f"TP x CP = {lay.tp * lay.cp} spans nodes: the K/V ring runs on the "
                   f"network ({_s(e.time['cp'])} per step exposed).")
    out += sharding_note(e)
    if best is not None and best.layout != lay:
        diffs = sorted(((e.time[k] - best.time.get(k, 0.0), k) for k in e.time),
                       reverse=True)
        worse = [f"{TIME_NAMES[k]} {_s(e.time[k])} vs {_s(best.time.get(k, 0.0))}"
                 for d, k in diffs if d > 0.01 * best.step_time][:3]
        if worse and e.step_time > best.step_time:
            out.append("Slower than the key on: " + "; ".join(worse) + ".")
    return out


def sharding_note(e: Evaluation) -> list[str]:
    """What ZeRO-2/3 do with a step's micro-batches, with the arithmetic per micro-batch:
    traffic of sharding every micro-batch against the compute it can hide behind."""
    lay = e.layout
    if lay.zero < 2 or lay.dp * lay.cp == 1 or e.regather_per_mb <= 0:
        return []
    m, stage, wire, comp = e.microbatches, e.zero_in_step, e.regather_per_mb, \
        e.compute_per_mb
    what = ("gathers and reduce-scatters" if lay.zero == 3 else "reduce-scatters")
    arithmetic = (f"{_s(wire)} of {what} per micro-batch against {_s(comp)} of compute "
                  f"({_s(comp / 3)} forward, {_s(comp * 2 / 3)} backward)")
    if stage < lay.zero:
        kept = ("the gathered weights and full gradients" if stage == 1 else
                "the gathered weights" if lay.zero == 3 else "full gradients")
        once = ("gathers the weights and reduce-scatters the gradients once per step"
                if stage == 1 else "gathers the weights once per step and "
                "reduce-scatters the gradients of each micro-batch")
        return [f"ZeRO-{lay.zero} here keeps {kept} through the step's {m} "
                f"micro-batch{'es' if m > 1 else ''}, since that fits "
                f"({_b(e.memory_per_gpu)} of {_b(e.usable)}): it {once}, hidden behind "
                f"compute but for {_s(e.time['fsdp'] + e.time['dp'])}. Sharding every "
                f"micro-batch as written would mean {arithmetic}."]
    exposed = e.time["fsdp"] / m if m else 0.0
    verdict = (f"so {_s(exposed)} of each micro-batch is exposed" if exposed > 0.02 * comp
               else "and it hides behind that compute")
    return [f"ZeRO-{lay.zero} shards again after every micro-batch: {arithmetic}, "
            f"{verdict}; {_s(e.hidden.get('fsdp', 0.0))} of the step's traffic is "
            "hidden. Keeping the gathered weights through the step would need more "
            "memory than is free."]
