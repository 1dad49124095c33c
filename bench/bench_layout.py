"""Layout engine speed: a whole search, and re-evaluating one layout after a change.

Run: python bench/bench_layout.py [--rounds 5]

Prints the time to search every layout of Llama 3 70B and 405B on 512 and 16,384 H100s
(405B also at 128K tokens) and of DeepSeek-V3 on 2,048 and 16,384 H800s (target: under
1 s for 16,384 GPUs), and the median and p99 time to re-evaluate one
layout after changing one axis, the work the layout lab does per key press (target:
p99 <= 16 ms). Each is also shown as a ratio to a baseline timed in the same run
(building a 10,000-element list). Prints, never asserts.
"""

from __future__ import annotations

import argparse
import statistics
import time

from solver.engine import resolve_inputs
from solver.layouts import rank
from solver.perf import Layout, evaluate, workload_from_inputs


def _baseline() -> float:
    start = time.perf_counter()
    _ = [i * 2 for i in range(10_000)]
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    base = statistics.median(_baseline() for _ in range(50))
    print(f"baseline (10,000-element list): {base * 1e3:.3f} ms")
    for model, gpu, gpus, batch, seq in (
            ("llama3-70b", "h100", 512, 1024, 8192), ("llama3-70b", "h100", 16384, 8192, 8192),
            ("llama3-405b", "h100", 16384, 2048, 8192),
            ("llama3-405b", "h100", 16384, 128, 131072),
            ("deepseek-v3", "h800", 2048, 15360, 4096),
            ("deepseek-v3", "h800", 16384, 15360, 4096)):
        w = workload_from_inputs(resolve_inputs(model, gpu, {
            "gpus": gpus, "global_batch": batch, "seq": seq, "microbatches": 1}))
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            r = rank(w)
            times.append(time.perf_counter() - start)
        med = statistics.median(times)
        print(f"search {model} on {gpus:>5} {gpu.upper()} ({seq // 1024}K): median "
              f"{med * 1e3:7.1f} ms "
              f"({med / base:,.0f}x baseline; {len(r.candidates)} structures; best "
              f"{r.best.layout.key})")
    w = workload_from_inputs(resolve_inputs("llama3-70b", "h100", {
        "gpus": 512, "global_batch": 1024, "seq": 8192, "microbatches": 1}))
    changes = [Layout(tp=t, pp=p, dp=512 // (t * p), zero=z, micro_batch=b)
               for t in (1, 2, 4, 8) for p in (1, 2, 4) for z in (0, 1, 3) for b in (1, 2)]
    per: list[float] = []
    for _ in range(20):
        for lay in changes:
            start = time.perf_counter()
            evaluate(w, lay)
            per.append(time.perf_counter() - start)
    per.sort()
    p99 = per[int(0.99 * len(per))]
    print(f"re-evaluate one layout (lab, per change): median "
          f"{statistics.median(per) * 1e6:.1f} us, p99 {p99 * 1e6:.1f} us "
          f"({p99 / base:.2f}x baseline); target p99 <= 16 ms")


if __name__ == "__main__":
    main()
