"""Published model shapes and GPU figures, each naming where it comes from.

Parameter counts are *not* stored: they come out of the shapes (the tests check them
against the published totals).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.keys import Value


@dataclass(frozen=True)
class Preset:
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

MODELS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset("llama3-8b", "Llama 3 8B", _LLAMA3, dict(
            layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, head_dim=128,
            vocab=128256, seq=8192, tokens=15e12), "8B"),
        Preset("llama3-70b", "Llama 3 70B", _LLAMA3, dict(
            layers=80, hidden=8192, ffn=28672, heads=64, kv_heads=8, head_dim=128,
            vocab=128256, seq=8192, tokens=15e12), "70B"),
        Preset("llama3-405b", "Llama 3 405B", _LLAMA3, dict(
            layers=126, hidden=16384, ffn=53248, heads=128, kv_heads=8, head_dim=128,
            vocab=128256, seq=8192, tokens=15.6e12), "405B"),
        Preset("gpt3-175b", "GPT-3 175B",
               "Language Models are Few-Shot Learners (Brown et al., 2020), Table 2.1",
               dict(layers=96, hidden=12288, ffn=49152, heads=96, kv_heads=96, head_dim=128,
                    vocab=50257, seq=2048, tokens=300e9, mlp="gelu", norm="layernorm",
                    biases=True, position="learned", tied_embeddings=True), "175B"),
        Preset("mixtral-8x7b", "Mixtral 8x7B",
               "Mixtral of Experts (Jiang et al., 2024), Table 1",
               dict(layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, head_dim=128,
                    vocab=32000, seq=32768, experts=8, experts_active=2,
                    expert_ffn=14336), "47B total, 13B active"),
        Preset("deepseek-v3", "DeepSeek-V3",
               "DeepSeek-V3 Technical Report (DeepSeek-AI, 2024), section 4.2",
               dict(layers=61, hidden=7168, ffn=18432, heads=128, head_dim=128,
                    kv_heads=128, vocab=129280, seq=4096, tokens=14.8e12,
                    attention="mla", q_lora_rank=1536, kv_lora_rank=512, rope_head_dim=64,
                    v_head_dim=128, experts=256, experts_active=8, shared_experts=1,
                    expert_ffn=2048, dense_layers=3), "671B total, 37B active"),
    ]
}
"""Model presets by `--model` name."""

GPUS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset("a100", "NVIDIA A100 80GB SXM",
               "NVIDIA A100 datasheet; HDR InfiniBand 200 Gb/s per GPU",
               dict(hbm_bytes=80e9, peak_flops=312e12, intra_bw=300e9, inter_bw=25e9,
                    hbm_bw=2.04e12)),
        Preset("h100", "NVIDIA H100 SXM",
               "NVIDIA H100 datasheet; NDR InfiniBand 400 Gb/s per GPU",
               dict(hbm_bytes=80e9, peak_flops=989e12, intra_bw=450e9, inter_bw=50e9,
                    hbm_bw=3.35e12)),
        Preset("h200", "NVIDIA H200 SXM",
               "NVIDIA H200 datasheet; NDR InfiniBand 400 Gb/s per GPU",
               dict(hbm_bytes=141e9, peak_flops=989e12, intra_bw=450e9, inter_bw=50e9,
                    hbm_bw=4.8e12)),
        Preset("b200", "NVIDIA B200 (DGX B200)",
               "NVIDIA DGX B200 datasheet (1,440 GB over 8 GPUs, NVLink 5 1.8 TB/s "
               "both ways); ConnectX-7 400 Gb/s per GPU",
               dict(hbm_bytes=180e9, peak_flops=2250e12, intra_bw=900e9, inter_bw=50e9,
                    hbm_bw=8e12)),
    ]
}
"""GPU presets by `--gpu` name: memory, dense BF16 peak, NVLink per direction, network."""
