"""The catalogue of quantities: each one a small formula over keys and other quantities.

A quantity's builder receives the conventions in force (a :class:`Ctx`) and returns its
*local* formula, whose free symbols are keys (inputs) or other quantities (whose own
formulas the engine substitutes), and one sentence saying what the step does and under
which convention. The engine strings these into derivations: ordered steps a person can
follow on a whiteboard, and one expanded sympy expression for the answer key.

Symbols are created here from our own names only; nothing typed by a user is parsed.
"""

from __future__ import annotations

import sympy as sp

from solver.inputs import Ctx as Ctx  # re-exported: builders take it
from solver.registry import QUANTITIES as QUANTITIES
from solver.registry import Builder as Builder
from solver.registry import Quantity as Quantity
from solver.registry import quantity, ring
from solver.registry import sym as sym  # re-exported: the symbol of a name

# Short aliases keep the formulas below readable as the algebra they are.
s_, b_, h_, L_ = sym("seq"), sym("micro_batch"), sym("hidden"), sym("layers")
a_, k_, dh_, f_, V_ = sym("heads"), sym("kv_heads"), sym("head_dim"), sym("ffn"), sym("vocab")
t_, p_, c_, e_, d_ = sym("tp"), sym("pp"), sym("cp"), sym("ep"), sym("dp")


# ---------------------------------------------------------------- parameters


@quantity("attention_params_layer", "param", "attention weights of one layer", public=False)
def _attention(c: Ctx) -> tuple[sp.Expr, str]:
    if c.attention == "mla":
        qr, kr, rr, vd = (sym(n) for n in ("q_lora_rank", "kv_lora_rank", "rope_head_dim",
                                           "v_head_dim"))
        expr = (h_ * qr + qr + qr * a_ * (dh_ + rr) + h_ * (kr + rr) + kr
                + kr * a_ * (dh_ + vd) + a_ * vd * h_)
        return expr, ("Multi-head latent attention: query down/up projections, the shared "
                      "key/value latent and its up-projection, the output projection, and "
                      "the two latent norms.")
    expr = h_ * a_ * dh_ + 2 * h_ * k_ * dh_ + a_ * dh_ * h_
    text = ("Attention: the query projection h x (a*d_h), key and value projections "
            "2 x h x (k*d_h), and the output projection (a*d_h) x h.")
    if c.biases:
        expr += a_ * dh_ + 2 * k_ * dh_ + h_
        text += " Plus their biases."
    return expr, text


def _mlp(width: sp.Expr, c: Ctx) -> tuple[sp.Expr, str]:
    if c.mlp == "swiglu":
        expr = 3 * h_ * width + (2 * width + h_ if c.biases else 0)
        return expr, "SwiGLU MLP: gate, up and down matrices, 3 x h x f"
    expr = 2 * h_ * width + (width + h_ if c.biases else 0)
    return expr, "GELU MLP: up and down matrices, 2 x h x f"


@quantity("mlp_params_layer", "param", "MLP weights of one dense layer", public=False)
def _mlp_dense(c: Ctx) -> tuple[sp.Expr, str]:
    expr, text = _mlp(f_, c)
    return expr, text + (" (with biases)." if c.biases else ".")


@quantity("norm_params_layer", "param", "normalization weights of one layer", public=False)
def _norms(c: Ctx) -> tuple[sp.Expr, str]:
    if c.norm == "layernorm":
        return 4 * h_, "Two LayerNorms per layer, each with a scale and a shift: 4h."
    return 2 * h_, "Two RMSNorms per layer, each with a scale only: 2h."


@quantity("expert_params_layer", "param", "routed-expert weights of one MoE layer",
          public=False)
def _experts(c: Ctx) -> tuple[sp.Expr, str]:
    expr, text = _mlp(sym("expert_ffn"), c)
    return sym("experts") * expr, f"Routed experts: E copies of an expert MLP ({text})."


@quantity("moe_shared_params_layer", "param",
          "router and shared-expert weights of one MoE layer", public=False)
