"""Resolving a model's, a GPU's and a question's values into every key's value, and
the conventions they put in force -- without sympy.

Drawing a variant resolves inputs many times and evaluates formulas from derivations
already built (:mod:`solver.light`), so this part of the engine is kept apart from the
symbolic one: importing it costs no sympy. :mod:`solver.engine` re-exports every name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, cast

from msgspec import Struct, field

from solver.errors import SolverError
from solver.keys import KEYS, Key, Value
from solver.presets import GPUS, MODELS


class Ctx(Struct, frozen=True):
    """The conventions and structural choices a formula depends on.

    Attributes mirror the choice keys of :mod:`solver.keys`, plus `moe` (experts > 0)
    `interleaved` (interleave > 1), `pipelined` (pp > 1) and `tp_cross_node`
    (tp > gpus_per_node).
    """

    mlp: str = "swiglu"
    norm: str = "rmsnorm"
    biases: bool = False
    position: str = "rope"
    tied_embeddings: bool = False
    attention: str = "gqa"
    moe: bool = False
    interleaved: bool = False
    pipelined: bool = False
    tp_cross_node: bool = False
    zero: int = 0
    sequence_parallel: bool = True
    flash_attention: bool = True
    recompute: str = "none"
    activation_formula: str = "korthikanti"
    ring_exact: bool = True
    fsdp_reshard: bool = True
    attention_term: str = "none"
    lora_targets: str = "all"


# ---------------------------------------------------------------- values

_COUNT_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12,
                 "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

LENGTH_KEYS = frozenset({"seq", "vocab"})
"""Keys that are a length in tokens (a sequence or context, a vocabulary): written with
K, they mean 1,024 (a "128K context" is 131,072 tokens, an "8K" sequence 8,192), as
model cards and papers use them. Parameters, tokens of data and money keep the decimal
K, M, B and T (a "15T-token" run is 15 x 10^12)."""

BINARY_K = 1024
"""What K (or k) is worth in a length (see :data:`LENGTH_KEYS`)."""

_LENGTH = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kK])\s*$", re.ASCII)


def read_length(name: str, text: str) -> float | None:
    """A length written with K (``128K``, ``8k``) for a key of :data:`LENGTH_KEYS`, in
    tokens; None for anything else (another key, no K: read it as any number).

    >>> read_length("seq", "128K"), read_length("seq", "8k"), read_length("params", "8K")
    (131072.0, 8192.0, None)
    """
    if name not in LENGTH_KEYS or len(text) > 60:  # longer: no number, refused elsewhere
        return None
    m = _LENGTH.match(text)
    return None if m is None else float(m.group(1)) * BINARY_K
# ASCII digits only, as answers are read: float() would take "٨" as 8.
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$",
                     re.ASCII)
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def parse_value(name: str, raw: Value) -> Value:
    """Read one `--set` value for key `name`, checking its kind and range.

    Accepts plain numbers (`70.5e9`), count suffixes (`70.5B`, `8K`, `15T`; a length's
    K is 1,024: `seq = 8K` is 8,192, see :data:`LENGTH_KEYS`), unit-bearing
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
    if key.kind == "named":
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
    length = read_length(key.name, text)
    if length is not None:
        return length
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


class Inputs(Struct):
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
        return None if v is None or isinstance(v, (bool, str)) else float(v)


