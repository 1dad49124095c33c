"""Worked solutions as data: the steps of a derivation, and one way to print them.

:func:`explain` builds a :class:`Derivation` from the same solver objects that produced
a part's key: for each quantity the solver derives, its steps, each with why it is done
(in words), the symbolic formula, the numbers substituted, and the result with its unit;
the conventions used, in words; the final combination when the key is an expression over
quantities; the answer; other accepted answers; and, once graded, the mistake the answer
matched. Every front end (the terminal app, ``quiz ask``/``check``, ``quiz solve``,
``quiz drill --plain``) renders this structure; nothing reads rendered text back.

A step also carries what a learner can be asked about it (:attr:`Step.quantity`,
:attr:`Step.meaning`, :attr:`Step.unit`, :attr:`Step.value`): enough to turn any step
into a question of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from solver.units import format_value

if TYPE_CHECKING:
    from questions.kinds.base import Amount
    from questions.model import PartVariant
    from solver.engine import Result
    from solver.light import Worked


@dataclass(frozen=True)
class Step:
    """One step of a worked derivation.

    Attributes:
        quantity: the solver name of what the step computes ("" for a template's own
            combination of quantities).
        meaning: what it computes, as a phrase a question can use ("gradient all-reduce
            bytes per rank per step").
        why: why the step is done, in words.
        formula: the symbolic formula as a person writes it ("" when the step only
            quotes a value).
        substitution: the formula with the numbers in ("" likewise).
        value: the result in base units.
        unit: the base unit ("B", "s", "1", ...).
        result: the result for people, with its unit ("25.9 GB").
    """

    quantity: str
    meaning: str
    why: str
    formula: str
    substitution: str
    value: float
    unit: str
    result: str

    @property
    def question(self) -> str:
        """The step asked as a question ("What is the ... ?"), for drills built on it."""
        return f"What is the {self.meaning}?" if self.meaning else "What is the result?"

    def to_json(self) -> dict[str, Any]:
        """The step as JSON."""
        return {"quantity": self.quantity, "meaning": self.meaning, "why": self.why,
                "formula": self.formula, "substitution": self.substitution,
                "value": self.value, "unit": self.unit, "result": self.result}


@dataclass(frozen=True)
class Section:
    """The derivation of one solver quantity: its steps and the conventions used."""

    quantity: str
    meaning: str
    steps: tuple[Step, ...]
    conventions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The section as JSON."""
        return {"quantity": self.quantity, "meaning": self.meaning,
                "steps": [s.to_json() for s in self.steps],
                "conventions": list(self.conventions)}


@dataclass(frozen=True)
class Derivation:
    """A worked solution.

    Attributes:
        intro: the template's explanation in words ("" when it has none).
        sections: one per solver quantity derived, in order.
        combination: the final step when the key is an expression over quantities.
        answer: the key as people read it.
        also: other accepted answers ("ring factor rounded to 2: 0.552 s").
        mistake: the known mistake an answer matched, as (name, feedback), once graded.
    """

    intro: str = ""
    sections: tuple[Section, ...] = ()
    combination: Step | None = None
    answer: str = ""
    also: tuple[str, ...] = ()
    mistake: tuple[str, str] | None = None

    @property
    def steps(self) -> tuple[Step, ...]:
        """Every step in order, the combination last."""
        out = tuple(s for sec in self.sections for s in sec.steps)
        return (*out, self.combination) if self.combination else out

    def with_mistake(self, name: str | None, feedback: str) -> Derivation:
        """The same derivation naming the mistake an answer matched (if any)."""
        return replace(self, mistake=(name, feedback) if name else None)

    def to_json(self) -> dict[str, Any]:
        """The derivation as JSON (``quiz ask --json`` gives it as ``derivation``)."""
        return {"intro": self.intro, "sections": [s.to_json() for s in self.sections],
                "combination": self.combination.to_json() if self.combination else None,
                "answer": self.answer, "also": list(self.also),
                "mistake": list(self.mistake) if self.mistake else None}

    def text(self) -> str:
        """The plain-text rendering (``quiz ask``, ``quiz check``, ``drill --plain``)."""
        return render_text(self)


# ---------------------------------------------------------------- rendering


def _step_lines(i: int, step: Step, indent: str) -> list[str]:
    lines = [f"{indent}{i}. {step.why}"]
    if step.formula:
        lines += [f"{indent}   {step.formula}",
                  f"{indent}     = {step.substitution}",
                  f"{indent}     = {step.result}"]
    return lines


def sentence_case(phrase: str) -> str:
    """A phrase with its first letter capitalized, unless it starts with a name
    (``bytes_per_param x params``) or a formula."""
    first = phrase.split(" ", 1)[0]
    if not first or "_" in first or not first.isalpha():
        return phrase
    return phrase[:1].upper() + phrase[1:]


def render_text(d: Derivation) -> str:
    """A derivation as plain text: prose, then per quantity its numbered steps, each with
    formula, substitution and result; conventions in words; the answer last."""
    lines: list[str] = []
    if d.intro:
        lines += [d.intro, ""]
    for sec in d.sections:
        lines.append(f"{sentence_case(sec.meaning)} ({sec.quantity}):")
        for i, step in enumerate(sec.steps, 1):
            lines += _step_lines(i, step, "  ")
        if sec.conventions:
            lines.append("  Conventions: " + "; ".join(sec.conventions) + ".")
        lines.append("")
    if d.combination:
        lines += [f"{d.combination.why}", f"   {d.combination.formula}",
                  f"     = {d.combination.substitution}",
                  f"     = {d.combination.result}", ""]
    if d.answer:
        lines.append(f"Answer: {d.answer}")
    lines += [f"Also accepted ({a})" for a in d.also]
    if d.mistake:
        lines.append(f"Your answer matches a known mistake ({d.mistake[0]}): "
                     f"{d.mistake[1]}")
    return "\n".join(lines).strip()


# ---------------------------------------------------------------- conventions in words

_WORDS: dict[str, dict[Any, str]] = {
    "ring_exact": {True: "ring all-reduce moves 2(N−1)/N × the buffer per GPU (exact)",
                   False: "ring factor rounded to 2 (the (N−1)/N dropped)"},
    "sequence_parallel": {True: "sequence parallelism: every activation is split across "
                                "the tensor-parallel GPUs",
                          False: "no sequence parallelism: only the matrix-multiply "
                                 "activations are split across the tensor-parallel GPUs"},
    "flash_attention": {True: "fused (flash) attention: no s×s score matrix is saved",
                        False: "attention scores and softmax saved (no flash attention)"},
    "recompute": {"none": "no activation recomputation",
                  "selective": "selective recomputation: attention's inner activations "
                               "recomputed",
                  "full": "full recomputation: only each layer's input is saved"},
    "activation_formula": {"korthikanti": "activations per layer 34·s·b·h bytes "
                                          "(Korthikanti et al.; Megatron-LM's estimator "
                                          "counts 18 + 4f/h, quiz layout counts them "
                                          "from the shape)",
                           "megatron": "activations per layer as Megatron-LM's estimator "
                                       "counts them: (18 + 4f/h)·s·b·h bytes with "
                                       "sequence parallelism, (10 + 24/tp)·s·b·h without",
                           "architecture": "activations per layer counted from the shape "
                                           "(norms, Q/K/V with grouped-query K/V, SwiGLU's "
                                           "three intermediates: 34·s·b·h for GPT-3, "
                                           "31.75 for Llama 3 405B)"},
    "fsdp_reshard": {True: "FSDP frees gathered weights after the forward pass and "
                           "gathers them again in the backward pass",
                     False: "FSDP keeps the gathered weights from forward to backward"},
    "zero": {"0": "no ZeRO sharding", "1": "ZeRO-1: optimizer state sharded",
             "2": "ZeRO-2: optimizer state and gradients sharded",
             "3": "ZeRO-3 (FSDP): optimizer state, gradients and weights sharded"},
    "binary": {True: "sizes shown in GiB/TiB", False: "sizes shown in GB/TB"},
    "tied_embeddings": {True: "input and output embeddings tied (one matrix)",
                        False: "input and output embeddings untied (two matrices)"},
    "mlp": {"swiglu": "SwiGLU MLP (3 matrices)", "gelu": "GELU MLP (2 matrices)"},
    "norm": {"rmsnorm": "RMSNorm (a scale per norm)",
             "layernorm": "LayerNorm (a scale and a bias per norm)"},
    "biases": {True: "linear layers with biases", False: "no biases"},
    "position": {"rope": "rotary positions (no weights)",
                 "learned": "learned position embeddings"},
    "attention": {"gqa": "grouped-query attention", "mla": "multi-head latent attention"},
}


def convention_words(key: str, value: Any) -> str:
    """A convention in words: ``ring_exact=True`` → "ring all-reduce moves 2(N−1)/N ..."."""
    words = _WORDS.get(key, {}).get(value)
    if words is None:
        words = _WORDS.get(key, {}).get(str(value))
    if words is not None:
        return words
    from solver.keys import KEYS

    return f"{KEYS[key].description}: {value}" if key in KEYS else f"{key}: {value}"


# ---------------------------------------------------------------- solver results


def result_section(r: Result | Worked, *, brief: bool = False, shape_shown: bool = True) -> Section:
    """One solver result as a section.

    Args:
        r: the solver's result.
        brief: quote the parameter count rather than derive it from the shape.
        shape_shown: list the model's own shape choices (MLP kind, norm ...) among the
            conventions; they are facts of a preset unless the shape is the question.
    """
    from solver.keys import KEYS
    from solver.light import QUANTITIES

    steps: list[Step] = []
    for s in r.steps:
        if brief and s.name in _SHAPE_STEPS:
            continue
        meaning = QUANTITIES[s.name].meaning if s.name in QUANTITIES else s.name
        if brief and s.name == "params":
            steps.append(Step(s.name, meaning, f"The model has {s.display} parameters, "
                              "counted from its shape (`quiz solve params` shows the "
                              "count).", "", "", s.value, s.unit, s.display))
            continue
        steps.append(Step(s.name, meaning, s.text, s.pretty, s.pretty_substituted,
                          s.value, s.unit, s.display))
    conventions = tuple(convention_words(k, v) for k, v in r.conventions.items()
                        if shape_shown or KEYS[k].group != "model")
    return Section(r.quantity, QUANTITIES[r.quantity].meaning, tuple(steps), conventions)


_SHAPE_STEPS = frozenset({"attention_params_layer", "mlp_params_layer", "norm_params_layer",
                          "expert_params_layer", "moe_shared_params_layer",
                          "embedding_params"})


# ---------------------------------------------------------------- template expressions

_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2,
               ast.Mod: 2, ast.Pow: 4}