def _moe_shared(c: Ctx) -> tuple[sp.Expr, str]:
    expr, _ = _mlp(sym("expert_ffn"), c)
    return (sym("shared_experts") * expr + h_ * sym("experts"),
            "Per MoE layer, the always-on shared experts and the router (h x E).")


@quantity("embedding_params", "param", "embedding, position and final-norm weights",
          public=False)
def _embeddings(c: Ctx) -> tuple[sp.Expr, str]:
    copies = 1 if c.tied_embeddings else 2
    expr = copies * V_ * h_ + (2 * h_ if c.norm == "layernorm" else h_)
    text = ("Token embeddings V x h, shared with the output layer (tied)" if copies == 1
            else "Input and output embeddings, untied: 2 x V x h")
    if c.position == "learned":
        expr += s_ * h_
        text += ", learned positions s x h"
    return expr, text + ", and the final norm."


@quantity("params", "param", "parameter count from the shape")
def _params(c: Ctx) -> tuple[sp.Expr, str]:
    per_layer = sym("attention_params_layer") + sym("norm_params_layer")
    if not c.moe:
        return (L_ * (per_layer + sym("mlp_params_layer")) + sym("embedding_params"),
                "All layers (attention + MLP + norms) plus the embeddings.")
    dense = sym("dense_layers")
    expr = (L_ * per_layer + dense * sym("mlp_params_layer")
            + (L_ - dense) * (sym("expert_params_layer") + sym("moe_shared_params_layer"))
            + sym("embedding_params"))
    return expr, ("All layers' attention and norms, the dense MLPs of the first layers, "
                  "every expert of the MoE layers, and the embeddings: the total count.")


@quantity("active_params", "param", "parameters one token passes through (MoE: top-k)")
def _active(c: Ctx) -> tuple[sp.Expr, str]:
    if not c.moe:
        return sym("params"), "A dense model uses every parameter for every token."
    dense = sym("dense_layers")
    share = sym("experts_active") / sym("experts")
    expr = (sym("params") - (L_ - dense) * sym("expert_params_layer") * (1 - share))
    return expr, ("Each token visits only k of the E routed experts, so only k/E of the "
                  "expert weights count as active.")


@quantity("expert_params", "param", "routed-expert parameters (what expert parallelism "
          "divides)", public=False)
def _expert_total(c: Ctx) -> tuple[sp.Expr, str]:
    if not c.moe:
        return sp.Integer(0), "A dense model has no routed experts."
    return ((L_ - sym("dense_layers")) * sym("expert_params_layer"),
            "Routed-expert weights over all MoE layers.")


@quantity("params_per_gpu", "param", "parameters held by one GPU, averaged over pipeline "
          "stages: params/(tp*pp), experts also /ep (params_first_stage: the first stage)")
def _params_per_gpu(c: Ctx) -> tuple[sp.Expr, str]:
    avg = (" With pipeline parallelism this is the average over stages; the first stage "
           "also holds the input embedding (params_first_stage)." if c.pipelined else "")
    if not c.moe:
        return (sym("params") / (t_ * p_),
                "Tensor parallelism splits every matrix and pipeline parallelism splits the "
                "layers, so one GPU holds params/(tp*pp)." + avg)
    ex = sym("expert_params")
    return ((sym("params") - ex) / (t_ * p_) + ex / (t_ * p_ * e_),
            "Dense weights are split by tp*pp; routed experts are further split across "
            "the ep ranks." + avg)


def _input_embedding(c: Ctx) -> sp.Expr:
    """Weights of the input embedding (and learned positions): the first stage's."""
    return V_ * h_ + (s_ * h_ if c.position == "learned" else 0)


@quantity("params_first_stage", "param",
          "parameters held by one GPU of the first pipeline stage (its layers and the "
          "input embedding): the busiest, as Megatron-LM's estimator counts it")
