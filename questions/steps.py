"""Learn mode's steps: a variant's worked derivation turned into sub-questions.

:func:`walk` reads the structured derivation of every part (:mod:`questions.derivation`)
and makes each step that computes something a question of its own, graded by the same
reader and grader as the whole question: each :class:`LearnStep` carries a
:class:`~questions.variants.PartVariant` whose key is the step's value, so
``quiz.core.grading.grade(step.pv, text)`` reads units, applies the template's
tolerance and recognizes the template's known mistakes where they apply to the step.

Which steps are asked:

* a step that only quotes a value (a preset's parameter count, read from a table) is
  shown, not asked: it is a *given* of the next asked step;
* a step whose value was already asked or shown in this walk is shown, not asked again;
* the last step of a number part is the part itself (its key, tolerance, accepted
  conventions and known mistakes), so the chain ends on the question's own key;
* a choice or multi-select part with no arithmetic behind it is asked option by option
  (yes or no, with the template's reason for that option); a table row by row;
* a template's ``[[steps]]`` gives a step a friendlier prompt or skips it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

if TYPE_CHECKING:
    from collections.abc import Mapping

    from questions.derivation import Step
    from questions.schema import StepSpec
    from questions.variants import Key, PartVariant, Variant

__all__ = ["LearnStep", "Walk", "step_phrase", "walk"]

SAME = 1e-6
"""Two values within this relative difference are the same number (already asked)."""


@dataclass(frozen=True)
class LearnStep:
    """One step of a walk-through, asked as a question of its own.

    Attributes:
        index: 1-based among the walk's asked steps (``quiz check --step K``).
        part: the 1-based part of the variant it leads to.
        quantity: the solver quantity it computes; ``answer`` for a template's own
            combination of quantities; ``option:b`` or ``row:tp`` for a step of a
            choice or table question.
        prompt: the step as a question.
        pv: the step as a gradable part (its key is the step's value).
        work: the derivation step behind it (why, formula, substitution, result);
            None for an option or row step.
        explanation: what is shown when the step is answered wrong.
        given: bookkeeping steps shown (not asked) just before this one.
        final: whether this step's key is the part's own key.
        what: what the step computes, as a short phrase ("the bytes of model state
            per parameter", "option b").
        working: the explanation without its result, shown after a wrong answer so
            that the retry is still the learner's own.
        inputs: the variant's values of the keys the step's formula reads
            ("seq = 8,192"), shown with the step: the question's text may not state
            them all (a formula question's worked numbers, a preset's shape).
    """

    index: int
    part: int
    quantity: str
    prompt: str
    pv: PartVariant
    work: Step | None
    explanation: str
    given: tuple[Step, ...] = ()
    final: bool = False
    what: str = ""
    working: str = ""
    inputs: tuple[str, ...] = ()

    @property
    def key(self) -> Key:
        """The expected answer of the step."""
        return self.pv.key

    def to_json(self, expected: Mapping[str, Any]) -> dict[str, Any]:
        """The step as ``quiz ask --steps --json`` lists it, with its key's
        ``expected`` object (built by :func:`quiz.core.kinds.expected_json`, as for
        every other key the JSON contract prints)."""
        return {"index": self.index, "quantity": self.quantity, "prompt": self.prompt,
                "expected": dict(expected), "part": self.part, "answer_kind": self.pv.kind,
                "final": self.final, "explanation": self.explanation,
                "given": [g.why for g in self.given], "inputs": list(self.inputs)}


@dataclass(frozen=True)
class Walk:
    """A variant's walk-through: its asked steps in order, every part's steps together.

    Attributes:
        variant: the variant walked through.
        steps: the asked steps, in order (parts in order).
    """

    variant: Variant
    steps: tuple[LearnStep, ...]

    def part_steps(self, part: int) -> tuple[LearnStep, ...]:
        """The steps leading to one part (1-based)."""
        return tuple(s for s in self.steps if s.part == part)

    def step(self, index: int) -> LearnStep:
        """The asked step numbered ``index`` (1-based).

        Raises:
            TemplateError: no such step.
        """
        if not 1 <= index <= len(self.steps):
            from questions.errors import TemplateError

            raise TemplateError(f"{self.variant.id} has {len(self.steps)} step(s); no "
                                f"step {index} (see quiz ask {self.variant.id} --steps)")
        return self.steps[index - 1]


# ---------------------------------------------------------------- prompts

_ASK: dict[str, str] = {
    "params_per_gpu": "the number of parameters one GPU holds",
    "bytes_per_param": "the bytes of model state per parameter",
    "model_state_bytes": "the model state of the whole model (weights, gradients, "
                         "optimizer), in bytes",
    "zero_bytes_per_gpu": "the model state one GPU holds once ZeRO has sharded it",
    "kv_cache_bytes": "the KV cache in bytes",
    "train_flops": "the training FLOPs of the whole run",
    "train_time": "the training time of the run",
    "compute_time_microbatch": "the compute time of one micro-batch on one GPU",
    "effective_flops": "the FLOP/s one GPU really delivers (peak × MFU)",
    "mfu": "the model FLOPs utilization (achieved ÷ peak FLOP/s)",
    "comm_time": "the communication time",
    "pp_bubble": "the pipeline bubble as a fraction of the ideal compute time",
    "pp_bubble_share": "the pipeline bubble as a fraction of the whole step time",
    "checkpoint_write_time": "the time to write one checkpoint",
    "critical_batch_tokens": "critical batch in tokens (Kaplan et al.)",
    "train_time_fp8": "the training time at the FP8 peak",
    "cp_bytes": "the context-parallel K/V bytes per GPU per micro-batch",
}
"""Question phrases for quantities whose one-line meaning is a formula."""


def step_phrase(quantity: str, meaning: str) -> str:
    """What a step computes, as a phrase for a prompt ("the number of parameters ...").

    >>> step_phrase("params_per_gpu", "parameters held by one GPU: params/(tp*pp)")
    'the number of parameters one GPU holds'
    >>> step_phrase("activation_bytes", "saved activations of all layers held by one GPU")
    'the saved activations of all layers held by one GPU'
    """
    if quantity in _ASK:
        return _ASK[quantity]
    # "parameters one token passes through (MoE: top-k)": asides go first
    text = re.sub(r"\s*\([^()]*\)", "", meaning.replace("`", ""))
    words = next((p for p in text.split(": ") if not _formula_like(p.split(", ")[0])), "")
    # "bubble as a fraction of total step time, (p-1)/(v*m + p-1)": drop formula tails
    text = ", ".join(w for w in words.split(", ") if not _formula_like(w)).strip()
    if not text:
        return "the result"
    return text if text.startswith("the ") else f"the {text}"


def _formula_like(text: str) -> bool:
    return not text.strip() or any(mark in text for mark in (" x ", " / ", "_", "^", "*",
                                                              "/("))


def _number_prompt(phrase: str, first: bool, final: bool) -> str:
    lead = "First, work out" if first else "Now the last step: work out" if final \
        else "Next, work out"
    return f"{lead} {phrase}."


# ---------------------------------------------------------------- building a walk


def walk(variant: Variant) -> Walk:
    """The walk-through of a variant: every part's derivation as asked steps.

    Raises:
        SolverError, TemplateError, ExprError: a derivation the solver cannot produce
            (a template bug; the self-test reports it).
    """
    seen: list[tuple[str, float]] = []
    steps: list[LearnStep] = []
    specs = list(variant.template.steps)
    for pv in variant.parts:
        own = [s for s in specs if s.part == pv.index]
        steps += _part_steps(pv, own, seen, len(steps))
    return Walk(variant, tuple(steps))


def _same(seen: list[tuple[str, float]], unit: str, value: float) -> bool:
    return any(u == unit and abs(v - value) <= SAME * max(abs(v), abs(value))
               for u, v in seen)


def _part_steps(pv: PartVariant, specs: list[StepSpec], seen: list[tuple[str, float]],
                start: int) -> list[LearnStep]:
    from questions.derivation import explain
    from questions.kinds import kind_of

    kind = kind_of(pv.kind)
    d = explain(pv)
    a = pv.spec.answer
    amount = kind.amount_of(pv.spec) if kind.amount else None
    # Sections the template only shows come first: the chain ends on the key.
    shown_only = [s for s in d.sections if s.quantity in a.show
                  and (amount is None or s.quantity != amount.quantity)]
    rest = [s for s in d.sections if s not in shown_only]
    work = [st for sec in (*shown_only, *rest) for st in sec.steps]
    final_value = pv.key.value if kind.amount else None
    if d.combination is not None:
        work.append(d.combination)
    by_name = {s.quantity: s for s in specs}
    out: list[LearnStep] = []
    given: list[Step] = []

    def add(quantity: str, prompt: str, step_pv: PartVariant, st: Step | None,
            explanation: str, final: bool = False, what: str = "") -> None:
        spec = by_name.get(quantity)
        if spec is not None and spec.prompt:
            prompt = spec.prompt
        working = _explain(st, result=False) if st is not None else explanation
        out.append(LearnStep(start + len(out) + 1, pv.index, quantity, prompt, step_pv, st,
                             explanation, tuple(given), final, what or quantity, working,
                             _inputs(pv, st)))
        given.clear()

    for st in work:
        is_key = final_value is not None and st.unit == pv.key.unit and \
            _same([(st.unit, final_value)], st.unit, st.value)
        if is_key:
            continue  # the part's own key: asked once, as the last step (below)
        spec = by_name.get(st.quantity)
        if _same(seen, st.unit, st.value):
            continue  # asked or shown already in this walk
        seen.append((st.unit, st.value))
        if not st.formula or (spec and spec.skip):
            given.append(st)  # bookkeeping: shown, not asked
            continue
        phrase = step_phrase(st.quantity, st.meaning)
        add(st.quantity, _number_prompt(phrase, not out, False), _step_pv(pv, st, phrase),
            st, _explain(st), what=phrase)
    if amount is not None:
        assert pv.key.value is not None and pv.key.unit is not None
        seen.append((pv.key.unit, pv.key.value))
        final_work = next((st for st in reversed(work) if _same(
            [(pv.key.unit, pv.key.value)], st.unit, st.value)), None)
        quantity = (final_work.quantity if final_work else amount.quantity) or "answer"
        what = "the answer"
        if final_work is not None and final_work.quantity:
            what = step_phrase(quantity, final_work.meaning)
            prompt = _number_prompt(what, not out, bool(out))
        else:  # the template's own combination of the quantities
            how = _sentence(amount.why) if amount.why else \
                "combine the numbers to answer the question"
            prompt = f"{'Now the last step' if out else 'First'}: {how}. What do you get?"
        add(quantity, prompt, pv, final_work,
            _explain(final_work) if final_work else d.text(), final=True, what=what)
    elif not out and kind.walk_steps is not None:
        kind.walk_steps(pv, d.text(), add)
    return out


def _inputs(pv: PartVariant, st: Step | None) -> tuple[str, ...]:
    """The keys a step's formula reads, with this variant's values ("seq = 8,192")."""
    from questions.variants import describe, pv_env_value
    from solver.keys import KEYS
    from solver.quantities import QUANTITIES

    if st is None or not st.formula or not st.quantity:
        return ()
    out = []
    rhs = st.formula.split(" = ", 1)[-1]
    for name in dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", rhs)):
        if name not in KEYS or name in QUANTITIES or KEYS[name].group == "precision":
            continue  # bytes per element are the learner's to know (BF16, FP32)
        try:
            value = pv_env_value(pv, name)
        except (ValueError, LookupError, TypeError, ArithmeticError):
            continue  # a choice key (recompute = "full"): the step's words say it
        out.append(f"{name} = {describe(name, value)}")
    return tuple(out)


def _sentence(text: str) -> str:
    """An author's sentence inside a prompt: lower-case first letter, no full stop."""
    text = " ".join(text.split()).rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _explain(st: Step, *, result: bool = True) -> str:
    lines = [st.why]
    if st.formula:
        lines += [f"   {st.formula}", f"     = {st.substitution}"]
        if result:
            lines.append(f"     = {st.result}")
    return "\n".join(lines)


def _step_pv(pv: PartVariant, st: Step, phrase: str) -> PartVariant:
    """A derivation step as a gradable number part: the step's value and unit, the
    part's tolerance, and the part's known mistakes re-derived for this step."""
    from questions.kinds import kind_of
    from questions.kinds.build import amount_key, amount_part

    # An amount's steps are graded within its tolerance, any other part's within 3 %.
    kind = kind_of(pv.kind)
    tolerance = kind.amount_of(pv.spec).tolerance if kind.amount else None
    # A step that rounds to a whole number (the requests that fit) is graded exactly.
    spec = amount_part(f"Work out {phrase}.", st.unit, tolerance, st.quantity)
    key = amount_key(st.result, st.value, st.unit, tolerance)
    return replace(pv, prompt=spec.prompt, spec=spec, key=key,
                   mistakes=_step_mistakes(pv, st), accepted=(), env=dict(pv.env),
                   follow=None)


def _step_mistakes(pv: PartVariant, st: Step) -> tuple[Any, ...]:
    """The part's known mistakes that change keys (``set``), re-derived for the step:
    "forgot the master copy" is a mistake of the bytes-per-parameter step too."""
    from questions.kinds import kind_of
    from questions.kinds.build import amount_mistake
    from solver.errors import SolverError
    from solver.inputs import resolve_inputs
    from solver.light import evaluate
    from solver.quantities import QUANTITIES

    if st.quantity not in QUANTITIES:
        return ()
    out = []
    for _, m in kind_of(pv.kind).rederived(pv.spec):
        if not m.set:
            continue
        try:
            inputs = resolve_inputs(pv.model, pv.gpu, {**pv.overrides, **m.set})
            value = float(evaluate([st.quantity], inputs)[st.quantity])
        except (SolverError, ArithmeticError, KeyError):
            continue
        if abs(value - st.value) > pv.key.tolerance * abs(st.value):
            out.append(amount_mistake(m.name, m.feedback, m.credit, value))
    return tuple(out)
