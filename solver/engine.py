"""Deriving quantities (sympy) into plans, and the `Result` of `quiz solve`.

The engine's one job is to derive: a derivation is built once per (quantity,
conventions, given quantities) and cached, the ordered steps each with its local formula
lambdified, and handed out as a :class:`solver.plan.Plan` (:func:`plan`), whose texts
are printed when first read. Every evaluation runs a plan (:func:`solver.light.evaluate`,
a few dozen float operations for new inputs: the app grades thousands of variants this
way), and so does :func:`solve`; :func:`plan_data` is a plan as the data a cache keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, cast

import sympy as sp
from sympy.printing.str import StrPrinter

from solver.errors import SolverError as SolverError  # re-exported for old imports

# Moved to solver.inputs (no sympy); still the engine's names.
from solver.inputs import _PRESET_LAYERS as _PRESET_LAYERS
from solver.inputs import PRESET_LAYERS_KEPT as PRESET_LAYERS_KEPT
from solver.inputs import Inputs as Inputs
from solver.inputs import _presets as _presets
from solver.inputs import _presets_key as _presets_key
from solver.inputs import _suggest as _suggest
from solver.inputs import ctx_of as ctx_of
from solver.inputs import parse_value as parse_value
from solver.inputs import resolve_inputs as resolve_inputs
from solver.keys import KEYS, Value
from solver.plan import (
    Plan,
    PlanStep,
    check_code,
    fill_substitution,
    given_quantities,
    given_result,
    num,
    planned_result,
)
from solver.plan import Result as Result  # re-exported: solve returns one
from solver.plan import Step as Step  # re-exported: results are made of them
from solver.pretty import _plan as _whiteboard
from solver.pretty import pretty
from solver.quantities import QUANTITIES, Ctx, sym

# ---------------------------------------------------------------- derivations


class _Tracking:
    """Wraps a Ctx and records which conventions a builder consulted."""

    def __init__(self, ctx: Ctx) -> None:
        self._ctx = ctx
        self.used: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        self.used.add(name)
        return getattr(self._ctx, name)


@dataclass(frozen=True)
class _Node:
    name: str
    unit: str
    text: str
    local: sp.Expr
    args: tuple[str, ...]
    fn: Callable[..., float]


@dataclass(frozen=True)
class Derivation:
    """A quantity's ordered steps for one set of conventions.

    Attributes:
        name: the quantity.
        nodes: steps in dependency order; the last is the quantity itself.
        leaves: the input keys the whole derivation reads.
        conventions: which choice keys shaped the formulas.
    """

    name: str
    nodes: tuple[_Node, ...]
    leaves: tuple[str, ...]
    conventions: tuple[str, ...]

    def expanded(self) -> sp.Expr:
        """The whole formula in terms of input keys only (built once per derivation:
        substituting through Max/Min is slow in sympy, and every solve asks for it)."""
        done = self.__dict__.get("_expanded")
        if done is not None:
            return cast(sp.Expr, done)
        subs: dict[sp.Symbol, sp.Expr] = {}
        for node in self.nodes:
            subs[sym(node.name)] = node.local.xreplace(subs)
        object.__setattr__(self, "_expanded", subs[sym(self.name)])
        return subs[sym(self.name)]

    def expanded_text(self) -> str:
        """:meth:`expanded` printed (once per derivation: printing is most of a solve)."""
        done = self.__dict__.get("_expanded_text")
        if done is None:
            done = str(self.expanded())
            object.__setattr__(self, "_expanded_text", done)
        return cast(str, done)


@lru_cache(maxsize=4096)
def _formula_texts(local: sp.Expr) -> tuple[str, str]:
    """A step's formula as sympy prints it and as a person writes it (both depend on the
    expression only, so walking many variants of a template prints each once)."""
    return str(local), pretty(local)


@lru_cache(maxsize=512)
def derivation(name: str, ctx: Ctx, given: frozenset[str] = frozenset()) -> Derivation:
    """Build (once) the derivation of `name` under `ctx`.

    Args:
        name: a quantity name.
        ctx: the conventions in force.
        given: quantities whose value is supplied as input (e.g. `params` set directly).
    """
    if name not in QUANTITIES:
        raise SolverError(f"unknown quantity {name!r}{_suggest(name, QUANTITIES)}")
    nodes: list[_Node] = []
    leaves: set[str] = set()
    used: set[str] = set()
    seen: set[str] = set()

    def visit(q: str) -> None:
        if q in seen:
            return
        seen.add(q)
        tracker = _Tracking(ctx)
        local, text = QUANTITIES[q].build(cast(Ctx, tracker))
        used.update(tracker.used)
        if not isinstance(local, sp.Basic):  # a builder may return a plain int
            local = sp.Integer(local)
        args = tuple(sorted(str(s) for s in local.free_symbols))
        for a in args:
            if a in QUANTITIES and a not in given:
                visit(a)
            else:
                leaves.add(a)
        # No docstring: printing the expression into it was a third of lambdify's time,
        # and nothing reads it (plans take the source from the line cache).
        fn = sp.lambdify([sym(a) for a in args], local, modules="math", docstring_limit=-1)
        nodes.append(_Node(q, QUANTITIES[q].unit, text, local, args, fn))

    visit(name)
    return Derivation(name, tuple(nodes), tuple(sorted(leaves)), tuple(sorted(used)))


class _Printed:
    """A derived step's printed texts, printed when first read (evaluating reads none)."""

    def __init__(self, local: sp.Expr) -> None:
        self.local = local

    @cached_property
    def formula(self) -> str:
        return _formula_texts(self.local)[0]

    @cached_property
    def pretty(self) -> str:
        return _formula_texts(self.local)[1]

    @cached_property
    def substitution(self) -> tuple[str, ...]:
        return _substitution_plan(self.local)

    @cached_property
    def whiteboard(self) -> tuple[str, ...]:
        return _whiteboard(self.local)

    def substituted(self, env: Mapping[str, float]) -> str:
        return substituted(self.local, env)


