"""Derivations the engine built, kept as data: evaluated and shown without sympy.

Drawing a variant needs, of the solver, a few values and a worked derivation for the
drawn numbers. The engine builds each derivation once per (quantity, conventions) from
sympy formulas; what a draw then reads of it is fixed text and plain float arithmetic:
each step's name, unit, sentence, formula as sympy prints it and as a person writes it,
the two printing *plans* (the text with each symbol marked, filled in with the numbers:
:func:`solver.engine.substituted`, :func:`solver.pretty.pretty`) and the step's
lambdified function. A :class:`Plan` is that, as data, and :func:`plan_data` makes one
from an engine derivation.

A one-shot ``quiz ask`` of a new seed imports sympy (half a second) only to rebuild
derivations it built before, so :mod:`questions.stored` keeps plans on disk and hands
them to :func:`using`. While a source is in use, :func:`evaluate` and :func:`solve` run
plans and the quantity catalogue (:data:`QUANTITIES`: names, units, meanings) comes from
the source; a plan the source lacks is built by the engine (sympy) and given to the
source. With no source they are the engine's own functions, so every other caller is
unchanged.

Plans are data, never code: a step's function is the source text lambdify printed
(``def _lambdifygenerated(a, b): return a*b/2``), and it is compiled only after its
syntax tree is checked against a whitelist (one function of the step's inputs returning
one arithmetic expression over them, numbers, and ``min``, ``max``, ``abs``, ``sqrt``,
``floor``, ``ceil``, ``log``, ``log2``, ``exp``); anything else makes the plan unusable
and the engine derives it. The same text compiles to the same code, so the floats are
bit for bit the engine's.
"""

from __future__ import annotations

import ast
import contextlib
import json
import math
import threading
from collections.abc import Callable, Iterable, Iterator, KeysView, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from solver.errors import SolverError
from solver.inputs import Ctx, Inputs, ctx_of, resolve_inputs
from solver.keys import CHOICE_KEYS, Value
from solver.units import format_value

if TYPE_CHECKING:
    from typing import Protocol

    from solver.engine import Derivation

    class Source(Protocol):
        """Where plans are kept between processes: JSON texts by key."""

        def get(self, key: str) -> str | None:
            """The text stored under ``key`` (None: none)."""

        def put(self, key: str, text: str) -> None:
            """Store ``text`` under ``key``."""

    class _Runnable(Protocol):
        @property
        def name(self) -> str: ...
        @property
        def args(self) -> tuple[str, ...]: ...
        @property
        def fn(self) -> Callable[..., float]: ...

    class Derived(Protocol):
        """A derivation that can be run: an engine derivation or a plan."""

        @property
        def leaves(self) -> tuple[str, ...]: ...
        def run(self, values: Mapping[str, float]) -> dict[str, float]: ...


# ---------------------------------------------------------------- numbers in formulas


def num(v: float) -> str:
    """A compact number for sympy-style substitutions: 8192, 0.4, 7.055e10."""
    if v == int(v) and abs(v) < 1e7:
        return str(int(v))
    return f"{v:.4g}".replace("e+", "e")


def number(v: float) -> str:
    """A number as a person's substitution shows it: 8192, 0.4, 7.06e10 (3 significant
    digits for long ones, no '+' in exponents).

    >>> number(7.0555e10), number(8192.0), number(0.4)
    ('7.056e10', '8192', '0.4')
    """
    if v == int(v) and abs(v) < 1e7:
        return str(int(v))
    text = f"{v:.4g}"
    if "e" in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def fill_substitution(plan: tuple[str, ...], env: Mapping[str, float]) -> str | None:
    """A substitution plan (text, name, text, ...) filled in with ``env``'s numbers, or
    None when one is negative or infinite (sympy then decides the signs itself)."""
    numbers = [env[name] for name in plan[1::2]]
    if not all(v >= 0 and v != math.inf for v in numbers):
        return None
    out = list(plan)
    out[1::2] = [num(v) for v in numbers]
    return "".join(out)