_SYMBOL = {ast.Add: " + ", ast.Sub: " − ", ast.Div: "/", ast.FloorDiv: " // ",
           ast.Mod: " mod ", ast.Pow: "^"}


def show_expr(tree: ast.expr, env: Mapping[str, str] | None = None) -> str:
    """A template expression as a person writes it, in the author's order; with `env`
    every name replaced by its value as shown (``"25.9 GB"``).

    >>> show_expr(ast.parse("0.75 * achieved_flops / peak_flops", mode="eval").body)
    '0.75·achieved_flops/peak_flops'
    >>> show_expr(ast.parse("ceil(100 * (pp - 1) / t)", mode="eval").body,
    ...           {"pp": "4", "t": "10"})
    '⌈100 × (4 − 1) / 10⌉'
    """
    from solver.light import number

    times = " × " if env is not None else "·"

    def go(node: ast.expr, parent: ast.operator | None = None, right: bool = False) -> str:
        if isinstance(node, ast.Constant):
            return number(float(node.value))  # type: ignore[arg-type]
        if isinstance(node, ast.Name):
            return env[node.id] if env is not None else node.id
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"−{go(node.operand, ast.Pow())}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = [go(a) for a in node.args]
            if node.func.id in ("ceil", "floor") and len(args) == 1:
                left, rt = ("⌈", "⌉") if node.func.id == "ceil" else ("⌊", "⌋")
                return f"{left}{args[0]}{rt}"
            return f"{node.func.id}({', '.join(args)})"
        if isinstance(node, ast.BinOp):
            prec = _PRECEDENCE[type(node.op)]
            op = times if isinstance(node.op, ast.Mult) else _SYMBOL[type(node.op)]
            if env is not None and op == "/":
                op = " / "  # "1.4 PFLOP/s / 2.25 PFLOP/s": values carry their own slashes
            text = f"{go(node.left, node.op)}{op}{go(node.right, node.op, True)}"
            outer = _PRECEDENCE[type(parent)] if parent is not None else 0
            # a − (b + c) and a/(b·c) keep their brackets; a·b·c and a + b + c need none
            needs = prec < outer or (right and prec == outer
                                     and isinstance(parent, ast.Sub | ast.Div | ast.Pow))
            return f"({text})" if needs else text
        return ast.unparse(node)

    return go(tree)


