"""Every drawn variant describes a cluster that can exist (issue 29).

A question that serves a model on some GPUs presumes the weights and the batch's KV cache
fit on them; one that asks what a GPU holds for a training layout presumes the layout
runs; one that times traffic on NVLink presumes its group sits inside one NVLink domain.
A draw that breaks what its prompt presumes teaches arithmetic about a machine that cannot
exist (one draw in five of `inference/decode-roofline-bound` held a KV cache twenty times
the node's memory). The rules below read what each part names (its answer, the figures of
a spoken answer, the quantities it shows, its `when` conditions and the placeholders of
its texts) and check every variant of every template over many seeds. A part that asks
*whether* something fits (a `when` over memory) is exempt from that rule: not fitting is
then a right answer, not a broken draw.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from helpers import bundled_bank, per_profile

from questions.kinds import choice, kind_of
from questions.schema import Part
from questions.variants import PartVariant, make_variant, part_texts, pv_env_value
from solver.errors import SolverError

BANK = bundled_bank()
SEEDS = per_profile(1, 60)
"""Seeds per template (a whole-bank sweep): one locally, 60 under QUIZ_FUZZ=full (CI)."""

SERVING = frozenset({
    "decode_bytes_step", "decode_memory_time", "decode_compute_time", "decode_step_time",
    "decode_tokens_per_s", "decode_tokens_per_s_user", "decode_intensity",
    "kv_capacity_tokens", "kv_capacity_requests", "serve_cost_per_mtok", "prefill_time",
    "serve_weight_bytes", "kv_cache_bytes",
})
"""Quantities that put a served model on the part's GPUs."""

TRAINING_PER_GPU = ("memory_per_gpu", "activation_bytes", "zero_bytes_per_gpu")
"""What one GPU holds in a training layout: each must fit in its memory."""

ON_NVLINK = frozenset({"intra_bw", "tp_layer_comm_time", "hier_intra_bytes",
                       "hier_allreduce_time", "microbatch_time", "step_time"})
"""Names that time a group's traffic on the node's NVLink."""

