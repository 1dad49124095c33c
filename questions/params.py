"""Drawing a template's parameters: the seed's only random draw, its constraints, and
what the draws of many seeds cover.

The same seed gives the same parameters on every run and machine: every random draw
comes from ``random.Random("<id>#<seed>")`` (string seeds are hashed with SHA-512 by the
standard library), and parameters are rounded before any answer is derived.
"""

from __future__ import annotations

import ast
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from msgspec import Struct, field

from questions.errors import TemplateError
from questions.expr import Expr, ExprError, compile_expr
from questions.text import _names, _only
from solver.errors import SolverError
from solver.keys import KEYS

if TYPE_CHECKING:
    from questions.fields import ParamSpec, Scalar
    from questions.fields import PartFields as Part
    from questions.schema import Template
    from solver.engine import Inputs

MAX_DRAWS = 200
"""Redraws allowed before a template is declared unsatisfiable."""

# The budgets below count work, not time, so that what a template's draws come to (a
# variant, a refusal, a coverage report) is the same on every machine and under any
# load. A try's work is bounded without a clock: a constraint is at most
# questions.expr.MAX_LENGTH characters and its whole numbers at most MAX_INT_BITS bits,
# so the time of one step below is bounded too (about 0.1 us on a 2-core laptop).
TRY_STEPS = 100
"""The fixed work of one try, in steps (one step: a term of a constraint evaluated):
drawing it and resolving the solver's inputs for it take about as long as evaluating
100 terms."""
PARAM_STEPS = 5
"""The work of drawing one parameter of a try, in steps."""
MAX_DRAW_STEPS = 2_000_000
"""Steps allowed for drawing one variant's parameters (the first try always runs). The
bundled bank's dearest variant takes under 25,000 (90 tries of 242 steps), and a
template's 200 tries fit unless one try costs over 10,000 steps (some 25 constraints
of full length): then it is refused as too costly, in a fraction of a second."""

def _draw(spec: ParamSpec, rng: random.Random) -> Scalar:
    if spec.choices is not None:
        return rng.choice(spec.choices)
    assert spec.range is not None
    lo, hi = spec.range
    v = math.exp(rng.uniform(math.log(lo), math.log(hi))) if spec.log else rng.uniform(lo, hi)
    if spec.step:
        v = min(max(round(v / spec.step) * spec.step, lo), hi)
        v = round(v, 12)
    if spec.sig:
        v = float(f"{v:.{spec.sig}g}")
    if spec.integer:
        v = float(round(v))
    return int(v) if v == int(v) and abs(v) < 2**53 else v


class Compiled(Struct, frozen=True, dict=True):
    """A template's expressions, checked once."""

    constraints: tuple[Expr, ...]
    exprs: dict[str, Expr]

    @cached_property
    def needs(self) -> frozenset[str]:
        """Every name the constraints read."""
        return frozenset().union(*(c.names for c in self.constraints))

    @cached_property
    def terms(self) -> int:
        """The terms (syntax-tree nodes) of all the constraints, each evaluated once a
        try."""
        return sum(sum(1 for _ in ast.walk(c.tree)) for c in self.constraints)


def _try_steps(t: Template, comp: Compiled) -> int:
    """The work of one try of `t`'s draw (`comp`: its expressions), in steps
    (:data:`TRY_STEPS`): the same for every try, kept or rejected, drawn or found in a
    memo."""
    return TRY_STEPS + PARAM_STEPS * len(t.params) + comp.terms


_COMPILED: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], Compiled] = {}


_LAST: tuple[Template, Compiled] | None = None
"""The last template :func:`compiled` was asked for, and its answer."""


def compiled(t: Template) -> Compiled:
    """Compile (once) a template's constraints and answer/mistake expressions.

    Raises:
        TemplateError: an expression that is not allowed or names something unknown.
    """
    # The template of the last call, held (so that its id() cannot be reused): the
    # self-test and the draw coverage draw one template at a hundred seeds in a row, and
    # working out the content key below was a third of a memoized draw's time.
    global _LAST
    if _LAST is not None and _LAST[0] is t:
        return _LAST[1]
    # Keyed by content, not by object identity: a freed template's id() can be reused by
    # another template (regression: a broken test template once got a valid one's
    # compiled constraints).
    # (a single-part template's fields, not all_parts(): that validates a Part each call)
    sources: Sequence[Part | Template] = t.parts or [t]
    texts = tuple(x for p in sources for x in _expr_texts(p) if x)
    key = (tuple(t.constraints), tuple(sorted(t.params)), texts)
    got = _COMPILED.get(key)
    if got is not None:
        _LAST = (t, got)
        return got
    known = _names() | frozenset(t.params)
    free = _names() | frozenset(n for n, spec in t.params.items() if spec.free)
    try:
        constraints = tuple(compile_expr(c, known) for c in t.constraints)
        exprs: dict[str, Expr] = {}
        for part in t.all_parts():
            for text in _expr_texts(part):
                if text:
                    exprs[text] = compile_expr(text, free)
    except ExprError as exc:
        raise TemplateError(f"{t.id}: {exc}", reason=str(exc)) from exc
    got = _COMPILED[key] = Compiled(constraints, exprs)
    _LAST = (t, got)
    return got