# ---------------------------------------------------------------- a part's derivation


def explain(pv: PartVariant) -> Derivation:
    """The worked derivation of a part, from the same solver objects as its key.

    The derivation is kept on the part (a part is drawn once and read, never changed):
    the self-test, the walk-through and the feedback each ask for it.

    Raises:
        SolverError, TemplateError, ExprError: a derivation the solver cannot produce
            (the self-test reports it as a template bug).
    """
    done: Derivation | None = vars(pv).get(_EXPLAINED)
    if done is None:
        done = vars(pv)[_EXPLAINED] = _explain(pv)
    return done


def derivation_of(pv: PartVariant) -> Derivation:
    """The worked derivation people read (computed on first use: it runs the solver's
    steps), opened by a follow-up's before/after comparison.

    Never raises: a derivation the solver cannot produce becomes one saying why, so
    feedback and reports always render (the self-test calls :func:`explain` directly
    and reports the failure as a template bug).
    """
    done: Derivation | None = vars(pv).get(_SHOWN)
    if done is None:
        done = vars(pv)[_SHOWN] = _shown_derivation(pv)
    return done


def explanation_of(pv: PartVariant) -> str:
    """The worked derivation as plain text (the JSON contract's ``explanation``)."""
    return derivation_of(pv).text()


def keep(pv: PartVariant, derivation: Derivation) -> None:
    """Keep ``derivation`` as the part's (a variant read back from the cache)."""
    vars(pv)[_SHOWN] = derivation