def _params_first(c: Ctx) -> tuple[sp.Expr, str]:
    if not c.pipelined:
        return (sym("params_per_gpu"),
                "Without pipeline parallelism every GPU holds every layer and both "
                "embeddings: params_per_gpu.")
    ex = sym("expert_params") if c.moe else sp.Integer(0)
    layers = sym("params") - ex - sym("embedding_params")
    expr = layers / (t_ * p_) + _input_embedding(c) / t_
    if c.moe:
        expr += ex / (t_ * p_ * e_)
    return expr, ("The first pipeline stage holds its 1/pp of the layers, split by tp"
                  + (" (routed experts also by ep)" if c.moe else "")
                  + ", and the whole input embedding V x h split by tp: the stage with "
                  "the most weights (the last holds the output layer instead).")


# ---------------------------------------------------------------- memory


@quantity("bytes_per_param", "B", "model-state bytes per parameter")
def _bytes_per_param(c: Ctx) -> tuple[sp.Expr, str]:
    expr = (sym("weight_bytes") + sym("grad_bytes") + sym("master_bytes")
            + sym("optimizer_bytes"))
    # In words that hold for every optimizer: the same step explains Adam's 16 bytes,
    # SGD with momentum's 12 and a setup without master copy (regression: the text
    # spoke of "Adam's two moments" over a sum of 12).
    return expr, ("Per parameter: the working weight, its gradient, the FP32 master copy "
                  "and the optimizer's state (Adam: two moments; SGD with momentum: one), "
                  "in bytes each, 0 for a copy the setup does not keep.")


@quantity("model_state_bytes", "B", "bytes_per_param x params, whole model")
def _model_state(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("bytes_per_param") * sym("params"),
            "Model state = bytes per parameter x parameters, for the whole model.")


@quantity("zero_bytes_per_gpu", "B", "model state per GPU under ZeRO stage `zero` over dp")
def _zero(c: Ctx) -> tuple[sp.Expr, str]:
    w, g = sym("weight_bytes"), sym("grad_bytes")
    opt = sym("bytes_per_param") - w - g
    stage = c.zero
    expr = (w / (d_ if stage >= 3 else 1) + g / (d_ if stage >= 2 else 1)
            + opt / (d_ if stage >= 1 else 1)) * sym("params_first_stage")
    shard = {0: "nothing is sharded over dp (plain data parallelism)",
             1: "ZeRO-1 shards the optimizer states (master copy and moments) over dp",
             2: "ZeRO-2 shards optimizer states and gradients over dp",
             3: "ZeRO-3/FSDP shards optimizer states, gradients and weights over dp"}[stage]
    where = (" (on the first pipeline stage, which holds the input embedding)"
             if c.pipelined else "")
    return expr, (f"Per-GPU model state{where}: {shard}. Gradients take grad_bytes "
                  "each (2 here by default, BF16; Megatron-LM's estimator keeps FP32 "
                  "gradients, 4, hence its 18 bytes a parameter).")


def _act_constant(c: Ctx, tensor: sp.Expr) -> tuple[sp.Expr, str]:
    """The bytes per s*b*h of one layer's saved activations, before recomputation."""
    sp_on = c.sequence_parallel
    if c.activation_formula == "architecture":
        return _act_architecture(c, tensor)
    if c.activation_formula == "megatron":
        base = 18 + 4 * f_ / h_
        name = "Megatron estimator's (18 + 4f/h)"
    else:
        base = sp.Integer(34)
        name = "Korthikanti et al.'s 34"
    if tensor == 1:
        const = base
        text = f"{name} per s*b*h"
    elif sp_on:
        const = base / tensor
        text = f"{name} per s*b*h, all divided by tp (sequence parallelism)"
    elif c.activation_formula == "megatron":
        # Megatron-LM's estimator without sequence parallelism: 10 + 24/tp, whatever
        # the MLP width (its own formula; it also adds 5% for temporaries, not here).
        const = 10 + 24 / tensor
        text = ("Megatron estimator's 10 + 24/tp per s*b*h without sequence parallelism "
                "(it leaves out the MLP width and adds 5% for temporaries, which we do "
                "not)")
    else:
        # Without sequence parallelism only the matmul inputs (24 of the 34) are split.
        const = (base - 24) + 24 / tensor
        text = f"{name} per s*b*h, of which 24 are split by tp (no sequence parallelism)"
    if not c.flash_attention and c.recompute == "none":
        const += 5 * a_ * s_ / (h_ * tensor)
        text += ", plus 5as/h for the saved attention scores"
    elif c.recompute == "selective":
        text += "; selective recomputation drops the attention-score term"
    else:
        text += "; fused attention saves no s x s scores"
    return const, text