def _expr_texts(part: Part | Template) -> list[str | None]:
    """Every expression of a part (or of a single-part template, which has a part's
    answer fields): the answer's, the mistakes', the conditions' and the spoken
    figures'."""
    from questions.kinds import kind_of

    kind = kind_of(part.answer_kind)
    return ([text for _, text, _ in kind.expressions(cast("Part", part))]
            + [m.expr for _, m in kind.rederived(cast("Part", part))])


def _split(params: Mapping[str, Scalar], *extra: Mapping[str, Scalar]) -> tuple[
        str | None, str | None, dict[str, Scalar]]:
    merged: dict[str, Scalar] = {}
    for m in (params, *extra):
        merged.update(m)
    model = merged.pop("model", None)
    gpu = merged.pop("gpu", None)
    over = {k: v for k, v in merged.items() if k in KEYS}  # free parameters stay out
    return (None if model is None else str(model), None if gpu is None else str(gpu), over)


def _free(params: Mapping[str, Scalar]) -> dict[str, float]:
    """The free parameters (not solver keys) of a draw, for expressions and prompts."""
    return {k: float(v) for k, v in params.items()
            if k not in KEYS and k not in ("model", "gpu") and not isinstance(v, str)}


def draw_params(t: Template, seed: int,
                observe: Callable[[dict[str, Scalar], str | None, int | None], None]
                | None = None,
                memo: dict[str, Drawn] | None = None) -> tuple[dict[str, Scalar], Inputs]:
    """The parameters of the variant of `t` at `seed` (a variant's only random draw:
    everything else is derived from them) and the inputs they resolve to.

    Args:
        t: the template.
        seed: the variant's seed.
        observe: called with each draw tried, why it was rejected (None: it was
            kept) and the constraint that rejected it (its index; None: the solver
            did, or nothing did), for :func:`draw_coverage`.
        memo: what each draw tried came to (kept with its inputs, or why it was
            rejected), by its parameters, for draws of `t` (or of a copy of it that
            differs only in id) that try the same parameters again: the self-test
            draws a template at many seeds, and the copies' draws repeat. The inputs
            of a kept draw are then shared between draws: read them only.

    Raises:
        TemplateError: the constraints cannot be met in MAX_DRAWS draws, or in the
            draws that MAX_DRAW_STEPS allows.
    """
    comp = compiled(t)
    rng = random.Random(f"{t.id}#{seed}")
    last = "no draw was tried"
    field: tuple[str | int, ...] = ("params",)
    reason: str | None = None
    steps = _try_steps(t, comp)
    for attempt in range(MAX_DRAWS):
        if attempt and (attempt + 1) * steps > MAX_DRAW_STEPS:
            costly = (f"drawing a variant is too costly: each draw evaluates "
                      f"{comp.terms:,} terms of the constraints over {len(t.params)} "
                      f"parameters, and the {attempt} draws a variant may take at that "
                      f"cost were all rejected (the last: {last}); shorten the "
                      "constraints, or make them hold more often")
            raise TemplateError(f"{t.id}: {costly}", field=field, reason=costly)
        params = {}
        try:
            params = {name: _draw(spec, rng) for name, spec in t.params.items()}
        except (ArithmeticError, ValueError) as exc:  # overflow while drawing a number
            last, field, reason = f"a parameter cannot be drawn: {exc}", ("params",), None
            if observe is not None:
                observe(params, last, None)
            continue
        if memo is not None:
            tried = repr(list(params.items()))  # repr: 1, 1.0 and True are all equal
            known = memo.get(tried)
            if known is None:
                known = memo[tried] = _tried(t, comp, params)
        else:
            known = _tried(t, comp, params)
        inputs, rejected = known
        if rejected is not None:
            last, field, reason, why, at = rejected
            if observe is not None:
                observe(params, why, at)
            continue
        if observe is not None:
            observe(params, None, None)
        break
    else:
        message = f"no draw in {MAX_DRAWS} satisfies the template ({last})"
        raise TemplateError(f"{t.id}: {message}", field=field,
                            reason=message if reason is None else reason)
    return params, inputs


