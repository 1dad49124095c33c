"""The interviewer's follow-ups: "now the context is 128K", "half the nodes are gone".

A follow-up changes one input of a variant (sequence length, GPU count, GPU type,
dense -> MoE, global batch, interconnect, precision) and asks about the effect. Its key
comes from evaluating the *changed* variant, never from a rule of thumb:

* ``part``: a part of the template asked again, derived by the template's own machinery
  (:func:`questions.variants.variant_with`) with the changed input;
* ``layout``, ``axis``, ``memory``, ``step_time``, ``mfu``, ``fits``, ``moves``: the
  layout engine's public entry points (:func:`questions.layout.ranking_for`,
  :func:`questions.layout.workload_for`, :func:`solver.layouts.complete`) on the inputs
  before and after the change, so the keys follow the engine as it improves.

A variant's follow-ups are the template's ``[[followups]]`` then, for layout questions
and scenarios, a standard set (:data:`STANDARD_ENGINE`, :data:`STANDARD_PARTS`);
``quiz ask ID#SEED --followup K`` draws the K-th (1-based). Which value a follow-up
changes to is drawn from its own seed (``ID#SEED~K``), so a chain is a function of
``ID#SEED`` and the answers (the mock picks which follow-ups to ask from the answers).
Each follow-up is a separate family for spaced repetition: :attr:`FollowUp.family`.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from questions.errors import TemplateError
from questions.followspec import FollowUpSpec
from questions.kinds import kind_of
from questions.kinds.build import (
    AMOUNT,
    LAYOUT,
    PICK,
    amount_key,
    amount_mistake,
    layout_key,
    pick_key,
    pick_mistake,
)
from questions.variants import Key, KnownMistake, PartVariant
from solver.errors import QuizError

if TYPE_CHECKING:
    from questions.schema import Scalar, Template
    from questions.variants import Variant
    from solver.inputs import Inputs
    from solver.perf import Evaluation

STANDARD_ENGINE: tuple[FollowUpSpec, ...] = (
    FollowUpSpec(change="seq", to=[131072], ask="axis"),
    FollowUpSpec(change="gpus", factor=[0.5], ask="layout"),
    FollowUpSpec(change="moe", to=[8], ask="layout", harder=True),
    FollowUpSpec(change="seq", factor=[2], ask="memory"),
    FollowUpSpec(change="gpu", to=["gb200"], ask="axis", harder=True),
    FollowUpSpec(change="global_batch", factor=[0.5], ask="step_time"),
    FollowUpSpec(change="interconnect", factor=[0.25], ask="moves", harder=True),
    FollowUpSpec(change="precision", to=["fp8"], ask="mfu"),
)
"""Every layout question (a template with a layout part, or one that asks the learner
to lay out a cluster: tagged lay-it-out with the layout left open) gets these."""

LAYOUT_ASK = "layout"
"""The follow-up that asks to lay the cluster out again (``ask = "layout"``)."""

PARTS_TOPICS = ("layout", "scenario")
"""The topics whose templates (when not layout questions) get :data:`STANDARD_PARTS`."""

STANDARD_PARTS: tuple[FollowUpSpec, ...] = (
    FollowUpSpec(change="seq", factor=[2], ask="part"),
    FollowUpSpec(change="seq", factor=[0.5], ask="part"),
    FollowUpSpec(change="gpu", to=["h200", "b200", "h100"], ask="part"),
    FollowUpSpec(change="gpus", factor=[2], ask="part"),
    FollowUpSpec(change="precision", to=["fp32-grads"], ask="part"),
    FollowUpSpec(change="precision", to=["fp8-weights"], ask="part"),
    FollowUpSpec(change="moe", to=[8], ask="part", harder=True),
    FollowUpSpec(change="interconnect", factor=[0.5], ask="part"),
)
"""Every other scenario and layout question gets these: a number part asked again with
one input changed (the first part whose key the change moves)."""

BATCH_TOKENS = 2**22
"""When a scenario names no global batch, the layout engine's follow-ups assume about
4M tokens per step (the order of GPT-3's and Llama 2's batches), and say so."""

TOLERANCE = {"memory": 0.08, "step_time": 0.25, "mfu": 0.2}
"""Relative tolerance of the engine's numeric keys: memory is arithmetic a candidate
can redo; step time and MFU are estimates from a calibrated model (within 15-22% of
published runs), so an answer within a quarter shows the right reasoning."""


class NotApplicable(QuizError):
    """A follow-up that does not apply to this variant (one line: why)."""


class FollowPart(PartVariant):
    """A follow-up's question: graded like any part; its worked solution
    (:func:`questions.derivation.derivation_of`) opens with the engine's breakdown
    before and after the change, side by side (:attr:`side_by_side`), and one keyed by
    the engine (:attr:`synthetic`) is that comparison and the key."""


class FollowUp(Struct):
    """One follow-up of a variant, drawn.

    Attributes:
        index: K, 1-based among the variant's follow-ups.
        of: the variant, ``ID#SEED``.
        spec: what the template (or the standard set) declares.
        changes: solver key (or ``gpu``) -> (before, after).
        said: the interviewer's words about the change.
        pv: the question, graded by :func:`quiz.core.grading.grade` like any part.
        params: the variant's parameters with the change.
        before / after: the engine's layouts before and after (engine asks).
    """

    index: int
    of: str
    spec: FollowUpSpec
    changes: dict[str, tuple[Scalar, Scalar]]
    said: str
    pv: FollowPart
    params: dict[str, Scalar]
    before: Evaluation | None = None
    after: Evaluation | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def family(self) -> str:
        """The follow-up's family (its own spaced-repetition card): change and ask."""
        return family_of(self.spec)

    @property
    def template_id(self) -> str:
        """The template it follows."""
        return self.of.split("#", 1)[0]

    @property
    def card(self) -> str:
        """The id its attempts are recorded under: ``TEMPLATE+FAMILY``."""
        return f"{self.template_id}+{self.family}"

    @property
    def short(self) -> str:
        """The change in a few words ("128K tokens", "256 GPUs"), for lists and reports."""
        from solver.units import format_value

        c = self.changes
        change = self.spec.change
        if change == "seq":
            return f"{_count(float(c['seq'][1]))} tokens"
        if change == "gpus":
            a, b = c["gpus"]
            return f"half the GPUs ({b:,})" if float(b) * 2 == float(a) else f"{b:,} GPUs"
        if change == "gpu":
            return f"{str(c['gpu'][1]).upper()} instead of {str(c['gpu'][0]).upper()}"
        if change == "moe":
            return f"MoE of {c['experts'][1]} experts, same active size"
        if change == "global_batch":
            return f"global batch {c['global_batch'][1]:,}"
        if change == "interconnect":
            return f"network {format_value(float(c['inter_bw'][1]), 'B/s')} per GPU"
        if "peak_flops" in c:
            return "FP8 matmuls"
        return "FP32 gradients" if "grad_bytes" in c else "FP8 weights and KV cache"

    def to_json(self) -> dict[str, Any]:
        """The ``followup`` object of ``quiz ask --followup K --json``."""
        return {"index": self.index, "of": self.of,
                "changes": {k: [a, b] for k, (a, b) in self.changes.items()},
                "family": self.family, "ask": self.spec.ask, "said": self.said,
                "short": self.short,
                "harder": self.spec.harder}


