"""Variants: a template and a seed give parameters, prompts and answer keys.

The same seed gives the same variant on every run and machine: every random draw comes
from ``random.Random("<id>#<seed>")`` (string seeds are hashed with SHA-512 by the
standard library), and parameters are rounded before any answer is derived.
"""

from __future__ import annotations

import math
import random
import re
import string
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from questions.errors import TemplateError
from questions.expr import Expr, ExprError, compile_expr
from solver.errors import SolverError
from solver.keys import KEYS
from solver.presets import GPUS, MODELS
from solver.units import format_both, format_value

if TYPE_CHECKING:
    from questions.derivation import Derivation
    from questions.schema import ParamSpec, Part, Scalar, Template
    from solver.engine import Inputs

MAX_DRAWS = 200
"""Redraws allowed before a template is declared unsatisfiable."""
MAX_DRAW_SECONDS = 1.0
"""CPU time allowed for drawing one variant's parameters (normally a few ms)."""
CLOCK_EVERY = 8
"""Redraws between two readings of the clock against MAX_DRAW_SECONDS."""

if TYPE_CHECKING:
    NAMES: frozenset[str]
    """Every name a template expression may read (keys and quantities)."""


def __getattr__(name: str) -> frozenset[str]:
    # NAMES is built on first use: the catalogue of quantities imports sympy, which a
    # variant drawn with kept plans (questions.stored) never needs.
    if name == "NAMES":
        return _names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _names() -> frozenset[str]:
    """Every name a template expression may read (keys and quantities)."""
    from solver.light import QUANTITIES

    return frozenset(KEYS) | frozenset(QUANTITIES)



@dataclass(frozen=True)
class Key:
    """The expected answer of one part.

    Attributes:
        kind: the answer kind.
        value: the number in base units (number answers).
        unit: its base unit.
        display: the key as people read it; typing it back grades correct.
        tolerance: relative tolerance for numbers.
        formula: the expected formula text (formula answers).
        symbols: letter -> solver name, for formulas.
        correct: right labels (choice, multi).
        cells: row -> right column codes (table).
        figures: the figures a spoken answer should state, with their values.
    """

    kind: str
    display: str
    value: float | None = None
    unit: str | None = None
    tolerance: float = 0.03
    formula: str | None = None
    symbols: dict[str, str] = field(default_factory=dict)
    correct: tuple[str, ...] = ()
    cells: dict[str, tuple[str, ...]] = field(default_factory=dict)
    figures: tuple[FigureKey, ...] = ()


@dataclass(frozen=True)
class FigureKey:
    """One figure a spoken answer should state, as drawn for a variant.

    Attributes:
        id: the rubric's id for it.
        label: what the checklist calls it.
        value: the value in base units.
        unit: the base unit.
        display: the value as people say it ("1.13 TB").
        tolerance: relative tolerance.
        weight: its share of the score, relative to the other items.
        overrides: the solver keys changed for this figure only (on top of the part's).
        quantity: the solver quantity it is (or "").
        expr: the expression it is (or "").
    """

    id: str
    label: str
    value: float
    unit: str
    display: str
    tolerance: float
    weight: float
    overrides: dict[str, Scalar] = field(default_factory=dict)
    quantity: str = ""
    expr: str = ""


@dataclass(frozen=True)
class KnownMistake:
    """A known mistake as it applies to this variant (its value already derived)."""

    name: str
    feedback: str
    credit: float
    value: float | None = None
    formula: str | None = None
    choice: tuple[str, ...] = ()
    cells: dict[str, tuple[str, ...]] = field(default_factory=dict)
    figure: str = ""
    """For spoken answers: the id of the figure it is a wrong value of."""


@dataclass(frozen=True)
class AcceptedVariant:
    """Another convention's answer that also grades correct."""

    name: str
    note: str
    value: float


@dataclass(frozen=True)
class Carried:
    """An earlier part whose answer carries forward into a later one.

    Attributes:
        part: the earlier part (1-based).
        name: the quantity its answer is, which the later part's expression names.
        unit: its base unit.
        key: its key (the value the later part's own key is derived from).
    """

    part: int
    name: str
    unit: str
    key: float


