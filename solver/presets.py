"""Published model shapes and GPU figures, each naming where it comes from.

Parameter counts are *not* stored: they come out of the shapes (the tests check them
against the published totals).
"""

from __future__ import annotations

from msgspec import Struct, field

from solver.keys import Value


class Preset(Struct, frozen=True):
    """A named set of key values.

    Attributes:
        name: the `--model` / `--gpu` name.
        title: a readable name.
        source: where the figures were published.
        values: key -> value.
        quoted: the headline figure people quote (e.g. "70B"), for prompts.
    """

    name: str
    title: str
    source: str
    values: dict[str, Value] = field(default_factory=dict)
    quoted: str = ""


_LLAMA3 = "Llama 3 Herd of Models (Meta, 2024), Table 3"
_LLAMA31 = "Llama 3 Herd of Models (Meta, 2024), Table 3; 128K context (section 3.4.2)"

MODELS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset("llama3-8b", "Llama 3 8B", _LLAMA3, dict(max_context=8192,
            layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, head_dim=128,
            vocab=128256, seq=8192, tokens=15e12), "8B"),
        Preset("llama3-70b", "Llama 3 70B", _LLAMA3, dict(max_context=8192,
            layers=80, hidden=8192, ffn=28672, heads=64, kv_heads=8, head_dim=128,
            vocab=128256, seq=8192, tokens=15e12), "70B"),
        Preset("llama3-405b", "Llama 3 405B", _LLAMA3, dict(max_context=8192,
            layers=126, hidden=16384, ffn=53248, heads=128, kv_heads=8, head_dim=128,
            vocab=128256, seq=8192, tokens=15.6e12), "405B"),
        Preset("gpt3-175b", "GPT-3 175B",
               "Language Models are Few-Shot Learners (Brown et al., 2020), Table 2.1",
               dict(max_context=2048,
                    layers=96, hidden=12288, ffn=49152, heads=96, kv_heads=96, head_dim=128,
                    vocab=50257, seq=2048, tokens=300e9, mlp="gelu", norm="layernorm",
                    biases=True, position="learned", tied_embeddings=True), "175B"),
        Preset("mixtral-8x7b", "Mixtral 8x7B",
               "Mixtral of Experts (Jiang et al., 2024), Table 1",
               dict(max_context=32768,
                    layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, head_dim=128,
                    vocab=32000, seq=32768, experts=8, experts_active=2,
                    expert_ffn=14336), "47B total, 13B active"),
        # Active parameters: the solver counts 37.55B, with both embedding matrices
        # (0.93B each). DeepSeek quotes "37B", a rounded figure; leaving out the input
        # embedding, a table lookup that does no arithmetic, gives 36.6B. Both readings
        # sit within the bank's tolerance of the solver's count, so both grade correct
        # (tests/unit/test_solver_published.py).
        Preset("deepseek-v3", "DeepSeek-V3",
               "DeepSeek-V3 Technical Report (DeepSeek-AI, 2024), section 4.2",
               dict(max_context=131072,
                    layers=61, hidden=7168, ffn=18432, heads=128, head_dim=128,
                    kv_heads=128, vocab=129280, seq=4096, tokens=14.8e12,
                    attention="mla", q_lora_rank=1536, kv_lora_rank=512, rope_head_dim=64,
                    v_head_dim=128, experts=256, experts_active=8, shared_experts=1,
                    expert_ffn=2048, dense_layers=3, moe_route_nodes=4),
               "671B total, 37B active"),
        # Llama 3.1: the Llama 3 shapes with the context extended to 128K tokens
        # (Llama 3 Herd of Models, Table 3 and section 3.4.2; 8.03B / 70.6B / 405.9B on
        # the Hugging Face model cards).
        Preset("llama3.1-8b", "Llama 3.1 8B", _LLAMA31, dict(max_context=131072,
            layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, head_dim=128,
            vocab=128256, seq=131072, tokens=15e12), "8B"),
        Preset("llama3.1-70b", "Llama 3.1 70B", _LLAMA31, dict(max_context=131072,
            layers=80, hidden=8192, ffn=28672, heads=64, kv_heads=8, head_dim=128,
            vocab=128256, seq=131072, tokens=15e12), "70B"),
        Preset("llama3.1-405b", "Llama 3.1 405B", _LLAMA31, dict(max_context=131072,
            layers=126, hidden=16384, ffn=53248, heads=128, kv_heads=8, head_dim=128,
            vocab=128256, seq=131072, tokens=15.6e12), "405B"),
        # Qwen2.5-72B: config.json of Qwen/Qwen2.5-72B; the report quotes 72.7B. Its
        # query/key/value biases (0.8M parameters) are left out of the shape. seq is the
        # native context window, 32,768 tokens (max_position_embeddings); the model card
        # reaches 131,072 only with YaRN rope scaling, so a prompt that serves it beyond
        # 32K says so.
        Preset("qwen2.5-72b", "Qwen2.5 72B",
               "Qwen2.5 Technical Report (Qwen team, 2024), Table 1; Hugging Face config "
               "(native window 32,768 tokens; 131,072 with YaRN)",
               dict(max_context=32768,
                    layers=80, hidden=8192, ffn=29568, heads=64, kv_heads=8, head_dim=128,
                    vocab=152064, seq=32768, tokens=18e12), "72B"),
        # Mixtral 8x22B: config.json of mistralai/Mixtral-8x22B-v0.1; Mistral's
        # announcement quotes 141B total and 39B active parameters.
        Preset("mixtral-8x22b", "Mixtral 8x22B",
               "Mistral AI, 'Cheaper, Better, Faster, Stronger' (2024); Hugging Face config",
               dict(max_context=65536,
                    layers=56, hidden=6144, ffn=16384, heads=48, kv_heads=8, head_dim=128,
                    vocab=32000, seq=65536, experts=8, experts_active=2,
                    expert_ffn=16384), "141B total, 39B active"),
        # DeepSeek-V2: 236B total, 21B active (DeepSeek-V2 paper, section 3.1.1, and
        # config.json of deepseek-ai/DeepSeek-V2): MLA, 2 shared + 160 routed experts,
        # top-6, the first layer dense.
        Preset("deepseek-v2", "DeepSeek-V2",
               "DeepSeek-V2 (DeepSeek-AI, 2024), section 3.1.1; Hugging Face config",
               dict(max_context=131072,
                    layers=60, hidden=5120, ffn=12288, heads=128, head_dim=128,
                    kv_heads=128, vocab=102400, seq=4096, tokens=8.1e12,
                    attention="mla", q_lora_rank=1536, kv_lora_rank=512, rope_head_dim=64,
                    v_head_dim=128, experts=160, experts_active=6, shared_experts=2,
                    expert_ffn=1536, dense_layers=1), "236B total, 21B active"),
    ]
}
"""Model presets by `--model` name."""

