"""Serving quantities: decode and prefill time, the roofline, capacity and cost per token.

Decode reads every weight (and the batch's KV cache) from HBM once per step, so at small
batches its time is bytes / bandwidth; prefill, and decode at large batches, are limited
by arithmetic. Quantization enters through the bytes of one weight plus its share of a
group scale. Also here: speculative decoding, LoRA adapters and the logits buffer.

Registered in :data:`solver.registry.QUANTITIES` when :mod:`solver.quantities` imports it.
"""

from __future__ import annotations

import sympy as sp

from solver.inputs import Ctx
from solver.registry import quantity, sym

L_, h_, s_, b_, t_ = sym("layers"), sym("hidden"), sym("seq"), sym("micro_batch"), sym("tp")
a_, k_, dh_, f_ = sym("heads"), sym("kv_heads"), sym("head_dim"), sym("ffn")


@quantity("weight_bytes_effective", "B",
          "bytes of one served weight: weight_bytes + scale_bytes/quant_group", public=False)
def _weight_eff(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("weight_bytes") + sym("scale_bytes") / sym("quant_group"),
            "One stored weight: its own bytes plus its share of the group's scale "
            "(scale bytes / weights per group; 0 without group scales).")


@quantity("serve_weight_bytes", "B", "bytes of the served weights (quantized, with group "
          "scales)")
def _serve_weights(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("params") * sym("weight_bytes_effective"),
            "Served weights = parameters x bytes per stored weight (all experts of a "
            "mixture of experts stay in memory).")


@quantity("kv_bytes_per_token", "B", "KV-cache bytes of one token over all layers")
def _kv_token(c: Ctx) -> tuple[sp.Expr, str]:
    if c.attention == "mla":
        return ((sym("kv_lora_rank") + sym("rope_head_dim")) * L_ * sym("kv_bytes"),
                "MLA caches one compressed latent plus the rotary key per token per layer.")
    return (2 * L_ * k_ * dh_ * sym("kv_bytes"),
            "One token caches a key and a value (2) per layer, per KV head, per head "
            "dimension.")


@quantity("decode_bytes_step", "B", "HBM bytes one decode step reads: weights + the "
          "batch's KV cache")
def _decode_bytes(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("serve_weight_bytes") + sym("kv_cache_bytes"),
            "A decode step streams every weight once (shared by the whole batch) plus "
            "each sequence's own KV cache.")


@quantity("decode_memory_time", "s", "decode step time if bandwidth-bound: bytes read / "
          "(tp x hbm_bw)")
def _decode_mem(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("decode_bytes_step") / (t_ * sym("hbm_bw")),
            "Memory-bound time: the bytes read over the HBM bandwidth of the tp GPUs that "
            "share them.")


@quantity("decode_compute_time", "s", "decode step time if compute-bound: 2 x active "
          "params x batch / (tp x peak)")
def _decode_compute(c: Ctx) -> tuple[sp.Expr, str]:
    return (2 * sym("active_params") * b_ / (t_ * sym("peak_flops")),
            "Compute-bound time: 2 FLOPs per active parameter per token in the batch, at "
            "the peak of the tp GPUs (attention's own FLOPs ignored).")


@quantity("decode_step_time", "s", "decode step time on the roofline: the larger of the "
          "memory and compute times")
def _decode_step(c: Ctx) -> tuple[sp.Expr, str]:
    return (sp.Max(sym("decode_memory_time"), sym("decode_compute_time")),
            "Roofline: a step takes as long as the slower of reading the bytes and doing "
            "the arithmetic.")


@quantity("decode_tokens_per_s", "tokens/s", "tokens per second of one replica: batch / step time")
def _decode_tps(c: Ctx) -> tuple[sp.Expr, str]:
    return (b_ / sym("decode_step_time"),
            "Each step emits one token per sequence in the batch.")


@quantity("decode_tokens_per_s_user", "tokens/s", "tokens per second one user sees: 1 / step "
          "time")
def _decode_tps_user(c: Ctx) -> tuple[sp.Expr, str]:
    return (1 / sym("decode_step_time"), "One user gets one token per step.")


@quantity("ridge_intensity", "1", "roofline ridge point: peak FLOP/s / HBM bandwidth "
          "(FLOP per byte)")
def _ridge(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("peak_flops") / sym("hbm_bw"),
            "Below this many FLOPs per byte read, a kernel waits on memory; above it, on "
            "arithmetic.")


@quantity("decode_intensity", "1", "arithmetic intensity of a decode step (FLOP per byte "
          "read)")
def _decode_intensity(c: Ctx) -> tuple[sp.Expr, str]:
    return (2 * sym("active_params") * b_ / sym("decode_bytes_step"),
            "FLOPs of the step (2 per active parameter per sequence) over the bytes it "
            "reads.")


@quantity("decode_crossover_batch", "1", "batch at which decode turns compute-bound "
          "(weights only): peak x bytes per weight / (2 x hbm_bw)")