@dataclass(frozen=True)
class Follow:
    """Follow-through (error carried forward) of one part.

    Attributes:
        carried: the earlier parts whose answers this part's expression uses.
        credit: the score of an answer right from the learner's own earlier answers.
        derive: this part's answer with some carried quantities replaced (name ->
            value); the others keep their values.
    """

    carried: tuple[Carried, ...]
    credit: float
    derive: Callable[[Mapping[str, float]], float]


@dataclass
class PartVariant:
    """One part of a variant, ready to ask and grade."""

    index: int
    prompt: str
    spec: Part
    key: Key
    mistakes: tuple[KnownMistake, ...]
    accepted: tuple[AcceptedVariant, ...]
    overrides: dict[str, Scalar]
    model: str | None
    gpu: str | None
    env: dict[str, float]
    follow: Follow | None = None
    """How this part follows through from earlier parts' answers (None: it does not)."""
    labels: dict[str, str] = field(default_factory=dict)
    """Choice answers: the template's label of each option -> the label shown (options
    are shuffled per variant); empty when the letters are the template's."""

    @property
    def kind(self) -> str:
        """The answer kind of this part."""
        return self.spec.answer_kind

    @cached_property
    def derivation(self) -> Derivation:
        """The worked derivation (computed on first use: it runs the solver's steps).

        Never raises: a derivation the solver cannot produce becomes one saying why, so
        feedback and reports always render (the self-test calls
        :func:`questions.derivation.explain` directly and reports the failure as a
        template bug).
        """
        from questions.derivation import Derivation, explain

        try:
            return explain(self)
        except (ValueError, LookupError) as exc:  # SolverError, TemplateError, ExprError
            return Derivation(intro=f"The worked derivation could not be produced: {exc}")

    @property
    def explanation(self) -> str:
        """The worked derivation as plain text (the JSON contract's ``explanation``)."""
        return self.derivation.text()


@dataclass
class Variant:
    """A template at one seed."""

    template: Template
    seed: int
    params: dict[str, Scalar]
    parts: list[PartVariant]

    @cached_property
    def inputs(self) -> Inputs:
        """The solver's inputs for the drawn parameters (resolved on first use, so that a
        variant read back from the cache needs no solver)."""
        from solver.inputs import resolve_inputs

        return resolve_inputs(*_split(self.params, self.template.fixed))

    @property
    def id(self) -> str:
        """`TEMPLATE_ID#SEED`, the form users can paste to reproduce it."""
        return f"{self.template.id}#{self.seed}"

    @property
    def intro(self) -> str:
        """The scenario's setting, formatted."""
        return self.parts[0].prompt if not self.template.intro else _format(
            self.template.intro, self.parts[0].env, {**self.template.fixed, **self.params},
            ("intro",))


def parse_variant_id(text: str) -> tuple[str, int | None]:
    """Split `TEMPLATE_ID#SEED` into its parts (seed None when absent).

    Raises:
        TemplateError: a seed that breaks the rule of :func:`questions.seeds.read_seed`.
    """
    from questions.seeds import read_seed

    tid, sep, seed = text.strip().partition("#")
    if not sep:
        return tid, None
    try:
        return tid, read_seed(seed)
    except ValueError as exc:
        raise TemplateError(str(exc)) from None


def variant_ref(text: str, seed: int | None, *, default: int | None = 0) -> tuple[str, int]:
    """`TEMPLATE_ID[#SEED]` plus an optional `--seed`: the template id and the seed.

    Raises:
        TemplateError: two different seeds, a negative seed, or no seed when there is
            no default.
    """
    tid, embedded = parse_variant_id(text)
    if seed is not None:
        if embedded is not None and embedded != seed:
            raise TemplateError(f"two different seeds given ({embedded} and {seed})")
        embedded = seed
    if embedded is None:
        if default is None:
            raise TemplateError("a seed is needed: --seed N or TEMPLATE_ID#SEED")
        embedded = default
    from questions.seeds import check_seed

    try:
        return tid, check_seed(embedded)
    except ValueError as exc:
        raise TemplateError(str(exc)) from None


# ---------------------------------------------------------------- drawing


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


@dataclass(frozen=True)
class Compiled:
    """A template's expressions, checked once."""

    constraints: tuple[Expr, ...]
    exprs: dict[str, Expr]

    @cached_property
    def needs(self) -> frozenset[str]:
        """Every name the constraints read."""
        return frozenset().union(*(c.names for c in self.constraints))


_COMPILED: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], Compiled] = {}