def fill_pretty(plan: tuple[str, ...], env: Mapping[str, float]) -> str:
    """A whiteboard plan filled in: a mark ``N<name>`` is the number, ``P<name>`` a
    number in a power's base (bracketed unless it is a whole number)."""
    out = list(plan)
    for i in range(1, len(out), 2):
        text = number(env[out[i][1:]])
        out[i] = f"({text})" if out[i][0] == "P" and not text.isdigit() else text
    return "".join(out)


def show(v: float, unit: str, binary: bool) -> str:
    """A step's result for people (binary prefixes for bytes when ``binary``)."""
    return format_value(v, unit, binary=binary and unit in ("B", "B/s"))


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class Step:
    """One line of a worked derivation.

    Attributes:
        name: the quantity this step computes.
        text: what the step does, in words, naming its convention.
        formula: `name = local formula`.
        substituted: the formula with numbers in.
        value: the result in base units.
        unit: the base unit.
        display: the value for people.
        pretty: the formula as a person writes it (`solver.pretty`).
        pretty_substituted: the substitution likewise.
    """

    name: str
    text: str
    formula: str
    substituted: str
    value: float
    unit: str
    display: str
    pretty: str = ""
    pretty_substituted: str = ""


@dataclass(frozen=True)
class Worked:
    """What a worked derivation shows of a solve (a :class:`solver.engine.Result` has
    the same attributes, and more)."""

    quantity: str
    steps: tuple[Step, ...]
    conventions: dict[str, Value]


# ---------------------------------------------------------------- the quantity catalogue


class Info(NamedTuple):
    """A quantity's name, base unit and meaning (what drawing reads of the catalogue)."""

    name: str
    unit: str
    meaning: str


class _Catalogue(Mapping[str, Any]):
    """The quantities by name: the engine's table, or the source's copy of it while a
    source is in use (so that listing names or reading a unit imports no sympy)."""

    def _table(self) -> Mapping[str, Any]:
        source = _state.source
        if source is None:
            from solver.quantities import QUANTITIES as table

            return table
        if _state.meta is None:
            _state.meta = _load_meta(source)
        return _state.meta

    def __getitem__(self, name: str) -> Any:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __contains__(self, name: object) -> bool:
        return name in self._table()

    def keys(self) -> KeysView[str]:
        return self._table().keys()  # the table's own view: set operations run in C


QUANTITIES: Mapping[str, Any] = _Catalogue()
"""Every quantity by name; each value has ``.name``, ``.unit`` and ``.meaning``."""

CATALOGUE_KEY = "quantities"
"""The key a source keeps the quantity catalogue under (:func:`catalogue_json`)."""


def _load_meta(source: Source) -> dict[str, Info]:
    text = source.get(CATALOGUE_KEY)
    if text is not None:
        with contextlib.suppress(ValueError, TypeError):
            return {name: Info(name, str(unit), str(meaning))
                    for name, (unit, meaning) in json.loads(text).items()}
    text = catalogue_json()
    source.put(CATALOGUE_KEY, text)
    return {name: Info(name, unit, meaning)
            for name, (unit, meaning) in json.loads(text).items()}


def catalogue_json() -> str:
    """The quantity catalogue (names, units, meanings) as the JSON text a source keeps
    under ``"quantities"`` (imports the engine's table: sympy)."""
    from solver.quantities import QUANTITIES as table

    return json.dumps({q.name: [q.unit, q.meaning] for q in table.values()})


def given_quantities(values: Mapping[str, Value], origin: Mapping[str, str] | None = None,
                     target: str | None = None) -> frozenset[str]:
    """Quantities whose value is an input. A name that is both a key and a quantity
    (`mfu`, `params`, `bytes_per_param`) is derived when it is the quantity asked for
    and its key holds only a default."""
    given = values.keys() & QUANTITIES.keys()
    if target in given and (origin or {}).get(target) == "default":
        given.discard(target)
    return frozenset(given)


