"""Published training runs as workloads, and what the performance model predicts for them.

A run record (the shape of ``tests/data/published_runs.json``) gives a model shape, a
GPU, a cluster, a layout, a batch and a measured throughput, with a note on what its
FLOP figure counts. This module turns one into a :class:`~solver.perf.Workload` and the
layout keys it fixes, evaluates the published layout (keys the source leaves out, such as
the micro-batch size, are chosen best for it) and compares the figure the source
reports: MFU when it reports MFU; HFU when its FLOP count includes recomputation
(Narayanan et al. 2021 count ``96 B s l h^2 (1 + s/6h + V/16lh)``, a full-recompute
count); otherwise the iteration time.

Model style is read from the shape: multi-head attention with a 4h MLP is a GPT-style
model (GELU, LayerNorm, biases, learned positions, tied embeddings: the Megatron papers'
models); anything else is Llama-style (SwiGLU, RMSNorm, no biases, RoPE, untied).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.layouts import Ranking, rank, search
from solver.perf import Evaluation, Workload, workload_from_inputs

_GPT_STYLE: dict[str, str | bool] = {
    "mlp": "gelu", "norm": "layernorm", "biases": True, "position": "learned",
    "tied_embeddings": True}


@dataclass(frozen=True)
class Comparison:
    """One run: the published figure beside the model's.

    Attributes:
        run_id: the record's id.
        figure: "mfu", "hfu" or "step_time".
        published: the source's value.
        predicted: the model's value for the published layout.
        published_layout: the evaluated published layout.
        best: the best layout the engine finds under the run's software switches.
    """

    run_id: str
    figure: str
    published: float
    predicted: float
    published_layout: Evaluation
    best: Evaluation

    @property
    def error(self) -> float:
        """Relative error of the prediction, (predicted - published) / published."""
        return (self.predicted - self.published) / self.published

    @property
    def ratio_to_best(self) -> float:
        """Best step time / the published layout's step time (1 = as good as the best)."""
        return self.best.step_time / self.published_layout.step_time


