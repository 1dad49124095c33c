"""Property tests: the symbolic formulas agree with direct arithmetic and with intuition."""

from __future__ import annotations

import math

import pytest
from helpers import per_profile
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.engine import derivation, resolve_inputs, solve
from solver.keys import Value
from solver.light import evaluate
from solver.quantities import QUANTITIES, sym

POW2 = st.sampled_from([1, 2, 4, 8])


@st.composite
def shapes(draw: st.DrawFn) -> dict[str, Value]:
    heads = draw(st.sampled_from([8, 16, 32, 64]))
    head_dim = draw(st.sampled_from([64, 128]))
    kv = draw(st.sampled_from([h for h in (1, 2, 4, 8, heads) if heads % h == 0]))
    return {
        "layers": draw(st.sampled_from([8, 16, 24, 32, 48, 64])),
        "heads": heads, "head_dim": head_dim, "hidden": heads * head_dim, "kv_heads": kv,
        "ffn": draw(st.integers(1, 40)) * 256, "vocab": draw(st.integers(1000, 200_000)),
        "seq": draw(st.sampled_from([1024, 2048, 4096, 8192])),
        "micro_batch": draw(st.integers(1, 4)), "tokens": draw(st.floats(1e9, 1e13)),
        "mlp": draw(st.sampled_from(["swiglu", "gelu"])),
        "sequence_parallel": draw(st.booleans()),
        "flash_attention": draw(st.booleans()),
    }


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Value]:
    shape = draw(shapes())
    kv, layers = int(shape["kv_heads"]), int(shape["layers"])
    tp = draw(POW2.filter(lambda t: kv % t == 0 or t % kv == 0))
    pp = draw(st.sampled_from([p for p in (1, 2, 4, 8) if layers % p == 0]))
    return {**shape, "tp": tp, "pp": pp, "dp": draw(st.sampled_from([1, 2, 8, 64])),
            "zero": str(draw(st.integers(0, 3))), "microbatches": draw(st.integers(8, 64))}


@settings(max_examples=per_profile(20, 60), deadline=None)
@given(shapes())
def test_parameter_formula_equals_direct_arithmetic(shape: dict[str, Value]) -> None:
    got = solve("params", overrides=shape).value
    h, a, k, d, f, L, V = (int(shape[n]) for n in
                           ("hidden", "heads", "kv_heads", "head_dim", "ffn", "layers", "vocab"))
    mlp = (3 if shape["mlp"] == "swiglu" else 2) * h * f
    direct = L * (2 * h * a * d + 2 * h * k * d + mlp + 2 * h) + 2 * V * h + h
    assert got == direct


@settings(max_examples=per_profile(8, 60), deadline=None)  # sympy's expansion: ~0.5 s each
@given(layouts())
def test_lambdified_steps_equal_the_expanded_sympy_formula(layout: dict[str, Value]) -> None:
    inp = resolve_inputs(overrides=layout)
    for name in ("memory_per_gpu", "tp_bytes", "fsdp_bytes", "train_flops", "pp_bubble"):
        fast = evaluate([name], inp)[name]
        from solver.engine import ctx_of

        expr = derivation(name, ctx_of(inp.values)).expanded()
        slow = float(expr.subs({sym(k): v for k, v in inp.values.items()
                                if isinstance(v, int | float) and not isinstance(v, bool)}))
        assert fast == pytest.approx(slow, rel=1e-9)


@settings(max_examples=per_profile(20, 60), deadline=None)
@given(layouts())
def test_fully_sharded_state_times_ranks_is_the_whole_model(layout: dict[str, Value]) -> None:
    layout = {**layout, "zero": "3"}
    per_gpu = solve("zero_bytes_per_gpu", overrides=layout).value
    total = solve("model_state_bytes", overrides=layout).value
    ranks = int(layout["tp"]) * int(layout["pp"]) * int(layout["dp"])
    if int(layout["pp"]) == 1:
        assert per_gpu * ranks == pytest.approx(total, rel=1e-9)
    else:
        # Counted on the first pipeline stage (its layers and the input embedding;
        # issue 35), not as an even share of the whole model.
        average = solve("params_per_gpu", overrides=layout).value
        first = solve("params_first_stage", overrides=layout).value
        assert per_gpu * ranks == pytest.approx(total * first / average, rel=1e-9)


@settings(max_examples=per_profile(20, 60), deadline=None)
@given(layouts(), st.sampled_from(["tp", "pp", "dp"]))
def test_adding_an_axis_never_raises_per_gpu_memory(
    layout: dict[str, Value], axis: str
) -> None:
    before = solve("memory_per_gpu", overrides=layout).value
    bigger = {**layout, axis: int(layout[axis]) * 2}
    try:
        after = solve("memory_per_gpu", overrides=bigger).value
    except ValueError:
        return  # the doubled layout is illegal (e.g. tp no longer divides heads)
    assert after <= before * (1 + 1e-12)


@settings(max_examples=per_profile(15, 40), deadline=None)
@given(layouts())
def test_tp_bytes_vanish_without_tensor_parallelism(layout: dict[str, Value]) -> None:
    for exact in ("true", "false"):
        r = solve("tp_bytes", overrides={**layout, "tp": 1, "ring_exact": exact})
        assert r.value == 0


@given(st.integers(2, 64), st.integers(1, 1000), st.integers(1, 4))
def test_bubble_falls_toward_zero_as_microbatches_grow(p: int, m: int, v: int) -> None:
    over: dict[str, Value] = {"pp": p, "microbatches": m, "interleave": v,
                              "layers": p * v * 4}
    more = {**over, "microbatches": m * 10}
    small = solve("pp_bubble", overrides=over).value
    smaller = solve("pp_bubble", overrides=more).value
    assert smaller < small and math.isclose(small, (p - 1) / (v * m))


def test_every_quantity_declares_a_base_unit() -> None:
    from solver.units import BASE_UNITS

    assert {q.unit for q in QUANTITIES.values()} <= set(BASE_UNITS)
    assert "tokens/s" in {q.unit for q in QUANTITIES.values()}  # rates have their own


SCALINGS = [  # (quantity, key, how the quantity scales when the key doubles)
    ("model_state_bytes", "bytes_per_param", 2.0),
    ("tp_bytes", "weight_bytes", 2.0),
    ("pp_p2p_bytes", "weight_bytes", 2.0),
    ("kv_cache_bytes", "kv_bytes", 2.0),
    ("dp_allreduce_bytes", "grad_bytes", 2.0),
    ("train_time", "peak_flops", 0.5),
    ("train_time", "mfu", 0.5),
    ("compute_time_microbatch", "peak_flops", 0.5),
    ("comm_time", "bandwidth", 0.5),
    ("comm_time", "bytes", 2.0),
    ("min_gpus_memory", "hbm_bytes", 0.5),
    ("train_flops", "tokens", 2.0),
]


@pytest.mark.parametrize(("name", "key", "ratio"), SCALINGS)
def test_units_are_consistent_when_an_input_doubles(name: str, key: str, ratio: float) -> None:
    """Bytes scale with element size, times inversely with rates: the units line up."""
    over: dict[str, Value] = {"tp": 8, "bytes": 1e9, "mfu": 0.25}
    inp = resolve_inputs("llama3-70b", "h100", over)
    base = evaluate([name], inp)[name]
    value = inp.values.get(key)
    if value is None:  # a derived node such as bytes_per_param: set it explicitly
        value = evaluate([key], inp)[key]
    doubled = resolve_inputs("llama3-70b", "h100", {**over, key: float(value) * 2})
    assert evaluate([name], doubled)[name] == pytest.approx(base * ratio, rel=1e-12)