def _shown_derivation(pv: PartVariant) -> Derivation:
    if pv.synthetic:  # keyed by the layout engine: no solver derivation to show
        return Derivation(intro=pv.side_by_side, answer=pv.key.display)
    try:
        base = explain(pv)
    except (ValueError, LookupError) as exc:  # SolverError, TemplateError, ExprError
        base = Derivation(intro=f"The worked derivation could not be produced: {exc}")
    if not pv.side_by_side:
        return base
    return replace(base, intro="\n\n".join(x for x in (pv.side_by_side, base.intro) if x))


_SHOWN = "derivation"
"""Where :func:`derivation_of` keeps a part's derivation as shown (never a field, so a
copy made with ``replace`` for another key starts without it)."""

_EXPLAINED = "_explained"
"""Where :func:`explain` keeps a part's derivation (on the part; never a field, so a
copy made with ``replace`` for another key starts without it)."""


def _explain(pv: PartVariant) -> Derivation:
    from questions.expr import compile_expr
    from questions.kinds import kind_of
    from questions.text import NAMES, describe, pv_env_value, reflow
    from solver.keys import KEYS
    from solver.light import QUANTITIES, solve

    a = pv.spec.answer
    amount = _amount(pv) if kind_of(pv.kind).amount else None
    names: list[str] = []
    if amount is not None:
        if amount.quantity:
            names = [amount.quantity]
        elif amount.expr:
            # Keys with a default that are also quantities (mfu) are inputs here.
            names = [n for n in _ordered_names(compile_expr(amount.expr,
                                                            NAMES | frozenset(pv.env)))
                     if n in QUANTITIES and not (n in KEYS and KEYS[n].default is not None)]
    names += [n for n in a.show if n not in names]
    sections = []
    for name in names:
        r = solve(name, model=pv.model, gpu=pv.gpu, overrides=pv.overrides)
        # The shape's count is the point only when it is the question itself.
        # The count from the shape is spelled out only when it is what was asked or
        # shown on purpose; elsewhere (an expression's `params`) it is quoted.
        brief = not (name in _SHAPE_STEPS | {"params", "active_params"}
                     and ((amount is not None and name == amount.quantity) or name in a.show))
        sections.append(result_section(r, brief=brief, shape_shown=not brief))
    combination = None
    if amount is not None and amount.expr and pv.key.value is not None and pv.key.unit:
        e = compile_expr(amount.expr, NAMES | frozenset(pv.env))
        env = {n: _shown(n, pv_env_value(pv, n), describe) for n in e.names}
        single = len(e.names) == 1 and isinstance(e.tree, ast.Name)
        if not single:
            why = reflow(amount.why) if amount.why else "Combine the results above with the " \
                "question's numbers."
            combination = Step("", _answer_meaning(pv), why,
                               show_expr(e.tree), show_expr(e.tree, env), pv.key.value,
                               pv.key.unit, format_value(pv.key.value, pv.key.unit,
                                                         binary=amount.binary))
    return Derivation(
        intro=reflow(a.explanation) if a.explanation else "",
        sections=tuple(sections), combination=combination, answer=_answer(pv),
        also=tuple(f"{acc.name}: {format_value(acc.value, pv.key.unit or '1')}"
                   for acc in pv.accepted))


def _shown(name: str, value: float, describe: Any) -> str:
    """A value inside a substitution: with its unit, except bytes per element (2 B
    would read as two billion)."""
    from solver.keys import KEYS

    if name in KEYS and KEYS[name].group == "precision":
        return number_text(value)
    return str(describe(name, value))


def number_text(value: float) -> str:
    """A plain number for a substitution."""
    from solver.light import number

    return number(value)


def _ordered_names(e: Any) -> list[str]:
    """The names of an expression in the order they are written."""
    return list(dict.fromkeys(n.id for n in ast.walk(e.tree) if isinstance(n, ast.Name)
                              and n.id in e.names))


def _amount(pv: PartVariant) -> Amount:
    """What an amount's kind says it is."""
    from questions.kinds import kind_of

    return kind_of(pv.kind).amount_of(pv.spec)


def _answer_meaning(pv: PartVariant) -> str:
    from solver.light import QUANTITIES

    q = _amount(pv).quantity  # the combination of an amount's expr
    return QUANTITIES[q].meaning if q else "answer"


def _answer(pv: PartVariant) -> str:
    from questions.kinds import kind_of

    return kind_of(pv.kind).answer_line(pv).removeprefix("Answer: ")


__all__ = ["Derivation", "Section", "Step", "convention_words", "derivation_of", "explain",
           "explanation_of", "keep", "render_text",
           "result_section", "show_expr"]