def _act_architecture(c: Ctx, tensor: sp.Expr) -> tuple[sp.Expr, str]:
    """Bytes per s*b*h counted tensor by tensor from the shape (BF16, 2 bytes each):
    two norm inputs (4h), the QKV input (2h), Q and the attention output (2 x 2ah_d),
    K and V (2 x 2 k d_h: grouped-query attention saves fewer), the MLP input (2h) and
    its intermediates (SwiGLU: gate, up and their product, 3 x 2f; GELU: its input and
    output, 2 x 2f), and one-byte dropout masks after attention and the MLP where the
    recipe uses dropout (the GPT-style GELU models). Korthikanti's 34 is this count for
    GPT-3's shape; Llama 3 405B gives 31.75."""
    q, kv = a_ * dh_, k_ * dh_
    mlp = 6 * f_ if c.mlp == "swiglu" else 4 * f_
    drop = 2 * h_ if c.mlp == "gelu" else 0
    unsplit = 8 * h_ + drop                 # norm inputs, QKV and MLP inputs, masks
    split = 4 * q + 4 * kv + mlp            # Q, O, K, V and the MLP intermediates
    if c.sequence_parallel:
        const = (unsplit + split) / (h_ * tensor)
        how = "all divided by tp (sequence parallelism)"
    else:
        const = unsplit / h_ + split / (h_ * tensor)
        how = "the norms' and matmuls' inputs not split by tp (no sequence parallelism)"
    mlp_text = "6f (SwiGLU)" if c.mlp == "swiglu" else "4f (GELU), dropout masks 2h"
    text = (f"saved tensors counted from the shape (norm inputs 4h, QKV and MLP inputs "
            f"4h, Q/K/V/output 4ad_h + 4kd_h, MLP {mlp_text}) per s*b*h, {how}")
    if not c.flash_attention and c.recompute == "none":
        const += 5 * a_ * s_ / (h_ * tensor)
        text += ", plus 5as/h for the saved attention scores"
    return const, text


@quantity("activation_bytes_layer", "B",
          "saved activations of one layer, one micro-batch, on one GPU")
def _act_layer(c: Ctx) -> tuple[sp.Expr, str]:
    if c.recompute == "full":
        div = t_ if c.sequence_parallel else 1
        return (2 * s_ * b_ * h_ / (div * c_),
                "Full recomputation keeps only each layer's input, 2*s*b*h bytes"
                + (", split by tp (sequence parallel)" if c.sequence_parallel else "")
                + ", and by cp.")
    const, text = _act_constant(c, t_)
    return const * s_ * b_ * h_ / c_, (f"Activations of one layer: {text}; context "
                                       "parallelism splits the sequence by cp.")


@quantity("activation_bytes_model", "B",
          "activations of all layers for one micro-batch on a single GPU (no parallelism)")
def _act_model(c: Ctx) -> tuple[sp.Expr, str]:
    if c.recompute == "full":
        return 2 * s_ * b_ * h_ * L_, "Full recomputation: 2*s*b*h per layer, all layers."
    const, text = _act_constant(c, sp.Integer(1))
    return const * s_ * b_ * h_ * L_, f"All layers on one GPU: {text}."