def family_of(spec: FollowUpSpec) -> str:
    """What the follow-up changes, to what, and what it asks: ``seq131072-axis``,
    ``gpusx0.5-layout``, ``seqx2-part3``; the id of its spaced-repetition card (with
    the template's id)."""
    target = ",".join(f"x{f:g}" for f in spec.factor) or ",".join(str(x) for x in spec.to)
    ask = f"part{spec.part}" if spec.ask == "part" and spec.part else spec.ask
    return f"{spec.change}{target}-{ask}"


def standard_set(t: Template) -> tuple[FollowUpSpec, ...]:
    """The standard follow-ups of a template (empty for other than layout questions and
    scenarios)."""
    parts = t.all_parts()
    if any(kind_of(p.answer_kind).searches_layout for p in parts) or (
            "lay-it-out" in t.tags and "tp" not in t.params and "tp" not in t.fixed
            and ("gpus" in t.params or "gpus" in t.fixed)):
        return STANDARD_ENGINE
    if t.topic in PARTS_TOPICS:
        return STANDARD_PARTS
    return ()


def specs(t: Template) -> list[FollowUpSpec]:
    """Every follow-up of a template, in order: its own, then the standard set's
    (less those of a family it declares itself)."""
    own = list(t.followups)
    seen = {family_of(f) for f in own}
    return own + [f for f in standard_set(t) if family_of(f) not in seen]


def count(t: Template) -> int:
    """How many follow-ups a template's variants have (some may not apply to a seed)."""
    return len(specs(t))