def load_runs(path: Path) -> list[dict[str, Any]]:
    """The run records of a published-runs file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    runs: list[dict[str, Any]] = data["runs"] if isinstance(data, dict) else data
    return runs


def workload_of(run: Mapping[str, Any], constants: Mapping[str, float] | None = None
                ) -> Workload:
    """The workload of a run record (model, GPU, cluster, batch; no layout)."""
    from solver.engine import resolve_inputs

    m = run["model"]
    over: dict[str, Any] = {k: m[k] for k in ("layers", "hidden", "heads", "kv_heads",
                                                "ffn", "vocab", "seq") if m.get(k)}
    if m.get("head_dim"):
        over["head_dim"] = m["head_dim"]
    if m.get("kv_heads", m["heads"]) == m["heads"] and m.get("ffn") == 4 * m["hidden"]:
        over.update(_GPT_STYLE)
    for k in ("experts", "experts_active", "expert_ffn"):
        if m.get(k):
            over[k] = m[k]
    over.update(gpus=run["gpus"], gpus_per_node=run.get("gpus_per_node") or 8,
                global_batch=run["global_batch"], microbatches=1)
    sp_flag = run["layout"].get("sequence_parallel")
    over["sequence_parallel"] = True if sp_flag is None else bool(sp_flag)
    if "flash_attention" in run:
        over["flash_attention"] = bool(run["flash_attention"])
    elif _year(str(run["id"])) in range(2000, 2023):
        # FlashAttention appeared in May 2022; runs published before it (Narayanan
        # 2021; Korthikanti 2022, whose runs predate it) write the attention scores out.
        over["flash_attention"] = False
    if _year(str(run["id"])) in range(2000, 2023):
        # Overlapping TP collectives with GEMMs (Transformer Engine userbuffers,
        # Megatron-LM --tp-comm-overlap) came in 2023: older runs expose them.
        over["tp_overlap"] = 0.0
    sharding = str(run["layout"].get("dp_sharding") or "").lower()
    if sharding and "overlap" not in sharding:
        # The source describes a plain all-reduce after backward (Megatron-LM 2021's
        # local DDP): nothing hides it. Sources that overlap say so.
        over["dp_overlap"] = 0.0
    over.update(constants or {})
    return workload_from_inputs(resolve_inputs(model=None, gpu=run["gpu"],
                                               overrides=over))


def _year(run_id: str) -> int:
    """The publication year in an id such as ``narayanan21-t1-1.7B`` (0 if none)."""
    m = re.match(r"^[a-z]+(\d{2}|\d{4})-", run_id)
    if not m:
        return 0
    y = int(m.group(1))
    return y if y > 1000 else 2000 + y


def switches(run: Mapping[str, Any]) -> dict[str, int | str]:
    """Software choices the run fixes for the whole search (recomputation: a source
    that says "full" recomputed every layer, not the fewest that fit)."""
    if not run.get("recompute"):
        return {}
    out: dict[str, int | str] = {"recompute": run["recompute"]}
    if run["recompute"] == "full":
        out["recompute_layers"] = int(run.get("recompute_layers") or 0)
    return out


def published_fixed(run: Mapping[str, Any]) -> tuple[dict[str, int | str], bool]:
    """The layout keys the source states, and whether it says "interleaved" without v."""
    lay = run["layout"]
    fixed: dict[str, int | str] = {k: int(lay[k]) for k in ("tp", "pp", "cp", "ep", "dp")
                                   if lay.get(k) is not None}
    interleaved_unknown = False
    il = lay.get("interleave")
    if isinstance(il, int):
        fixed["interleave"] = il
    elif il is not None:
        interleaved_unknown = True
    if run.get("micro_batch"):
        fixed["micro_batch"] = int(run["micro_batch"])
    sharding = str(lay.get("dp_sharding") or "").lower()
    if sharding.startswith("none"):
        fixed["zero"] = 0
    elif "distributed optimizer" in sharding or "zero-1" in sharding:
        fixed["zero"] = 1
    elif "fsdp" in sharding or "zero-3" in sharding:
        fixed["zero"] = 3
    fixed.update(switches(run))
    return fixed, interleaved_unknown


def published_figure(run: Mapping[str, Any], peak_flops: float) -> tuple[str, float]:
    """Which figure the source reports and its value, as (name, value)."""
    meas = run["measured"]
    counted = str(run.get("flops_counted", "")).lower()
    if meas.get("mfu") is not None:
        return "mfu", float(meas["mfu"])
    achieved = None
    if meas.get("tflops_per_gpu") is not None:
        achieved = float(meas["tflops_per_gpu"]) * 1e12 / peak_flops
    elif meas.get("percent_of_peak") is not None:
        achieved = float(meas["percent_of_peak"]) / 100
    if achieved is not None:
        return ("hfu" if "recompute" in counted or meas.get("hfu") is not None
                else "mfu"), achieved
    if meas.get("hfu") is not None:
        return "hfu", float(meas["hfu"])
    return "step_time", float(meas["iteration_time_s"])


def predict(run: Mapping[str, Any], constants: Mapping[str, float] | None = None
            ) -> tuple[str, float, Evaluation]:
    """The published figure's name, its value and the model's published layout."""
    w = workload_of(run, constants)
    pub = _published(run, w)
    name, value = published_figure(run, w.peak_flops)
    return name, value, pub


def _published(run: Mapping[str, Any], w: Workload) -> Evaluation:
    fixed, interleaved_unknown = published_fixed(run)
    found = search(w, fixed)
    if interleaved_unknown:
        found = [e for e in found if e.layout.interleave > 1] or found
    if not found:
        raise ValueError(f"{run['id']}: the published layout does not fit the model")
    return min(found, key=lambda e: e.step_time)


def compare(run: Mapping[str, Any], constants: Mapping[str, float] | None = None
            ) -> Comparison:
    """Evaluate a run's published layout and the engine's best for the same workload."""
    w = workload_of(run, constants)
    pub = _published(run, w)
    ranking: Ranking = rank(w, switches(run))
    best = ranking.best
    name, value = published_figure(run, w.peak_flops)
    predicted = {"mfu": pub.mfu, "hfu": pub.hfu, "step_time": pub.step_time}[name]
    return Comparison(str(run["id"]), name, value, predicted, pub, best)