@lru_cache(maxsize=512)
def plan(name: str, ctx: Ctx, given: frozenset[str] = frozenset()) -> Plan:
    """The derivation of ``name`` under ``ctx`` as a plan (see :func:`derivation`).

    Raises:
        SolverError: unknown quantity.
    """
    d = derivation(name, ctx, given)
    return Plan(d.name, tuple(PlanStep(n.name, n.unit, n.text, n.args, n.fn, _Printed(n.local))
                              for n in d.nodes), d.leaves, d.conventions)


def plan_data(name: str, ctx: Ctx, given: frozenset[str] = frozenset(), *,
              expanded: bool = False) -> dict[str, Any] | None:
    """The plan of ``name`` as the JSON :func:`solver.plan.load_plan` loads (None: a
    step whose lambdified code the plan's whitelist would not compile); ``expanded``:
    with the whole formula over input keys (what ``quiz solve`` shows; printing it is
    slow, and drawing a variant never reads it)."""
    import inspect

    d = derivation(name, ctx, given)
    steps = []
    for node in d.nodes:
        code = inspect.getsource(node.fn)
        if not check_code(code, node.args):
            return None
        formula, shown = _formula_texts(node.local)
        steps.append({"name": node.name, "unit": node.unit, "text": node.text,
                      "args": list(node.args), "code": code, "formula": formula,
                      "pretty": shown, "substitution": list(_substitution_plan(node.local)),
                      "whiteboard": list(_whiteboard(node.local))})
    data = {"name": d.name, "steps": steps, "leaves": list(d.leaves),
            "conventions": list(d.conventions)}
    if expanded:
        data["expanded"] = d.expanded_text()
    return data


# ---------------------------------------------------------------- results


class _Substituted(StrPrinter):
    """Prints a formula with each symbol replaced by its number, structure kept."""

    def __init__(self, env: Mapping[str, float]) -> None:
        super().__init__()
        self._env = env

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        return num(self._env[expr.name])