def draw(variant: Variant, k: int) -> FollowUp:
    """The K-th follow-up of a variant (1-based).

    Raises:
        TemplateError: no K-th follow-up.
        NotApplicable: it does not apply to this variant (one line: why).
    """
    t = variant.template
    every = specs(t)
    if not 1 <= k <= len(every):
        raise TemplateError(f"{variant.id} has {len(every)} follow-up(s); no follow-up {k}"
                            if every else f"{t.id} has no follow-ups")
    spec = every[k - 1]
    rng = random.Random(f"{variant.id}~{k}")
    base = dict(_merged(variant))
    engine = spec.ask != "part"
    assumed = ""
    if engine and base.get("global_batch") is None and "global_batch" not in _values(
            variant):
        seq = int(_values(variant).get("seq") or 4096)
        gb = max(1, BATCH_TOKENS // seq)
        base["global_batch"] = gb
        assumed = (f"(Take a global batch of {gb:,} sequences, {_count(gb * seq)} tokens "
                   "per step.) ")
    changes, said = _change(spec, variant, base, rng)
    if spec.prompt:
        said = f"{' '.join(spec.prompt.split())} {said}"
    new = {k2: b for k2, (_, b) in changes.items()}
    params = {**variant.params, **new}
    if engine:
        fu = _engine(spec, variant, base, new, k, said, assumed, changes, params)
    else:
        fu = _part_again(spec, variant, new, k, said, changes, params)
    return fu


def drawable(variant: Variant) -> list[int]:
    """The follow-ups (K) that apply to a variant (drawing each once)."""
    out = []
    for k in range(1, count(variant.template) + 1):
        try:
            draw(variant, k)
        except NotApplicable:
            continue
        out.append(k)
    return out


# ---------------------------------------------------------------- the change


def _values(variant: Variant) -> Mapping[str, Any]:
    return variant.inputs.values


def _merged(variant: Variant) -> dict[str, Scalar]:
    """The variant's parameters and fixed keys (fixed wins, as in drawing)."""
    return {**variant.params, **variant.template.fixed}


def _count(n: float) -> str:
    """4194304 -> "4.19M"; 131072 -> "128K"."""
    binary: tuple[tuple[float, str], ...] = ((2.0**20, "M"), (2.0**10, "K"))
    for size, suffix in binary:
        if n >= size and n % size == 0:
            return f"{n / size:g}{suffix}"
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= size:
            return f"{n / size:.3g}{suffix}"
    return f"{n:g}"


def _pick(spec: FollowUpSpec, rng: random.Random, current: Any) -> Any:
    options = [v for v in spec.to if v != current]
    if not options:
        raise NotApplicable(f"the variant already has {spec.change} = {current}")
    return rng.choice(options)


def _change(spec: FollowUpSpec, variant: Variant, base: Mapping[str, Any],
            rng: random.Random) -> tuple[dict[str, tuple[Any, Any]], str]:
    """The keys the change sets (key -> (before, after)) and the interviewer's words."""
    from solver.presets import GPUS
    from solver.units import format_value

    v = {**_values(variant), **{k: x for k, x in base.items() if x is not None}}
    change = spec.change
    factor = rng.choice(spec.factor) if spec.factor else None
    out: dict[str, tuple[Any, Any]] = {}
    if change == "seq":
        seq = int(v.get("seq") or 4096)
        new = round(seq * factor) if factor else int(_pick(spec, rng, seq))
        if new == seq:
            raise NotApplicable(f"the sequences are already {seq} tokens")
        out["seq"] = (seq, new)
        said = f"Now the sequences are {_count(new)} tokens instead of {_count(seq)}"
        gb = v.get("global_batch")
        if gb:
            gb = int(gb)
            new_gb = max(1, round(gb * seq / new))
            if new_gb != gb:
                out["global_batch"] = (gb, new_gb)
                said += (f", and the global batch keeps its {_count(gb * seq)} tokens per "
                         f"step: {new_gb:,} sequences")
        return out, said + "."
    if change == "gpus":
        gpus = v.get("gpus")
        if not gpus:
            raise NotApplicable("the variant names no GPU count")
        gpus, node = int(gpus), int(v.get("gpus_per_node") or 8)
        new = int(gpus * factor) if factor else int(_pick(spec, rng, gpus))
        if new >= node:
            new -= new % node
        if new < 1 or new == gpus:
            raise NotApplicable(f"{gpus} GPUs cannot change by that factor")
        out["gpus"] = (gpus, new)
        if factor == 0.5 and gpus > node:
            return out, (f"Half the nodes are gone: {new:,} GPUs ({new // node} nodes) "
                         f"instead of {gpus:,}.")
        return out, f"Now you have {new:,} GPUs instead of {gpus:,}."
    if change == "gpu":
        cur = str(_merged(variant).get("gpu") or "")
        if not cur:
            raise NotApplicable("the variant names no GPU type")
        new_gpu = str(_pick(spec, rng, cur))
        out["gpu"] = (cur, new_gpu)
        said = f"You get {GPUS[new_gpu].title} instead of {GPUS[cur].title}"
        node_before = int(GPUS[cur].values.get("gpus_per_node", 8) or 8)
        node_after = int(GPUS[new_gpu].values.get("gpus_per_node", 8) or 8)
        if node_after != node_before:
            # The GPU count stays (a batch of whole powers of two rarely divides whole
            # racks of 72); the NVLink domain is what changes.
            out["gpus_per_node"] = (node_before, node_after)
            gpus = v.get("gpus")
            said += (f": the same {int(gpus):,} GPUs" if gpus else "") + (
                f", in NVLink domains of {node_after} instead of {node_before}")
        return out, said + "."
    if change == "moe":
        if v.get("experts"):
            raise NotApplicable("the model is already a mixture of experts")
        experts = int(_pick(spec, rng, 0))
        ffn = int(v["ffn"])
        out = {"experts": (0, experts), "experts_active": (int(v.get("experts_active") or 1),
                                                           2),
               "expert_ffn": (ffn, ffn // 2)}
        said = (f"It is a mixture of experts now: every MLP becomes {experts} experts of "
                f"width {ffn // 2:,}, two of them active per token, so each token still "
                f"passes through {ffn:,} MLP units (the same active size)")
        return out, said + _params_after(base, out) + "."
    if change == "global_batch":
        gb = v.get("global_batch")
        if not gb:
            raise NotApplicable("the variant names no global batch")
        gb = int(gb)
        new = max(1, round(gb * factor)) if factor else int(_pick(spec, rng, gb))
        if new == gb:
            raise NotApplicable("the global batch cannot change by that factor")
        out["global_batch"] = (gb, new)
        verb = "halve" if factor == 0.5 else "change"
        return out, (f"The global batch must {verb}: {new:,} sequences per step instead "
                     f"of {gb:,}.")
    if change == "interconnect":
        bw = float(v.get("inter_bw") or 50e9)
        new_bw = bw * factor if factor else float(_pick(spec, rng, bw))
        out["inter_bw"] = (bw, new_bw)
        return out, (f"The network between nodes is {format_value(new_bw, 'B/s')} per GPU "
                     f"({new_bw * 8 / 1e9:g} Gb/s) instead of {format_value(bw, 'B/s')}.")
    # precision
    name = str(_pick(spec, rng, None))
    if name == "fp8":
        fp8 = v.get("peak_flops_fp8")
        if not fp8:
            raise NotApplicable("this GPU has no FP8 peak")
        peak = float(v["peak_flops"])
        out["peak_flops"] = (peak, float(fp8))
        return out, (f"The matmuls run in FP8 now, at the GPU's FP8 peak of "
                     f"{format_value(float(fp8), 'FLOP/s')} instead of "
                     f"{format_value(peak, 'FLOP/s')}; the model state stays as it was.")
    if name == "fp8-weights":
        w, kv = float(v.get("weight_bytes") or 2), float(v.get("kv_bytes") or 2)
        if w == 1 and kv == 1:
            raise NotApplicable("weights and KV cache are already 1 byte")
        out = {"weight_bytes": (w, 1), "kv_bytes": (kv, 1)}
        return out, ("Weights, activations and the KV cache are stored in FP8 now: 1 byte "
                     "each.")
    g = float(v.get("grad_bytes") or 2)
    if g == 4:
        raise NotApplicable("the gradients are already FP32")
    return {"grad_bytes": (g, 4)}, ("The gradients are kept in FP32 now (4 bytes, as "
                                    "Megatron-LM does), not BF16.")


def _params_after(base: Mapping[str, Any], out: Mapping[str, tuple[Any, Any]]) -> str:
    """ "; 237 billion parameters in all instead of 70.6 billion" (the solver's counts),
    or "" when the inputs do not resolve."""
    from solver.light import evaluate
    from solver.units import format_value

    try:
        before = evaluate(["params"], _inputs(base, {}))["params"]
        after = evaluate(["params"], _inputs(base, {k: b for k, (_, b) in out.items()}))
    except (QuizError, ArithmeticError, ValueError):
        return ""
    return (f"; {format_value(after['params'], 'param')} parameters in all instead of "
            f"{format_value(before, 'param')}")


# ---------------------------------------------------------------- part asks


def changed_template(t: Template, new: Mapping[str, Scalar]) -> Template:
    """The template with the changed keys fixed (a fixed key wins over a drawn one)."""
    return t.model_copy(update={"fixed": {**t.fixed, **new}})


def changed_variant(variant: Variant, new: Mapping[str, Scalar]) -> Variant:
    """The variant with the change: every part derived again from the changed inputs.

    Raises:
        NotApplicable: the changed variant cannot be derived.
    """
    from questions.variants import variant_with

    t = changed_template(variant.template, new)
    params = {k: x for k, x in variant.params.items() if k not in new}
    try:
        return variant_with(t, variant.seed, params)
    except (TemplateError, ArithmeticError, ValueError) as exc:
        raise NotApplicable(f"the changed variant cannot be derived: {exc}") from exc


def _part_again(spec: FollowUpSpec, variant: Variant, new: Mapping[str, Scalar], k: int,
                said: str, changes: dict[str, tuple[Any, Any]],
                params: dict[str, Scalar]) -> FollowUp:
    after = changed_variant(variant, new)
    index = spec.part
    if index is None:
        index = next((p.index for p, q in zip(variant.parts, after.parts, strict=True)
                      if kind_of(p.kind).amount and p.key.value and q.key.value
                      and abs(q.key.value - p.key.value) > p.key.tolerance
                      * abs(p.key.value)), None)
        if index is None:
            raise NotApplicable("the change moves no number part of this variant")
    if index > len(after.parts):
        raise TemplateError(f"{variant.id} has no part {index}")
    pv, was = after.parts[index - 1], variant.parts[index - 1]
    mistakes = pv.mistakes
    side = f"Before the change: {_key_words(was)}.\nAfter it: {_key_words(pv)}."
    if kind_of(pv.kind).amount and was.key.value and pv.key.value and abs(
            was.key.value - pv.key.value) > 2 * pv.key.tolerance * abs(pv.key.value):
        mistakes = (amount_mistake(
            "figure before the change",
            f"That is the figure before the change ({was.key.display}). {said} That moves "
            f"it to {pv.key.display}.", 0.0, was.key.value), *mistakes)
    lead = f"{said}\n\n" + (f"Part {index} again: " if len(after.parts) > 1 else "")
    fp = _follow_part(pv, lead + pv.prompt, side, mistakes=mistakes)
    return FollowUp(k, variant.id, spec, changes, said, fp, params,
                    extra={"part": index})


def _key_words(pv: PartVariant) -> str:
    """A part's key as people read it (a choice's letters with their options' text)."""
    return kind_of(pv.kind).key_words(pv)


def _follow_part(pv: PartVariant, prompt: str, side: str, *, synthetic: bool = False,
                 mistakes: tuple[KnownMistake, ...] | None = None) -> FollowPart:
    values = {name: getattr(pv, name) for name in PartVariant.__struct_fields__}
    values["prompt"] = prompt
    if mistakes is not None:
        values["mistakes"] = tuple(mistakes)
    values["side_by_side"], values["synthetic"] = side, synthetic
    return FollowPart(**values)


# ---------------------------------------------------------------- engine asks


def _inputs(base: Mapping[str, Any], new: Mapping[str, Any]) -> Inputs:
    from solver.inputs import resolve_inputs
    from solver.keys import KEYS

    merged = {**base, **new}
    model, gpu = merged.pop("model", None), merged.pop("gpu", None)
    over = {k: x for k, x in merged.items() if k in KEYS and x is not None}
    over["microbatches"] = 1  # the engine picks the micro-batches (as layout grading does)
    return resolve_inputs(None if model is None else str(model),
                          None if gpu is None else str(gpu), over)


def _given(e: Evaluation) -> dict[str, int | str]:
    """A layout as the engine's `complete` takes it, DP left to follow the GPU count."""
    return {k: x for k, x in e.layout.as_dict().items() if k != "dp"}


def _typed(e: Evaluation) -> str:
    """The layout as a learner types it, without dp."""
    from questions.layout import key_of

    return " ".join(x for x in key_of(e).display.split() if not x.startswith("dp="))


_AXES = (("tp", "TP"), ("pp", "PP"), ("cp", "CP"), ("ep", "EP"), ("zero", "ZeRO"),
         ("micro_batch", "micro-batch"), ("interleave", "interleave"),
         ("recompute", "recompute"))
_GROUPS = ("tp", "pp", "cp", "ep")


def layout_moves(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    """What changes from layout `a` to `b`, axis by axis ("add CP 8; ZeRO 1 -> 3");
    "" when nothing but DP changes."""
    out = []
    for k, name in _AXES:
        x, y = a.get(k), b.get(k)
        if x == y or y is None:
            continue
        if k in _GROUPS and x == 1:
            out.append(f"add {name} {y}")
        elif k in _GROUPS and y == 1:
            out.append(f"drop {name} (was {x})")
        else:
            out.append(f"{name} {x} → {y}")
    text = "; ".join(out)
    return text[:1].upper() + text[1:]


class _Option(Struct, frozen=True):
    text: str
    mistake: str = ""
    feedback: str = ""


def _axis_options(spec: FollowUpSpec, a: Evaluation, b: Evaluation, node: int,
                  truth: str) -> list[_Option]:
    """The wrong directions people take, most common first, less any that is the truth."""
    lay = a.layout.as_dict()
    tp_far = max(int(lay["tp"]) * 2, node * 2)
    across = "TP across nodes for long context" if spec.change == "seq" else \
        "TP across nodes"
    wrong = [
        _Option(layout_moves(lay, {**lay, "tp": tp_far}) + " (TP across nodes)", across,
                f"TP {tp_far} spans {tp_far // node} nodes: its four all-reduces per layer "
                "and micro-batch would run on the network, an order of magnitude slower "
                "than NVLink. Keep TP inside a node; "
                + ("long sequences are split by context parallelism, whose K/V ring "
                   "hides behind attention." if spec.change == "seq" else
                   "shard the rest with ZeRO, PP or (for long sequences) CP.")),
        _Option(f"Nothing: {_typed(a)} stays the best layout (DP follows the GPU count)",
                "layout unchanged", "The change moves the engine's best layout: "
                f"{truth or 'see the comparison'}."),
    ]
    if int(lay["zero"]) != 3:
        wrong.append(_Option(
            f"Only ZeRO {lay['zero']} → 3: shard the model state further",
            "ZeRO for activations" if spec.change == "seq" else "more ZeRO",
            "ZeRO (even stage 3) shards weights, gradients and optimizer states, never the "
            "saved activations, which is what grows with the sequence." if spec.change ==
            "seq" else "Sharding the model state further is not what the change calls "
            "for here: compare the two layouts' breakdowns."))
    if spec.change != "seq":
        wrong.append(_Option(layout_moves(lay, {**lay, "cp": 2}), "CP without long sequences",
                             "Context parallelism pays for itself only when sequences are "
                             "long enough that activations or attention dominate."))
    wrong.append(_Option(layout_moves(lay, {**lay, "pp": int(lay["pp"]) * 2}), "",
                         "More pipeline stages cut the layers (and model state) each GPU "
                         "holds; compare the two layouts' breakdowns for what the change "
                         "really moves."))
    seen = {truth}
    out = []
    for o in wrong:
        if o.text in seen or not o.text:
            continue
        seen.add(o.text)
        out.append(o)
    return out[:3]


def _engine(spec: FollowUpSpec, variant: Variant, base: dict[str, Any],
            new: dict[str, Any], k: int, said: str, assumed: str,
            changes: dict[str, tuple[Any, Any]], params: dict[str, Scalar]) -> FollowUp:
    from questions.layout import ranking_for, workload_for
    from solver.errors import SolverError
    from solver.layouts import complete
    from solver.units import format_value

    try:
        before_in, after_in = _inputs(base, {}), _inputs(base, new)
        b0 = ranking_for(before_in).best
        w1 = workload_for(after_in)
    except SolverError as exc:
        raise NotApplicable(f"the layout engine cannot lay it out: {exc}") from exc
    node = w1.gpus_per_node
    ask = spec.ask
    context = (f"Before the change the engine's best layout was {_typed(b0)} "
               f"(DP {b0.layout.dp}): {format_value(b0.step_time, 's')} per step, "
               f"{format_value(b0.memory_per_gpu, 'B')} per GPU, MFU {b0.mfu:.1%}.")
    lead = f"{said} {assumed}{context}\n\n"
    merged = {**base, **new}
    model = merged.get("model")
    gpu = merged.get("gpu")
    over = {x: y for x, y in _inputs(base, new).values.items()
            if _inputs(base, new).origin.get(x) == "set"}
    rng = random.Random(f"{variant.id}~{k}~options")

    def part(prompt: str, kind: str, key: Key, mistakes: tuple[KnownMistake, ...],
             side: str, choices: list[str] | None = None, **answer: Any) -> FollowPart:
        from questions.kinds import kind_of
        from questions.schema import Part

        spec_ = Part.model_construct(
            prompt=lead + prompt, answer_kind=kind,
            answer=kind_of(kind).answer_fields().model_construct(**answer),
            choices=choices or [],
            rows=[], columns={}, mistakes=[], hints=[], tags=[])
        pv = PartVariant(1, lead + prompt, spec_, key, mistakes, (), over,
                         None if model is None else str(model),
                         None if gpu is None else str(gpu), {})
        return _follow_part(pv, lead + prompt, side, synthetic=True)

    def after_best() -> Evaluation:
        try:
            return ranking_for(after_in).best
        except SolverError as exc:
            raise NotApplicable(f"after the change nothing fits: {exc}") from exc

    def same_layout() -> Evaluation:
        from solver.perf import LayoutImpossible

        try:
            return complete(w1, _given(b0))
        except LayoutImpossible as exc:
            raise NotApplicable(f"the same layout cannot be built after the change: "
                                f"{exc}") from exc

    if ask == LAYOUT_ASK:
        b1 = after_best()
        from questions.layout import key_of

        key = layout_key(key_of(b1).display, b1.step_time)
        pv = part("Lay it out again: type the new layout as tp= pp= cp= ep= mb= zero= "
                  "(recompute=full if you want activations recomputed).", LAYOUT, key,
                  (), side_by_side([("before", b0), ("best after", b1)]))
        return FollowUp(k, variant.id, spec, changes, said, pv, params, b0, b1)
    if ask == "axis":
        b1 = after_best()
        truth = layout_moves(b0.layout.as_dict(), b1.layout.as_dict()) or \
            f"Nothing: {_typed(b0)} stays the best layout (DP follows the GPU count)"
        wrong = _axis_options(spec, b0, b1, node, truth)
        options = [_Option(truth), *wrong]
        rng.shuffle(options)
        labels = [chr(ord("a") + i) for i in range(len(options))]
        right = labels[options.index(_Option(truth))]
        mistakes = tuple(pick_mistake(o.mistake, o.feedback, 0.0, (lab,))
                         for lab, o in zip(labels, options, strict=True) if o.mistake)
        # (a named mistake says its own feedback; the others get theirs as the option's)
        feedback = {lab: o.feedback for lab, o in zip(labels, options, strict=True)
                    if o.feedback and not o.mistake}
        key = pick_key((right,))
        pv = part("What does the best layout change?", PICK, key, mistakes,
                  side_by_side([("before", b0), ("best after", b1)])
                  + f"\n\nThe best layout after the change: {_typed(b1)} (DP "
                  f"{b1.layout.dp}).", [o.text for o in options],
                  option_feedback=feedback)
        return FollowUp(k, variant.id, spec, changes, said, pv, params, b0, b1)
    if ask in ("memory", "fits", "moves"):
        e1 = same_layout()
        cols = [("before", b0), ("same after", e1)]
        with contextlib.suppress(SolverError):
            cols.append(("best after", ranking_for(after_in).best))
        side = side_by_side(cols)
        keep = f"Keep the layout {_typed(b0)} (DP takes the GPUs left)."
        if ask == "memory":
            value = e1.memory_per_gpu
            tol = TOLERANCE["memory"]
            ms = [("memory unchanged", "That is the memory before the change: "
                   f"{said} The layout now needs {format_value(value, 'B')} per GPU.", 0.0,
                   b0.memory_per_gpu)]
            if spec.change == "seq":
                r = changes["seq"][1] / changes["seq"][0]
                ms.append((
                    "all of it scaled with the sequence", "Only the activations (and "
                    "logits) grow with the sequence; weights, gradients and optimizer "
                    "states stay as they were.", 0.25, b0.memory_per_gpu * r))
            key = amount_key(format_value(value, "B"), value, "B", tol)
            pv = part(keep + " How much memory does one GPU need now (model state, "
                      "activations, logits and buffers)?", AMOUNT, key,
                      _distinct(ms, value, tol), side, tolerance=tol)
            return FollowUp(k, variant.id, spec, changes, said, pv, params, b0, e1)
        if ask == "fits":
            fit_options = ["Yes: it still fits in the GPU's memory.",
                           "No: it no longer fits."]
            right = "a" if e1.fits else "b"
            wrong_pick = "b" if e1.fits else "a"
            fit_ms = (pick_mistake("said it no longer fits" if e1.fits else
                                   "said it still fits",
                                   f"It needs {format_value(e1.memory_per_gpu, 'B')} per GPU "
                                   f"of {format_value(e1.usable, 'B')} usable.", 0.0,
                                   (wrong_pick,)),)
            key = pick_key((right,))
            pv = part(keep + " Does it still fit?", PICK, key, fit_ms, side,
                      fit_options)
            return FollowUp(k, variant.id, spec, changes, said, pv, params, b0, e1)
        movers = _movers(b0, e1)
        if not movers or movers[0][1] < MOVES_AT_LEAST:
            raise NotApplicable("the change moves too little to ask what moves most")
        texts = [t for t, _ in movers[:4]]
        texts += [t for t in _still(b0) if t not in texts][:4 - len(texts)]
        truth = texts[0]
        rng.shuffle(texts)
        right = chr(ord("a") + texts.index(truth))
        key = pick_key((right,))
        pv = part(keep + " Which figure of it moves most?", PICK, key, (), side,
                  [t[:1].upper() + t[1:] for t in texts])
        return FollowUp(k, variant.id, spec, changes, said, pv, params, b0, e1)
    b1 = after_best()
    side = side_by_side([("before", b0), ("best after", b1)]) + \
        f"\n\nThe best layout after the change: {_typed(b1)} (DP {b1.layout.dp})."
    if ask == "step_time":
        tol = TOLERANCE["step_time"]
        ms = [("step time unchanged", "That is the step time before the change; after "
               f"it the best layout steps in {format_value(b1.step_time, 's')}.", 0.0,
               b0.step_time)]
        key = amount_key(format_value(b1.step_time, "s"), b1.step_time, "s", tol)
        pv = part("What is the best layout's step time now?", AMOUNT, key,
                  _distinct(ms, b1.step_time, tol), side, tolerance=tol)
        return FollowUp(k, variant.id, spec, changes, said, pv, params, b0, b1)
    tol = TOLERANCE["mfu"]
    ms = [("MFU unchanged", "That is the MFU before the change.", 0.0, b0.mfu)]
    if "peak_flops" in changes:
        a, b = changes["peak_flops"]
        ms.append((
            "MFU against the old peak", "MFU is measured against the peak the matmuls "
            f"run at: after the change that is the FP8 peak ({format_value(b, 'FLOP/s')}), "
            "so the same FLOP/s is a smaller fraction of it.", 0.25, b1.mfu * b / a))
    key = amount_key(f"{b1.mfu:.1%}", b1.mfu, "1", tol)
    pv = part("What MFU does the best layout reach now (a fraction, or a percent)?",
              AMOUNT, key, _distinct(ms, b1.mfu, tol), side, tolerance=tol, unit="1")
    return FollowUp(k, variant.id, spec, changes, said, pv, params, b0, b1)


def _distinct(ms: list[tuple[str, str, float, float]], value: float,
              tol: float) -> tuple[KnownMistake, ...]:
    """The known mistakes of an amount (name, feedback, credit, value) whose figure is
    clearly not the key's."""
    return tuple(amount_mistake(*m) for m in ms
                 if m[3] > 0 and abs(m[3] - value) > 2 * tol * abs(value))


MOVES_AT_LEAST = 0.02
"""A `moves` follow-up is asked only when its top mover moves by at least this share of
the memory or of the step."""


def _still(a: Evaluation) -> list[str]:
    """The layout's memory lines and time terms, largest first (a `moves` question's
    other options)."""
    from solver.layouts import MEMORY_NAMES, TIME_NAMES

    lines = [(f"{name} (memory)", a.memory.get(k, 0.0) / a.usable)
             for k, name in MEMORY_NAMES.items() if a.memory.get(k, 0.0) > 0]
    lines += [(f"{name} (step time)", a.time.get(k, 0.0) / a.step_time)
              for k, name in TIME_NAMES.items() if a.time.get(k, 0.0) > 0]
    return [t for t, _ in sorted(lines, key=lambda x: -x[1])]


def _movers(a: Evaluation, b: Evaluation) -> list[tuple[str, float]]:
    """Memory lines and time terms by how far they move (share of memory / of step)."""
    from solver.layouts import MEMORY_NAMES, TIME_NAMES

    out = []
    for k, name in MEMORY_NAMES.items():
        d = abs(b.memory.get(k, 0.0) - a.memory.get(k, 0.0)) / a.usable
        if d > 0.005:
            out.append((f"{name} (memory)", d))
    for k, name in TIME_NAMES.items():
        d = abs(b.time.get(k, 0.0) - a.time.get(k, 0.0)) / a.step_time
        if d > 0.005:
            out.append((f"{name} (step time)", d))
    return sorted(out, key=lambda x: -x[1])


def side_by_side(cols: list[tuple[str, Evaluation]]) -> str:
    """The engine's breakdown of each layout in columns: memory by line, step time by
    term (exposed seconds), MFU; the layouts themselves above."""
    from solver.layouts import MEMORY_NAMES, TIME_NAMES
    from solver.units import format_value

    w = 11
    lines = [f"{name + ':':<12}{_typed(e)} (DP {e.layout.dp})" for name, e in cols]
    lines.append("")
    lines.append(f"{'':<25}" + "".join(f"{name:>{w}}" for name, _ in cols))

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"{label[:25]:<25}" + "".join(f"{c:>{w}}" for c in cells))

    row("memory per GPU", [format_value(e.memory_per_gpu, "B") for _, e in cols])
    for k, name in MEMORY_NAMES.items():
        if any(e.memory.get(k, 0.0) > 0 for _, e in cols):
            row("  " + name, [format_value(e.memory.get(k, 0.0), "B") for _, e in cols])
    row("  usable", [format_value(e.usable, "B") for _, e in cols])
    row("fits", ["yes" if e.fits else "NO" for _, e in cols])
    top = max(e.step_time for _, e in cols)
    row("step time", [format_value(e.step_time, "s") for _, e in cols])
    for k, name in TIME_NAMES.items():
        if any(e.time.get(k, 0.0) > 0.002 * top for _, e in cols):
            row("  " + name, [format_value(e.time.get(k, 0.0), "s") for _, e in cols])
    row("MFU", [f"{e.mfu:.1%}" for _, e in cols])
    return "\n".join(lines)


def by_family(t: Template, family: str) -> int | None:
    """The K of a template's follow-up of this family (None: it has none)."""
    return next((k for k, spec in enumerate(specs(t), 1) if family_of(spec) == family),
                None)