def numeric(values: Mapping[str, Value]) -> dict[str, float]:
    """The numeric values (flags and choices left out), as floats."""
    return {k: float(v) for k, v in values.items() if not isinstance(v, (bool, str))}


def require(name: str, leaves: tuple[str, ...], numbers: Mapping[str, float]) -> None:
    """Raise SolverError naming the inputs a derivation of ``name`` needs and lacks."""
    missing = [k for k in leaves if k not in numbers]
    if missing:
        hint = " ".join(f"--set {k}=VALUE" for k in missing)
        need = ", ".join(missing)
        raise SolverError(f"{name} needs {need}: give --model/--gpu or {hint}")


# ---------------------------------------------------------------- plans


@dataclass(frozen=True)
class PlanStep:
    """One step of a plan: all a draw reads of an engine derivation's node."""

    name: str
    unit: str
    text: str
    args: tuple[str, ...]
    fn: Callable[..., float]
    formula: str
    pretty: str
    substitution: tuple[str, ...]
    whiteboard: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """A derivation as data (see the module docstring)."""

    name: str
    steps: tuple[PlanStep, ...]
    leaves: tuple[str, ...]
    conventions: tuple[str, ...]

    def run(self, values: Mapping[str, float]) -> dict[str, float]:
        """Evaluate every step; name -> value for each step and input."""
        return run_steps(self.steps, values)


def run_steps(steps: Iterable[_Runnable], values: Mapping[str, float]) -> dict[str, float]:
    """Evaluate steps in order (each reads the inputs and earlier steps); name -> value
    for each step and input (an engine derivation's nodes and a plan's steps alike)."""
    env: dict[str, float] = dict(values)
    for step in steps:
        env[step.name] = float(step.fn(*(env[a] for a in step.args)))
    return env


def key_text(name: str, ctx: Ctx, given: frozenset[str]) -> str:
    """The key a plan is kept under: quantity, conventions and given quantities."""
    return json.dumps([name, [getattr(ctx, f.name) for f in fields(Ctx)], sorted(given)])


def plan_data(d: Derivation) -> dict[str, Any] | None:
    """An engine derivation as the JSON a :class:`Plan` loads from (None: a step whose
    lambdified code this module would not compile)."""
    import inspect

    from solver.engine import _formula_texts, _substitution_plan
    from solver.pretty import _plan

    steps = []
    for node in d.nodes:
        code = inspect.getsource(node.fn)
        try:
            _checked(code, node.args)
        except _Refused:
            return None
        formula, pretty = _formula_texts(node.local)
        steps.append({"name": node.name, "unit": node.unit, "text": node.text,
                      "args": list(node.args), "code": code, "formula": formula,
                      "pretty": pretty, "substitution": list(_substitution_plan(node.local)),
                      "whiteboard": list(_plan(node.local))})
    return {"name": d.name, "steps": steps, "leaves": list(d.leaves),
            "conventions": list(d.conventions)}


def load_plan(data: Mapping[str, Any]) -> Plan:
    """The plan :func:`plan_data` described.

    Raises:
        ValueError, KeyError, TypeError: data of another shape, or code the whitelist
            refuses.
    """
    steps = []
    for s in data["steps"]:
        args = tuple(str(a) for a in s["args"])
        steps.append(PlanStep(str(s["name"]), str(s["unit"]), str(s["text"]), args,
                              _compile(str(s["code"]), args), str(s["formula"]),
                              str(s["pretty"]), tuple(str(t) for t in s["substitution"]),
                              tuple(str(t) for t in s["whiteboard"])))
    return Plan(str(data["name"]), tuple(steps), tuple(str(x) for x in data["leaves"]),
                tuple(str(x) for x in data["conventions"]))


class _Refused(ValueError):
    """Code that is not one whitelisted arithmetic function."""


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min, "max": max, "abs": abs, "sqrt": math.sqrt, "floor": math.floor,
    "ceil": math.ceil, "log": math.log, "log2": math.log2, "exp": math.exp,
}
_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Load,
          ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod,
          ast.FloorDiv, ast.USub, ast.UAdd)