def resolve_inputs(
    model: str | None = None,
    gpu: str | None = None,
    overrides: Mapping[str, Value] | None = None,
) -> Inputs:
    """Fill in every key: defaults, then the model and GPU presets, then overrides.

    Derived defaults: kv_heads = heads, head_dim = hidden/heads, ffn = 4 x hidden,
    expert_ffn = ffn, v_head_dim = head_dim, dp = gpus/(tp*pp*cp) (or gpus = the
    product), microbatches = global_batch/(micro_batch*dp) (else 8), bandwidth = inter_bw,
    peer_bw = intra_bw.

    Raises:
        SolverError: unknown preset or key, a bad value, or an impossible layout.
    """
    chosen = _presets(model, gpu)
    presets = _presets_key(chosen)
    key: tuple[object, ...] | None = (presets, tuple(
        (k, type(v), repr(v) if isinstance(v, float) else v)  # repr: -0.0 is not 0.0
        for k, v in (overrides or {}).items()))
    try:
        done = _RESOLVED.get(cast(tuple[object, ...], key))
    except TypeError:  # a value that cannot be hashed: parse_value will say what is wrong
        key, done = None, None
    if done is not None:
        return Inputs(dict(done.values), dict(done.origin), list(done.warnings))
    values, origin = _preset_layer(chosen, presets)
    inp = Inputs(dict(values), dict(origin))
    for k, v in (overrides or {}).items():
        inp.values[k] = parse_value(k, v)
        inp.origin[k] = "set"
    _derive_defaults(inp)
    _validate(inp)
    if key is not None:
        if len(_RESOLVED) >= RESOLVED_KEPT:
            _RESOLVED.clear()
        _RESOLVED[key] = Inputs(dict(inp.values), dict(inp.origin), list(inp.warnings))
    return inp


RESOLVED_KEPT = 4096
"""Resolutions remembered whole: a variant resolves the same parameters for its draw,
each part and each known mistake (nine calls in ten repeat one in the self-test)."""

_RESOLVED: dict[tuple[object, ...], Inputs] = {}
"""(presets' content, overrides with their types) -> the inputs, kept apart from every
caller's copy."""

PRESET_LAYERS_KEPT = 256
"""(model, GPU) pairs whose parsed defaults and presets are remembered."""

_PRESET_LAYERS: dict[tuple[object, ...], tuple[dict[str, Value], dict[str, str]]] = {}


def _preset_layer(chosen: list[tuple[str, Mapping[str, Value]]], key: tuple[object, ...]
                  ) -> tuple[dict[str, Value], dict[str, str]]:
    """The keys' defaults with a model's and a GPU's presets parsed over them: (values,
    origin), shared, to be copied. Parsed once per content (the self-test resolves
    inputs for the same presets hundreds of thousands of times): the key holds every
    preset value with its type (:func:`_presets_key`), so a preset that changed is
    parsed again.

    Raises:
        SolverError: a preset value that cannot be read.
    """
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
    _derive(inp, "peer_bw", n("intra_bw"))


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
    # Uneven stages (`uneven_stages`): figures per GPU are averages over the stages.
    uneven = inp.values.get("uneven_stages") is True
    if layers is not None and layers % (pp * v) and not uneven:
        raise SolverError(f"layers ({layers:g}) is not divisible by pp*interleave "
                          f"({pp * v:g})")
    if layers is not None and pp * v > layers:
        raise SolverError(f"pp*interleave ({pp * v:g}) exceeds the layers ({layers:g})")
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
    elif (n("experts_active") or 0) > 1:
        # A dense model has one MLP; more active experts than that was once taken
        # silently and changed nothing.
        raise SolverError(f"experts_active ({n('experts_active'):g}) needs a "
                          "mixture-of-experts model: this one is dense (set experts too)")
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


_DERIVED_CONVENTIONS = ("moe", "interleaved", "pipelined", "tp_cross_node", "zero")
_PLAIN_CONVENTIONS = tuple(name for name in Ctx.__struct_fields__
                           if name not in _DERIVED_CONVENTIONS)
"""The fields of Ctx read as they are from the values of their keys."""


def ctx_of(values: Mapping[str, Value]) -> Ctx:
    """The conventions in force for these resolved values."""
    kw: dict[str, Any] = {name: values[name] for name in _PLAIN_CONVENTIONS
                          if name in values}
    kw["moe"] = float(cast(float, values.get("experts", 0) or 0)) > 0
    kw["interleaved"] = float(cast(float, values.get("interleave", 1) or 1)) > 1
    kw["pipelined"] = float(cast(float, values.get("pp", 1))) > 1
    kw["tp_cross_node"] = float(cast(float, values.get("tp", 1))) > float(
        cast(float, values.get("gpus_per_node", 8)))
    kw["zero"] = int(str(values.get("zero", "0")))
    return Ctx(**kw)