# Memory (hbm_bytes) is each datasheet's "80 GB", "141 GB" ... read as decimal bytes
# (80e9). The parts physically hold that many GiB (an H100: 85.9e9 bytes); the solver
# keeps the smaller, marketed figure, which leaves about 7 % for buffers and
# fragmentation, and prompts show it as "80 GB (80 x 10^9 bytes)".
GPUS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset("a100", "NVIDIA A100 80GB SXM",
               "NVIDIA A100 datasheet; HDR InfiniBand 200 Gb/s per GPU",
               dict(hbm_bytes=80e9, peak_flops=312e12, intra_bw=300e9, inter_bw=25e9,
                    hbm_bw=2.04e12)),
        Preset("h100", "NVIDIA H100 SXM",
               "NVIDIA H100 datasheet (3.35 TB/s HBM3, FP8 1,979 TFLOP/s dense); NDR "
               "InfiniBand 400 Gb/s per GPU",
               dict(hbm_bytes=80e9, peak_flops=989e12, intra_bw=450e9, inter_bw=50e9,
                    hbm_bw=3.35e12, peak_flops_fp8=1979e12)),
        # H800: the H100 sold in China, its NVLink cut to 400 GB/s both ways (200 per
        # direction); DeepSeek-V3's report (section 3.2.2) runs it with 400 Gb/s IB.
        Preset("h800", "NVIDIA H800 SXM",
               "NVIDIA H800 datasheet (NVLink 400 GB/s); DeepSeek-V3 report, section 3.2.2",
               dict(hbm_bytes=80e9, peak_flops=989e12, intra_bw=200e9, inter_bw=50e9,
                    hbm_bw=3.35e12, peak_flops_fp8=1979e12)),
        Preset("h200", "NVIDIA H200 SXM",
               "NVIDIA H200 datasheet; NDR InfiniBand 400 Gb/s per GPU",
               dict(hbm_bytes=141e9, peak_flops=989e12, intra_bw=450e9, inter_bw=50e9,
                    hbm_bw=4.8e12, peak_flops_fp8=1979e12)),
        Preset("b200", "NVIDIA B200 (DGX B200)",
               "NVIDIA DGX B200 datasheet (1,440 GB over 8 GPUs, NVLink 5 1.8 TB/s "
               "both ways); ConnectX-7 400 Gb/s per GPU",
               dict(hbm_bytes=180e9, peak_flops=2250e12, intra_bw=900e9, inter_bw=50e9,
                    hbm_bw=8e12, peak_flops_fp8=4500e12)),
        # MI300X: 192 GB HBM3 at 5.3 TB/s, 1,307 TFLOP/s BF16 and 2,615 FP8 dense. The
        # node is a full mesh, not a switch: seven Infinity Fabric links of 128 GB/s (both
        # ways), one to each of the other 7 GPUs. intra_bw is the aggregate, 7 x 64 =
        # 448 GB/s per direction, which only a collective over all 8 GPUs reaches (one
        # ring per link); one pair of GPUs, or a single ring, sees one link: peer_bw,
        # 64 GB/s per direction.
        Preset("mi300x", "AMD Instinct MI300X",
               "AMD Instinct MI300X datasheet (7 Infinity Fabric links of 128 GB/s "
               "bidirectional per GPU, full mesh); 400 Gb/s network per GPU",
               dict(hbm_bytes=192e9, peak_flops=1307e12, intra_bw=448e9, peer_bw=64e9,
                    inter_bw=50e9, hbm_bw=5.3e12, peak_flops_fp8=2615e12)),
        # GB200 NVL72: 72 Blackwell GPUs in one NVLink domain; per GPU 186 GB HBM3e at
        # 8 TB/s, 2.5 PFLOP/s BF16 and 5 PFLOP/s FP8 dense (half the sparse figures),
        # NVLink 5 at 1.8 TB/s both ways.
        Preset("gb200", "NVIDIA GB200 NVL72 (per GPU)",
               "NVIDIA GB200 NVL72 datasheet; 400 Gb/s network per GPU",
               dict(hbm_bytes=186e9, peak_flops=2500e12, intra_bw=900e9, inter_bw=50e9,
                    hbm_bw=8e12, peak_flops_fp8=5000e12, gpus_per_node=72)),
    ]
}
"""GPU presets by `--gpu` name: memory, dense BF16 peak, NVLink per direction (all links;
per pair in `peer_bw` where it differs), network."""