MAX_CODE = 20_000
"""Characters of a step's code accepted (the longest in the bank is under 1,000)."""
MAX_EXPONENT = 64
"""Largest constant in an exponent (the bank's are small: 2, 1/2, -1); with no power
inside an exponent either, ``9**9**9`` cannot hang the process."""


def _checked(code: str, args: tuple[str, ...]) -> ast.Module:
    """The syntax tree of a lambdified step, if it is nothing but arithmetic."""
    if len(code) > MAX_CODE:
        raise _Refused("code too long")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise _Refused(str(exc)) from None
    fn = tree.body[0] if len(tree.body) == 1 else None
    if not (isinstance(fn, ast.FunctionDef) and fn.name == "_lambdifygenerated"
            and not fn.decorator_list and fn.returns is None and len(fn.body) == 1
            and isinstance(fn.body[0], ast.Return) and fn.body[0].value is not None):
        raise _Refused("not one function returning one expression")
    body = fn.body[0].value
    params = fn.args
    if (params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg
            or params.defaults or tuple(p.arg for p in params.args) != args
            or any(p.annotation for p in params.args)):
        raise _Refused("parameters differ from the step's inputs")
    allowed = set(args)
    for node in ast.walk(ast.Expression(body)):
        if not isinstance(node, _NODES):
            raise _Refused(f"{type(node).__name__} is not arithmetic")
        if isinstance(node, ast.Name) and node.id not in allowed and node.id not in _FUNCTIONS:
            raise _Refused(f"unknown name {node.id!r}")
        if isinstance(node, ast.Call) and (
                not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS
                or node.keywords):
            raise _Refused("only whitelisted functions may be called")
        if isinstance(node, ast.Constant) and (
                isinstance(node.value, bool) or not isinstance(node.value, int | float)):
            raise _Refused("only numbers may be constants")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and any(
                isinstance(part, ast.Pow) or (
                    isinstance(part, ast.Constant) and isinstance(part.value, int | float)
                    and abs(part.value) > MAX_EXPONENT)
                for part in ast.walk(node.right)):
            raise _Refused("a tower of powers or a huge exponent is no step of a derivation")
    return tree


def _compile(code: str, args: tuple[str, ...]) -> Callable[..., float]:
    tree = _checked(code, args)
    namespace: dict[str, Any] = {"__builtins__": {}, **_FUNCTIONS}
    # Typed text never gets here: the code is lambdify's own source for a template's
    # formula (plan_data), read back from a cache (drawing.db, or the plans bank.db keeps
    # for a compiled bank) and checked again above, whatever wrote the cache. An answer
    # is read by solver.formula's own parser and the answer kinds' readers, never here.
    # The tree is one function of `args` returning arithmetic over them: running the
    # definition only defines it, as lambdify does.
    exec(compile(tree, "<plan>", "exec"), namespace)
    fn: Callable[..., float] = namespace["_lambdifygenerated"]
    return fn


# ---------------------------------------------------------------- state


class _State(threading.local):
    source: Source | None = None
    meta: dict[str, Info] | None = None
    plans: dict[str, Plan | None]

    def __init__(self) -> None:
        self.plans = {}


_state = _State()


@contextlib.contextmanager
def using(source: Source) -> Iterator[None]:
    """Read and keep plans (and the catalogue) in ``source`` within the block (this
    thread only); a plan it lacks is built by the engine and put there."""
    before = (_state.source, _state.meta, _state.plans)
    _state.source, _state.meta, _state.plans = source, None, {}
    try:
        yield
    finally:
        _state.source, _state.meta, _state.plans = before


def _plan(name: str, ctx: Ctx, given: frozenset[str]) -> Plan | None:
    """The plan of ``name`` under ``ctx`` from the source, else built by the engine and
    given to the source (None: not in use, or not expressible as a plan)."""
    source = _state.source
    if source is None:
        return None
    key = key_text(name, ctx, given)
    if key in _state.plans:
        return _state.plans[key]
    found: Plan | None = None
    text = source.get(key)
    if text is not None:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            found = load_plan(json.loads(text))
    if found is None:
        from solver.engine import derivation

        data = plan_data(derivation(name, ctx, given))
        if data is not None:
            found = load_plan(data)
            source.put(key, json.dumps(data))
    _state.plans[key] = found
    return found