def _crossover(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("peak_flops") * sym("weight_bytes_effective") / (2 * sym("hbm_bw")),
            "A batch of B tokens does 2*P*B FLOPs while reading the P weights once "
            "(P x bytes per weight): the two times match at B = peak x bytes / (2 x "
            "bandwidth). The KV cache is ignored, so real decode turns compute-bound "
            "later.")


@quantity("prefill_flops", "FLOP", "forward FLOPs of a prompt: (2 x active params + "
          "attention forward) x prompt tokens")
def _prefill_flops(c: Ctx) -> tuple[sp.Expr, str]:
    per_token = 2 * sym("active_params")
    text = "A forward pass costs 2 FLOPs per active parameter per prompt token"
    if c.attention_term != "none":
        per_token = per_token + sym("attention_flops_token") / 3
        text += ", plus the forward third of the attention-score term"
    return per_token * s_ * b_, text + ", for seq x batch tokens."


@quantity("prefill_time", "s", "time to first token: prefill FLOPs / (tp x peak x mfu)")
def _prefill_time(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("prefill_flops") / (t_ * sym("peak_flops") * sym("mfu")),
            "Prefill is compute-bound: the prompt's FLOPs at the achieved rate (peak x "
            "utilization) of the tp GPUs.")


@quantity("kv_capacity_tokens", "tokens", "tokens of KV cache that fit beside the weights on "
          "the tp GPUs")
def _kv_capacity_tokens(c: Ctx) -> tuple[sp.Expr, str]:
    return ((t_ * sym("hbm_bytes") - sym("serve_weight_bytes")) / sym("kv_bytes_per_token"),
            "Memory left after the weights, over the cache bytes of one token.")


@quantity("kv_capacity_requests", "requests", "full-context requests whose KV cache fits at "
          "once (continuous batching's ceiling)")
def _kv_capacity_requests(c: Ctx) -> tuple[sp.Expr, str]:
    return (sp.floor(sym("kv_capacity_tokens") / s_),
            "Whole requests of seq tokens each, rounded down.")


@quantity("serve_cost_per_mtok", "1", "dollars per million generated tokens: tp x price "
          "/ (tokens/s x 3600) x 1e6")
def _cost_mtok(c: Ctx) -> tuple[sp.Expr, str]:
    return (t_ * sym("price_per_hour") * 10**6 / (3600 * sym("decode_tokens_per_s")),
            "The replica's dollars per hour over the tokens it makes in an hour, scaled "
            "to a million tokens.")


@quantity("spec_tokens_per_step", "1", "speculative decoding: expected tokens per target "
          "step, (1 - a^(g+1)) / (1 - a)")
def _spec_tokens(c: Ctx) -> tuple[sp.Expr, str]:
    al, g = sym("accept_rate"), sym("draft_len")
    return ((1 - al ** (g + 1)) / (1 - al),
            "Draft tokens are accepted in order until the first rejection, and the target "
            "adds one token of its own: 1 + a + a^2 + ... + a^g (Leviathan et al., 2023).")


@quantity("spec_speedup", "1", "speculative decoding: speed-up over plain decoding")
def _spec_speedup(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("spec_tokens_per_step") / (sym("draft_len") * sym("draft_cost") + 1),
            "Tokens per step over the step's cost in target-step units: g draft steps of "
            "cost c each plus one target verification.")


@quantity("lora_params", "param", "trainable LoRA adapter parameters")
def _lora(c: Ctx) -> tuple[sp.Expr, str]:
    r = sym("lora_rank")
    q_in_out = h_ + a_ * dh_
    v_in_out = h_ + k_ * dh_
    if c.lora_targets == "qv":
        return (L_ * r * (q_in_out + v_in_out),
                "Each adapted matrix d_in x d_out gains r x (d_in + d_out) weights; the "
                "LoRA paper adapts the query and value projections of every layer.")
    return (L_ * r * (2 * q_in_out + 2 * v_in_out + 3 * (h_ + f_)),
            "Each adapted matrix d_in x d_out gains r x (d_in + d_out) weights, here all "
            "seven linear layers of every block of a dense model: q and o (h and a*d_h), "
            "k and v (h and k*d_h: with grouped-query attention narrower than h), gate, up "
            "and down (h and f).")


@quantity("lora_train_bytes", "B", "fine-tuning memory with LoRA: frozen weights + "
          "adapters with full Adam state")
def _lora_bytes(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("serve_weight_bytes") + sym("lora_params") * sym("adapter_bytes"),
            "The frozen base weights (no gradients, no optimizer state; 4-bit with their "
            "scales under QLoRA) plus the adapters, trained in BF16 with the whole "
            "mixed-precision Adam state: adapter_bytes per adapter parameter (2 + 2 + 4 "
            "+ 8 = 16), whatever the base weights are stored in.")


@quantity("logits_bytes", "B", "the logits of one micro-batch: seq x batch x vocab x "
          "logit bytes / tp")
def _logits(c: Ctx) -> tuple[sp.Expr, str]:
    return (s_ * b_ * sym("vocab") * sym("logit_bytes") / t_,
            "One score per vocabulary entry per token, kept in FP32 for a stable "
            "cross-entropy; a vocabulary-parallel output layer splits them over tp.")
