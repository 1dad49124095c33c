"""Training quantities beyond 6PD: the attention term, recomputation, cost, scaling laws,
batch composition, MoE capacity, communication overlap and hierarchical all-reduce.

Registered in :data:`solver.registry.QUANTITIES` when :mod:`solver.quantities` imports it.
"""

from __future__ import annotations

import sympy as sp

from solver.inputs import Ctx
from solver.registry import quantity, ring, sym

L_, h_, s_, b_, t_ = sym("layers"), sym("hidden"), sym("seq"), sym("micro_batch"), sym("tp")
a_, dh_, d_, p_ = sym("heads"), sym("head_dim"), sym("dp"), sym("pp")

# ---------------------------------------------------------------- FLOP accounting


@quantity("attention_flops_token", "FLOP", "attention-score training FLOPs per token: "
          "12 x layers x seq x heads x head_dim (half under the causal convention)")
def _attn(c: Ctx) -> tuple[sp.Expr, str]:
    full = 12 * L_ * s_ * a_ * dh_
    if c.attention_term == "causal":
        return (full / 2, "Q·K^T and scores·V cost 2 x 2 x s x a x d_h FLOPs per token per "
                "layer forward, x 3 with backward: 12*L*s*a*d_h, halved because a causal "
                "mask skips the upper triangle (a named convention).")
    return (full, "Q·K^T and scores·V cost 2 x 2 x s x a x d_h FLOPs per token per layer "
            "forward, x 3 with backward: 12*L*s*a*d_h (Kaplan/PaLM accounting, no causal "
            "halving).")


@quantity("train_flops_token", "FLOP", "model FLOPs per training token: 6 x active params "
          "(+ the attention term if attention_term is full or causal)")
def _train_token(c: Ctx) -> tuple[sp.Expr, str]:
    if c.attention_term == "none":
        return (6 * sym("active_params"),
                "6 FLOPs per active parameter per token (2 forward, 4 backward); the "
                "attention-score term is left out (attention_term = none).")
    return (6 * sym("active_params") + sym("attention_flops_token"),
            "6 FLOPs per active parameter per token plus the attention-score term.")


@quantity("hardware_flops_token", "FLOP", "FLOPs the GPUs execute per token, counting "
          "recomputation")
def _hw_token(c: Ctx) -> tuple[sp.Expr, str]:
    base = sym("train_flops_token")
    attn_fwd = sym("attention_flops_token") / 3 if c.attention_term != "none" else 0
    if c.recompute == "full":
        return (base + 2 * sym("active_params") + attn_fwd,
                "Full recomputation runs every forward pass twice: 2 more FLOPs per "
                "active parameter per token (8 instead of 6)"
                + (", and the attention forward again." if attn_fwd != 0 else "."))
    if c.recompute == "selective" and attn_fwd != 0:
        return (base + attn_fwd, "Selective recomputation reruns only the attention-score "
                "forward pass.")
    return (base, "Without recomputation the hardware executes exactly the model's FLOPs.")


@quantity("hfu", "1", "hardware FLOPs utilization: mfu x hardware FLOPs / model FLOPs")
def _hfu(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("mfu") * sym("hardware_flops_token") / sym("train_flops_token"),
            "HFU counts every FLOP executed (recomputation included), MFU only the "
            "model's: they differ by the ratio of the two counts.")


@quantity("hardware_flops", "FLOP", "FLOPs executed over a run: hardware FLOPs per token "
          "x tokens")
def _hw(c: Ctx) -> tuple[sp.Expr, str]:
    return sym("hardware_flops_token") * sym("tokens"), "Per-token count x training tokens."


@quantity("train_time_achieved", "s", "run time from a measured rate: hardware FLOPs / "
          "(gpus x achieved_flops)")
def _time_achieved(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("hardware_flops") / (sym("gpus") * sym("achieved_flops")),
            "The FLOPs the GPUs execute over their measured FLOP/s (which counts "
            "recomputation too).")


@quantity("attention_share", "1", "share of a token's training FLOPs spent on attention "
          "scores")
def _attn_share(c: Ctx) -> tuple[sp.Expr, str]:
    attn = sym("attention_flops_token")
    return (attn / (6 * sym("active_params") + attn),
            "The attention-score term over the whole per-token count (6P + attention).")


@quantity("train_time_fp8", "s", "train_flops / (gpus x peak_flops_fp8 x mfu)")
def _time_fp8(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("train_flops") / (sym("gpus") * sym("peak_flops_fp8") * sym("mfu")),
            "The same FLOPs at the FP8 dense peak and the same utilization of it: a lower "
            "bound on the time (an upper bound on the gain). Only the large matmuls run in "
            "FP8, so real runs gain about 1.3-1.5x over BF16, not 2x, and MFU is usually "
            "quoted against the BF16 peak.")


