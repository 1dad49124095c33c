"""The reference layout of DOMAIN.md: every figure must come out of the solver within 0.5%."""

from __future__ import annotations

import pytest

from solver import solve

REF = {"model": "llama3-70b", "gpu": "h100"}
LAYOUT = {"tp": 8, "gpus": 512, "zero": 3}
YEAR = 365.25 * 86400
DAY = 86400.0

CASES = [
    ("params", {}, 70.55e9),
    ("model_state_bytes", {}, 1.13e12),
    ("activation_bytes_layer", {}, 2.28e9),
    ("activation_bytes", {}, 182.5e9),
    ("memory_unsharded", {}, 1.31e12),
    ("min_gpus_memory", {}, 16.4),
    ("effective_flops", {}, 396e12),
    ("train_flops", {}, 6.35e24),
    ("train_time", {"gpus": 1}, 508 * YEAR),
    ("train_time", {"gpus": 512}, 363 * DAY),
    ("train_time", {"gpus": 16384}, 11.34 * DAY),
    ("params_per_gpu", {"tp": 8}, 8.81e9),
    ("compute_time_microbatch", {"tp": 8}, 0.44),
    ("dp_allreduce_bytes", {"tp": 8, "dp": 64}, 34.7e9),
    ("fsdp_bytes", {"tp": 8, "dp": 64, "ring_exact": "false"}, 52.9e9),
    ("fsdp_bytes", {"tp": 8, "dp": 64}, 52.0e9),
    ("tp_bytes", {"tp": 8}, 75.2e9),
    ("pp_p2p_bytes", {"tp": 8}, 33.6e6),
    ("zero_bytes_per_gpu", LAYOUT, 2.2e9),
    ("activation_bytes", LAYOUT, 22.8e9),
    # DOMAIN.md's 29 GB plus the FP32 logits every GPU holds at pp = 1, 4 s V / tp =
    # 0.53 GB, which memory_per_gpu counts as the layout engine does (issue 35).
    ("memory_per_gpu", {**LAYOUT, "buffer_bytes": "4GB"}, 29.5e9),
]


@pytest.mark.parametrize(("quantity", "overrides", "expected"), CASES,
                         ids=[f"{q}-{i}" for i, (q, _, _) in enumerate(CASES)])
def test_reference_figure_reproduced_within_half_a_percent(
    quantity: str, overrides: dict[str, object], expected: float
) -> None:
    got = solve(quantity, overrides=overrides, **REF).value  # type: ignore[arg-type]
    assert got == pytest.approx(expected, rel=0.005)


def test_tp_time_on_network_and_nvlink() -> None:
    tp = solve("tp_bytes", overrides={"tp": 8}, **REF).value
    network = solve("comm_time", overrides={"bytes": tp}, **REF).value
    nvlink = solve("comm_time", overrides={"bytes": tp, "bandwidth": "450GB/s"}, **REF).value
    assert network == pytest.approx(1.5, rel=0.005)
    assert network / nvlink == pytest.approx(9, rel=0.005)


def test_one_h100_at_forty_percent_is_396_tflops() -> None:
    achieved = solve("mfu", overrides={"achieved_flops": "395.6 TFLOP/s"}, **REF).value
    assert achieved == pytest.approx(0.4, rel=0.005)


@pytest.mark.parametrize(("model", "total", "active"), [
    ("llama3-8b", 8.03e9, 8.03e9),
    ("llama3-70b", 70.55e9, 70.55e9),
    ("llama3-405b", 405.9e9, 405.9e9),
    ("gpt3-175b", 175e9, 175e9),
    ("mixtral-8x7b", 46.7e9, 12.9e9),
    ("deepseek-v3", 671e9, 37.5e9),
])
def test_preset_parameter_counts_come_out_of_the_shapes(
    model: str, total: float, active: float
) -> None:
    assert solve("params", model=model).value == pytest.approx(total, rel=0.005)
    assert solve("active_params", model=model).value == pytest.approx(active, rel=0.01)


def test_gpt_style_count_matches_megatron_closed_form() -> None:
    r = solve("params", model="gpt3-175b")
    L, h, V, s = 96, 12288, 50257, 2048
    closed = 12 * L * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * L * h))
    # Our count also includes the final LayerNorm (2h), which the closed form leaves out.
    assert r.value == pytest.approx(closed + 2 * h, rel=1e-12)


def test_steps_name_their_convention_and_end_at_the_answer() -> None:
    r = solve("fsdp_bytes", overrides={"tp": 8, "dp": 64, "ring_exact": "false"}, **REF)
    assert r.steps[-1].value == r.value
    assert "dropped" in r.steps[-1].text
    assert r.conventions["ring_exact"] is False


def test_bytes_per_param_variants_from_components() -> None:
    megatron = solve("bytes_per_param", overrides={"grad_bytes": 4}).value
    no_master = solve("bytes_per_param", overrides={"master_bytes": 0, "grad_bytes": 0}).value
    assert (megatron, no_master) == (18, 10)


def test_gib_display_is_a_switch() -> None:
    r = solve("model_state_bytes", overrides={"binary": "true"}, **REF)
    assert r.display.endswith("TiB")
