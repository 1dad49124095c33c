"""The inputs the solver knows: every `--set` key, its unit, meaning, range and default.

Definitions are data; the machinery that resolves and checks them lives in
:mod:`solver.engine`. A key is either numeric (it becomes a sympy symbol) or a choice
(it selects which formula is built: a named convention).

>>> KEYS["tp"].unit
'1'
>>> KEYS["mlp"].choices
('swiglu', 'gelu')
"""

from __future__ import annotations

from msgspec import Struct

Value = float | int | bool | str


class Key(Struct, frozen=True):
    """One input of the solver.

    Attributes:
        name: the `--set` name, also the sympy symbol's name.
        group: model, workload, precision, hardware, layout or communication.
        unit: base unit of the value ("B", "FLOP/s", "1", ...); "" for choices and flags.
        description: what it means, in a phrase.
        kind: "int", "float", "bool" or "named" (one of `choices`).
        default: the value when neither a preset nor `--set` gives one; None = derived or
            required.
        choices: the allowed names when kind == "named".
        minimum: smallest legal value (inclusive unless `exclusive_min`).
        maximum: largest legal value, if any.
        exclusive_min: whether `minimum` itself is illegal (sizes must be > 0).
    """

    name: str
    group: str
    unit: str
    description: str
    kind: str = "float"
    default: Value | None = None
    choices: tuple[str, ...] = ()
    minimum: float | None = 0.0
    maximum: float | None = None
    exclusive_min: bool = True


def _k(name: str, group: str, unit: str, description: str, **kw: object) -> Key:
    return Key(name, group, unit, description, **kw)  # type: ignore[arg-type]