# ---------------------------------------------------------------- cost and scaling laws


@quantity("gpu_hours", "1", "GPU-hours of a run: gpus x train_time / 3600")
def _gpu_hours(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("gpus") * sym("train_time") / 3600,
            "GPU-hours = GPUs x wall-clock hours.")


@quantity("train_cost", "1", "dollars for a run: gpu_hours x price_per_hour")
def _cost(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("gpu_hours") * sym("price_per_hour"),
            "Dollars = GPU-hours x price of one GPU-hour.")


@quantity("chinchilla_tokens", "1", "compute-optimal training tokens: tokens_per_param x "
          "params")
def _chinchilla(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("tokens_per_param") * sym("params"),
            "Hoffmann et al. (2022): about 20 tokens per parameter minimize the loss for "
            "a given compute.")


@quantity("flops_budget", "FLOP", "compute a cluster delivers: gpus x peak_flops x mfu x "
          "duration")
def _budget(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("gpus") * sym("peak_flops") * sym("mfu") * sym("duration"),
            "The budget C = GPUs x delivered FLOP/s (peak x MFU) x seconds.")


@quantity("compute_optimal_params", "param", "the compute-optimal model for a budget: "
          "sqrt(C / (6 x tokens_per_param))")
def _opt_params(c: Ctx) -> tuple[sp.Expr, str]:
    return (sp.sqrt(sym("flops_budget") / (6 * sym("tokens_per_param"))),
            "C = 6*N*D with D = r*N gives C = 6*r*N^2, so N = sqrt(C / (6r)).")


@quantity("compute_optimal_tokens", "1", "the compute-optimal tokens for a budget: "
          "tokens_per_param x compute_optimal_params")
def _opt_tokens(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("tokens_per_param") * sym("compute_optimal_params"),
            "D = r*N at the compute-optimal N.")


@quantity("tokens_per_param_used", "1", "training tokens per parameter of a run: tokens / "
          "params")
def _tpp(c: Ctx) -> tuple[sp.Expr, str]:
    return sym("tokens") / sym("params"), "Tokens seen over parameters."


@quantity("critical_batch_tokens", "1", "Kaplan et al.'s critical batch in tokens: "
          "2e8 / loss^(1/0.21)")
def _bcrit(c: Ctx) -> tuple[sp.Expr, str]:
    return (2 * 10**8 / sym("loss") ** (1 / sp.Float(0.21)),
            "Kaplan et al. (2020), eq. 1.4: B_crit = B* / L^(1/alpha_B) with B* = 2e8 "
            "tokens and alpha_B = 0.21; beyond it, doubling the batch barely cuts the "
            "steps. The constants were fitted to their WebText2 loss with the GPT-2 "
            "tokenizer: another dataset or tokenizer puts the loss on another scale, so "
            "the fit does not carry over to another run's loss as it stands.")


# ---------------------------------------------------------------- batch composition


@quantity("accumulation_steps", "1", "gradient-accumulation steps: global_batch / "
          "(micro_batch x dp)")
def _accum(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("global_batch") / (b_ * d_),
            "Each data-parallel rank must run global_batch / dp sequences, micro_batch at "
            "a time.")


@quantity("batch_sequences", "1", "sequences per optimizer step: micro_batch x "
          "micro-batches x dp")
def _batch_seq(c: Ctx) -> tuple[sp.Expr, str]:
    return (b_ * sym("microbatches") * d_,
            "Global batch = micro-batch x accumulation steps x data-parallel ranks.")


@quantity("batch_tokens", "1", "tokens per optimizer step: sequences x seq")
def _batch_tokens(c: Ctx) -> tuple[sp.Expr, str]:
    return sym("batch_sequences") * s_, "Sequences per step x tokens per sequence."


@quantity("optimizer_steps", "1", "optimizer steps for a run: tokens / tokens per step")
def _steps(c: Ctx) -> tuple[sp.Expr, str]:
    return sym("tokens") / sym("batch_tokens"), "Training tokens over tokens per step."


# ---------------------------------------------------------------- mixture of experts


@quantity("expert_capacity", "1", "token slots per expert per micro-batch: "
          "capacity_factor x seq x batch x top-k / experts")
def _capacity(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("capacity_factor") * s_ * b_ * sym("experts_active") / sym("experts"),
            "An even split sends s*b*k / E token copies to each expert; the capacity "
            "factor adds headroom.")


@quantity("dropped_tokens", "1", "token copies the busiest expert drops: max(0, load - "
          "capacity factor) x even share")
