"""A derivation as data: what evaluating and showing a quantity reads, without sympy.

The engine (:mod:`solver.engine`, sympy) derives a quantity once per (quantity,
conventions, given quantities) and hands back a :class:`Plan`: per step its name, unit,
sentence, its function of the step's inputs, and its printed texts (the formula as sympy
prints it and as a person writes it, and the two printing *plans*: the text with each
symbol marked, filled in with the numbers). Every evaluation runs a plan
(:func:`run_steps`, :func:`evaluate_with`) and every worked derivation is filled in from
one (:func:`worked_steps`), whether the plan was derived in this process or read back
from a cache (:func:`load_plan`, through :mod:`solver.light`).

A plan read from a cache is data, never code: a step's function is the source text
lambdify printed (``def _lambdifygenerated(a, b): return a*b/2``), compiled only after
its syntax tree is checked against a whitelist (one function of the step's inputs
returning one arithmetic expression over them, numbers, and ``min``, ``max``, ``abs``,
``sqrt``, ``floor``, ``ceil``, ``log``, ``log2``, ``exp``); anything else makes the plan
unusable and the engine derives it. The same text compiles to the same code, so the
floats are bit for bit the engine's.

This module imports neither sympy nor the engine, nor :mod:`solver.light`: both import it.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from msgspec import Struct

from solver.errors import SolverError, Undefined
from solver.inputs import Ctx, Inputs, ctx_of
from solver.keys import CHOICE_KEYS, Value
from solver.units import format_value

if TYPE_CHECKING:

    class _Runnable(Protocol):
        @property
        def name(self) -> str: ...
        @property
        def args(self) -> tuple[str, ...]: ...
        @property
        def fn(self) -> Callable[..., float]: ...


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


class Step(Struct, frozen=True):
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


class Result(Struct, frozen=True):
    """The answer to `quiz solve`: value, formula, inputs and worked steps.

    `inputs` are the values the last step's formula reads directly (as in DESIGN.md's
    example, `params` and `bytes_per_param`); `leaves` are the keys the whole derivation
    reads.
    """

    quantity: str
    value: float
    unit: str
    display: str
    display_iec: str
    formula: str
    expanded: str
    inputs: dict[str, Value]
    leaves: dict[str, Value]
    steps: tuple[Step, ...]
    conventions: dict[str, Value]
    warnings: tuple[str, ...]
    origin: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        """The DESIGN.md `quiz solve --json` object (plus a few extra fields)."""
        return {
            "quantity": self.quantity,
            "value": self.value,
            "unit": self.unit,
            "display": self.display,
            "display_iec": self.display_iec,
            "formula": self.formula,
            "expanded": self.expanded,
            "inputs": self.inputs,
            "leaves": self.leaves,
            "steps": [{"name": s.name, "text": s.text, "formula": s.formula,
                       "substituted": s.substituted, "value": s.value, "unit": s.unit,
                       "display": s.display} for s in self.steps],
            "conventions": self.conventions,
            "warnings": list(self.warnings),
        }


class Worked(Struct, frozen=True):
    """What a worked derivation shows of a solve (a :class:`Result` has the same
    attributes, and more)."""

    quantity: str
    steps: tuple[Step, ...]
    conventions: dict[str, Value]


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


class Printed(Protocol):
    """A step's printed texts (read from a cache, or printed by the engine when first
    asked for)."""

    @property
    def formula(self) -> str:
        """The local formula as sympy prints it."""
    @property
    def pretty(self) -> str:
        """The local formula as a person writes it."""
    @property
    def substitution(self) -> tuple[str, ...]:
        """sympy's text with each symbol marked: text, name, text, name, ..."""
    @property
    def whiteboard(self) -> tuple[str, ...]:
        """The person's text with each symbol marked (see :func:`fill_pretty`)."""

    def substituted(self, env: Mapping[str, float]) -> str | None:
        """The formula with ``env``'s numbers in (None: only sympy can print it)."""


class Texts(NamedTuple):
    """The printed texts of a step read from a cache."""

    formula: str
    pretty: str
    substitution: tuple[str, ...]
    whiteboard: tuple[str, ...]

    def substituted(self, env: Mapping[str, float]) -> str | None:
        """:func:`fill_substitution` of this step's plan."""
        return fill_substitution(self.substitution, env)


