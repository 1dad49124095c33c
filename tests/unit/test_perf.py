"""The layout performance model (solver.perf) and its search (solver.layouts)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.engine import SolverError, resolve_inputs
from solver.keys import Value
from solver.layouts import NothingFits, complete, divisors, rank
from solver.perf import (
    Layout,
    LayoutImpossible,
    Workload,
    evaluate,
    memory_of,
    with_constants,
    workload_from_inputs,
)


def seed_case(**over: Value) -> Workload:
    values: dict[str, Value] = {"gpus": 512, "global_batch": 1024, "seq": 8192,
                                "microbatches": 1, **over}
    return workload_from_inputs(resolve_inputs("llama3-70b", "h100", values))


W = seed_case()


def test_seed_case_recommends_tp8_with_data_parallel_64() -> None:
    r = rank(W)
    lay = r.best.layout
    assert (lay.tp, lay.dp, lay.pp, lay.cp) == (8, 64, 1, 1), lay.key
    # The simplest within 3% of the fastest; the list itself is in step-time order.
    assert r.best.step_time <= 1.03 * r.fastest.step_time
    times = [e.step_time for e in r.candidates]
    assert times == sorted(times)
    assert len({e.layout.key for e in r.candidates}) == len(r.candidates)
    assert r.rank_of(r.candidates[0]) == 1


def test_activations_of_the_reference_layout_match_domain() -> None:
    # DOMAIN.md: 34 s b h / tp per layer, 80 layers: 22.8 GB at TP 8 (Korthikanti).
    korthikanti = seed_case(activation_formula="korthikanti")
    e = evaluate(korthikanti, Layout(tp=8, dp=64, zero=3))
    assert e.memory["activations"] == pytest.approx(22.8e9, rel=0.01)
    # Counted from Llama 3 70B's shape (SwiGLU, 8 KV heads, no dropout): 33.5 s b h.
    e = evaluate(W, Layout(tp=8, dp=64, zero=3))
    assert e.memory["activations"] == pytest.approx(22.8e9 * 33.5 / 34, rel=0.001)


def test_llama3_405b_saves_about_32_sbh_per_layer() -> None:
    from solver.perf import architecture_bytes

    w = seed_case()
    w405 = workload_from_inputs(resolve_inputs("llama3-405b", "h100", {
        "gpus": 512, "global_batch": 1024, "microbatches": 1}))
    assert architecture_bytes(w405, 1, True) / w405.hidden == pytest.approx(31.75)
    assert architecture_bytes(w, 1, True) / w.hidden == pytest.approx(33.5)


def test_tp_across_nodes_goes_over_the_network_and_costs_more() -> None:
    inside = evaluate(W, Layout(tp=8, dp=64, zero=3))
    across = evaluate(W, Layout(tp=16, dp=32, zero=3))
    assert inside.tp_link == "NVLink" and across.tp_link == "network"
    assert across.time["tp"] > 5 * inside.time["tp"]


def test_cp_spanning_nodes_uses_the_network() -> None:
    assert evaluate(W, Layout(tp=8, cp=2, dp=32, zero=3)).cp_link == "network"
    assert evaluate(W, Layout(tp=4, cp=2, dp=64, zero=3)).cp_link == "NVLink"


def test_fsdp_gathers_are_paid_per_micro_batch_when_memory_forces_resharding() -> None:
    # 20 GB GPUs: keeping a TP-8 slice's gathered weights (17.6 GB) through the step
    # does not fit, so ZeRO-3 gathers again for every micro-batch.
    tight = seed_case(hbm_bytes=20e9)
    few = evaluate(tight, Layout(tp=8, dp=64, zero=3, micro_batch=4, recompute="full"))
    many = evaluate(tight, Layout(tp=8, dp=64, zero=3, micro_batch=1, recompute="full"))
    assert few.zero_in_step == many.zero_in_step == 3
    assert many.microbatches == 4 * few.microbatches
    assert many.time["fsdp"] >= few.time["fsdp"]
    assert many.time["fsdp"] + many.hidden["fsdp"] == pytest.approx(
        many.microbatches * many.regather_per_mb)


def test_the_domain_fsdp_layout_steps_as_fast_as_the_best_when_it_fits() -> None:
    """DOMAIN.md's reference layout: TP 8 in each node, FSDP over the 64 nodes.

    Per micro-batch (one 8,192-token sequence) a GPU's TP slice holds 8.8 B parameters:
    gathering them takes 17.4 GB / 40 GB/s = 0.43 s; forward, backward gather and
    gradient reduce-scatter together 1.3 s (1.45 s with each layer's 63 ring steps of
    10 us), against 0.85 s of compute. Sharding every
    micro-batch cannot hide; keeping the gathered weights and gradients through the
    step's 16 micro-batches fits (64 GB of 76 GB usable), which is what an expert does.
    """
    ref = Layout(tp=8, dp=64, zero=3)
    e = evaluate(W, ref)
    assert sum(memory_of(W, ref).values()) < 0.5 * e.usable   # fits with lots of room
    # Bandwidth, plus the latency of 63 ring steps for each of 80 layers' 3 collectives.
    assert e.regather_per_mb == pytest.approx(3 * 63 / 64 * 8.81e9 * 2 / 40e9
                                              + 3 * 63 * 80 * 10e-6, rel=0.01)
    assert e.regather_per_mb > e.compute_per_mb > 0.8      # re-gathering cannot hide
    assert e.zero_in_step == 1 and e.fits
    assert e.step_time <= 1.03 * rank(W).best.step_time
    # Forced to re-gather (no memory to spare), it is network-bound: compute is not.
    tight = seed_case(hbm_bytes=40e9)
    r = evaluate(tight, ref)
    assert r.zero_in_step == 3 and r.time["fsdp"] > 0.3 * r.time["compute"]


def test_fsdp_without_resharding_holds_the_whole_slice_at_the_turn() -> None:
    kept = seed_case(fsdp_reshard=False)
    lay = Layout(tp=8, dp=64, zero=3)
    mem, resharded = memory_of(kept, lay), memory_of(W, lay)
    assert mem["weights"] == pytest.approx(64 * resharded["weights"])
    assert mem["buffers"] < resharded["buffers"]
    assert evaluate(kept, lay).regather_per_mb == pytest.approx(
        evaluate(W, lay).regather_per_mb * 2 / 3)


def test_full_recompute_saves_memory_and_costs_time() -> None:
    none = evaluate(W, Layout(tp=8, dp=64, zero=1))
    full = evaluate(W, Layout(tp=8, dp=64, zero=1, recompute="full"))
    assert full.memory["activations"] < none.memory["activations"] / 5
    assert full.step_time > none.step_time and full.hfu > full.mfu


@pytest.mark.parametrize("layout, words", [
    (Layout(tp=3, dp=170), "straddle"),
    (Layout(tp=8, dp=32), "GPUs"),
    (Layout(tp=4, pp=128, dp=1), "layers"),
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
        # What a layout needs (its stage sharded as written); with memory to spare a
        # higher stage may keep more through the step, never more than a lower one.
        lay = Layout(tp=tp, pp=pp, dp=dp, zero=zero, micro_batch=mb, recompute=recompute)
        more = Layout(tp=tp, pp=pp, dp=dp, zero=zero + 1, micro_batch=mb,
                      recompute=recompute)
        assert sum(memory_of(W, more).values()) <= sum(memory_of(W, lay).values())
        assert evaluate(W, more).memory_per_gpu <= max(e.memory_per_gpu, e.usable)


_LAYOUTS = st.builds(
    lambda tp, pp, zero, mb, recompute: Layout(tp=tp, pp=pp, dp=512 // (tp * pp),
                                               zero=zero, micro_batch=mb,
                                               recompute=recompute),
    st.sampled_from([1, 2, 4, 8, 16]), st.sampled_from([1, 2, 4, 8]), st.integers(0, 3),
    st.sampled_from([1, 2]), st.sampled_from(["none", "full"]))


@settings(max_examples=40, deadline=None)
@given(lay=_LAYOUTS, hbm=st.sampled_from([40e9, 80e9, 141e9]),
       slower=st.floats(1.0, 8.0), which=st.sampled_from(["inter_bw", "intra_bw"]),
       overlap=st.floats(0.0, 1.0))
def test_adding_traffic_never_shortens_the_step(lay: Layout, hbm: float, slower: float,
                                                which: str, overlap: float) -> None:
    """A slower link, or less of the traffic hidden, only adds exposed time."""
    from dataclasses import replace

    base = seed_case(hbm_bytes=hbm)
    e = evaluate(base, lay)
    slow = evaluate(replace(base, **{which: getattr(base, which) / slower}), lay)
    assert slow.step_time >= e.step_time * (1 - 1e-12)
    assert slow.time["compute"] == pytest.approx(e.time["compute"])
    less = evaluate(with_constants(base, dp_overlap=overlap * 0.5), lay)
    assert less.step_time >= e.step_time * (1 - 1e-12)
    for k, hidden in e.hidden.items():
        assert hidden >= 0 and e.time[k] >= 0


def test_divisors() -> None:
    assert divisors(16384) == [2**i for i in range(15)]


def test_moe_experts_are_split_by_tp_and_sharded_over_their_own_data_parallel_ranks() -> None:
    # Regression: routed experts were held whole under TP (the compute already split
    # them) and their ZeRO shards counted over every data-parallel rank, although only
    # the dp*cp/ep ranks that hold the same experts can share them.
    moe = workload_from_inputs(resolve_inputs("mixtral-8x7b", "h100", {
        "gpus": 64, "global_batch": 1024, "seq": 4096, "microbatches": 1}))
    for tp, ep in ((1, 8), (2, 4), (8, 1)):
        lay = Layout(tp=tp, ep=ep, dp=64 // tp, zero=1)
        held_dense = (moe.layer_params * moe.layers + moe.embedding_params) / tp
        experts = moe.expert_params / (tp * ep)
        want = held_dense / lay.dp + experts / (lay.dp // ep)
        got = memory_of(moe, lay)["optimizer"] / (moe.master_bytes + moe.optimizer_bytes)
        assert got == pytest.approx(want, rel=1e-9), (tp, ep)


# ---------------------------------------------------------------- uneven pipelines

def flagship(model: str, gpus: int, batch: int, **over: Value) -> Workload:
    values: dict[str, Value] = {"gpus": gpus, "global_batch": batch, "seq": 8192,
                                "microbatches": 1, **over}
    return workload_from_inputs(resolve_inputs(model, "h100", values))


def test_llama3_405b_runs_on_16_stages_with_lighter_first_and_last() -> None:
    w = flagship("llama3-405b", 16384, 2048)
    e = evaluate(w, Layout(tp=8, pp=16, dp=128, zero=1, interleave=2,
                           recompute="full"))
    assert e.stage_layers == (7, 8, 7)
    # The middle stages pace the pipeline (8 layers against 7 + the output layer).
    assert e.time_stage in ("second", "last")
    assert e.to_json()["stage_layers"] == [7, 8, 7]


def test_the_busiest_stage_sets_memory_and_embedding_goes_to_its_stage() -> None:
    w = flagship("llama3-70b", 512, 1024)
    even = evaluate(w, Layout(tp=8, pp=8, dp=8, zero=1))
    # The first stage holds 8 micro-batches of activations and the embedding: busiest.
    assert even.memory_stage == "first"
    assert even.memory["logits"] == 0.0
    last = evaluate(w, Layout(tp=8, pp=2, dp=32, zero=1, micro_batch=4))
    assert last.stage_layers == (40, 40, 40)


def test_a_split_megatron_cannot_build_is_refused_with_the_reason() -> None:
    w = flagship("llama3-70b", 1024, 1024)
    with pytest.raises(LayoutImpossible, match="more stages than"):
        evaluate(w, Layout(tp=1, pp=128, dp=8))


def test_no_legal_layout_says_which_test_failed() -> None:
    from solver.layouts import NoLayout

    w = flagship("llama3-70b", 384, 2048)
    with pytest.raises(NoLayout, match="data-parallel size divides 2048 sequences"):
        rank(w, {"pp": 1, "cp": 1})


# ---------------------------------------------------------------- memory as it is

def test_an_80_gb_h100_offers_80_gib_less_the_cuda_context_and_headroom() -> None:
    from solver.perf import physical_memory, usable_memory

    assert physical_memory(W) == pytest.approx(80 * 2**30)
    assert usable_memory(W) == pytest.approx((80 * 2**30 - 0.5e9) * 0.95)
    tight = seed_case(cuda_context_bytes=2e9, memory_headroom=0.1)
    assert usable_memory(tight) == pytest.approx((80 * 2**30 - 2e9) * 0.9)
    assert usable_memory(seed_case(hbm_physical_bytes=70e9)) < usable_memory(W)


def test_partial_recomputation_recomputes_only_the_layers_it_needs() -> None:
    w = flagship("llama3-405b", 16384, 2048)
    some = evaluate(w, Layout(tp=8, pp=16, dp=128, zero=1, recompute="full",
                              recompute_layers=2))
    every = evaluate(w, Layout(tp=8, pp=16, dp=128, zero=1, recompute="full"))
    none = evaluate(w, Layout(tp=8, pp=16, dp=128, zero=1))
    assert every.memory["activations"] < some.memory["activations"] \
        < none.memory["activations"]
    assert none.time["recompute"] == 0 < some.time["recompute"] < every.time["recompute"]


def test_meta_405b_layout_fits_without_recomputing_every_layer() -> None:
    w = flagship("llama3-405b", 16384, 2048)
    e = complete(w, {"tp": 8, "pp": 16, "dp": 128, "cp": 1, "ep": 1})
    assert e.fits
    assert e.layout.recompute != "full" or 0 < e.layout.recompute_layers < 8
    assert 0.30 < e.mfu < 0.50     # Llama 3 paper, Table 4: 41% at 16,384 GPUs


# ---------------------------------------------------------------- experts

def deepseek_v3() -> Workload:
    return workload_from_inputs(resolve_inputs("deepseek-v3", "h800", {
        "gpus": 2048, "global_batch": 15360, "seq": 4096, "microbatches": 1}))


def test_deepseek_v3_shards_its_experts_and_its_published_layout_ranks_near_the_best(
        ) -> None:
    w = deepseek_v3()
    r = rank(w)
    assert r.best.layout.ep >= 8, r.best.layout.key
    published = complete(w, {"tp": 1, "pp": 16, "cp": 1, "ep": 64, "dp": 128,
                             "zero": 1})
    assert published.fits
    assert r.best.step_time / published.step_time >= 0.85


def test_small_expert_gemms_run_slower_than_wide_ones() -> None:
    from solver.perf import expert_efficiency

    w = deepseek_v3()
    assert expert_efficiency(w, 1, 64) < expert_efficiency(w, 1, 4096)
    assert expert_efficiency(w, 8, 4096) < expert_efficiency(w, 1, 4096)


def test_node_limited_routing_caps_the_network_share_of_all_to_alls() -> None:
    from dataclasses import replace

    w = deepseek_v3()
    lay = Layout(tp=1, pp=16, ep=64, dp=128, zero=1)
    limited = evaluate(w, lay)
    free = evaluate(replace(w, route_nodes=0), lay)
    assert limited.time["ep"] + limited.hidden["ep"] < free.time["ep"] + free.hidden["ep"]


# ---------------------------------------------------------------- scale and long context

def test_mfu_falls_with_data_parallel_size_at_a_fixed_batch() -> None:
    # MegaScale's Megatron-LM baseline: 175B, TP 8 x PP 8, 6,144 sequences per step.
    mfus = []
    for gpus in (256, 1024, 3072, 12288):
        w = workload_from_inputs(resolve_inputs("gpt3-175b", "a100", {
            "gpus": gpus, "global_batch": 6144, "seq": 2048, "microbatches": 1}))
        e = complete(w, {"tp": 8, "pp": 8, "cp": 1, "ep": 1, "dp": gpus // 64})
        mfus.append(e.mfu)
        assert e.time["straggler"] > 0
    assert mfus == sorted(mfus, reverse=True)
    assert mfus[-1] < 0.92 * mfus[0]


def test_context_parallelism_is_for_long_sequences() -> None:
    short = flagship("llama3-405b", 16384, 2048)
    assert rank(short).best.layout.cp == 1
    long = flagship("llama3-405b", 16384, 128, seq=131072)
    best = rank(long).best.layout
    assert 8 <= best.cp <= 32, best.key
    meta = complete(long, {"tp": 8, "cp": 16, "pp": 16, "dp": 8, "ep": 1})
    assert rank(long).best.step_time / meta.step_time >= 0.9


def test_collectives_pay_a_latency_per_ring_step() -> None:
    slow = seed_case(latency_inter=1e-4)
    lay = Layout(tp=8, dp=64, zero=1)
    assert evaluate(slow, lay).time["dp"] > evaluate(W, lay).time["dp"]


def test_fp8_matmuls_step_faster_but_not_twice_as_fast() -> None:
    bf16 = flagship("llama3-70b", 512, 1024)
    fp8 = flagship("llama3-70b", 512, 1024, matmul_precision="fp8")
    lay = Layout(tp=8, dp=64, zero=1)
    ratio = evaluate(bf16, lay).step_time / evaluate(fp8, lay).step_time
    assert 1.1 < ratio < 1.6
    with pytest.raises(SolverError, match="FP8 peak"):
        workload_from_inputs(resolve_inputs("llama3-70b", "a100", {
            "gpus": 512, "global_batch": 1024, "microbatches": 1,
            "matmul_precision": "fp8"}))


def test_expert_tensor_parallelism_is_set_apart_from_dense_tp() -> None:
    w = workload_from_inputs(resolve_inputs("mixtral-8x7b", "h100", {
        "gpus": 256, "global_batch": 1024, "seq": 4096, "microbatches": 1}))
    split = evaluate(w, Layout(tp=2, ep=8, dp=128, zero=1))
    whole = evaluate(w, Layout(tp=2, ep=8, dp=128, zero=1, etp=1))
    assert whole.layout.key.endswith("etp=1") and "etp" not in split.layout.key
    # Whole experts on each TP rank: twice the expert weights, no narrower GEMMs.
    assert whole.memory["weights"] > split.memory["weights"]
    with pytest.raises(LayoutImpossible, match="etp"):
        evaluate(w, Layout(tp=2, ep=8, dp=128, zero=1, etp=3))