def compiled(t: Template) -> Compiled:
    """Compile (once) a template's constraints and answer/mistake expressions.

    Raises:
        TemplateError: an expression that is not allowed or names something unknown.
    """
    # Keyed by content, not by object identity: a freed template's id() can be reused by
    # another template (regression: a broken test template once got a valid one's
    # compiled constraints).
    texts = tuple(x for p in t.all_parts() for x in _expr_texts(p) if x)
    key = (tuple(t.constraints), tuple(sorted(t.params)), texts)
    got = _COMPILED.get(key)
    if got is not None:
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
    return got


def _expr_texts(part: Part) -> list[str | None]:
    """Every expression of a part: the answer's, the mistakes', the conditions' and
    the spoken figures'."""
    return ([part.answer.expr] + [m.expr for m in part.mistakes]
            + [w.if_ for w in part.answer.when] + [f.expr for f in part.answer.figures])


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


def _env(inputs: Inputs, names: frozenset[str] | set[str]) -> dict[str, float]:
    """Every numeric input, and the quantities among `names` (a part's env)."""
    from solver.light import QUANTITIES, evaluate

    # (a tuple, not bool | str: isinstance with a union is half as fast, and this
    # reads a hundred values per part drawn)
    env = {k: float(v) for k, v in inputs.values.items() if not isinstance(v, (bool, str))}
    wanted = [n for n in names if n in QUANTITIES and n not in env]
    if wanted:
        env.update(evaluate(wanted, inputs))
    return env


def _only(inputs: Inputs, names: frozenset[str] | set[str]) -> dict[str, float]:
    """What :func:`_env` gives for `names` alone: all an expression or a text with
    those names reads (a variant evaluates dozens; the inputs hold a hundred keys)."""
    from solver.light import QUANTITIES, evaluate

    values = inputs.values
    env = {k: float(v) for k in names if (v := values.get(k)) is not None
           and not isinstance(v, (bool, str))}
    wanted = [n for n in names if n in QUANTITIES and n not in env]
    if wanted:
        env.update(evaluate(wanted, inputs))
    return env


def draw_params(t: Template, seed: int,
                observe: Callable[[dict[str, Scalar], str | None, int | None], None]
                | None = None) -> tuple[dict[str, Scalar], Inputs]:
    """The parameters of the variant of `t` at `seed` (a variant's only random draw:
    everything else is derived from them) and the inputs they resolve to.

    Args:
        t: the template.
        seed: the variant's seed.
        observe: called with each draw tried, why it was rejected (None: it was
            kept) and the constraint that rejected it (its index; None: the solver
            did, or nothing did), for :func:`draw_coverage`.

    Raises:
        TemplateError: the constraints cannot be met in MAX_DRAWS draws.
    """
    from solver.inputs import resolve_inputs

    comp = compiled(t)
    rng = random.Random(f"{t.id}#{seed}")
    last = "no draw was tried"
    field: tuple[str | int, ...] = ("params",)
    reason: str | None = None
    # The clock starts at the first redraw and is read every CLOCK_EVERY draws after:
    # reading a CPU clock is a system call (1 ms under load, ten times a draw), and most
    # variants hold at the first draw.
    deadline = math.inf
    for attempt in range(MAX_DRAWS):
        if attempt == 1:
            deadline = time.thread_time() + MAX_DRAW_SECONDS
        elif attempt % CLOCK_EVERY == 0 and attempt and time.thread_time() > deadline:
            slow = (f"drawing a variant took over {MAX_DRAW_SECONDS:g} s ({last}); "
                    "simplify the parameters or constraints")
            raise TemplateError(f"{t.id}: {slow}", field=("answer",), reason=slow)
        params = {}
        try:
            params = {name: _draw(spec, rng) for name, spec in t.params.items()}
            model, gpu, over = _split(params, t.fixed)
            inputs = resolve_inputs(model, gpu, over)
            env = _only(inputs, comp.needs) | {k: v for k, v in params.items()
                                        if isinstance(v, int | float)}
            failed = [c.text for c in comp.constraints if not _holds(c, env)]
        except (SolverError, ExprError) as exc:
            last, field, reason = str(exc), ("params",), None
            if isinstance(exc, ExprError) and exc.expr in t.constraints:
                field, reason = ("constraints", t.constraints.index(exc.expr)), exc.reason
            if observe is not None:
                observe(params, str(exc), None)
            continue
        except (ArithmeticError, ValueError) as exc:  # overflow while drawing a number
            last, field, reason = f"a parameter cannot be drawn: {exc}", ("params",), None
            if observe is not None:
                observe(params, last, None)
            continue
        if failed:
            last = f"constraint {failed[0]!r} failed"
            field = ("constraints", t.constraints.index(failed[0]))
            reason = (f"no draw of the parameters meets {failed[0]!r} (tried {MAX_DRAWS}); "
                      "widen the parameters or relax it")
            if observe is not None:
                observe(params, last, t.constraints.index(failed[0]))
            continue
        if observe is not None:
            observe(params, None, None)
        break
    else:
        message = f"no draw in {MAX_DRAWS} satisfies the template ({last})"
        raise TemplateError(f"{t.id}: {message}", field=field,
                            reason=message if reason is None else reason)
    return params, inputs