class PlanStep(Struct, frozen=True):
    """One step of a plan."""

    name: str
    unit: str
    text: str
    args: tuple[str, ...]
    fn: Callable[..., float]
    printed: Printed


class Plan(Struct, frozen=True):
    """A quantity's derivation under one set of conventions (see the module docstring).

    Attributes:
        name: the quantity.
        steps: in dependency order; the last is the quantity itself.
        leaves: the input keys the whole derivation reads.
        conventions: which choice keys shaped the formulas.
    """

    name: str
    steps: tuple[PlanStep, ...]
    leaves: tuple[str, ...]
    conventions: tuple[str, ...]
    expanded: str | None = None
    """The whole formula over input keys, as sympy prints it (None: not kept with it;
    only ``quiz solve`` shows it)."""

    def run(self, values: Mapping[str, float]) -> dict[str, float]:
        """Evaluate every step; name -> value for each step and input."""
        return run_steps(self.steps, values, self.name)


def run_steps(steps: Iterable[_Runnable], values: Mapping[str, float],
              whole: str = "") -> dict[str, float]:
    """Evaluate steps in order (each reads the inputs and earlier steps); name -> value
    for each step and input.

    Raises:
        Undefined: a step divides by zero or overflows; the message names ``whole`` (the
            quantity asked for), the step and the inputs that are 0.
    """
    env: dict[str, float] = dict(values)
    for step in steps:
        args = [env[a] for a in step.args]
        try:
            env[step.name] = float(step.fn(*args))
        except ZeroDivisionError:
            zeros = [a for a, v in zip(step.args, args, strict=True) if v == 0]
            by = " or ".join(zeros) if zeros else "a value that is"
            where = "it" if whole in ("", step.name) else step.name
            raise Undefined(f"{whole or step.name} cannot be worked out: {where} "
                            f"divides by {by} = 0 for these inputs") from None
        except OverflowError:
            raise Undefined(f"{whole or step.name} is past the range of a number for "
                            f"these inputs (at {step.name})") from None
    return env


def key_text(name: str, ctx: Ctx, given: frozenset[str]) -> str:
    """The key a plan is kept under: quantity, conventions and given quantities."""
    return json.dumps([name, [getattr(ctx, f) for f in Ctx.__struct_fields__], sorted(given)])


def load_plan(data: Mapping[str, Any]) -> Plan:
    """The plan :func:`solver.engine.plan_data` described.

    Raises:
        ValueError, KeyError, TypeError: data of another shape, or code the whitelist
            refuses.
    """
    steps = []
    for s in data["steps"]:
        args = tuple(str(a) for a in s["args"])
        steps.append(PlanStep(str(s["name"]), str(s["unit"]), str(s["text"]), args,
                              _compile(str(s["code"]), args),
                              Texts(str(s["formula"]), str(s["pretty"]),
                                    tuple(str(t) for t in s["substitution"]),
                                    tuple(str(t) for t in s["whiteboard"]))))
    expanded = data.get("expanded")
    return Plan(str(data["name"]), tuple(steps), tuple(str(x) for x in data["leaves"]),
                tuple(str(x) for x in data["conventions"]),
                None if expanded is None else str(expanded))


def check_code(code: str, args: tuple[str, ...]) -> bool:
    """Whether a step's code is one whitelisted arithmetic function of ``args``."""
    try:
        _checked(code, args)
    except _Refused:
        return False
    return True


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
    # Typed text never gets here: the code is lambdify's own source for a solver
    # quantity's formula (plan_data), read back from the data folder's plans file
    # (cache/drawing.db) or the package's (solver/plans.tsv) and checked again above,
    # whatever wrote the file (tests: test_drawing_cache's hostile plan codes and
    # test_shipped_plans' poisoned file). An answer is read by solver.formula's own
    # parser and the answer kinds' readers, never here.
    # The tree is one function of `args` returning arithmetic over them: running the
    # definition only defines it, as lambdify does.
    exec(compile(tree, "<plan>", "exec"), namespace)
    fn: Callable[..., float] = namespace["_lambdifygenerated"]
    return fn