_ALL = [
    # --- model shape
    _k("params", "model", "param", "parameter count (overrides the count from the shape)"),
    _k("layers", "model", "1", "transformer layers", kind="int"),
    _k("hidden", "model", "1", "hidden size h", kind="int"),
    _k("ffn", "model", "1", "MLP inner width f of a dense layer", kind="int"),
    _k("heads", "model", "1", "query heads a", kind="int"),
    _k("kv_heads", "model", "1", "key/value heads k (GQA); defaults to heads", kind="int"),
    _k("head_dim", "model", "1", "dimension of one head; defaults to hidden/heads", kind="int"),
    _k("vocab", "model", "1", "vocabulary size V", kind="int"),
    _k("tied_embeddings", "model", "", "input and output embeddings share one matrix",
       kind="bool", default=False),
    _k("mlp", "model", "", "MLP kind: swiglu (3 matrices) or gelu (2 matrices)",
       kind="named", choices=("swiglu", "gelu"), default="swiglu"),
    _k("norm", "model", "", "normalization: rmsnorm (h weights) or layernorm (2h)",
       kind="named", choices=("rmsnorm", "layernorm"), default="rmsnorm"),
    _k("biases", "model", "", "linear layers carry biases", kind="bool", default=False),
    _k("position", "model", "", "position encoding: rope (no weights) or learned (seq x h)",
       kind="named", choices=("rope", "learned"), default="rope"),
    _k("attention", "model", "", "attention kind: gqa (also MHA, MQA) or mla (DeepSeek)",
       kind="named", choices=("gqa", "mla"), default="gqa"),
    _k("q_lora_rank", "model", "1", "MLA: rank of the compressed query", kind="int",
       default=0, minimum=0, exclusive_min=False),
    _k("kv_lora_rank", "model", "1", "MLA: rank of the compressed key/value latent",
       kind="int", default=0, minimum=0, exclusive_min=False),
    _k("rope_head_dim", "model", "1", "MLA: decoupled rotary dimension per head", kind="int",
       default=0, minimum=0, exclusive_min=False),
    _k("v_head_dim", "model", "1", "MLA: value dimension per head; defaults to head_dim",
       kind="int"),
    _k("experts", "model", "1", "routed experts per MoE layer (0 = dense model)", kind="int",
       default=0, minimum=0, exclusive_min=False),
    _k("experts_active", "model", "1", "routed experts each token visits (top-k)",
       kind="int", default=0, minimum=0, exclusive_min=False),
    _k("shared_experts", "model", "1", "always-on shared experts per MoE layer", kind="int",
       default=0, minimum=0, exclusive_min=False),
    _k("expert_ffn", "model", "1", "MLP inner width of one expert; defaults to ffn",
       kind="int"),
    _k("dense_layers", "model", "1", "leading layers with a dense MLP in an MoE model",
       kind="int", default=0, minimum=0, exclusive_min=False),
    # --- workload
    _k("seq", "workload", "1", "sequence length s in tokens", kind="int", default=4096),
    _k("micro_batch", "workload", "1", "sequences per micro-batch b", kind="int", default=1),
    _k("global_batch", "workload", "1", "sequences per optimizer step", kind="int"),
    _k("tokens", "workload", "1", "training tokens D"),
    _k("microbatches", "workload", "1",
       "micro-batches per step per pipeline m; defaults to global_batch/(micro_batch*dp)",
       kind="int"),
    # --- precision
    _k("bytes_per_param", "precision", "B",
       "model-state bytes per parameter (default: weight + grad + master + optimizer)"),
    _k("weight_bytes", "precision", "B", "bytes of one weight (BF16 = 2; 0 = no low-precision "
       "copy kept, as a checkpoint that casts it again from the master copy)", default=2,
       minimum=0, exclusive_min=False),
    _k("grad_bytes", "precision", "B", "bytes of one gradient (BF16 = 2)", default=2,
       minimum=0, exclusive_min=False),
    _k("master_bytes", "precision", "B", "bytes of the FP32 master copy (4; 0 = none)",
       default=4, minimum=0, exclusive_min=False),
    _k("optimizer_bytes", "precision", "B", "bytes of optimizer moments (Adam: 4 + 4)",
       default=8, minimum=0, exclusive_min=False),
    _k("kv_bytes", "precision", "B", "bytes of one cached key or value element", default=2),
    # --- hardware
    _k("gpus", "hardware", "1", "GPUs in the job", kind="int"),
    _k("gpus_per_node", "hardware", "1", "GPUs per node (one NVLink domain)", kind="int",
       default=8),
    # The vendor's figure read in decimal bytes: an H100's "80 GB" is 80e9 here, though
    # the chip holds 80 GiB (85.9e9); prompts say "80 GB (80 x 10^9 bytes)".
    _k("hbm_bytes", "hardware", "B", "memory of one GPU: the marketed GB read as 10^9 "
       "bytes (an 80 GB H100 is 80e9 here; physically 80 GiB)", default=80e9),
    _k("peak_flops", "hardware", "FLOP/s", "dense BF16 peak of one GPU", default=989e12),
    _k("mfu", "hardware", "1", "model FLOPs utilization (achieved / peak)", default=0.4,
       maximum=1.0),
    _k("intra_bw", "hardware", "B/s", "NVLink bandwidth per GPU per direction, all its "
       "links together (MI300X: seven 64 GB/s links, 448 GB/s)", default=450e9),
    _k("peer_bw", "hardware", "B/s", "bandwidth from one GPU to one other GPU of its node, "
       "per direction; defaults to intra_bw (a switch gives every pair the full links; a "
       "full mesh such as MI300X's gives a pair one link)"),
    _k("inter_bw", "hardware", "B/s", "network bandwidth per GPU", default=50e9),
    _k("achieved_flops", "hardware", "FLOP/s", "measured FLOP/s of one GPU"),
    _k("hbm_bw", "hardware", "B/s", "HBM bandwidth of one GPU", default=3.35e12),
    # --- layout
    _k("dp", "layout", "1", "data-parallel degree; defaults to gpus/(tp*pp*cp)", kind="int"),
    _k("tp", "layout", "1", "tensor-parallel degree", kind="int", default=1),
    _k("pp", "layout", "1", "pipeline-parallel stages", kind="int", default=1),
    _k("cp", "layout", "1", "context-parallel degree", kind="int", default=1),
    _k("ep", "layout", "1", "expert-parallel degree (taken from the data-parallel ranks)",
       kind="int", default=1),
    _k("zero", "layout", "", "ZeRO stage over the dp ranks: 0 none, 1 optimizer, "
       "2 + gradients, 3 + weights (FSDP)", kind="named", choices=("0", "1", "2", "3"),
       default="0"),
    _k("interleave", "layout", "1", "virtual pipeline stages per GPU v", kind="int",
       default=1),
    _k("uneven_stages", "layout", "",
       "true: pp need not divide the layers (stages split as Megatron-LM does, the "
       "first and last lighter, as the layout engine does); per-GPU figures are then "
       "averages over the stages", kind="bool", default=False),
    _k("sequence_parallel", "layout", "", "shard the non-matmul activations across tp",
       kind="bool", default=True),
    _k("flash_attention", "layout", "", "fused attention: no s x s scores are saved",
       kind="bool", default=True),
    _k("recompute", "layout", "", "activation recomputation: none, selective or full",
       kind="named", choices=("none", "selective", "full"), default="none"),
    _k("activation_formula", "layout", "",
       "activation constant: korthikanti (34 sbh), megatron (18 + 4f/h) sbh, or "
       "architecture (counted from the shape: SwiGLU, GQA, fused attention, dropout; "
       "the layout engine's default)",
       kind="named", choices=("korthikanti", "megatron", "architecture"),
       default="korthikanti"),
    _k("buffer_bytes", "layout", "B", "working buffers per GPU (communication, allocator)",
       default=0, minimum=0, exclusive_min=False),
    # --- performance model of the layout engine (solver.perf; sources in perf.CONSTANTS)
    _k("gemm_eff_max", "performance", "1",
       "achieved fraction of peak for wide matmuls (layout engine)", default=0.62,
       maximum=1.0),
    _k("gemm_half_width", "performance", "1",
       "per-GPU width hidden/tp, in multiples of peak_flops/hbm_bw, at which matmuls run "
       "at half of gemm_eff_max", default=0.1),
    _k("dp_overlap", "performance", "1",
       "fraction of compute that hides data-parallel and FSDP traffic", default=0.5,
       minimum=0.0, maximum=1.0, exclusive_min=False),
    _k("elementwise_bytes", "performance", "B",
       "HBM bytes per hidden element per layer, forward, of the norms, residuals and "
       "dropouts", default=30),
    _k("cp_overlap", "performance", "1",
       "fraction of attention compute that hides context-parallel K/V traffic",
       default=1.0, minimum=0.0, maximum=1.0, exclusive_min=False),
    _k("tp_overlap", "performance", "1",
       "fraction of tensor-parallel traffic hidden behind compute", default=0.5,
       minimum=0.0, maximum=1.0, exclusive_min=False),
    _k("link_efficiency", "performance", "1",
       "fraction of a link's bandwidth that collectives achieve", default=0.8,
       maximum=1.0),
    _k("optimizer_traffic_bytes", "performance", "B",
       "HBM bytes read and written per updated parameter in the optimizer step",
       default=28),
    _k("memory_headroom", "performance", "1",
       "fraction of GPU memory kept free for allocator fragmentation", default=0.05,
       minimum=0.0, maximum=0.9, exclusive_min=False),
    _k("workspace_bytes", "performance", "B",
       "NCCL and cuBLAS workspaces and communication buckets per GPU (layout engine)",
       default=4e9, minimum=0, exclusive_min=False),
    _k("ep_overlap", "performance", "1",
       "fraction of a MoE layer's compute that hides its expert all-to-alls (layout "
       "engine)", default=0.8, minimum=0.0, maximum=1.0, exclusive_min=False),
    _k("moe_route_nodes", "model", "1",
       "nodes a token's experts may sit on (node-limited routing; DeepSeek-V3: 4); "
       "0: no limit", kind="int", default=0, minimum=0, exclusive_min=False),
    _k("flash_efficiency", "performance", "1",
       "fraction of peak the fused attention kernel reaches, forward and backward "
       "(layout engine; causal attention computes the unmasked half)", default=0.30,
       maximum=1.0),
    _k("latency_intra", "performance", "s",
       "latency of one step of a collective inside a node (layout engine)", default=3e-6,
       minimum=0.0, exclusive_min=False),
    _k("latency_inter", "performance", "s",
       "latency of one step of a collective across nodes (layout engine)", default=10e-6,
       minimum=0.0, exclusive_min=False),
    _k("straggler_cv", "performance", "1",
       "step-to-step spread of one node's time: a synchronous step waits for the slowest "
       "of N nodes, about cv x sqrt(2 ln N) longer (layout engine)", default=0.01,
       minimum=0.0, maximum=0.5, exclusive_min=False),
    _k("matmul_precision", "precision", "",
       "precision of the layers' matmuls in the layout engine: bf16, or fp8 (at the "
       "GPU's FP8 peak times fp8_efficiency; attention and the optimizer stay BF16/FP32)",
       kind="named", choices=("bf16", "fp8"), default="bf16"),
    _k("fp8_efficiency", "performance", "1",
       "fraction of the FP8 peak's gain over BF16 that FP8 matmuls keep after casts and "
       "scaling (layout engine; 0.4: 1.4x BF16 on an H100)", default=0.4, maximum=1.0),
    _k("cuda_context_bytes", "performance", "B",
       "memory the CUDA context takes before anything is allocated (layout engine)",
       default=0.5e9, minimum=0, exclusive_min=False),
    _k("hbm_physical_bytes", "performance", "B",
       "HBM the part physically holds (layout engine); 0: the marketed GB read as GiB "
       "(an 80 GB H100 has 80 GiB)", default=0, minimum=0, exclusive_min=False),
    # --- communication
    _k("bytes", "communication", "B", "bytes to move (for comm_time)"),
    _k("bandwidth", "communication", "B/s", "link bandwidth (for comm_time); defaults to "
       "inter_bw"),
    _k("ring_exact", "communication", "",
       "true: ring all-reduce moves 2(N-1)/N x buffer; false: 2 x buffer", kind="bool",
       default=True),
    _k("fsdp_reshard", "communication", "",
       "FSDP frees gathered weights after forward and gathers again in backward "
       "(3 x buffer); false: keeps them (2 x buffer)", kind="bool", default=True),
    _k("binary", "communication", "", "display bytes in GiB/TiB instead of GB/TB",
       kind="bool", default=False),
    # --- serving, cost, scaling laws and reliability (issue 13)
    _k("peak_flops_fp8", "hardware", "FLOP/s", "dense FP8 peak of one GPU (none on A100)"),
    _k("price_per_hour", "hardware", "1", "rental price of one GPU for one hour, in dollars",
       default=2.0),
    _k("gpu_hours", "hardware", "1", "GPU-hours of a job (GPUs x wall-clock hours)"),
    _k("scale_bytes", "precision", "B", "bytes of one quantization scale (0 = no group "
       "scales)", default=0, minimum=0, exclusive_min=False),
    _k("quant_group", "precision", "1", "weights sharing one quantization scale",
       kind="int", default=128),
    _k("logit_bytes", "precision", "B", "bytes of one logit (FP32 = 4)", default=4),
    _k("attention_term", "workload", "",
       "attention-score FLOPs in the count: none (6P only), full (12*L*s*a*d_h per token) "
       "or causal (half of it)", kind="named", choices=("none", "full", "causal"),
       default="none"),
    _k("tokens_per_param", "workload", "1", "training tokens per parameter (Chinchilla: 20)",
       default=20),
    _k("flops_budget", "workload", "FLOP", "training compute budget C"),
    _k("loss", "workload", "1", "training loss in nats per token (for the critical batch)"),
    _k("capacity_factor", "model", "1", "MoE expert capacity as a multiple of the even "
       "share", default=1.25),
    _k("expert_load", "model", "1", "tokens routed to the busiest expert as a multiple of "
       "the even share", default=1.0),
    _k("accept_rate", "workload", "1", "speculative decoding: chance a draft token is "
       "accepted", default=0.8, maximum=0.999),
    _k("draft_len", "workload", "1", "speculative decoding: tokens drafted per step",
       kind="int", default=4),
    _k("draft_cost", "workload", "1", "speculative decoding: one draft step's time as a "
       "fraction of one target step", default=0.05, minimum=0, exclusive_min=False),
    _k("lora_rank", "model", "1", "LoRA adapter rank r", kind="int", default=16),
    _k("max_context", "model", "1", "the longest context the released model serves without "
       "extra rope scaling, in tokens (its native window)", kind="int"),
    _k("adapter_bytes", "precision", "B", "model-state bytes per trainable adapter "
       "parameter: BF16 weight + gradient + FP32 master + Adam moments (16)", default=16),
    _k("lora_targets", "model", "", "matrices LoRA adapts: all (the 7 linear layers, "
       "QLoRA) or qv (query and value, the LoRA paper)", kind="named",
       choices=("all", "qv"), default="all"),
    _k("storage_bw", "hardware", "B/s", "aggregate write bandwidth to checkpoint storage"),
    _k("gpu_mtbf", "hardware", "s", "mean time between failures of one GPU (with its share "
       "of host, network and software)"),
    _k("duration", "workload", "s", "wall-clock span of a run"),
    _k("restart_time", "hardware", "s", "time to detect a failure, restart and reload",
       default=0, minimum=0, exclusive_min=False),
    _k("checkpoint_interval", "hardware", "s", "time between checkpoints"),
]

KEYS: dict[str, Key] = {k.name: k for k in _ALL}
"""Every key the solver accepts, by name."""

CHOICE_KEYS = frozenset(k.name for k in _ALL if k.kind in ("bool", "named"))
"""Keys that select a formula (a convention) instead of entering it as a number."""
