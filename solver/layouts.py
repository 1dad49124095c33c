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

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

from solver.errors import SolverError
from solver.perf import (
    Evaluation,
    Layout,
    LayoutImpossible,
    Workload,
    evaluate,
    memory_of,
    probe_time,
    splittable,
    stage_split,
    usable_memory,
)

PLAUSIBLE_MARGIN = 0.03
"""Layouts this close to the fastest step time count as equally good; the simpler wins."""

CP_WORTH = 0.10
"""Context parallelism must shorten the step by more than this to be preferred: it earns
its complexity only when the sequence needs it (activations that do not fit otherwise,
or attention that dominates), not to shave a few percent off a short-sequence run."""

EXPAND_MARGIN = 0.4
"""A structure whose probe at its deepest interleave and smallest micro-batch is this
much slower than the best structure's is not searched further (those two choices move a
step time by less)."""

PRUNE_MARGIN = 0.15
"""A structure, interleave and micro-batch whose least possible step time (ZeRO-1, no
recomputation, memory not asked) is this much above the fastest layout found so far is
not searched further: it could not be listed near the best."""

MAX_MICRO_BATCH = 16
"""Largest micro-batch the search tries (larger ones only grow the bubble and memory)."""

Fixed = Mapping[str, int | str]


MAX_FACTORED = 2**62
"""Largest number :func:`divisors` factors (a bound on hostile inputs, far above any
GPU count or batch: the workload refuses larger ones first)."""


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3e24 (the first 13 primes as witnesses)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _rho(n: int) -> int:
    """A non-trivial factor of the odd composite n (Pollard's rho, Brent's cycle)."""
    from math import gcd

    c = 1
    while True:
        x = y = 2
        d = 1
        while d == 1:
            x = (x * x + c) % n
            y = (y * y + c) % n
            y = (y * y + c) % n
            d = gcd(abs(x - y), n)
        if d != n:
            return d
        c += 1


