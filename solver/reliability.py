"""Checkpoints and failures: checkpoint size and write time, failure rates at scale, the
Young/Daly checkpoint interval and goodput.

Registered in :data:`solver.registry.QUANTITIES` when :mod:`solver.quantities` imports it.
"""

from __future__ import annotations

import sympy as sp

from solver.inputs import Ctx
from solver.registry import quantity, sym


@quantity("checkpoint_bytes", "B", "checkpoint size: params x (weight + master + optimizer "
          "bytes)")
def _ckpt(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("params") * (sym("weight_bytes") + sym("master_bytes")
                             + sym("optimizer_bytes")),
            "A checkpoint to resume from keeps the weights, the FP32 master copy and the "
            "optimizer moments (Megatron-LM saves the BF16 weights beside the master copy: "
            "2 + 4 + 8 = 14 B per parameter; a checkpoint that casts them again from the "
            "master copy at load needs 12); gradients are rebuilt by the next step.")


@quantity("checkpoint_write_time", "s", "checkpoint_bytes / storage_bw")
def _write(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("checkpoint_bytes") / sym("storage_bw"),
            "Checkpoint size over the storage's aggregate write bandwidth.")


@quantity("cluster_mtbf", "s", "mean time between failures of the job: gpu_mtbf / gpus")
def _mtbf(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("gpu_mtbf") / sym("gpus"),
            "Independent failures add up: N GPUs fail N times as often as one.")


@quantity("expected_interruptions", "1", "failures expected over a run: duration x gpus / "
          "gpu_mtbf")
def _interruptions(c: Ctx) -> tuple[sp.Expr, str]:
    return (sym("duration") * sym("gpus") / sym("gpu_mtbf"),
            "GPU-time of the run over the mean GPU-time between failures.")


@quantity("checkpoint_interval_opt", "s", "Young/Daly optimal checkpoint interval: "
          "sqrt(2 x write time x job MTBF)")
def _young(c: Ctx) -> tuple[sp.Expr, str]:
    return (sp.sqrt(2 * sym("checkpoint_write_time") * sym("cluster_mtbf")),
            "Young (1974) / Daly (2006): checkpointing every sqrt(2 x write time x MTBF) "
            "balances time spent writing against work lost to failures.")


@quantity("goodput", "1", "share of wall-clock time doing useful work, with checkpoints "
          "every checkpoint_interval")
def _goodput(c: Ctx) -> tuple[sp.Expr, str]:
    tau, mtbf = sym("checkpoint_interval"), sym("cluster_mtbf")
    return (1 - sym("checkpoint_write_time") / tau - (tau / 2 + sym("restart_time")) / mtbf,
            "Lose the write time once per interval, and per failure half an interval of "
            "work (on average) plus the restart (first-order model).")