@quantity("activation_bytes", "B", "saved activations of all layers held by one GPU")
def _act(c: Ctx) -> tuple[sp.Expr, str]:
    if not c.pipelined:
        return (sym("activation_bytes_layer") * L_,
                "Without pipeline parallelism one GPU holds every layer: per-layer "
                "activations x layers.")
    inflight = sp.Min(p_, sym("microbatches"))
    expr = sym("activation_bytes_layer") * L_ / p_ * inflight
    text = ("Under the 1F1B schedule the first pipeline stage holds its layers/pp layers "
            "for up to pp micro-batches in flight, so it saves about all layers' worth.")
    if c.interleaved:
        expr *= 1 + (p_ - 1) / (p_ * sym("interleave"))
        text += " Interleaving (v virtual stages) adds a factor 1 + (pp-1)/(pp*v)."
    return expr, text


@quantity("logits_bytes", "B", "FP32 logits of one micro-batch on the last pipeline stage "
          "(4 bytes per vocabulary entry per token, split by tp and cp)")
def _logits(c: Ctx) -> tuple[sp.Expr, str]:
    return (4 * s_ * b_ * V_ / (t_ * c_),
            "The output layer's logits, kept in FP32 for the softmax cross-entropy: "
            "4 bytes x vocabulary x tokens of a micro-batch, split by tp (and cp). "
            "Megatron's estimator counts 4 x s*b*(h + V)/tp here instead.")


@quantity("memory_per_gpu", "B", "model state as sharded by the layout + activations "
          "(+ logits at pp = 1) + buffers, on the first pipeline stage")
def _memory(c: Ctx) -> tuple[sp.Expr, str]:
    if c.pipelined:
        return (sym("zero_bytes_per_gpu") + sym("activation_bytes") + sym("buffer_bytes"),
                "Per-GPU memory on the first pipeline stage (the most micro-batches in "
                "flight and the input embedding) = sharded model state + activations + "
                "working buffers; the logits live on the last stage.")
    return (sym("zero_bytes_per_gpu") + sym("activation_bytes") + sym("logits_bytes")
            + sym("buffer_bytes"),
            "Per-GPU memory = sharded model state + activations + the FP32 logits (every "
            "GPU runs the output layer at pp = 1) + working buffers.")


@quantity("memory_unsharded", "B",
          "model state + one micro-batch of activations for the whole model, one copy")
def _unsharded(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("model_state_bytes") + sym("activation_bytes_model"),
            "What a single GPU would have to hold: the whole model state plus the "
            "activations of every layer for one micro-batch.")


@quantity("min_gpus_memory", "1",
          "GPUs whose memory the unsharded state + activations would fill")
def _min_gpus(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("memory_unsharded") / sym("hbm_bytes"),
            "Divide by one GPU's memory: the fewest GPUs whose memory could hold it "
            "(round up for whole GPUs; real layouts need more for buffers).")


@quantity("kv_cache_bytes", "B", "KV cache of the batch: the keys and values of every token "
          "in every layer")
def _kv(c: Ctx) -> tuple[sp.Expr, str]:
    if c.attention == "mla":
        return ((sym("kv_lora_rank") + sym("rope_head_dim")) * L_ * s_ * b_ * sym("kv_bytes"),
                "MLA caches one compressed latent plus the rotary key per token per layer.")
    return (2 * L_ * k_ * dh_ * s_ * b_ * sym("kv_bytes"),
            "A key and a value (2) per layer, per KV head, per head dimension, per token.")


# ---------------------------------------------------------------- compute


@quantity("train_flops", "FLOP", "6 x params x tokens")
def _flops(c: Ctx) -> tuple[sp.Expr, str]:
    text = ("About 6 FLOPs per parameter per token: 2 in the forward pass, 4 in the "
            "backward pass (attention's s^2 term ignored).")
    if c.moe:
        text += " For a mixture of experts, only the active parameters count."
    return 6 * sym("active_params") * sym("tokens"), text