COVERAGE_SEEDS = 100
"""Seeds :func:`draw_coverage` draws at least (parameters only: a few ms each)."""

REJECTED_SHARE = 0.75
"""A share of rejected draws :func:`draw_coverage` reports (a constraint that keeps one
draw in four is a design; the variants crowd where the draws are kept)."""

SOLVER_REJECTED_SHARE = 0.25
"""A share of draws rejected by the solver (not by a declared constraint) it reports:
combinations the author may not know are impossible (126 layers on 4 stages)."""

COVERAGE_SECONDS = 2.0
"""CPU time :func:`draw_coverage` may take (a template whose draws are mostly rejected
is reported on the seeds drawn by then)."""

END_SHARE = 0.1
"""The share of a range at each end whose draws :func:`draw_coverage` watches."""


@dataclass
class Coverage:
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


def draw_coverage(t: Template, seeds: int = COVERAGE_SEEDS) -> Coverage:
    """Draw the parameters of `t` for max(`seeds`, COVERAGE_SEEDS) seeds and record
    every draw tried: what was kept, what was rejected and why (see
    :meth:`Coverage.warnings`). Never raises for a draw that fails."""
    out = Coverage(t, max(seeds, COVERAGE_SEEDS))

    def observe(params: dict[str, Scalar], reason: str | None, at: int | None) -> None:
        out.tries += 1
        if reason is None:
            out.kept.append(dict(params))
        else:
            out.rejected.append((dict(params), reason, at))

    deadline = time.thread_time() + COVERAGE_SECONDS
    for seed in range(out.seeds):
        if seed and time.thread_time() > deadline:
            out.seeds = seed  # what was drawn in the time is the report
            break
        try:
            draw_params(t, seed, observe)
        except TemplateError:
            out.failed += 1
            break  # the self-test reports a template that cannot be drawn
    return out


def make_variant(t: Template, seed: int) -> Variant:
    """Draw the variant of `t` at `seed`: parameters, prompts, keys and mistakes.

    Raises:
        TemplateError: the constraints cannot be met in MAX_DRAWS draws, or an answer
            cannot be derived (named, with the solver's reason).
    """
    return variant_with(t, seed, draw_params(t, seed)[0])


def variant_with(t: Template, seed: int, params: dict[str, Scalar]) -> Variant:
    """The variant of `t` at `seed` with these parameters, not drawn: its parts' prompts,
    keys and mistakes derived from them (a follow-up derives the same parts with one
    input changed).

    Raises:
        TemplateError: an answer cannot be derived (named, with the solver's reason).
    """
    comp = compiled(t)
    parts: list[PartVariant] = []
    for i, p in enumerate(t.all_parts(), 1):
        parts.append(_part(t, seed, i, p, params, comp, parts))
    return Variant(t, seed, params, parts)


def _holds(constraint: Expr, env: Mapping[str, Any]) -> bool:
    """Whether a constraint holds; an error names the constraint."""
    try:
        return bool(constraint.value(env))
    except ExprError as exc:
        raise ExprError(f"constraint {constraint.text!r} cannot be evaluated: {exc.reason}",
                        expr=constraint.text, reason=exc.reason) from exc