Drawn = tuple[Any, tuple[str, tuple[str | int, ...], str | None, str, int | None] | None]
"""What one draw tried came to: its inputs when kept (None otherwise), and when rejected
(last, field, reason, why, constraint) as :func:`draw_params` reports it."""


def _tried(t: Template, comp: Compiled, params: dict[str, Scalar]) -> Drawn:
    """Whether drawn parameters are kept: the solver's inputs for them, or why not."""
    from solver.inputs import resolve_inputs

    try:
        model, gpu, over = _split(params, t.fixed)
        inputs = resolve_inputs(model, gpu, over)
        env = _only(inputs, comp.needs) | {k: v for k, v in params.items()
                                           if isinstance(v, int | float)}
        failed = [c.text for c in comp.constraints if not _holds(c, env)]
    except (SolverError, ExprError) as exc:
        field: tuple[str | int, ...] = ("params",)
        reason = None
        if isinstance(exc, ExprError) and exc.expr in t.constraints:
            field, reason = ("constraints", t.constraints.index(exc.expr)), exc.reason
        return None, (str(exc), field, reason, str(exc), None)
    except (ArithmeticError, ValueError) as exc:  # overflow while drawing a number
        last = f"a parameter cannot be drawn: {exc}"
        return None, (last, ("params",), None, last, None)
    if failed:
        last = f"constraint {failed[0]!r} failed"
        at = t.constraints.index(failed[0])
        return None, (last, ("constraints", at),
                      f"no draw of the parameters meets {failed[0]!r} (tried {MAX_DRAWS}); "
                      "widen the parameters or relax it", last, at)
    return inputs, None


COVERAGE_SEEDS = 100
"""Seeds :func:`draw_coverage` draws at least (parameters only: a few ms each)."""

REJECTED_SHARE = 0.75
"""A share of rejected draws :func:`draw_coverage` reports (a constraint that keeps one
draw in four is a design; the variants crowd where the draws are kept)."""

SOLVER_REJECTED_SHARE = 0.25
"""A share of draws rejected by the solver (not by a declared constraint) it reports:
combinations the author may not know are impossible (126 layers on 4 stages)."""

COVERAGE_STEPS = 10_000_000
"""Steps (:data:`TRY_STEPS`) :func:`draw_coverage` may take: a template whose draws are
mostly rejected, or costly, is reported on the seeds drawn by then. The bundled bank's
dearest coverage at 100 seeds takes under 500,000 (1,924 tries of 242 steps)."""

END_SHARE = 0.1
"""The share of a range at each end whose draws :func:`draw_coverage` watches."""


class Coverage(Struct):
    """What the draws of a template's parameters covered, and what they refused.

    Attributes:
        template: the template.
        seeds: seeds drawn.
        tries: draws tried (kept or rejected).
        kept: the kept draws' parameters.
        rejected: (parameters, reason, constraint index or None) of each rejected try.
        failed: seeds for which no draw could be kept.
    """

    template: Template
    seeds: int
    tries: int = 0
    kept: list[dict[str, Scalar]] = field(default_factory=list)
    rejected: list[tuple[dict[str, Scalar], str, int | None]] = field(default_factory=list)
    failed: int = 0

    def warnings(self) -> list[tuple[list[str | int], str]]:
        """Located sentences: choices and range ends never drawn (with why their draws
        were rejected), and a high rejection rate with its reasons."""
        out: list[tuple[list[str | int], str]] = []
        t = self.template
        tries = f"{self.tries} draws over {self.seeds} seeds"
        for name, spec in t.params.items():
            if spec.choices is not None:
                for choice in dict.fromkeys(spec.choices):
                    if any(_same(p.get(name), choice) for p in self.kept):
                        continue
                    refused = [r for r in self.rejected if _same(r[0].get(name), choice)]
                    if not refused:
                        continue  # never tried: chance, not a reason
                    out.append((["params", name], f"{choice!r} is never drawn in {tries}: "
                                f"all {len(refused)} draws of it were rejected ("
                                f"{_reasons(refused)}); drop it, or change what rejects it"))
            elif spec.range is not None:
                for end, inside in _ends(spec):
                    if any(inside(p.get(name)) for p in self.kept):
                        continue
                    refused = [r for r in self.rejected if inside(r[0].get(name))]
                    if not refused:
                        continue
                    out.append((["params", name], f"the {end} of its range is never drawn "
                                f"in {tries}: all {len(refused)} draws there were rejected "
                                f"({_reasons(refused)}); narrow the range, or change what "
                                "rejects it"))
        by_solver = [r for r in self.rejected if r[2] is None]
        if self.tries and not self.failed and (
                len(self.rejected) >= REJECTED_SHARE * self.tries
                or len(by_solver) >= SOLVER_REJECTED_SHARE * self.tries):
            share = len(self.rejected) / self.tries
            counts: dict[int, int] = {}
            for r in self.rejected:
                if r[2] is not None:
                    counts[r[2]] = counts.get(r[2], 0) + 1
            top = max(counts, key=lambda i: counts[i]) if counts else None
            where: list[str | int] = ["constraints", top] \
                if top is not None and counts[top] * 2 > len(self.rejected) else ["params"]
            out.append((where, f"{share:.0%} of the draws are rejected ({len(self.rejected)} "
                        f"of {tries}: {_reasons(self.rejected)}); draw from ranges that "
                        "fit, so that variants do not crowd where the draws are kept"))
        return out