@quantity("train_time", "s", "train_flops / (gpus x peak_flops x mfu)")
def _time(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("train_flops") / (sym("gpus") * sym("peak_flops") * sym("mfu")),
            "Wall-clock time = FLOPs / (GPUs x peak FLOP/s x MFU).")


@quantity("compute_time_microbatch", "s",
          "6 x params per GPU x tokens per micro-batch / peak_flops")
def _compute_mb(c: Ctx) -> tuple[sp.Expr, str]:
    held = sym("active_params") / (t_ * p_)
    return (6 * held * s_ * b_ / c_ / sym("peak_flops"),
            "One GPU's arithmetic for one micro-batch at peak: 6 x its share of the "
            "(active) parameters x the tokens it sees (s*b/cp), over peak FLOP/s.")


@quantity("effective_flops", "FLOP/s", "peak_flops x mfu: what one GPU really delivers")
def _effective(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("peak_flops") * sym("mfu"),
            "Delivered FLOP/s of one GPU = peak x MFU.")


@quantity("mfu", "1", "achieved FLOP/s / peak FLOP/s")
def _mfu(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("achieved_flops") / sym("peak_flops"),
            "Model FLOPs utilization = achieved FLOP/s over peak FLOP/s.")


# ---------------------------------------------------------------- communication


@quantity("dp_allreduce_bytes", "B", "gradient all-reduce bytes per rank per step")
def _dp(c: Ctx) -> tuple[sp.Expr, str]:
    factor, name = ring(d_, c, allreduce=True)
    return (factor * sym("params_per_gpu") * sym("grad_bytes"),
            f"Each rank all-reduces the gradients of the parameters it holds ({name}).")


@quantity("fsdp_bytes", "B", "ZeRO-3/FSDP bytes per rank per step")
def _fsdp(c: Ctx) -> tuple[sp.Expr, str]:
    factor, name = ring(d_, c, allreduce=False)
    times = 3 if c.fsdp_reshard else 2
    how = ("reduce-scatter of gradients + all-gather of weights in forward + again in "
           "backward" if c.fsdp_reshard else
           "reduce-scatter of gradients + one all-gather of weights kept through backward")
    return (times * factor * sym("params_per_gpu") * sym("weight_bytes"),
            f"FSDP: {times} collectives over the held weights per step ({how}; {name}).")


@quantity("tp_bytes", "B", "tensor-parallel bytes per GPU per micro-batch")
def _tp(c: Ctx) -> tuple[sp.Expr, str]:
    factor, name = ring(t_, c, allreduce=True)
    act = s_ * b_ * h_ * sym("weight_bytes") / c_
    return (4 * L_ / p_ * factor * act,
            "Four all-reduces of the s*b*h activation per layer (two forward, two backward)"
            f", for this stage's layers ({name}; sequence parallelism swaps each for a "
            "reduce-scatter + all-gather of the same volume).")


@quantity("pp_p2p_bytes", "B",
          "bytes across one stage boundary per micro-batch, forward + backward")
def _pp(c: Ctx) -> tuple[sp.Expr, str]:
    div = t_ if c.sequence_parallel else 1
    return (2 * s_ * b_ * h_ * sym("weight_bytes") / (div * c_),
            "One activation s*b*h forward and its gradient backward"
            + (", sharded by tp under sequence parallelism." if c.sequence_parallel
               else "."))


@quantity("pp_bubble", "1", "bubble time as a fraction of ideal compute time, (p-1)/(v*m)")
def _bubble(c: Ctx) -> tuple[sp.Expr, str]:
    return ((p_ - 1) / (sym("interleave") * sym("microbatches")),
            "Pipeline bubble: (pp-1) stage-times of idling at fill and drain, over the "
            "v*m micro-batch slots of useful work.")


@quantity("pp_bubble_share", "1", "bubble as a fraction of total step time, "
          "(p-1)/(v*m + p-1)")
def _bubble_share(c: Ctx) -> tuple[sp.Expr, str]:
    vm = sym("interleave") * sym("microbatches")
    return ((p_ - 1) / (vm + p_ - 1),
            "The same bubble measured against the whole step (work + bubble).")


