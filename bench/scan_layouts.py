"""Scan expert-style layouts over many workloads and print how the layout grader judges
them: the hunt for layouts an expert would call right that score below 0.85.

Run: python bench/scan_layouts.py [--all]

Workloads: every draw of layout/lay-out-cluster (Llama 3 70B on 256/512 H100/H200, 4K/8K
tokens, 512/1,024 sequences), Llama 3 405B at 8K, long sequences (32K, 128K) for context
parallelism, and Mixtral / DeepSeek-V3 for expert parallelism. Layouts: TP 8 with ZeRO-1
or FSDP, with 1-16 pipeline stages; CP 2-16 for long sequences; EP 2-8 (TP 1-8) for MoE.
For each it prints the verdict and score the grader would give (the same rule as
`quiz.core.kinds.layout.grade`), the step time, the sharding in effect during the step,
and the exposed terms. Only partial ones unless --all. Prints, never asserts.
"""

from __future__ import annotations

import argparse
import itertools
from typing import Any

from questions.layout import Layout, judge, ranking_for
from solver.engine import resolve_inputs
from solver.errors import SolverError
from solver.layouts import CP_WORTH

Workload = tuple[str, str, dict[str, int]]


def workloads() -> list[Workload]:
    """The template's draws, then wider ones for PP, CP and EP."""
    out: list[Workload] = [
        ("llama3-70b", gpu, {"gpus": n, "global_batch": b, "seq": s})
        for gpu, n, b, s in itertools.product(["h100", "h200"], [256, 512], [512, 1024],
                                              [4096, 8192])]
    out += [("llama3-405b", "h100", {"gpus": n, "global_batch": b, "seq": 8192})
            for n in (1024, 2048) for b in (1024, 2048)]
    out += [("llama3-70b", "h100", {"gpus": 512, "global_batch": b, "seq": s})
            for s in (32768, 131072) for b in (64, 256)]
    out += [("llama3.1-405b", "h100", {"gpus": 2048, "global_batch": b, "seq": 32768})
            for b in (64, 256)]
    out += [(m, "h100", {"gpus": n, "global_batch": 1024, "seq": 4096})
            for m in ("mixtral-8x7b", "mixtral-8x22b") for n in (64, 256)]
    return out


def candidates(model: str, seq: int) -> list[Layout]:
    """Layouts an expert might propose for the workload."""
    out = [Layout(tp=8, pp=p, zero=z) for z in (1, 3) for p in (1, 2, 4, 8, 16)]
    if seq >= 32768:
        out += [Layout(tp=8, cp=c, pp=p, zero=z) for c in (2, 4, 8, 16) for p in (1, 4)
                for z in (1, 3)]
    if "mixtral" in model or "deepseek" in model:
        out += [Layout(tp=t, ep=e, pp=p, zero=z) for e in (2, 4, 8) for t in (1, 2, 4, 8)
                for p in (1, 4) for z in (1, 3)]
    return out


def judged(lay: Layout, inputs: Any) -> tuple[str, float, str]:
    """(verdict, score, detail) as the grader would give them."""
    j = judge(lay, inputs)
    if not j.legal or j.evaluation is None or j.best is None:
        return "illegal", 0.0, j.reason
    e, best = j.evaluation, j.best
    if not e.fits:
        return "no fit", 0.0, f"{e.memory_per_gpu / 1e9:.0f} GB"
    ratio = min(1.0, best.step_time / e.step_time)
    if e.layout.cp > 1 and best.layout.cp == 1:
        ratio = min(ratio, best.step_time / (e.step_time * (1 + CP_WORTH)))
    if not j.inside_node:
        return "TP across", min(ratio, 0.3), ""
    terms = " ".join(f"{k}={t:.2f}" for k, t in e.time.items()
                     if k != "compute" and t > 0.01 * e.step_time)
    detail = (f"step {e.step_time:.2f} s, sharding in step {e.zero_in_step}, "
              f"{e.layout.key}: {terms}")
    return ("correct" if ratio >= 0.85 else "partial"), ratio, detail


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--all", action="store_true", help="print correct ones too")
    args = ap.parse_args()
    counts: dict[str, int] = {}
    for model, gpu, over in workloads():
        inputs = resolve_inputs(model, gpu, {**over, "microbatches": 1})
        try:
            best = ranking_for(inputs).best
        except SolverError as exc:
            print(f"== {model} {gpu} {over}: {exc}")
            continue
        print(f"== {model} {gpu} {over}: best {best.layout.key} ({best.step_time:.2f} s)")
        for lay in candidates(model, over["seq"]):
            verdict, score, detail = judged(lay, inputs)
            counts[verdict] = counts.get(verdict, 0) + 1
            if verdict in ("illegal", "no fit") or (verdict == "correct" and not args.all):
                continue
            print(f"   {verdict:9} {score:.2f}  {lay.display:40} {detail}")
    print("verdicts:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