def _value(part: Part, params: Mapping[str, Scalar], fixed: Mapping[str, Scalar],
           extra: Mapping[str, Scalar], comp: Compiled, expr: str | None = None,
           quantity: str | None = None) -> tuple[float, Inputs]:
    from solver.inputs import resolve_inputs
    from solver.light import evaluate

    model, gpu, over = _split(params, fixed, part.answer.set, extra)
    inputs = resolve_inputs(model, gpu, over)
    if expr is not None:
        e = comp.exprs[expr]
        return float(e.value(_only(inputs, e.names) | _free(params))), inputs
    name = quantity or part.answer.quantity
    assert name is not None
    return evaluate([name], inputs)[name], inputs


def _follow(t: Template, part: Part, params: Mapping[str, Scalar], inputs: Inputs,
            comp: Compiled, earlier: list[PartVariant]) -> Follow | None:
    """The follow-through of a part whose answer says `follow` (validated on load)."""
    a = part.answer
    if not a.follow or a.expr is None:
        return None
    carried = []
    for k in a.follow:
        pv = earlier[k - 1]
        name = pv.spec.answer.quantity
        assert name is not None and pv.key.value is not None and pv.key.unit is not None
        carried.append(Carried(k, name, pv.key.unit, pv.key.value))
    e = comp.exprs[a.expr]

    def derive(values: Mapping[str, float]) -> float:
        return float(e.value(_only(inputs, e.names) | _free(params) | dict(values)))

    return Follow(tuple(carried), a.follow_credit, derive)


def _part(t: Template, seed: int, index: int, part: Part, params: dict[str, Scalar],
          comp: Compiled, earlier: list[PartVariant]) -> PartVariant:
    from questions.kinds import kind_of
    from questions.kinds.base import KeyContext
    from solver.inputs import resolve_inputs

    a = part.answer
    model, gpu, over = _split(params, t.fixed, a.set)
    shown = {**t.fixed, **params}
    try:
        inputs = resolve_inputs(model, gpu, over)
        env = _env(inputs, _names() & _placeholders("\n".join([t.intro, *part_texts(part)]))) \
            | _free(params)

        def render_key_text(text: str, name: str) -> str:
            names = _names() & _placeholders(text)
            return _format(text, _only(inputs, names) | _free(params), shown,
                           ("parts", index - 1, "answer", name) if t.parts
                           else ("answer", name))
        drawn = kind_of(part.answer_kind).draw_key(KeyContext(
            t, part, inputs,
            lambda extra, expr, quantity: _value(part, params, t.fixed, extra, comp, expr,
                                                 quantity)[0],
            lambda text: bool(comp.exprs[text].value(
                _only(inputs, comp.exprs[text].names) | _free(params))),
            render_key_text))
        key, mistakes, accepted = drawn.key, drawn.mistakes, drawn.accepted
        follow = _follow(t, part, params, inputs, comp, earlier)
    except (SolverError, ExprError) as exc:
        field: tuple[str | int, ...] = ("parts", index - 1, "answer") if t.parts \
            else ("answer",)
        if isinstance(exc, ExprError) and exc.expr is not None and exc.expr == a.expr:
            field += ("expr",)
        raise TemplateError(f"{t.id}: part {index}: {exc}", field=field,
                            reason=str(exc)) from exc
    except (ArithmeticError, RecursionError) as exc:  # e.g. a drawn value too large
        reason = f"the answer cannot be derived: {type(exc).__name__}: {exc}"
        raise TemplateError(f"{t.id}: part {index}: {reason}",
                            field=("parts", index - 1, "answer") if t.parts else ("answer",),
                            reason=reason) from exc

    def render(text: str, name: str = "prompt") -> str:
        return _format(text, env, shown, ("parts", index - 1, name) if t.parts else (name,))
    def render_feedback(text: str, j: int) -> str:
        # {mistake} in a mistake's feedback is that mistake's own figure ("406 GB").
        figure = mistake_figure(part, key, mistakes[j]) if j < len(mistakes) else ""
        return _format(text, env, {**shown, MISTAKE_PLACEHOLDER: figure},
                       ("parts", index - 1, "mistakes", j, "feedback") if t.parts
                       else ("mistakes", j, "feedback"))

    prompt = render(part.prompt)
    # Every text a learner reads is rendered here, once: choices, hints, the mistakes'
    # feedback, the explanation and the accepted conventions' notes.
    spec = part.model_copy(update={
        "choices": [render(c) for c in part.choices],
        "hints": [h.model_copy(update={"text": render(h.text)}) for h in part.hints],
        "answer": a.model_copy(update={
            "explanation": render(a.explanation) if a.explanation else "",
            "option_feedback": {label: render(text)
                                for label, text in a.option_feedback.items()},
            "why": render(a.why) if a.why else "",
            "accept": [acc.model_copy(update={"note": render(acc.note)})
                       for acc in a.accept]}),
        "mistakes": [m.model_copy(update={"feedback": render_feedback(m.feedback, j)})
                     for j, m in enumerate(part.mistakes)]})
    mistakes = tuple(replace(m, feedback=render_feedback(m.feedback, j))
                     for j, m in enumerate(mistakes))
    accepted = tuple(replace(acc, note=render(acc.note)) for acc in accepted)
    pv = PartVariant(index, prompt, spec, key, mistakes, accepted, dict(over), model, gpu,
                     env, follow)
    arrange = kind_of(part.answer_kind).arrange
    # A random stream of its own, so that arranging never moves the parameters' draws.
    return pv if arrange is None else arrange(pv, random.Random(f"{t.id}#{seed}#{index}"))


