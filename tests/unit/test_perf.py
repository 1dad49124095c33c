"""The layout performance model (solver.perf) and its search (solver.layouts)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.engine import resolve_inputs
from solver.keys import Value
from solver.layouts import NothingFits, complete, divisors, rank
from solver.perf import Layout, LayoutImpossible, Workload, evaluate, workload_from_inputs


def seed_case(**over: Value) -> Workload:
    values: dict[str, Value] = {"gpus": 512, "global_batch": 1024, "seq": 8192,
                                "microbatches": 1, **over}
    return workload_from_inputs(resolve_inputs("llama3-70b", "h100", values))


W = seed_case()


def test_seed_case_puts_tp8_with_data_parallel_64_in_the_top_three() -> None:
    top = [e.layout for e in rank(W).candidates[:3]]
    assert any(lay.tp == 8 and lay.dp == 64 and lay.pp == 1 and lay.cp == 1
               for lay in top), [lay.key for lay in top]


def test_activations_of_the_reference_layout_match_domain() -> None:
    e = evaluate(W, Layout(tp=8, dp=64, zero=3))
    # DOMAIN.md: 34 s b h / tp per layer, 80 layers: 22.8 GB at TP 8.
    assert e.memory["activations"] == pytest.approx(22.8e9, rel=0.01)


def test_tp_across_nodes_goes_over_the_network_and_costs_more() -> None:
    inside = evaluate(W, Layout(tp=8, dp=64, zero=3))
    across = evaluate(W, Layout(tp=16, dp=32, zero=3))
    assert inside.tp_link == "NVLink" and across.tp_link == "network"
    assert across.time["tp"] > 5 * inside.time["tp"]


def test_cp_spanning_nodes_uses_the_network() -> None:
    assert evaluate(W, Layout(tp=8, cp=2, dp=32, zero=3)).cp_link == "network"
    assert evaluate(W, Layout(tp=4, cp=2, dp=64, zero=3)).cp_link == "NVLink"


def test_fsdp_gathers_are_paid_per_micro_batch() -> None:
    few = evaluate(W, Layout(tp=8, pp=4, dp=16, zero=3, micro_batch=4))
    many = evaluate(W, Layout(tp=8, pp=4, dp=16, zero=3, micro_batch=1))
    assert many.microbatches == 4 * few.microbatches
    assert many.time["fsdp"] >= few.time["fsdp"]


def test_full_recompute_saves_memory_and_costs_time() -> None:
    none = evaluate(W, Layout(tp=8, dp=64, zero=1))
    full = evaluate(W, Layout(tp=8, dp=64, zero=1, recompute="full"))
    assert full.memory["activations"] < none.memory["activations"] / 5
    assert full.step_time > none.step_time and full.hfu > full.mfu


@pytest.mark.parametrize("layout, words", [
    (Layout(tp=3, dp=170), "straddle"),
    (Layout(tp=8, dp=32), "GPUs"),
    (Layout(tp=8, pp=64, dp=1), "layers"),
    (Layout(tp=8, pp=1, dp=64, interleave=2), "interleave"),
])
def test_impossible_layouts_say_why(layout: Layout, words: str) -> None:
    with pytest.raises(LayoutImpossible, match=words):
        evaluate(W, layout)


def test_nothing_fits_names_the_closest_layout() -> None:
    tiny = seed_case(gpus=8, global_batch=8, hbm_bytes=16e9)
    with pytest.raises(NothingFits, match="closest is"):
        rank(tiny)


def test_a_partial_layout_is_completed_with_its_best_choices() -> None:
    e = complete(W, {"tp": 8, "pp": 1, "cp": 1})
    assert e.layout.dp == 64 and e.fits


@settings(max_examples=25)
@given(tp=st.sampled_from([1, 2, 4, 8]), pp=st.sampled_from([1, 2, 4]),
       zero=st.integers(0, 3), mb=st.sampled_from([1, 2]),
       recompute=st.sampled_from(["none", "selective", "full"]))
def test_components_add_up_and_zero_never_adds_memory(tp: int, pp: int, zero: int,
                                                      mb: int, recompute: str) -> None:
    dp = 512 // (tp * pp)
    e = evaluate(W, Layout(tp=tp, pp=pp, dp=dp, zero=zero, micro_batch=mb,
                           recompute=recompute))
    assert sum(e.time.values()) == pytest.approx(e.step_time)
    assert 0 < e.mfu <= e.hfu < 1
    if zero < 3:
        more = evaluate(W, Layout(tp=tp, pp=pp, dp=dp, zero=zero + 1, micro_batch=mb,
                                  recompute=recompute))
        assert more.memory_per_gpu <= e.memory_per_gpu


def test_divisors() -> None:
    assert divisors(16384) == [2**i for i in range(15)]