@quantity("cp_bytes", "B", "context-parallel K/V bytes per GPU per micro-batch")
def _cp(c: Ctx) -> tuple[sp.Expr, str]:
    factor, name = ring(c_, c, allreduce=True)
    kv = 2 * s_ * b_ * k_ * dh_ * sym("weight_bytes") / t_
    return (L_ / p_ * factor * kv,
            "Each layer gathers the other ranks' keys and values in forward and "
            f"reduce-scatters their gradients in backward ({name}); tp splits the heads.")


@quantity("ep_alltoall_bytes", "B", "expert-parallel all-to-all bytes per GPU per "
          "micro-batch")
def _ep(c: Ctx) -> tuple[sp.Expr, str]:
    moe_layers = (L_ - sym("dense_layers")) / p_ if c.moe else sp.Integer(0)
    # With sequence parallelism each TP rank enters the MoE layer with its own 1/tp of
    # the tokens and dispatches only those (Megatron-Core requires sequence parallelism
    # for MoE with TP > 1); the expert-TP gathers that follow stay on NVLink.
    tokens = s_ * b_ / (c_ * t_) if c.sequence_parallel else s_ * b_ / c_
    expr = (4 * moe_layers * (e_ - 1) / e_ * tokens * sym("experts_active") * h_
            * sym("weight_bytes"))
    return expr, ("Per MoE layer, a dispatch and a combine all-to-all in forward and again "
                  "in backward (4), each sending k copies of every token's hidden vector, "
                  "(ep-1)/ep of them to other ranks"
                  + ("; each TP rank sends only its 1/tp of the tokens (sequence "
                     "parallelism)." if c.sequence_parallel else "."))


@quantity("comm_time", "s", "bytes / bandwidth")
def _comm(c: Ctx) -> tuple[sp.Expr, str]:
    return sym("bytes") / sym("bandwidth"), "Transfer time = bytes / bandwidth."


# ---------------------------------------------------------------- step time (layouts)


@quantity("microbatch_time", "s",
          "one micro-batch on one GPU: arithmetic at the achieved rate + exposed traffic")
def _mb_time(c: Ctx) -> tuple[sp.Expr, str]:
    tp_link = sym("inter_bw") if c.tp_cross_node else sym("intra_bw")
    expr = (sym("compute_time_microbatch") / sym("mfu") + sym("tp_bytes") / tp_link
            + sym("cp_bytes") / sym("intra_bw") + sym("ep_alltoall_bytes") / sym("inter_bw"))
    if c.pipelined:  # stage boundaries sit between nodes: activations cross the network
        expr += sym("pp_p2p_bytes") / sym("inter_bw")
    where = "the network (TP crosses nodes!)" if c.tp_cross_node else "NVLink"
    return expr, ("Arithmetic at peak divided by MFU, plus tensor-parallel traffic on "
                  f"{where}, context-parallel traffic on NVLink, expert all-to-alls and "
                  "pipeline sends on the network, none of it overlapped (a conservative "
                  "estimate).")


@quantity("step_time", "s", "one optimizer step: micro-batches x their time x "
          "(1 + bubble) + data-parallel traffic")
def _step_time(c: Ctx) -> tuple[sp.Expr, str]:
    dp_bytes = sym("fsdp_bytes") if c.zero >= 3 else sym("dp_allreduce_bytes")
    which = "FSDP gathers and reduce-scatters" if c.zero >= 3 else "the gradient all-reduce"
    return (sym("microbatches") * sym("microbatch_time") * (1 + sym("pp_bubble"))
            + dp_bytes / sym("inter_bw"),
            f"Each pipeline runs m micro-batches plus its bubble, then {which} crosses the "
            "network once per step (counted as exposed).")


# The quantities of the interview's next questions (serving, cost, scaling laws, failures)
# live in their own modules; importing them here registers them in QUANTITIES.
from solver import reliability, scaling, serving  # noqa: E402,F401