EXAMPLE_PLACEHOLDER = re.compile(r"\{(key|part:[^{}]*|mistake:[^{}]*|expr:[^{}]*)\}")
"""What an example's answer (and its earlier answers) may hold, so that it stays right
when the parameters change: ``{key}`` (this part's key), ``{part:N}`` (part N's key),
``{mistake:NAME}`` (what a learner who makes that known mistake types) and
``{expr:EXPR}`` (an expression over the variant's keys and quantities, in the key's
unit)."""

MISTAKE_PLACEHOLDER = "mistake"
"""The placeholder a known mistake's feedback may use for the mistake's own figure
("{mistake} is the state without the master copy" shows "1.13 TB ...")."""


def mistake_figure(part: Part, key: Key, m: KnownMistake) -> str:
    """A known mistake's own figure, as its feedback's ``{mistake}`` shows it: its value
    in the key's unit, its formula, or the options it picks (by their text: the letters
    are shuffled per variant)."""
    if m.value is not None:
        unit = next((f.unit for f in key.figures if f.id == m.figure), key.unit) or "1"
        binary = part.answer.binary and unit in ("B", "B/s")
        return format_value(m.value, unit, binary=binary)
    if m.formula:
        return m.formula
    if m.choice:
        return "; ".join(part.choices[ord(c) - ord("a")] for c in m.choice
                         if 0 <= ord(c) - ord("a") < len(part.choices))
    return m.name


def table_display(rows: list[str], cells: Mapping[str, tuple[str, ...]]) -> str:
    """The canonical typed form of a table answer: `dp: -; tp: w g o a`."""
    return "; ".join(f"{r}: {' '.join(cells.get(r, ())) or '-'}" for r in rows)


def picks_text(choices: Sequence[str], labels: Iterable[str]) -> str:
    """Choice labels each with its option's text, for people: ``a) ...; c) ...``.

    A letter alone means nothing once the options are out of sight (a feedback screen,
    a report, a list of mistakes): wherever a choice key is shown, it is this.
    """
    return "; ".join(f"{c}) {choices[ord(c) - ord('a')]}" for c in labels)


# ---------------------------------------------------------------- prompts


@lru_cache(maxsize=4096)
def _placeholders(text: str) -> frozenset[str]:
    """The names a text's `{placeholders}` read (once per text: every draw asks)."""
    return frozenset(name.partition(".")[0] for _, name, _, _ in
                     string.Formatter().parse(text) if name)


def part_texts(part: Part) -> list[str]:
    """Every text field of a part that may hold `{placeholders}`."""
    a = part.answer
    return ([part.prompt, a.explanation, *part.choices, a.why, *a.option_feedback.values(),
             *(h.text for h in part.hints),
             *(m.feedback for m in part.mistakes), *(acc.note for acc in a.accept)])


def _unit(name: str) -> str:
    """The base unit of a quantity ("1" for a name that is none)."""
    from solver.light import QUANTITIES

    return QUANTITIES[name].unit if name in QUANTITIES else "1"