def _same(a: object, b: object) -> bool:
    """Whether a drawn value is this choice (True is not 1, "8" is not 8)."""
    return (type(a) is bool) == (type(b) is bool) and (type(a) is str) == (
        type(b) is str) and a == b


def _ends(spec: ParamSpec) -> list[tuple[str, Callable[[object], bool]]]:
    """(name, test) for the low and high end of a range: the END_SHARE of it at each
    end (in log space for a log range), at least the end's own step."""
    assert spec.range is not None
    lo, hi = spec.range
    if hi <= lo:
        return []
    scale: Callable[[float], float] = math.log if spec.log and lo > 0 else float
    a, b = scale(lo), scale(hi)
    width = max((b - a) * END_SHARE, 0.0)

    def within(low: bool) -> Callable[[object], bool]:
        def test(v: object) -> bool:
            if not isinstance(v, int | float) or isinstance(v, bool) or (v <= 0 and \
                    scale is math.log):
                return False
            x = scale(float(v))
            if spec.step and abs(float(v) - (lo if low else hi)) < spec.step / 2:
                return True
            return x <= a + width if low else x >= b - width
        return test

    return [(f"low end ({lo:g})", within(True)), (f"high end ({hi:g})", within(False))]


def _reasons(rejected: Sequence[tuple[dict[str, Scalar], str, int | None]]) -> str:
    """The reasons of rejected draws, most frequent first: the solver's own words
    (one example per kind of reason) and how many draws each rejected."""
    groups: dict[str, list[str]] = {}
    for _, reason, _ in rejected:
        groups.setdefault(re.sub(r"\d+(\.\d+)?", "#", reason), []).append(reason)
    ranked = sorted(groups.values(), key=len, reverse=True)
    shown = [f"{len(g)}: {g[0]}" for g in ranked[:3]]
    more = f"; {len(ranked) - 3} other reasons" if len(ranked) > 3 else ""
    return "; ".join(shown) + more


def draw_coverage(t: Template, seeds: int = COVERAGE_SEEDS,
                  memo: dict[str, Drawn] | None = None,
                  tried: Mapping[int, Sequence[tuple[dict[str, Scalar], str | None,
                                                     int | None]]] | None = None
                  ) -> Coverage:
    """Draw the parameters of `t` for max(`seeds`, COVERAGE_SEEDS) seeds and record
    every draw tried: what was kept, what was rejected and why (see
    :meth:`Coverage.warnings`; `memo`: see :func:`draw_params`; `tried`: seed -> the
    tries of its draw as ``observe`` saw them, for seeds drawn already, which are not
    drawn again). Never raises for a draw that fails."""
    out = Coverage(t, max(seeds, COVERAGE_SEEDS))

    def observe(params: dict[str, Scalar], reason: str | None, at: int | None) -> None:
        out.tries += 1
        if reason is None:
            out.kept.append(dict(params))
        else:
            out.rejected.append((dict(params), reason, at))

    try:
        steps = _try_steps(t, compiled(t))
    except TemplateError:  # an expression that cannot be compiled: no seed can be drawn
        out.failed += 1
        return out
    for seed in range(out.seeds):
        # Every try counts, drawn or found in the memo or in `tried`: where the report
        # stops depends on the template and the seeds only.
        if out.tries * steps >= COVERAGE_STEPS:
            out.seeds = seed  # what was drawn within the budget is the report
            break
        if tried is not None and seed in tried:
            for params, reason, at in tried[seed]:
                observe(params, reason, at)
            continue
        try:
            draw_params(t, seed, observe, memo)
        except TemplateError:
            out.failed += 1
            break  # the self-test reports a template that cannot be drawn
    return out



def _holds(constraint: Expr, env: Mapping[str, Any]) -> bool:
    """Whether a constraint holds; an error names the constraint."""
    try:
        return bool(constraint.value(env))
    except ExprError as exc:
        raise ExprError(f"constraint {constraint.text!r} cannot be evaluated: {exc.reason}",
                        expr=constraint.text, reason=exc.reason) from exc