# ---------------------------------------------------------------- evaluating and solving


def evaluate(names: list[str] | tuple[str, ...], inputs: Inputs) -> dict[str, float]:
    """:func:`solver.engine.evaluate`, from plans while a source is in use.

    Raises:
        SolverError: unknown quantity, or an input the formula needs is missing.
    """
    if _state.source is None or any(n not in QUANTITIES for n in names):
        from solver.engine import evaluate as full

        return full(names, inputs)

    def derive(name: str, ctx: Ctx, given: frozenset[str]) -> Derived:
        plan = _plan(name, ctx, given)
        if plan is not None:
            return plan
        from solver.engine import derivation  # sympy: a derivation no plan can hold

        return derivation(name, ctx, given)

    return evaluate_with(names, inputs, derive)


def evaluate_with(names: list[str] | tuple[str, ...], inputs: Inputs,
                  derive: Callable[[str, Ctx, frozenset[str]], Derived]) -> dict[str, float]:
    """Evaluate quantities for resolved inputs with the derivations ``derive`` gives
    (name, conventions, given quantities -> a derivation).

    Raises:
        SolverError: an input a formula needs is missing.
    """
    values = inputs.values
    ctx = ctx_of(values)
    out: dict[str, float] = {}
    for name in names:
        given = given_quantities(values, inputs.origin, name)
        if name in given:
            out[name] = float(cast(float, values[name]))
            continue
        d = derive(name, ctx, given)
        # Only the leaves the derivation reads (a variant evaluates dozens of quantities;
        # the inputs hold a hundred keys).
        leaves = numeric({k: values[k] for k in d.leaves if k in values})
        require(name, d.leaves, leaves)
        out[name] = d.run(leaves)[name]
    return out


def solve(name: str, *, model: str | None = None, gpu: str | None = None,
          overrides: Mapping[str, Value] | None = None) -> Worked:
    """The steps of :func:`solver.engine.solve` (the same texts and numbers), from a
    plan while a source is in use; otherwise (or where a plan cannot show the numbers)
    the engine's own result.

    Raises:
        SolverError: as :func:`solver.engine.solve`.
    """
    worked = _planned(name, model, gpu, overrides) if _state.source is not None else None
    if worked is not None:
        return worked
    from solver.engine import solve as full

    r = full(name, model=model, gpu=gpu, overrides=overrides)
    return Worked(r.quantity, r.steps, r.conventions)


def _planned(name: str, model: str | None, gpu: str | None,
             overrides: Mapping[str, Value] | None) -> Worked | None:
    if name not in QUANTITIES:
        return None
    inp = resolve_inputs(model, gpu, overrides)
    given = given_quantities(inp.values, inp.origin, name)
    if name in given:
        return None
    plan = _plan(name, ctx_of(inp.values), given)
    if plan is None:
        return None
    numbers = numeric(inp.values)
    require(name, plan.leaves, numbers)
    env = plan.run(numbers)
    if not math.isfinite(env[name]):
        raise SolverError(f"{name} is not finite for these inputs")
    binary = bool(inp.values.get("binary", False))
    steps = []
    for s in plan.steps:
        substituted = fill_substitution(s.substitution, env)
        if substituted is None:
            return None
        steps.append(Step(s.name, s.text, f"{s.name} = {s.formula}", substituted,
                          env[s.name], s.unit, show(env[s.name], s.unit, binary),
                          f"{s.name} = {s.pretty}", fill_pretty(s.whiteboard, env)))
    conventions: dict[str, Value] = {c: inp.values[c] for c in plan.conventions
                                     if c in inp.values and c in CHOICE_KEYS}
    return Worked(name, tuple(steps), conventions)