def describe(name: str, value: Any) -> str:
    """A parameter's value as a prompt shows it: "Llama 3 70B", "8,192", "80 GB"."""
    if name == "model" and value in MODELS:
        return MODELS[str(value)].title
    if name == "gpu" and value in GPUS:
        return GPUS[str(value)].title
    if isinstance(value, bool | str):
        return str(value)
    unit = KEYS[name].unit if name in KEYS else _unit(name)
    v = float(value)
    if unit in ("1", "param") and name not in ("mfu",):
        if v == int(v) and abs(v) < 1e6:
            return f"{int(v):,}"
        if unit == "param" or abs(v) >= 1e6:
            return format_value(v, "param")
    if name == "mfu":
        return f"{v * 100:.0f}%"
    return format_value(v, unit)


def reflow(text: str) -> str:
    """Join a TOML block's hard-wrapped lines into paragraphs (blank lines, list items
    and indented lines are kept), so the UI can wrap prompts to any width."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for line in block.splitlines():
            keep = re.match(r"^\s*([-*]|\d+[.)]|[a-z]\))\s", line) or line.startswith("  ")
            if lines and not keep:
                lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


PRESET_ATTRIBUTES = ("short", "title", "name")
"""What `{model.X}` and `{gpu.X}` may read: the short display name ("B200"), the full
title ("NVIDIA B200 (DGX B200)") and the preset name ("b200")."""

_VENDORS = ("NVIDIA ", "AMD Instinct ", "AMD ", "Intel ", "Google ")


def short_name(name: str, value: Any) -> str:
    """A preset's short display name: "B200" for NVIDIA B200 (DGX B200), the title of a
    model ("Llama 3 70B")."""
    if name == "gpu" and value in GPUS:
        title = GPUS[str(value)].title
        for vendor in _VENDORS:
            title = title.removeprefix(vendor)
        return title.split()[0]
    if name == "model" and value in MODELS:
        return MODELS[str(value)].title
    return str(value)


MAX_SPEC_NUMBER = 100
"""The largest width or precision a placeholder's format spec may ask for: `{seq:>999999999}`
once took 9 s of CPU (and a gigabyte) per draw, 21 s per validation."""


def spec_too_large(spec: str) -> bool:
    """Whether a format spec asks for a width or precision over :data:`MAX_SPEC_NUMBER`
    (any run of digits in it: a fill character is one character, so a digit run is a
    width, a precision or part of one).

    >>> spec_too_large(",.0f"), spec_too_large(">999999999"), spec_too_large(".500f")
    (False, True, True)
    """
    return any(len(run) > 3 or int(run) > MAX_SPEC_NUMBER
               for run in re.findall(r"[0-9]+", spec))


def suggest_name(name: str, names: Iterable[str], preferred: Iterable[str] = ()) -> str:
    """The closest name to a misspelt one, the template's own (drawn, fixed) names
    first: ``{microbatch}`` in a template that draws ``microbatches`` means that, not
    the solver key ``micro_batch`` it would show at its default. "" when none is close.

    >>> suggest_name("microbatch", {"micro_batch", "microbatches"}, {"microbatches"})
    'microbatches'
    """
    import difflib

    for pool in (sorted(preferred), sorted(set(names) - set(preferred))):
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
        if close:
            return close[0]
    return ""


def placeholder_problems(text: str, names: frozenset[str] | set[str],
                         texts: Mapping[str, bool],
                         preferred: Iterable[str] = ()) -> list[tuple[str, str]]:
    """What is wrong with the `{placeholders}` of one text field, without drawing a variant.

    Args:
        text: the field's text.
        names: every name a placeholder may read (parameters, keys, quantities).
        texts: parameter name -> whether its values are text (model, gpu, text choices).
        preferred: the template's own names (drawn and fixed), suggested first.

    Returns:
        (the placeholder as written, reason) for each bad one.
    """
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        return [("{", f"unbalanced braces ({exc}); write {{{{ and }}}} for literal braces")]
    out: list[tuple[str, str]] = []
    for _, field_name, spec, conversion in parsed:
        if field_name is None:
            continue
        spec = spec or ""
        written = "{" + field_name + (f"!{conversion}" if conversion else "") + (
            f":{spec}" if spec else "") + "}"
        name, dot, attr = field_name.partition(".")
        if not name:
            out.append((written, "a placeholder needs a name, e.g. {model}"))
            continue
        if name not in names:
            close = suggest_name(name, names, preferred)
            hint = f" (did you mean {{{close}}}?)" if close else ""
            out.append((written, f"{{{name}}} names no parameter, key or quantity{hint}"))
            continue
        if conversion:
            out.append((written, f"!{conversion} is not allowed; use {{{name}}} or "
                        f"{{{name}:raw}}"))
            continue
        if dot and (name not in ("model", "gpu") or attr not in PRESET_ATTRIBUTES):
            what = (f"{name} has .{', .'.join(PRESET_ATTRIBUTES)}"
                    if name in ("model", "gpu") else "only model and gpu have fields")
            out.append((written, f"unknown field .{attr} ({what})"))
            continue
        is_text = texts.get(name, False) or bool(dot)
        if spec in ("", "raw"):
            continue
        if is_text:
            hint = f" (did you mean {{{name}.{spec}}}?)" if spec in PRESET_ATTRIBUTES else ""
            out.append((written, f"{{{name}}} is text: no format spec :{spec} applies{hint}"))
            continue
        if spec == "both":
            continue
        if spec_too_large(spec):
            out.append((written, f"format spec :{spec} asks for a width or precision over "
                        f"{MAX_SPEC_NUMBER}; a prompt's number needs far fewer"))
            continue
        try:
            format(1.0, spec)
        except ValueError:
            out.append((written, f"format spec :{spec} is not a number format; use :raw, "
                        ":both or a Python spec such as :.0% or :,.0f"))
    return out


def _format(text: str, env: Mapping[str, float], params: Mapping[str, Scalar],
            field: tuple[str | int, ...] = ("prompt",)) -> str:
    """Render a text field: each `{name}`, `{name:spec}` or `{model.short}` replaced."""
    out = []
    for literal, field_name, name, attr, spec in _text_plan(text):
        out.append(literal)
        if field_name is None:
            continue
        if name in params:
            value: Any = params[name]
        elif name in env:
            value = env[name]
        else:
            message = f"the prompt's {{{name}}} names no parameter, key or quantity"
            close = suggest_name(name, _names() | set(params), params)
            hint = f" (did you mean {{{close}}}?)" if close else ""
            raise TemplateError(message, field=field, reason=message + hint)
        if attr == "short":
            out.append(short_name(name, value))
        elif attr == "title":
            out.append(describe(name, value))
        elif attr == "name" or spec == "raw":
            out.append(str(value))
        elif spec == "both" and not isinstance(value, str):
            out.append(format_both(float(value), KEYS[name].unit if name in KEYS
                                   else _unit(name)))
        elif spec and not isinstance(value, str):
            if spec_too_large(spec):  # refused at validation; never build such a string
                raise TemplateError(f"format spec :{spec} is too wide", field=field)
            out.append(format(float(value), spec))
        elif name == "hbm_bytes" and field[-1] in ("prompt", "intro") \
                and not isinstance(value, str):  # where the question is read
            out.append(hbm_text(float(value)))
        else:
            out.append(describe(name, value))
    return "".join(out).strip()


@lru_cache(maxsize=4096)
def _text_plan(text: str) -> tuple[tuple[str, str | None, str, str, str], ...]:
    """A text field reflowed and split once (every draw renders the same texts): its
    literal runs and placeholders, as (literal, field name, name, attribute, spec)."""
    plan = []
    for literal, field_name, spec, _ in string.Formatter().parse(reflow(text)):
        name, _dot, attr = (field_name or "").partition(".")
        plan.append((literal, field_name, name, attr, spec or ""))
    return tuple(plan)


def hbm_text(value: float) -> str:
    """A GPU's memory as a prompt shows it, naming the convention: "80 GB (80 x 10^9
    bytes)".

    Vendors' "80 GB" is physically 80 GiB (85.9e9 bytes) on an H100; the presets take
    the marketed figure in decimal bytes (the rest is headroom for buffers and
    fragmentation), and a prompt says so wherever the number appears, so that nobody has
    to guess which reading the key used (issue 9).
    """
    return f"{format_value(value, 'B')} ({value / 1e9:g} x 10^9 bytes)"


# ---------------------------------------------------------------- explanations


def pv_env_value(pv: PartVariant, name: str) -> float:
    """The value of a key or quantity within a part's inputs."""
    if name not in pv.env:
        from solver.inputs import resolve_inputs

        model, gpu, over = pv.model, pv.gpu, pv.overrides
        pv.env.update(_env(resolve_inputs(model, gpu, over), {name}))
    return pv.env[name]