def factorize(n: int) -> dict[int, int]:
    """Prime factors of n with their exponents: trial division by small primes, then
    Pollard's rho for what is left (milliseconds for any n up to :data:`MAX_FACTORED`).

    >>> factorize(10**15)
    {2: 15, 5: 15}

    Raises:
        SolverError: n below 1 or above :data:`MAX_FACTORED`.
    """
    if n < 1 or n > MAX_FACTORED:
        raise SolverError(f"{n} is outside the range the layout search factors "
                          f"(1 to 2^62)")
    out: dict[int, int] = {}
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        while n % p == 0:
            out[p] = out.get(p, 0) + 1
            n //= p
    stack = [n] if n > 1 else []
    while stack:
        m = stack.pop()
        if _is_prime(m):
            out[m] = out.get(m, 0) + 1
            continue
        d = _rho(m)
        stack += [d, m // d]
    return dict(sorted(out.items()))


@lru_cache(maxsize=4096)
def _divisors(n: int) -> tuple[int, ...]:
    found = [1]
    for p, k in factorize(n).items():
        found = [d * p**i for d in found for i in range(k + 1)]
    return tuple(sorted(found))


def divisors(n: int) -> list[int]:
    """The divisors of n, ascending, from its prime factors (never trial division up
    to n or its square root: a batch of 10^15 sequences factors at once).

    >>> divisors(12)
    [1, 2, 3, 4, 6, 12]
    >>> len(divisors(10**15))
    256
    """
    return list(_divisors(n))


def small_divisors(n: int, limit: int) -> list[int]:
    """The divisors of n up to `limit`, ascending (without factoring n).

    >>> small_divisors(10**15, 16)
    [1, 2, 4, 5, 8, 10, 16]
    """
    return [d for d in range(1, min(n, limit) + 1) if n % d == 0]


def complexity(w: Workload, lay: Layout) -> float:
    """How much a person must set up and reason about: lower is simpler."""
    score = sum(1.0 for d in (lay.tp, lay.pp, lay.cp, lay.ep) if d > 1)
    score += 3.0 * (lay.tp > w.gpus_per_node) + 1.0 * (lay.cp > 1)
    score += 0.25 * math.log2(lay.cp)     # a longer ring is more to tune and to debug
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
            if not _ok(fixed, "pp", pp) or not splittable(w.layers, pp) or (
                    "pp" not in fixed and w.layers % pp and 2 * pp > w.layers):
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
    # Every (structure, interleave, micro-batch) with the least step time its (zero,
    # recompute) choices could reach; the choices are searched, memory asked, only for
    # those within PRUNE_MARGIN of the fastest layout found so far, fastest first.
    probes: list[tuple[float, Layout]] = []
    usable = usable_memory(w)
    most_zero = max(zeros) if zeros else 0
    groups: list[tuple[tuple[int, int, int, int, int], list[int], list[int], int, str,
                       list[int]]] = []
    for tp, pp, cp, ep, dp in _structures(w, fixed):
        # Interleaving splits each middle stage into v chunks (the first and last
        # stages' chunks take what their lighter share leaves).
        stage = stage_split(w.layers, pp)[1]
        vs = [v for v in divisors(stage) if v <= 8 and (pp > 1 or v == 1)
              and _ok(fixed, "interleave", v)]
        per_rank = w.global_batch // dp
        if "micro_batch" in fixed:
            b = int(fixed["micro_batch"])
            bs = [b] if per_rank % b == 0 else []
        else:   # powers of two: what people run, and half the candidates
            bs = [b for b in small_divisors(per_rank, MAX_MICRO_BATCH) if not b & (b - 1)]
        z0 = int(fixed.get("zero", 1))
        r0 = str(fixed.get("recompute", "none"))
        # Experts split as the dense layers (etp = tp, Megatron-Core's default) unless
        # the caller fixes another expert TP (whole experts on each TP rank: etp=1).
        etps = [int(fixed["etp"])] if "etp" in fixed else [0]
        groups.append(((tp, pp, cp, ep, dp), vs, bs, z0, r0, etps))
    # A structure whose (deepest interleave, smallest micro-batch) probe is far past the
    # best structure's is not expanded: interleave and micro-batch move a step by less.
    scores = []
    for (tp, pp, cp, ep, dp), vs, bs, z0, r0, etps in groups:
        if not vs or not bs:
            continue
        score = min(probe_time(w, Layout(tp, pp, cp, ep, dp, z0, vs[-1], bs[0], r0,
                                         etp=etp)) for etp in etps)
        scores.append((score, (tp, pp, cp, ep, dp), vs, bs, z0, r0, etps))
    top = min((x[0] for x in scores), default=0.0)
    for score, (tp, pp, cp, ep, dp), vs, bs, z0, r0, etps in scores:
        if score > top * (1 + EXPAND_MARGIN):
            continue
        per_rank = w.global_batch // dp
        for v in vs:
            for b in bs:
                if v > 1 and (per_rank // b) % pp:
                    continue
                # The least memory any (zero, recompute) choice reaches: none fits if
                # this does not (and a larger micro-batch needs more still).
                if sum(memory_of(w, Layout(tp, pp, cp, ep, dp, most_zero, v, b,
                                           recomputes[-1] if recomputes else r0
                                           )).values()) > usable:
                    break
                for etp in etps:
                    lay = Layout(tp, pp, cp, ep, dp, z0, v, b, r0, etp=etp)
                    probes.append((probe_time(w, lay), lay))
    probes.sort(key=lambda x: x[0])
    fastest = float("inf")
    for bound, base in probes:
        if bound > fastest * (1 + PRUNE_MARGIN):
            break   # nothing left can be listed near the best
        # ZeRO over a single data-parallel rank shards nothing: stage 0 only.
        partial = (int(fixed["recompute_layers"]) if "recompute_layers" in fixed
                   else None)
        found = _best_fitting(w, base, zeros if base.dp * base.cp > 1 or 0 not in zeros
                              else [0], recomputes, partial)
        out.extend(found)
        if found:
            fastest = min(fastest, *(e.step_time for e in found))
    out.sort(key=lambda e: e.step_time)
    return out


def _best_fitting(w: Workload, base: Layout, zeros: list[int],
                  recomputes: list[str], partial: int | None = None) -> list[Evaluation]:
    """The undominated (zero, recompute) choices that fit for one structure. Full
    recomputation recomputes the fewest layers of each stage that make it fit
    (Megatron's ``--recompute-num-layers``), unless `partial` fixes how many."""
    found: list[Evaluation] = []
    usable = usable_memory(w)
    for r in recomputes:
        for z in zeros:
            lay: Layout | None = Layout(base.tp, base.pp, base.cp, base.ep, base.dp, z,
                                        base.interleave, base.micro_batch, r,
                                        etp=base.etp)
            assert lay is not None
            if r == "full":
                lay = _least_recompute(w, lay, usable, partial)
                if lay is None:
                    continue
            elif sum(memory_of(w, lay).values()) > usable:
                continue
            e = evaluate(w, lay, checked=True)
            found.append(e)
            if z == 1 and 0 in zeros:   # zero 0 costs the same time: keep it if it fits
                e0 = evaluate(w, replace(lay, zero=0), checked=True)
                if e0.fits:
                    found.append(e0)
            break
        if found and found[-1].layout.zero != 3:
            return found
    return found


def _least_recompute(w: Workload, lay: Layout, usable: float, partial: int | None
                     ) -> Layout | None:
    """`lay` with full recomputation of the fewest layers per stage that fit (or of
    `partial` layers when given); None when even recomputing every layer does not."""
    def fits(n: int) -> bool:
        return sum(memory_of(w, replace(lay, recompute_layers=n)).values()) <= usable

    if partial is not None:
        return replace(lay, recompute_layers=partial) if fits(partial) else None
    if not fits(0):
        return None
    most = max(stage_split(w.layers, lay.pp))
    lo, hi = 1, most          # the answer lies in [lo, hi]; hi = all layers
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(mid):
            hi = mid
        else:
            lo = mid + 1
    return replace(lay, recompute_layers=0 if lo >= most else lo)


@dataclass(frozen=True)
class Ranking:
    """The outcome of a search.

    Attributes:
        candidates: one layout per structure (tp, pp, cp, ep), in step-time order
            (fastest first): the fastest of each structure, or for the recommended
            layout's structure the recommended layout itself. One scale: a listed
            layout's rank is its place in this list.
        fastest: the layout with the smallest step time (may differ from the best).
        note: why the best is not the fastest, when it is not.
        recommended: the layout to learn, the simplest within
            :data:`PLAUSIBLE_MARGIN` of the fastest (None: the first candidate).
    """

    candidates: list[Evaluation]
    fastest: Evaluation
    note: str = ""
    recommended: Evaluation | None = None

    @property
    def best(self) -> Evaluation:
        """The layout to learn (the recommended one)."""
        return self.recommended if self.recommended is not None else self.candidates[0]

    def rank_of(self, e: Evaluation) -> int:
        """1-based rank of an evaluated layout by step time: 1 + how many listed
        layouts (other than itself) step faster. Rank 1: nothing listed is faster."""
        return 1 + sum(1 for c in self.candidates if c.step_time < e.step_time
                       and c.layout != e.layout)

    def listed_with(self, e: Evaluation) -> int:
        """How many layouts a rank of `e` is out of (the list, plus `e` when it is
        not one of them)."""
        return len(self.candidates) + (0 if any(c.layout == e.layout
                                                for c in self.candidates) else 1)

    @property
    def why_recommended(self) -> str:
        """In words, why the recommended layout is not the fastest ("" when it is)."""
        return self.note


class NothingFits(SolverError):
    """No layout fits; `closest` is the one that misses by the least."""

    def __init__(self, message: str, closest: Evaluation | None) -> None:
        super().__init__(message)
        self.closest = closest


class NoLayout(SolverError):
    """No layout can be built at all (before memory is asked); the message says why."""


def no_layout_reason(w: Workload, fixed: Fixed) -> str:
    """Why no factorization of the GPUs is a legal layout, in one line: the last test
    the candidates failed (heads and nodes for tp, layers for pp, the sequence for cp,
    the batch for dp).

    >>> w = _demo_for_reasons()
    >>> no_layout_reason(w, {"pp": 1})
    'no factorization of 384 GPUs whose data-parallel size divides 2048 sequences'
    """
    g = w.gpus
    tps = [t for t in divisors(g) if _ok(fixed, "tp", t) and not (
        w.heads % t or (w.kv_heads % t and t % w.kv_heads)) and _aligned(t, w.gpus_per_node)]
    if not tps:
        return (f"no tensor-parallel degree of {g} GPUs divides the {w.heads} heads "
                f"({w.kv_heads} KV heads) and fits nodes of {w.gpus_per_node} GPUs"
                + (f" (tp={fixed['tp']} is fixed)" if "tp" in fixed else ""))
    pairs = [(t, p) for t in tps for p in divisors(g // t)
             if _ok(fixed, "pp", p) and splittable(w.layers, p)]
    if not pairs:
        return (f"no pipeline degree stages the {w.layers} layers on {g} GPUs"
                + (f" (pp={fixed['pp']} is fixed)" if "pp" in fixed else ""))
    triples = [(t, p, c) for t, p in pairs for c in divisors(g // (t * p))
               if _ok(fixed, "cp", c) and not (c > 1 and w.seq % (2 * c))
               and _aligned(t * c, w.gpus_per_node)]
    if not triples:
        return (f"no context-parallel degree splits the {w.seq}-token sequence on {g} "
                "GPUs")
    dps = [g // (t * p * c) for t, p, c in triples]
    if not any(_ok(fixed, "dp", d) for d in dps):
        return f"dp={fixed['dp']} is not g / (tp*pp*cp) for any legal tp, pp, cp"
    if not any(_ok(fixed, "dp", d) and w.global_batch % d == 0 for d in dps):
        return (f"no factorization of {g} GPUs whose data-parallel size divides "
                f"{w.global_batch} sequences")
    return (f"no expert-parallel degree divides the {w.experts} experts and the "
            "data-parallel ranks" + (f" (ep={fixed['ep']} is fixed)" if "ep" in fixed
                                     else ""))


def _demo_for_reasons() -> Workload:
    from dataclasses import replace

    from solver.perf import _demo

    return replace(_demo(), gpus=384, global_batch=2048)


def rank(w: Workload, fixed: Fixed | None = None) -> Ranking:
    """Search and order the layouts: simplest among the near-fastest first.

    Raises:
        NothingFits: when no layout fits in memory (with the closest one).
    """
    found = search(w, fixed)
    if not found and not any(True for _ in _structures(w, dict(fixed or {}))):
        raise NoLayout(no_layout_reason(w, dict(fixed or {})))
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

    best = min(found, key=order)
    for e in found:   # fastest first: the fastest layout of each structure
        lay = e.layout
        per_structure.setdefault((lay.tp, lay.pp, lay.cp, lay.ep), e)
    lay = best.layout
    per_structure[(lay.tp, lay.pp, lay.cp, lay.ep)] = best
    candidates = sorted(per_structure.values(), key=lambda e: e.step_time)
    note = ""
    if best.layout != fastest.layout:
        gain = 100 - fastest.step_time / best.step_time * 100
        why = (f"context parallelism is recommended only when it saves more than "
               f"{CP_WORTH:.0%}" if fastest.layout.cp > 1 and best.layout.cp == 1 else
               f"the recommended layout is the simplest within {PLAUSIBLE_MARGIN:.0%} of "
               "the fastest")
        note = f"{fastest.layout.key} steps {gain:.1f}% faster, but {why}"
    return Ranking(candidates, fastest, note, best)


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


AXES = ("tp", "pp", "cp", "ep")
"""Parallel degrees: a layout that leaves one out does not use it (1)."""


def completion(w: Workload, given: Fixed) -> dict[str, int | str]:
    """The keys :func:`complete` holds for a partly given layout: those given, and 1 for
    each parallel degree left out (a layout names the axes it uses: "TP 8 x FSDP 64"
    has no PP), unless a given dp leaves the GPUs to the missing axes; dp follows from
    the GPU count. The rest (zero, micro_batch, interleave, recompute) are chosen best.

    >>> from solver.perf import _demo
    >>> completion(_demo(), {"tp": 8, "zero": 3})
    {'tp': 8, 'zero': 3, 'pp': 1, 'cp': 1, 'ep': 1}
    """
    out: dict[str, int | str] = dict(given)
    missing = [a for a in AXES if a not in given]
    inner = 1
    for a in AXES[:3]:
        inner *= int(given.get(a, 1))
    if "dp" in given and inner * int(given["dp"]) != w.gpus:
        return out          # the given dp leaves GPUs to the axes left out: search them
    for a in missing:
        out[a] = 1
    return out


def complete(w: Workload, given: Fixed) -> Evaluation:
    """Evaluate a partly given layout: parallel degrees left out are 1 (see
    :func:`completion`), the other keys are chosen best for it.

    When no completion fits, the least-memory completion is returned (``fits`` false),
    so that the caller can say by how much, per component, it misses.

    Raises:
        LayoutImpossible: the given keys cannot be built.
    """
    held = completion(w, given)
    found = search(w, held)
    if found:
        return min(found, key=lambda e: e.step_time)
    partial: dict[str, int | str] = {"tp": 1, "pp": 1, "cp": 1, "ep": 1, "zero": 3,
                                     "interleave": 1, "micro_batch": 1,
                                     "recompute": "full", **held}
    if "dp" not in held:
        inner = int(partial["tp"]) * int(partial["pp"]) * int(partial["cp"])
        if w.gpus % inner:
            raise LayoutImpossible(f"tp*pp*cp = {inner} does not divide the {w.gpus} GPUs")
        partial["dp"] = w.gpus // inner
    lay = Layout(**partial)  # type: ignore[arg-type]
    return evaluate(w, lay)


FILLED_WHY = {"dp": "the GPU count", "zero": "the fastest that fits",
              "micro_batch": "the fastest that fits", "interleave": "the fastest that fits",
              "recompute": "the least that fits", "recompute_layers": "the fewest that fit"}


def filled_in(w: Workload, given: Fixed, e: Evaluation) -> str:
    """One line naming the keys of `e` the learner did not give, and why each is what
    it is ("" when every key was given).

    >>> from solver.perf import _demo
    >>> w = _demo()
    >>> print(filled_in(w, {"tp": 8, "zero": 1},
    ...                 evaluate(w, Layout(tp=8, dp=1, zero=1))))   # doctest: +NORMALIZE_WHITESPACE
    Filled in: pp=1 cp=1 ep=1 (axes not named are not used); dp=1 (the GPU count);
    mb=1 (the fastest that fits).
    """
    lay = e.layout
    axes = [f"{a}={getattr(lay, a)}" for a in AXES if a not in given]
    parts = []
    if axes:
        held = completion(w, given)
        why = ("axes not named are not used" if all(a in held for a in AXES)
               else "chosen best for the dp given")
        parts.append(f"{' '.join(axes)} ({why})")
    for key in ("dp", "zero", "micro_batch", "interleave", "recompute", "recompute_layers"):
        if key in given:
            continue
        value = getattr(lay, key)
        if key == "interleave" and value == 1 and lay.pp == 1:
            continue
        if key == "recompute" and value == "none":
            continue
        if key == "recompute_layers" and (lay.recompute != "full" or not value):
            continue
        if key == "zero" and "zero" not in given and value == 0 and lay.dp * lay.cp == 1:
            continue
        name = "mb" if key == "micro_batch" else key
        parts.append(f"{name}={value} ({FILLED_WHY[key]})")
    return "Filled in: " + "; ".join(parts) + "." if parts else ""


TIME_NAMES = {"compute": "compute", "recompute": "recomputation", "tp": "TP collectives",
              "cp": "CP K/V exchange", "ep": "EP all-to-alls", "pp_send": "pipeline sends",
              "fsdp": "ZeRO-2/3 collectives", "bubble": "pipeline bubble",
              "dp": "data-parallel traffic", "optimizer": "optimizer step",
              "straggler": "waiting for stragglers"}
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


def reasons(w: Workload, e: Evaluation) -> list[str]:
    """Why a layout is built as it is, axis by axis, from its own figures: the lines a
    learner reads under the recommended layout.

    >>> from solver.perf import _demo
    >>> w = _demo()
    >>> for line in reasons(w, evaluate(w, Layout(tp=8, dp=1))):  # doctest: +NORMALIZE_WHITESPACE
    ...     print(line)
    TP 8 stays inside a node: its collectives run on NVLink (0.317 s a step, 0.317 s
    hidden under the GEMMs).
    It needs 7.18 GB of the 81.1 GB usable per GPU; MFU 39%.
    """
    lay, out = e.layout, []
    if lay.tp > 1:
        where = ("stays inside a node: its collectives run on NVLink"
                 if e.tp_link == "NVLink" else "spans nodes: its collectives cross the "
                 "network")
        out.append(f"TP {lay.tp} {where} ({_s(e.time['tp'])} a step, "
                   f"{_s(e.hidden.get('tp', 0.0))} hidden under the GEMMs).")
    if lay.pp > 1:
        first, mid, last = e.stage_layers
        split = (f"{lay.pp} stages of {mid} layers" if first == mid == last else
                 f"{lay.pp} stages: {first} layers on the first, {mid} on each middle one, "
                 f"{last} on the last, which also hold the embedding and the loss")
        il = (f"; interleaving {lay.interleave} chunks a stage" if lay.interleave > 1
              else "")
        out.append(f"PP {lay.pp} splits the {w.layers} layers into {split}; the bubble "
                   f"is {e.time['bubble'] / e.step_time:.0%} of the step over "
                   f"{e.microbatches} micro-batches{il}.")
    if lay.cp > 1:
        out.append(f"CP {lay.cp} splits each {w.seq:,}-token sequence: activations and "
                   f"attention work / {lay.cp}; the K/V ring shows {_s(e.time['cp'])} of "
                   f"{_s(e.time['cp'] + e.hidden.get('cp', 0.0))} on the wire.")
    if lay.ep > 1:
        out.append(f"EP {lay.ep}: each GPU holds {w.experts // lay.ep} of the {w.experts} "
                   f"routed experts, whose GEMMs then see more tokens; the all-to-alls "
                   f"show {_s(e.time['ep'])} of {_s(e.time['ep'] + e.hidden.get('ep', 0.0))}"
                   " on the wire.")
    ranks = lay.dp * lay.cp
    if lay.zero and ranks > 1:
        what = {1: "optimizer states", 2: "optimizer states and gradients",
                3: "optimizer states, gradients and weights"}[lay.zero]
        out.append(f"ZeRO-{lay.zero} shards the {what} over the {ranks} data-parallel "
                   "ranks.")
    mem = (f"It needs {_b(e.memory_per_gpu)} of the {_b(e.usable)} usable per GPU "
           f"({e.memory_stage} stage)" if lay.pp > 1 else
           f"It needs {_b(e.memory_per_gpu)} of the {_b(e.usable)} usable per GPU")
    if lay.recompute == "full":
        n = lay.recompute_layers
        mem += (f", recomputing {n} layer{'s' if n > 1 else ''} of each stage to fit" if n
                else ", recomputing every layer to fit")
    elif lay.recompute == "selective":
        mem += ", recomputing the attention core to fit"
    out.append(mem + f"; MFU {e.mfu:.0%}.")
    return out


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