def _dropped(c: Ctx) -> tuple[sp.Expr, str]:
    share = s_ * b_ * sym("experts_active") / sym("experts")
    return (sp.Max(0, sym("expert_load") - sym("capacity_factor")) * share,
            "Tokens routed beyond the capacity are dropped (they skip the expert through "
            "the residual connection).")


@quantity("padded_slots", "1", "empty expert slots with balanced routing: (capacity "
          "factor - 1) x seq x batch x top-k")
def _padded(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("expert_capacity") * sym("experts") - s_ * b_ * sym("experts_active"),
            "Slots computed or reserved but not filled: every expert's capacity minus the "
            "token copies routed.")


@quantity("ep_alltoall_time", "s", "expert all-to-all time per micro-batch on the network")
def _a2a_time(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("ep_alltoall_bytes") / sym("inter_bw"),
            "All-to-all bytes over the per-GPU network bandwidth.")


# ---------------------------------------------------------------- overlap and topology


@quantity("layer_time", "s", "forward + backward of one layer for one micro-batch on one "
          "GPU, at the achieved rate")
def _layer_time(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("compute_time_microbatch") * p_ / (L_ * sym("mfu")),
            "The micro-batch's arithmetic over this stage's layers, at peak x MFU.")


@quantity("tp_layer_comm_time", "s", "tensor-parallel traffic of one layer for one "
          "micro-batch on NVLink")
def _tp_layer(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("tp_bytes") * p_ / (L_ * sym("intra_bw")),
            "One layer's share of the TP bytes over NVLink.")


@quantity("dp_allreduce_time", "s", "flat ring gradient all-reduce time on the network")
def _dp_time(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("dp_allreduce_bytes") / sym("inter_bw"),
            "The ring's bytes per rank over the network bandwidth of one GPU (one NIC): a "
            "single ring moves every byte through each of its hops, and the hops between "
            "nodes run at one NIC's speed.")


@quantity("backward_time_microbatch", "s", "backward pass of one micro-batch at the "
          "achieved rate (4 of the 6 FLOPs)")
def _bwd(c: Ctx) -> tuple[sp.Expr, str]:
    return (sp.Rational(2, 3) * sym("compute_time_microbatch") / sym("mfu"),
            "The backward pass is 4 of the 6 FLOPs per parameter per token.")


@quantity("dp_exposed_time", "s", "gradient all-reduce time left after overlapping the "
          "last micro-batch's backward")
def _exposed(c: Ctx) -> tuple[sp.Expr, str]:
    return (sp.Max(0, sym("dp_allreduce_time") - sym("backward_time_microbatch")),
            "Buckets all-reduce while the last backward runs; only the excess shows.")


@quantity("hier_intra_bytes", "B", "hierarchical all-reduce: NVLink bytes per GPU "
          "(reduce-scatter + all-gather in the node)")
def _hier_intra(c: Ctx) -> tuple[sp.Expr, str]:
    g = sym("gpus_per_node")
    factor, name = ring(g, c, allreduce=True)
    return (factor * sym("params_per_gpu") * sym("grad_bytes"),
            "Inside the node, a reduce-scatter and an all-gather of the whole gradient "
            f"buffer ({name} over the node's GPUs).")


@quantity("hier_inter_bytes", "B", "hierarchical all-reduce: network bytes per GPU "
          "(all-reduce of a 1/g shard across nodes)")
def _hier_inter(c: Ctx) -> tuple[sp.Expr, str]:
    g = sym("gpus_per_node")
    factor, name = ring(d_ / g, c, allreduce=True)
    return (factor * sym("params_per_gpu") * sym("grad_bytes") / g,
            "Across nodes each GPU all-reduces only its 1/g shard with the same-rank GPUs "
            f"of the other dp/g nodes ({name} over the nodes), each on its own NIC. (A "
            "flat all-reduce run as g rings at once, one per NIC, as NCCL does on "
            "rail-optimized nodes, puts about the same bytes on each NIC.)")


@quantity("hier_allreduce_time", "s", "hierarchical all-reduce time: NVLink part + "
          "network part")
def _hier_time(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("hier_intra_bytes") / sym("intra_bw")
            + sym("hier_inter_bytes") / sym("inter_bw"),
            "The two phases run one after the other: NVLink bytes at NVLink speed, "
            "network bytes at network speed.")


@quantity("nodes", "1", "nodes (NVLink domains) in the job: gpus / gpus_per_node")
def _nodes(c: Ctx) -> tuple[sp.Expr, str]:
    return sym("gpus") / sym("gpus_per_node"), "GPUs over GPUs per NVLink domain."
