"""Resolving inputs, assembling derivations, evaluating them fast, and the `Result`.

A derivation is built once per (quantity, conventions) and cached: the ordered steps,
each with its local formula lambdified, so evaluating a quantity for new inputs costs a
few dozen float operations (the app grades thousands of variants this way).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any, cast

import sympy as sp
from sympy.printing.str import StrPrinter

from solver.errors import SolverError as SolverError  # re-exported for old imports
from solver.keys import CHOICE_KEYS, KEYS, Key, Value
from solver.presets import GPUS, MODELS
from solver.pretty import pretty
from solver.quantities import QUANTITIES, Ctx, sym
from solver.units import format_value

# ---------------------------------------------------------------- values

_COUNT_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12,
                 "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
# ASCII digits only, as answers are read: float() would take "٨" as 8.
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$",
                     re.ASCII)
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def parse_value(name: str, raw: Value) -> Value:
    """Read one `--set` value for key `name`, checking its kind and range.

    Accepts plain numbers (`70.5e9`), count suffixes (`70.5B`, `8K`, `15T`), unit-bearing
    values for keys with a unit (`80GB`, `450 GB/s`, `989 TFLOP/s`, `400 Gb/s`),
    `true`/`false`, and choice names.

    >>> parse_value("params", "70.5B")
    70500000000.0
    >>> parse_value("inter_bw", "400 Gb/s")
    50000000000.0

    Raises:
        SolverError: unknown key, unreadable or out-of-range value.
    """
    key = KEYS.get(name)
    if key is None:
        raise SolverError(f"unknown key {name!r}{_suggest(name, KEYS)}")
    if key.kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise SolverError(f"{name} takes true or false, not {raw!r}")
    if key.kind == "choice":
        text = str(raw).strip().lower()
        if text not in key.choices:
            raise SolverError(f"{name} takes one of {', '.join(key.choices)}, not {raw!r}")
        return text
    value = raw if isinstance(raw, int | float) and not isinstance(raw, bool) else None
    if value is None:
        value = _read_number(key, str(raw))
    return _check_range(key, float(value))


def _read_number(key: Key, text: str) -> float:
    if len(text) > 60:
        raise SolverError(f"{key.name}: value too long to be a number")
    m = _NUMBER.match(text)
    if not m:
        raise SolverError(f"{key.name} needs a number (e.g. 8192, 70.5B, 80GB), not {text!r}")
    number, suffix = float(m.group(1)), m.group(2)
    if not suffix:
        return number
    if suffix in _COUNT_SUFFIX and key.unit in ("1", "param"):
        return number * _COUNT_SUFFIX[suffix]
    from solver.units import UNITS

    found = UNITS.get(suffix) or UNITS.get(suffix.lower())
    if found is not None and found[1] == key.unit:
        return number * found[0]
    want = key.unit if key.unit not in ("1", "param") else "a count (K, M, B, T)"
    raise SolverError(f"{key.name}: cannot read {suffix!r} as {want} in {text!r}")


def _check_range(key: Key, value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        raise SolverError(f"{key.name} must be a finite number, not {value}")
    lo = key.minimum
    if lo is not None and (value <= lo if key.exclusive_min else value < lo):
        relation = "greater than" if key.exclusive_min else "at least"
        raise SolverError(f"{key.name} must be {relation} {lo:g}, not {value:g}")
    if key.maximum is not None and value > key.maximum:
        raise SolverError(f"{key.name} must be at most {key.maximum:g}, not {value:g}")
    if key.kind == "int":
        if value != int(value):
            raise SolverError(f"{key.name} must be a whole number, not {value:g}")
        return float(int(value))
    return value


def _suggest(name: str, known: Mapping[str, Any]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


# ---------------------------------------------------------------- inputs


@dataclass
class Inputs:
    """Every key's value after presets, overrides and derived defaults.

    Attributes:
        values: key -> value (numbers as float, flags as bool, choices as str).
        origin: key -> where the value came from (default, model, gpu, set, derived).
        warnings: legal but unusual choices.
    """

    values: dict[str, Value] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def num(self, name: str) -> float | None:
        v = self.values.get(name)
        return None if v is None or isinstance(v, bool | str) else float(v)


def resolve_inputs(
    model: str | None = None,
    gpu: str | None = None,
    overrides: Mapping[str, Value] | None = None,
) -> Inputs:
    """Fill in every key: defaults, then the model and GPU presets, then overrides.

    Derived defaults: kv_heads = heads, head_dim = hidden/heads, ffn = 4 x hidden,
    expert_ffn = ffn, v_head_dim = head_dim, dp = gpus/(tp*pp*cp) (or gpus = the
    product), microbatches = global_batch/(micro_batch*dp) (else 8), bandwidth = inter_bw.

    Raises:
        SolverError: unknown preset or key, a bad value, or an impossible layout.
    """
    values, origin = _preset_layer(model, gpu)
    inp = Inputs(dict(values), dict(origin))
    for k, v in (overrides or {}).items():
        inp.values[k] = parse_value(k, v)
        inp.origin[k] = "set"
    _derive_defaults(inp)
    _validate(inp)
    return inp


PRESET_LAYERS_KEPT = 256
"""(model, GPU) pairs whose parsed defaults and presets are remembered."""

_PRESET_LAYERS: dict[tuple[object, ...], tuple[dict[str, Value], dict[str, str]]] = {}


def _preset_layer(model: str | None, gpu: str | None) -> tuple[
        dict[str, Value], dict[str, str]]:
    """The keys' defaults with a model's and a GPU's presets parsed over them: (values,
    origin), shared, to be copied. Parsed once per content (the self-test resolves
    inputs for the same presets hundreds of thousands of times): the key holds every
    preset value with its type, so a preset that changed is parsed again.

    Raises:
        SolverError: an unknown preset, or a preset value that cannot be read.
    """
    chosen = _presets(model, gpu)
    key = _presets_key(chosen)
    got = _PRESET_LAYERS.get(key)
    if got is not None:
        return got
    inp = Inputs()
    for k in KEYS.values():
        if k.default is not None:
            inp.values[k.name] = k.default
            inp.origin[k.name] = "default"
    for kind, values in chosen:
        for name, v in values.items():
            inp.values[name] = parse_value(name, v)
            inp.origin[name] = kind
    if len(_PRESET_LAYERS) >= PRESET_LAYERS_KEPT:
        _PRESET_LAYERS.clear()
    got = _PRESET_LAYERS[key] = (inp.values, inp.origin)
    return got


def _presets(model: str | None, gpu: str | None) -> list[tuple[str, Mapping[str, Value]]]:
    """(kind, values) of the model's and the GPU's presets.

    Raises:
        SolverError: an unknown preset.
    """
    chosen: list[tuple[str, Mapping[str, Value]]] = []
    for kind, name, table in (("model", model, MODELS), ("gpu", gpu, GPUS)):
        if name is None:
            continue
        preset = table.get(name)
        if preset is None:
            raise SolverError(f"unknown {kind} {name!r}{_suggest(name, table)}; "
                              f"known: {', '.join(table)}")
        chosen.append((kind, preset.values))
    return chosen


def _presets_key(chosen: list[tuple[str, Mapping[str, Value]]]) -> tuple[object, ...]:
    """The presets' content, hashable: every value with its type (True and 1 are equal
    and hash alike; a preset changed under the same name must not hit)."""
    return tuple((kind, tuple((k, type(v), v) for k, v in values.items()))
                 for kind, values in chosen)


def _derive(inp: Inputs, name: str, value: float | None) -> None:
    if name not in inp.values and value is not None:
        inp.values[name] = value
        inp.origin[name] = "derived"


def _derive_defaults(inp: Inputs) -> None:
    n = inp.num
    _derive(inp, "kv_heads", n("heads"))
    hidden, heads = n("hidden"), n("heads")
    if hidden is not None and heads is not None and "head_dim" not in inp.values:
        if hidden % heads:
            raise SolverError(f"hidden ({hidden:g}) is not divisible by heads ({heads:g}); "
                              "set head_dim")
        _derive(inp, "head_dim", hidden / heads)
    _derive(inp, "ffn", None if hidden is None else 4 * hidden)
    _derive(inp, "expert_ffn", n("ffn"))
    _derive(inp, "v_head_dim", n("head_dim"))
    tp, pp, cp = n("tp") or 1, n("pp") or 1, n("cp") or 1
    inner = tp * pp * cp
    gpus, dp = n("gpus"), n("dp")
    if dp is None:
        if gpus is None:
            _derive(inp, "dp", 1)
            _derive(inp, "gpus", inner)
        else:
            if gpus % inner:
                raise SolverError(f"gpus ({gpus:g}) is not divisible by tp*pp*cp "
                                  f"({inner:g})")
            _derive(inp, "dp", gpus / inner)
    elif gpus is None:
        _derive(inp, "gpus", dp * inner)
    elif dp * inner != gpus:
        raise SolverError(f"dp*tp*pp*cp = {dp * inner:g} but gpus = {gpus:g}")
    gb, mb, dp2 = n("global_batch"), n("micro_batch") or 1, n("dp") or 1
    if "microbatches" not in inp.values:
        if gb is not None:
            m = gb / (mb * dp2)
            if m < 1 or m != int(m):
                raise SolverError(f"global_batch ({gb:g}) is not a whole multiple of "
                                  f"micro_batch*dp ({mb * dp2:g})")
            _derive(inp, "microbatches", m)
        else:
            inp.values["microbatches"] = 8.0
            inp.origin["microbatches"] = "default"
    _derive(inp, "bandwidth", n("inter_bw"))


def _validate(inp: Inputs) -> None:
    n = inp.num
    tp, pp, cp, ep, dp = (n(k) or 1 for k in ("tp", "pp", "cp", "ep", "dp"))
    for name in ("hidden", "heads"):
        v = n(name)
        if v is not None and v % tp:
            raise SolverError(f"{name} ({v:g}) is not divisible by tp ({tp:g})")
    kv = n("kv_heads")
    if kv is not None and kv % tp and tp % kv:
        raise SolverError(f"kv_heads ({kv:g}) and tp ({tp:g}) must divide one another")
    if kv is not None and kv < tp:
        inp.warnings.append(f"tp ({tp:g}) exceeds kv_heads ({kv:g}): KV heads are "
                            "replicated across tensor ranks")
    layers, v = n("layers"), n("interleave") or 1
    if layers is not None and layers % (pp * v):
        raise SolverError(f"layers ({layers:g}) is not divisible by pp*interleave "
                          f"({pp * v:g})")
    if v > 1 and pp == 1:
        raise SolverError("interleave > 1 needs pp > 1")
    heads = n("heads")
    if heads is not None and kv is not None and heads % kv:
        raise SolverError(f"heads ({heads:g}) is not divisible by kv_heads ({kv:g})")
    experts = n("experts") or 0
    if experts:
        active = n("experts_active") or 0
        if not 0 < active <= experts:
            raise SolverError(f"experts_active must be between 1 and experts ({experts:g})")
        if experts % ep:
            raise SolverError(f"experts ({experts:g}) is not divisible by ep ({ep:g})")
        if layers is not None and (n("dense_layers") or 0) >= layers:
            raise SolverError("dense_layers must be fewer than layers")
    elif ep > 1:
        raise SolverError("ep > 1 needs a mixture-of-experts model (experts > 0)")
    if (dp * cp) % ep:
        raise SolverError(f"ep ({ep:g}) must divide dp*cp ({dp * cp:g})")
    seq = n("seq")
    if seq is not None and seq % cp:
        raise SolverError(f"seq ({seq:g}) is not divisible by cp ({cp:g})")
    per_node = n("gpus_per_node") or 8
    if tp > per_node:
        inp.warnings.append(f"tp ({tp:g}) is larger than a node ({per_node:g} GPUs): its "
                            "collectives would cross the network")
    if tp * cp > per_node and cp > 1:
        inp.warnings.append("tp*cp spans more than one node")


def ctx_of(values: Mapping[str, Value]) -> Ctx:
    """The conventions in force for these resolved values."""
    kw: dict[str, Any] = {}
    for f in fields(Ctx):
        if f.name == "moe":
            kw["moe"] = float(cast(float, values.get("experts", 0) or 0)) > 0
        elif f.name == "interleaved":
            kw["interleaved"] = float(cast(float, values.get("interleave", 1) or 1)) > 1
        elif f.name == "pipelined":
            kw[f.name] = float(cast(float, values.get("pp", 1))) > 1
        elif f.name == "tp_cross_node":
            kw[f.name] = float(cast(float, values.get("tp", 1))) > float(
                cast(float, values.get("gpus_per_node", 8)))
        elif f.name == "zero":
            kw["zero"] = int(str(values.get("zero", "0")))
        elif f.name in values:
            kw[f.name] = values[f.name]
    return Ctx(**kw)


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

    def run(self, values: Mapping[str, float]) -> dict[str, float]:
        """Evaluate every step numerically; returns name -> value for each step."""
        env: dict[str, float] = dict(values)
        for node in self.nodes:
            env[node.name] = float(node.fn(*(env[a] for a in node.args)))
        return env

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
        fn = sp.lambdify([sym(a) for a in args], local, modules="math")
        nodes.append(_Node(q, QUANTITIES[q].unit, text, local, args, fn))

    visit(name)
    return Derivation(name, tuple(nodes), tuple(sorted(leaves)), tuple(sorted(used)))


def _given(values: Mapping[str, Value], origin: Mapping[str, str] | None = None,
           target: str | None = None) -> frozenset[str]:
    """Quantities whose value is an input. A name that is both a key and a quantity
    (`mfu`, `params`, `bytes_per_param`) is derived when it is the quantity asked for
    and its key holds only a default."""
    return frozenset(k for k in values if k in QUANTITIES
                     and not (k == target and (origin or {}).get(k) == "default"))


def evaluate(names: list[str] | tuple[str, ...], inputs: Inputs) -> dict[str, float]:
    """Evaluate several quantities for resolved inputs (fast after the first call).

    Raises:
        SolverError: unknown quantity, or an input the formula needs is missing.
    """
    ctx = ctx_of(inputs.values)
    numbers = {k: float(v) for k, v in inputs.values.items()
               if not isinstance(v, bool | str)}
    out: dict[str, float] = {}
    for name in names:
        given = _given(inputs.values, inputs.origin, name)
        if name in given:
            out[name] = numbers[name]
            continue
        d = derivation(name, ctx, given)
        _require(d, numbers)
        out[name] = d.run(numbers)[name]
    return out


def _require(d: Derivation, numbers: Mapping[str, float]) -> None:
    missing = [k for k in d.leaves if k not in numbers]
    if missing:
        hint = " ".join(f"--set {k}=VALUE" for k in missing)
        need = ", ".join(missing)
        raise SolverError(f"{d.name} needs {need}: give --model/--gpu or {hint}")


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
class Result:
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


def _num(v: float) -> str:
    """A compact number for substitutions: 8192, 0.4, 7.055e10."""
    if v == int(v) and abs(v) < 1e7:
        return str(int(v))
    return f"{v:.4g}".replace("e+", "e")


class _Substituted(StrPrinter):
    """Prints a formula with each symbol replaced by its number, structure kept."""

    def __init__(self, env: Mapping[str, float]) -> None:
        super().__init__()
        self._env = env

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        return _num(self._env[expr.name])


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
    plan = _substitution_plan(local)
    numbers = [env[name] for name in plan[1::2]]
    if not all(v >= 0 and v != math.inf for v in numbers):
        return str(_Substituted(env).doprint(local))
    out = list(plan)
    out[1::2] = [_num(v) for v in numbers]
    return "".join(out)


def _show(v: float, unit: str, binary: bool) -> str:
    return format_value(v, unit, binary=binary and unit in ("B", "B/s"))


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
    binary = bool(inp.values.get("binary", False))
    numbers = {k: float(v) for k, v in inp.values.items() if not isinstance(v, bool | str)}
    given = _given(inp.values, inp.origin, name)
    unit = QUANTITIES[name].unit
    if name in given:
        value = numbers[name]
        return Result(name, value, unit, _show(value, unit, binary),
                      format_value(value, unit, binary=unit == "B"), name, name,
                      {name: value}, {name: value}, (), {}, tuple(inp.warnings),
                      dict(inp.origin))
    ctx = ctx_of(inp.values)
    d = derivation(name, ctx, given)
    _require(d, numbers)
    env = d.run(numbers)
    value = env[name]
    if not math.isfinite(value):
        raise SolverError(f"{name} is not finite for these inputs")
    steps = []
    for node in d.nodes:
        formula, shown = _formula_texts(node.local)
        steps.append(Step(node.name, node.text, f"{node.name} = {formula}",
                          substituted(node.local, env), env[node.name], node.unit,
                          _show(env[node.name], node.unit, binary),
                          f"{node.name} = {shown}", pretty(node.local, env)))
    last = d.nodes[-1]
    conventions: dict[str, Value] = {c: inp.values[c] for c in d.conventions
                                     if c in inp.values and c in CHOICE_KEYS}
    return Result(
        quantity=name, value=value, unit=unit, display=_show(value, unit, binary),
        display_iec=format_value(value, unit, binary=unit in ("B", "B/s")),
        formula=_formula_texts(last.local)[0],
        expanded=d.expanded_text(),
        inputs={a: env[a] if a in env else inp.values[a] for a in last.args},
        leaves={k: inp.values[k] for k in d.leaves},
        steps=tuple(steps), conventions=conventions, warnings=tuple(inp.warnings),
        origin={k: inp.origin[k] for k in d.leaves},
    )


def symbol(name: str) -> sp.Symbol:
    """The sympy symbol for a key or quantity (so templates build the same formulas)."""
    if name not in KEYS and name not in QUANTITIES:
        raise SolverError(f"unknown key or quantity {name!r}")
    return sym(name)


def list_quantities(*, include_internal: bool = False) -> list[dict[str, str]]:
    """Every quantity with its unit and meaning, for `quiz solve --list`."""
    return [{"quantity": q.name, "unit": q.unit, "meaning": q.meaning}
            for q in QUANTITIES.values() if q.public or include_internal]