# ---------------------------------------------------------------- evaluating and showing


def given_quantities(values: Mapping[str, Value], origin: Mapping[str, str] | None,
                     target: str | None, quantities: Iterable[str]) -> frozenset[str]:
    """Quantities (of ``quantities``' names) whose value is an input. A name that is
    both a key and a quantity (`mfu`, `params`, `bytes_per_param`) is derived when it is
    the quantity asked for and its key holds only a default."""
    given = values.keys() & quantities  # set operations in C (keys views)
    if target in given and (origin or {}).get(target) == "default":
        given.discard(target)
    return frozenset(given)


def evaluate_with(names: list[str] | tuple[str, ...], inputs: Inputs,
                  quantities: Iterable[str],
                  derive: Callable[[str, Ctx, frozenset[str]], Plan]) -> dict[str, float]:
    """Evaluate quantities for resolved inputs with the plans ``derive`` gives
    (name, conventions, given quantities -> a plan).

    Raises:
        SolverError: an input a formula needs is missing.
    """
    values = inputs.values
    ctx = ctx_of(values)
    out: dict[str, float] = {}
    for name in names:
        given = given_quantities(values, inputs.origin, name, quantities)
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


def worked(plan: Plan, values: Mapping[str, Value]) -> tuple[dict[str, float],
                                                             tuple[Step, ...] | None,
                                                             dict[str, Value]]:
    """Run ``plan`` on resolved ``values``: every step's value, its worked steps (None
    when a substitution takes sympy's printer: see :meth:`Printed.substituted`) and the
    conventions that shaped it.

    Raises:
        SolverError: an input is missing, or the result is not finite.
    """
    numbers = numeric(values)
    require(plan.name, plan.leaves, numbers)
    env = plan.run(numbers)
    if not math.isfinite(env[plan.name]):
        raise SolverError(f"{plan.name} is not finite for these inputs")
    binary = bool(values.get("binary", False))
    steps: list[Step] = []
    for s in plan.steps:
        p = s.printed
        substituted = p.substituted(env)
        if substituted is None:
            return env, None, {}
        steps.append(Step(s.name, s.text, f"{s.name} = {p.formula}", substituted,
                          env[s.name], s.unit, show(env[s.name], s.unit, binary),
                          f"{s.name} = {p.pretty}", fill_pretty(p.whiteboard, env)))
    conventions: dict[str, Value] = {c: values[c] for c in plan.conventions
                                     if c in values and c in CHOICE_KEYS}
    return env, tuple(steps), conventions


def given_result(name: str, unit: str, inp: Inputs) -> Result:
    """The :class:`Result` of a quantity whose value is an input."""
    value = float(cast(float, inp.values[name]))
    binary = bool(inp.values.get("binary", False))
    return Result(name, value, unit, show(value, unit, binary),
                  format_value(value, unit, binary=unit == "B"), name, name,
                  {name: value}, {name: value}, (), {}, tuple(inp.warnings),
                  dict(inp.origin))


def planned_result(plan: Plan, unit: str, inp: Inputs, expanded: str) -> Result | None:
    """The :class:`Result` of running ``plan`` on ``inp`` (None: a substitution takes
    sympy's printer, see :func:`worked`).

    Raises:
        SolverError: an input is missing, or the result is not finite.
    """
    env, steps, conventions = worked(plan, inp.values)
    if steps is None:
        return None
    name, last = plan.name, plan.steps[-1]
    binary = bool(inp.values.get("binary", False))
    value = env[name]
    return Result(
        quantity=name, value=value, unit=unit, display=show(value, unit, binary),
        display_iec=format_value(value, unit, binary=unit in ("B", "B/s")),
        formula=last.printed.formula, expanded=expanded,
        inputs={a: env[a] if a in env else inp.values[a] for a in last.args},
        leaves={k: inp.values[k] for k in plan.leaves},
        steps=steps, conventions=conventions, warnings=tuple(inp.warnings),
        origin={k: inp.origin[k] for k in plan.leaves},
    )