_MARK = "\x00"


class _Marked(StrPrinter):
    """Prints a formula with each symbol as ``<NUL>name<NUL>``, to be filled in later."""

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        return f"{_MARK}{expr.name}{_MARK}"


@lru_cache(maxsize=4096)
def _substitution_plan(local: sp.Expr) -> tuple[str, ...]:
    """A formula printed once with its symbols marked: text, name, text, name, ..."""
    return tuple(_Marked().doprint(local).split(_MARK))


def substituted(local: sp.Expr, env: Mapping[str, float]) -> str:
    """`local` printed with each symbol replaced by its number (as :class:`_Substituted`
    prints it), from a plan printed once per formula: sympy's printer is most of a
    solve, and walking many variants prints the same formulas with new numbers.

    sympy decides the sign of a sum's term by the text it printed (``x - 3`` rather than
    ``x + -3``), so a negative or non-finite number takes the printer itself.
    """
    filled = fill_substitution(_substitution_plan(local), env)
    return str(_Substituted(env).doprint(local)) if filled is None else filled


SOLVES_KEPT = 1024
"""Results remembered: a variant's worked derivation is asked for by its feedback, its
walk-through and the self-test, and variants drawn from a few choices repeat."""

_SOLVES: dict[tuple[object, ...], Result] = {}


def solve(
    name: str,
    *,
    model: str | None = None,
    gpu: str | None = None,
    overrides: Mapping[str, Value] | None = None,
) -> Result:
    """Derive `name` for a model, a GPU and overrides, with worked steps.

    The result is remembered by the presets' content and every override's value and
    type (a bounded number of them) and shared: read it, never change it.

    >>> solve("train_flops", model="llama3-70b").display
    '6.35e24 FLOP'

    Raises:
        SolverError: unknown quantity, preset or key; bad values; impossible layouts;
            an input the formula needs is missing.
    """
    if name not in QUANTITIES:
        raise SolverError(f"unknown quantity {name!r}{_suggest(name, QUANTITIES)}; "
                          "see quiz solve --list")
    # repr tells -0.0 from 0.0; the type tells True from 1 (equal, and hashed alike).
    key = (name, _presets_key(_presets(model, gpu)), tuple(sorted(
        ((k, type(v), repr(v) if isinstance(v, float) else v)
         for k, v in (overrides or {}).items()), key=lambda item: item[0])))
    try:
        got = _SOLVES.get(key)
    except TypeError:  # a value that cannot be hashed: parse_value will say what is wrong
        return _solve(name, model, gpu, overrides)
    if got is None:
        got = _solve(name, model, gpu, overrides)
        if len(_SOLVES) >= SOLVES_KEPT:
            _SOLVES.clear()
        _SOLVES[key] = got
    return got


def _solve(name: str, model: str | None, gpu: str | None,
           overrides: Mapping[str, Value] | None) -> Result:
    inp = resolve_inputs(model, gpu, overrides)
    given = given_quantities(inp.values, inp.origin, name, QUANTITIES.keys())
    unit = QUANTITIES[name].unit
    if name in given:
        return given_result(name, unit, inp)
    ctx = ctx_of(inp.values)
    got = planned_result(plan(name, ctx, given), unit, inp,
                         derivation(name, ctx, given).expanded_text())
    assert got is not None  # the engine's plans print every substitution
    return got


def symbol(name: str) -> sp.Symbol:
    """The sympy symbol for a key or quantity (so templates build the same formulas)."""
    if name not in KEYS and name not in QUANTITIES:
        raise SolverError(f"unknown key or quantity {name!r}")
    return sym(name)


def list_quantities(*, include_internal: bool = False) -> list[dict[str, str]]:
    """Every quantity with its unit and meaning, for `quiz solve --list`."""
    return [{"quantity": q.name, "unit": q.unit, "meaning": q.meaning}
            for q in QUANTITIES.values() if q.public or include_internal]
