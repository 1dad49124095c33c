"""Answers typed as candidates type them, each with the verdict an expert interviewer
would give (issue 9). One row: variant, typed text, verdict, and the mistake named (or
-). The grader must agree on every row: a right answer marked wrong, or a mistake named
that the candidate did not make, costs the drill its trust.

Principles the rows pin down: a bare number where bytes, a time or a rate is asked and
the prompt names no unit is invalid, while a bare count of FLOPs is that count (issue
27: "how many FLOPs" asks for a count); a fraction question read as a percentage when a
fraction cannot exceed 1; counts graded exactly; the key rounded to two significant
figures is right; generic slips named only when the typed text supports them; partial
credit only for named mistakes; letters in any order and case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from questions.catalog import load_bank
from questions.steps import walk
from questions.variants import make_variant, parse_variant_id
from quiz.core.grading import grade

BANK = load_bank(bundled=True)

CORPUS = """
memory/model-state#1 | 747 GB | correct | -
memory/model-state#1 | 747.2 GB | correct | -
memory/model-state#1 | 7.47e11 B | correct | -
memory/model-state#1 | 7.47e11 | invalid | -
memory/model-state#1 | 747 | invalid | -
memory/model-state#1 | 750 GB | correct | -
memory/model-state#1 | 0.75 TB | correct | -
memory/model-state#1 | 700 GB | incorrect | -
memory/model-state#1 | 0.7 TB | incorrect | -
memory/model-state#1 | 696 GiB | correct | -
memory/model-state#1 | 747 GiB | partial | GB vs GiB
memory/model-state#1 | 696 GB | partial | GB vs GiB
memory/model-state#1 | 560 GB | partial | 12 bytes per parameter
memory/model-state#1 | 841 GB | partial | FP32 gradients
memory/model-state#1 | 93.4 GB | incorrect | weights only
memory/model-state#1 | 5.98 TB | partial | bits vs bytes
memory/model-state#1 | 0.747 GB | incorrect | off by a thousand
memory/model-state#1 | 747 gb | correct | -
memory/model-state#1 | 747 GB (unchanged) | correct | -
memory/model-state#1 | M = 747 GB | correct | -
memory/model-state#1 | about 750 GB | correct | -
memory/model-state#1 | ~747GB | correct | -
memory/model-state#1 | banana | invalid | -
memory/model-state#1 | 747 s | invalid | -
memory/model-state#1 |  | invalid | -
memory/model-state#1 | 747,000,000,000 bytes | correct | -
memory/model-state#1 | 7.47×10¹¹ B | correct | -
memory/model-state#1 | 46.7e9*16 B | correct | -
memory/model-state#1 | 46.7e9*16 + 1 B | invalid | -
memory/model-state#1 | 1 TB | incorrect | -
communication/allreduce-time#1 | 0.517 | correct | -
communication/allreduce-time#1 | 0.52 | correct | -
communication/allreduce-time#1 | 517 ms | correct | -
communication/allreduce-time#1 | 0.517 s | correct | -
communication/allreduce-time#1 | 520 ms | correct | -
communication/allreduce-time#1 | 0.5 | incorrect | -
communication/allreduce-time#1 | 0.517 m | invalid | -
communication/allreduce-time#1 | 0.276 s | partial | counted the buffer once
communication/allreduce-time#1 | 1.035 | partial | FP32 gradients
communication/allreduce-time#1 | 57.5 ms | incorrect | used NVLink
communication/allreduce-time#1 | 517 | incorrect | off by a thousand
communication/allreduce-time#1 | 0.517 GB | invalid | -
compute/train-flops#1 | 1.53e23 FLOP | correct | -
compute/train-flops#1 | 1.5e23 FLOPs | correct | -
compute/train-flops#1 | 1.53e23 | correct | -
compute/train-flops#1 | 153 ZFLOP | correct | -
compute/train-flops#1 | 5.1e22 FLOP | incorrect | forward pass only
compute/train-flops#1 | 2.04e23 FLOP | partial | counted recomputation
compute/train-flops#1 | 1.02e23 FLOP | partial | forgot the weight gradients
compute/train-flops#1 | 1.53e20 FLOP | incorrect | off by a thousand
compute/train-flops#1 | 1.53e23 FLOP/s | invalid | -
compute/train-flops#1 | 1.7e23 FLOP | incorrect | -
pipeline/bubble-fraction#1 | 0.219 | correct | -
pipeline/bubble-fraction#1 | 21.9% | correct | -
pipeline/bubble-fraction#1 | 21.9 | correct | -
pipeline/bubble-fraction#1 | 22% | correct | -
pipeline/bubble-fraction#1 | 0.22 | correct | -
pipeline/bubble-fraction#1 | 7/32 | correct | -
pipeline/bubble-fraction#1 | 0.25 | partial | p instead of p-1
pipeline/bubble-fraction#1 | 25% | partial | p instead of p-1
pipeline/bubble-fraction#1 | 0.18 | partial | share of the total step
pipeline/bubble-fraction#1 | 0.3 | incorrect | -
pipeline/bubble-fraction#1 | 1/8 | incorrect | -
compute/mfu-vs-hfu#1 | 0.467 | correct | -
compute/mfu-vs-hfu#1 | 46.7% | correct | -
compute/mfu-vs-hfu#1 | 46.7 | correct | -
compute/mfu-vs-hfu#1 | 47% | correct | -
compute/mfu-vs-hfu#1 | 0.47 | correct | -
compute/mfu-vs-hfu#1 | 0.622 | partial | that is HFU
compute/mfu-vs-hfu#1 | 62.2 | partial | that is HFU
compute/mfu-vs-hfu#1 | 0.233 | partial | used the sparse peak
compute/mfu-vs-hfu#1 | 0.5 | incorrect | -
compute/mfu-vs-hfu#1 | 0.4 | incorrect | -
parallelism/tp-collectives-per-step#1 | 512 | correct | -
parallelism/tp-collectives-per-step#1 | 512 collectives | correct | -
parallelism/tp-collectives-per-step#1 | 512 all-reduces | correct | -
parallelism/tp-collectives-per-step#1 | 5.12e2 | correct | -
parallelism/tp-collectives-per-step#1 | 511 | incorrect | -
parallelism/tp-collectives-per-step#1 | 513 | incorrect | -
parallelism/tp-collectives-per-step#1 | 520 | incorrect | -
parallelism/tp-collectives-per-step#1 | 256 | partial | forward pass only
parallelism/tp-collectives-per-step#1 | 16 | incorrect | one micro-batch only
pipeline/microbatches-for-bubble#1 | 18 | correct | -
pipeline/microbatches-for-bubble#1 | 18 micro-batches | correct | -
pipeline/microbatches-for-bubble#1 | 19 | incorrect | -
pipeline/microbatches-for-bubble#1 | 17 | incorrect | -
pipeline/microbatches-for-bubble#1 | 14 | partial | bubble as a share of the step
pipeline/microbatches-for-bubble#1 | 35 | partial | ignored the interleaving
pipeline/microbatches-for-bubble#1 | 20 | partial | p instead of p-1
inference/kv-cache-capacity#1 | 74 | correct | -
inference/kv-cache-capacity#1 | 74 sequences | correct | -
inference/kv-cache-capacity#1 | 75 | incorrect | -
inference/kv-cache-capacity#1 | 73 | incorrect | -
inference/kv-cache-capacity#1 | 266 | partial | forgot the weights
inference/kv-cache-capacity#1 | 149 | partial | forgot K or V
inference/kv-cache-capacity#1 | 4 | partial | cached every query head
inference/kv-cache-capacity#1 | lots | invalid | -
compute/gpus-for-deadline#1 | 1652 | correct | -
compute/gpus-for-deadline#1 | 1,652 GPUs | correct | -
compute/gpus-for-deadline#1 | 1651 | incorrect | -
compute/gpus-for-deadline#1 | 1600 | incorrect | -
compute/gpus-for-deadline#1 | 744 | partial | forgot the MFU
compute/gpus-for-deadline#1 | 551 | incorrect | 2PD instead of 6PD
memory/params-from-shape#3 | 4.84 billion | correct | -
memory/params-from-shape#3 | 4.84e9 | correct | -
memory/params-from-shape#3 | 4.84B | correct | -
memory/params-from-shape#3 | 4,839,902,208 | correct | -
memory/params-from-shape#3 | 4.8 billion | correct | -
memory/params-from-shape#3 | 4.8B params | correct | -
memory/params-from-shape#3 | 4.45 billion | partial | tied embeddings
memory/params-from-shape#3 | 4.05e9 | partial | forgot the embeddings
memory/params-from-shape#3 | 5.24 billion | partial | full-width K and V
memory/params-from-shape#3 | 3.76 billion | partial | 2-matrix MLP
memory/params-from-shape#3 | 3.8B | partial | 2-matrix MLP
memory/params-from-shape#3 | 5.5 billion | incorrect | -
memory/params-from-shape#3 | 4.84 million | incorrect | off by a thousand
inference/kv-cache#3 | 85.9 GB | correct | -
inference/kv-cache#3 | 80 GiB | correct | -
inference/kv-cache#3 | 86 GB | correct | -
inference/kv-cache#3 | 85.9 | invalid | -
inference/kv-cache#3 | 85.9 GiB | partial | GB vs GiB
inference/kv-cache#3 | 80 GB | partial | GB vs GiB
inference/kv-cache#3 | 687 GB | partial | cached every query head
inference/kv-cache#3 | 42.9 GB | partial | forgot K or V
inference/kv-cache#3 | 172 GB | partial | FP32 cache
inference/kv-cache#3 | 10.7 GB | partial | forgot the batch
inference/kv-cache#3 | 10 GiB | partial | forgot the batch
inference/kv-cache#3 | 1.07 GB | incorrect | one layer
inference/kv-cache#1 | 275 GB | correct | -
inference/kv-cache#1 | 4.29 GB | partial | forgot the batch
inference/kv-cache#1 | 8.59 GB | incorrect | one layer
compute/flops-formula#1 | 6PD | correct | -
compute/flops-formula#1 | 6*P*D | correct | -
compute/flops-formula#1 | C = 6PD | correct | -
compute/flops-formula#1 | 6 D P | correct | -
compute/flops-formula#1 | 2PD | incorrect | forward pass only
compute/flops-formula#1 | 4PD | partial | forgot the weight gradients
compute/flops-formula#1 | 12PD | incorrect | -
compute/flops-formula#1 | 6P | incorrect | -
compute/flops-formula#1 | 6PD + | invalid | -
compute/flops-formula#1 | banana | invalid | -
pipeline/bubble-reducers#4 | c, e, f | correct | -
pipeline/bubble-reducers#4 | C E F | correct | -
pipeline/bubble-reducers#4 | cef | correct | -
pipeline/bubble-reducers#4 | f e c | correct | -
pipeline/bubble-reducers#4 | F, C, E | correct | -
pipeline/bubble-reducers#4 | c f | partial | halving both cancels out
pipeline/bubble-reducers#4 | b c f | partial | more stages, smaller bubble
pipeline/bubble-reducers#4 | a, b, e | incorrect | -
pipeline/bubble-reducers#4 | z | invalid | -
parallelism/zero-stages-multi#0 | a c e | correct | -
parallelism/zero-stages-multi#0 | cea | correct | -
parallelism/zero-stages-multi#0 | C, E, A | correct | -
parallelism/zero-stages-multi#0 | E C A | correct | -
parallelism/zero-stages-multi#0 | a b c e | partial | ZeRO-3 shards activations
communication/tp-time-nvlink#1 | 0.526 | correct | -
communication/tp-time-nvlink#1 | 526 ms | correct | -
communication/tp-time-nvlink#1 | 0.53 s | correct | -
communication/tp-time-nvlink#1 | 4.74 s | partial | used the network
communication/tp-time-nvlink#1 | 0.263 | partial | forward only
communication/tp-time-nvlink#1 | 4.2 ms | incorrect | one layer
communication/dp-allreduce-tp#1 | 164 GB | correct | -
communication/dp-allreduce-tp#1 | 164 | invalid | -
communication/dp-allreduce-tp#1 | 1.64e11 B | correct | -
communication/dp-allreduce-tp#1 | 160 GB | correct | -
communication/dp-allreduce-tp#1 | 152 GiB | correct | -
communication/dp-allreduce-tp#1 | 164 gb | correct | -
communication/dp-allreduce-tp#1 | 655 GB | partial | forgot to divide by tp
communication/dp-allreduce-tp#1 | 81.8 GB | partial | counted one pass
communication/dp-allreduce-tp#1 | 10.9 GB | incorrect | divided by the ranks
communication/dp-allreduce-tp#1 | 150 GB | incorrect | -
communication/dp-allreduce-tp#1 | 1.31 Tb | correct | -
communication/tp-time-nvlink#1 | 0.301 s | partial | payload without the ring factor
communication/tp-time-nvlink#1 | 301 ms | partial | payload without the ring factor
communication/tp-time-nvlink#1 | 0.60 s | correct | -
communication/tp-network-vs-compute#1 | 2.16 | correct | -
communication/tp-network-vs-compute#1 | 2.2x | correct | -
communication/tp-network-vs-compute#1 | 1.24 | partial | payload without the ring factor
communication/tp-network-vs-compute#1 | 0.18 | partial | used NVLink
parallelism/tp-traffic-on-network#1 | 2.58 s | correct | -
parallelism/tp-traffic-on-network#1 | 2.6 s | correct | -
parallelism/tp-traffic-on-network#1 | 1.72 s | partial | payload without the ring factor
parallelism/tp-traffic-on-network#1 | 3.44 s | partial | ring factor dropped
parallelism/tp-traffic-on-network#1 | 1.29 s | partial | forward pass only
parallelism/tp-bytes-formula#1 | 4*L*2*(t-1)/t*s*b*h*2 | correct | -
parallelism/tp-bytes-formula#1 | 16 L s b h (t-1)/t | correct | -
parallelism/tp-bytes-formula#1 | 8Lsbh | partial | payload without the ring factor
parallelism/tp-bytes-formula#1 | 2*L*2*s*b*h*2 | partial | payload without the ring factor
parallelism/tp-bytes-formula#1 | 16Lsbh | partial | ring factor dropped
scenario/network-bottleneck#1 | 32.2 GB | correct | -
scenario/network-bottleneck#1 | 32 GB | correct | -
scenario/network-bottleneck#1 | 21.5 GB | partial | payload without the ring factor
scenario/network-bottleneck#1 | 42.9 GB | partial | ring factor dropped
compute/moe-train-flops#1 | 1e24 FLOP | correct | -
compute/moe-train-flops#1 | 1.0e24 | correct | -
compute/moe-train-flops#1 | 9.11e23 FLOP | partial | scaled every parameter by k/E
compute/moe-train-flops#1 | 3.35e23 FLOP | partial | forward pass only
compute/moe-train-flops#1 | 3.64e24 FLOP | incorrect | used the total parameters
parallelism/cp-kv-bytes#1 | 3.7 GB | correct | -
parallelism/cp-kv-bytes#1 | 3.45 GiB | correct | -
parallelism/cp-kv-bytes#1 | 29.6 GB | partial | KV heads not divided by TP
parallelism/cp-kv-bytes#1 | 59.2 GB | partial | used the query heads
parallelism/cp-kv-bytes#1 | 1.85 GB | partial | keys only
parallelism/ep-alltoall-bytes#1 | 29.7 GB | correct | -
parallelism/ep-alltoall-bytes#1 | 30 GB | correct | -
parallelism/ep-alltoall-bytes#1 | 14.8 GB | partial | alternating MoE layers
parallelism/ep-alltoall-bytes#1 | 4.95 GB | partial | one copy per token
parallelism/ep-alltoall-bytes#1 | 7.42 GB | partial | one all-to-all per layer
communication/allreduce-time#1 | 4.14 s | incorrect | sent the buffer to every rank
communication/fsdp-traffic#1 | 51.3 GB | correct | -
communication/fsdp-traffic#1 | 51 GB | correct | -
communication/fsdp-traffic#1 | 68.3 GB | partial | all-reduced the gradients
communication/fsdp-traffic#1 | 103 GB | partial | gathered the FP32 master weights
communication/fsdp-traffic#1 | 34.2 GB | partial | only two collectives
communication/fsdp-traffic#1 | 410 GB | partial | forgot to divide by tp
layout/layout-memory#1 | 64.1 GB | correct | -
layout/layout-memory#1 | 64 GB | correct | -
layout/layout-memory#1 | 384 GB | partial | all micro-batches in flight
layout/layout-memory#1 | 104 GB | partial | no sequence parallelism
layout/layout-memory#1 | 29.9 GB | partial | activations divided by pp
layout/layout-memory#1 | 116 GB | partial | ZeRO ignored
"""

ROWS = [tuple(c.strip() for c in line.split("|")) for line in CORPUS.strip().splitlines()]
BANK_ROWS = [tuple(c.strip() for c in line.split("|"))
             for line in (Path(__file__).parent / "grading_corpus_bank.txt").read_text(
                 encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
"""The rest of the bank, one variant per template (every part of a scenario)."""
NEWER_ROWS = [tuple(c.strip() for c in line.split("|"))
              for line in (Path(__file__).parent / "grading_corpus_newer.txt").read_text(
                  encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
"""Forms typed to the newer templates (issue 27), each with why the expert decided so:
variant (with `` part N`` or `` step K``) | typed | verdict | mistake | why."""


def test_the_newer_corpus_says_why_for_every_row_and_is_large_enough() -> None:
    assert len(NEWER_ROWS) >= 100
    assert all(len(row) == 5 and row[4] for row in NEWER_ROWS)


def test_the_corpus_is_large_enough() -> None:
    assert len(ROWS) >= 150


def test_every_template_in_the_bank_is_in_a_corpus() -> None:
    covered = {row[0].partition("#")[0] for row in [*ROWS, *BANK_ROWS]}
    spoken = {tid for tid, t in BANK.templates.items()
              if all(p.answer_kind in ("spoken", "layout") for p in t.all_parts())}
    assert sorted(set(BANK.templates) - covered - spoken) == []


ALL_ROWS = [*ROWS, *BANK_ROWS, *(row[:4] for row in NEWER_ROWS)]


@pytest.mark.parametrize(("variant", "typed", "verdict", "mistake"), ALL_ROWS,
                         ids=[f"{r[0]}:{r[1][:60]}" for r in ALL_ROWS])
def test_grader_agrees_with_the_expert(variant: str, typed: str, verdict: str,
                                       mistake: str) -> None:
    variant, _, step = variant.partition(" step ")
    variant, _, part = variant.partition(" part ")
    tid, seed = parse_variant_id(variant)
    assert seed is not None
    drawn = make_variant(BANK.get(tid), seed)
    pv = walk(drawn).steps[int(step) - 1].pv if step else drawn.parts[int(part or 1) - 1]
    g = grade(pv, typed)
    assert (g.verdict, g.mistake or "-") == (verdict, mistake), (g.read_as, g.feedback)
    if verdict != "partial":
        assert g.score in (0.0, 1.0)