DOES_NOT_FIT_ON_PURPOSE = {
    ("scenario/long-context-128k", 2):
        "asks what one GPU would have to hold without CP, to show that it cannot",
}
"""Parts whose figure is over the memory because that is the lesson (each says so in its
prompt); the next parts of the same scenario must fit."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z_0-9]*)")


def names_of(part: Part, intro: str) -> frozenset[str]:
    """Every solver name a part's key, rubric, shown derivations, conditions and texts
    read."""
    kind = kind_of(part.answer_kind)
    exprs = [*kind.quantities(part), *(text for _, text, _ in kind.expressions(part)),
             *part.answer.show]
    texts = [intro, *part_texts(part), *(text for _, text in kind.key_texts(part))]
    return frozenset(n for e in exprs for n in _NAME.findall(e)) | frozenset(
        n for t in texts for n in _PLACEHOLDER.findall(t))


def asks_whether_it_fits(part: Part) -> bool:
    if kind_of(part.answer_kind).answer_fields is not choice.fields:
        return False  # only a choice's key depends on conditions (answer.when)
    return any(n in ("hbm_bytes", "memory_per_gpu")
               for w in choice.answer(part).when for n in _NAME.findall(w.if_))


def variants(only: str | None = None) -> Iterator[
        tuple[str, int, int, PartVariant, frozenset[str], bool]]:
    for tid in sorted(BANK.templates) if only is None else [only]:
        t = BANK.templates[tid]
        parts = list(t.all_parts())
        exempt = any(asks_whether_it_fits(p) for p in parts)
        named = [names_of(p, t.intro) for p in parts]
        for seed in range(SEEDS):
            v = make_variant(t, seed)
            for i, pv in enumerate(v.parts):
                yield tid, seed, i + 1, pv, named[i], exempt


def num(pv: PartVariant, name: str) -> float | None:
    try:
        return pv_env_value(pv, name)
    except (SolverError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def problems(pv: PartVariant, names: frozenset[str], exempt: bool) -> list[str]:
    """What the variant presumes and breaks."""
    out: list[str] = []
    tp = num(pv, "tp") or 1
    node = num(pv, "gpus_per_node") or 8
    hbm = num(pv, "hbm_bytes")
    if names & SERVING and pv.model is not None and pv.gpu is not None and not exempt:
        # the replica's GPUs: its TP group, or the GPUs the prompt names
        gpus = max(tp, (num(pv, "gpus") or 1) if "gpus" in names else 1)
        weights = num(pv, "serve_weight_bytes") or 0.0
        cache = num(pv, "kv_cache_bytes") or 0.0
        if hbm is not None and weights + cache > gpus * hbm:
            out.append(f"serving needs {(weights + cache) / 1e9:.0f} GB on {gpus:g} GPUs of "
                       f"{hbm / 1e9:.0f} GB")
        if gpus > node:
            out.append(f"a serving replica of {gpus:g} GPUs spans nodes of {node:g}")
        seq, window = num(pv, "seq"), num(pv, "max_context")
        if seq is not None and window is not None and seq > window:
            out.append(f"serves {seq:g} tokens beyond the model's native {window:g}")
    if not exempt and hbm is not None:
        # a spoken answer's figures carry their own keys (`set`): take their values
        held_by = {f.quantity: f.value for f in pv.key.figures if f.quantity}
        for name in TRAINING_PER_GPU:
            held = held_by.get(name) if pv.key.figures else (
                num(pv, name) if name in names else None)
            if held is not None and held > hbm:
                out.append(f"{name} = {held / 1e9:.0f} GB does not fit in {hbm / 1e9:.0f} GB")
        if "params_per_gpu" in names:  # the weights a layout leaves on one GPU
            per_gpu, wb = num(pv, "params_per_gpu"), num(pv, "weight_bytes") or 2.0
            if per_gpu is not None and per_gpu * wb > hbm:
                out.append(f"the weights alone, {per_gpu * wb / 1e9:.0f} GB per GPU, do not "
                           f"fit in {hbm / 1e9:.0f} GB")
    if names & ON_NVLINK and tp > 1:
        if tp > node:
            out.append(f"times tp={tp:g} on NVLink, beyond the {node:g} GPUs of a node")
        peer, intra = num(pv, "peer_bw"), num(pv, "intra_bw")
        if peer is not None and intra is not None and peer < intra and tp != node:
            out.append(f"times a tp={tp:g} group on the aggregate of a full mesh "
                       f"({intra / 1e9:.0f} GB/s); a sub-group sees {peer / 1e9:.0f} GB/s "
                       "per link")
    ep, experts = num(pv, "ep") or 1, num(pv, "experts")
    if ep > 1 and experts is not None and experts % ep:
        out.append(f"ep={ep:g} does not divide the {experts:g} experts")
    return out


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_every_drawn_variant_is_physically_possible_where_its_prompt_presumes_it(
        template_id: str) -> None:
    broken: dict[str, list[str]] = {}
    for tid, seed, index, pv, names, exempt in variants(template_id):
        on_purpose = (tid, index) in DOES_NOT_FIT_ON_PURPOSE
        for p in problems(pv, names, exempt or on_purpose):
            broken.setdefault(f"{tid} part {index}", []).append(f"#{seed}: {p}")
    report = [f"{where}: {len(found)} draws, e.g. {found[0]}" for where, found in
              sorted(broken.items())]
    assert report == []


@pytest.mark.parametrize(("tid", "overrides", "expected"), [
    ("inference/decode-roofline-bound",
     {"micro_batch": 1024, "seq": 32768, "tp": 4}, "serving needs"),
    ("long-context/cp-activation-memory",
     {"seq": 131072, "tp": 4, "cp": 2}, "activation_bytes"),
])
def test_the_rules_catch_an_impossible_draw(tid: str, overrides: dict[str, int],
                                            expected: str) -> None:
    """The property can fail: the draws the audit found, forced back in."""
    import msgspec

    t = BANK.get(tid)
    pv = make_variant(t, 0).parts[0]
    model = "llama3.1-70b"
    forced = msgspec.structs.replace(pv, model=model,
                                     overrides={**pv.overrides, **overrides}, env={})
    names = names_of(t.all_parts()[0], t.intro)
    assert any(expected in p for p in problems(forced, names, False))
