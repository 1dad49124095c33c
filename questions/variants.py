"""Variants: a template and a seed give parameters, prompts and answer keys.

The parameters are drawn by :mod:`questions.params` (the seed's only random draw); here
each part's prompt, key, known mistakes and follow-through are derived from them, its
key by its answer kind (:mod:`questions.kinds`). The value types are
:mod:`questions.model`'s and the texts :mod:`questions.text`'s (both re-exported here
for the layers above).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from msgspec.structs import replace

from questions.errors import TemplateError
from questions.expr import ExprError
from questions.model import (
    AcceptedVariant,
    Carried,
    FigureKey,
    Follow,
    Key,
    KnownMistake,
    PartVariant,
)
from questions.params import (
    COVERAGE_SEEDS,
    MAX_DRAWS,
    Compiled,
    Coverage,
    _free,
    _split,
    compiled,
    draw_coverage,
    draw_params,
)
from questions.text import (
    EXAMPLE_PLACEHOLDER,
    MAX_SPEC_NUMBER,
    MISTAKE_PLACEHOLDER,
    PRESET_ATTRIBUTES,
    _env,
    _format,
    _names,
    _only,
    _placeholders,
    describe,
    hbm_text,
    mistake_figure,
    part_texts,
    picks_text,
    placeholder_problems,
    pv_env_value,
    reflow,
    short_name,
    spec_too_large,
    suggest_name,
    table_display,
)
from solver.errors import SolverError

if TYPE_CHECKING:
    from questions.schema import Part, Scalar, Template
    from solver.engine import Inputs

__all__ = ["COVERAGE_SEEDS", "EXAMPLE_PLACEHOLDER", "MAX_DRAWS", "MAX_SPEC_NUMBER",
           "MISTAKE_PLACEHOLDER", "PRESET_ATTRIBUTES", "AcceptedVariant", "Carried",
           "Compiled", "Coverage", "FigureKey", "Follow", "Key", "KnownMistake",
           "PartVariant", "Variant", "compiled", "describe", "draw_coverage", "draw_params",
           "hbm_text", "make_variant", "mistake_figure", "parse_variant_id", "part_texts",
           "picks_text", "placeholder_problems", "pv_env_value", "reflow", "short_name",
           "spec_too_large", "suggest_name", "table_display", "variant_ref", "variant_with"]

class Variant(Struct, dict=True):
    """A template at one seed."""

    template: Template
    seed: int
    params: dict[str, Scalar]
    parts: list[PartVariant]

    @cached_property
    def inputs(self) -> Inputs:
        """The solver's inputs for the drawn parameters (resolved on first use, so that a
        variant read back from the cache needs no solver)."""
        from solver.inputs import resolve_inputs

        return resolve_inputs(*_split(self.params, self.template.fixed))

    @property
    def id(self) -> str:
        """`TEMPLATE_ID#SEED`, the form users can paste to reproduce it."""
        return f"{self.template.id}#{self.seed}"

    @property
    def intro(self) -> str:
        """The scenario's setting, formatted."""
        return self.parts[0].prompt if not self.template.intro else _format(
            self.template.intro, self.parts[0].env, {**self.template.fixed, **self.params},
            ("intro",))


def parse_variant_id(text: str) -> tuple[str, int | None]:
    """Split `TEMPLATE_ID#SEED` into its parts (seed None when absent).

    Raises:
        TemplateError: a seed that breaks the rule of :func:`questions.seeds.read_seed`.
    """
    from questions.seeds import read_seed

    tid, sep, seed = text.strip().partition("#")
    if not sep:
        return tid, None
    try:
        return tid, read_seed(seed)
    except ValueError as exc:
        raise TemplateError(str(exc)) from None


def variant_ref(text: str, seed: int | None, *, default: int | None = 0) -> tuple[str, int]:
    """`TEMPLATE_ID[#SEED]` plus an optional `--seed`: the template id and the seed.

    Raises:
        TemplateError: two different seeds, a negative seed, or no seed when there is
            no default.
    """
    tid, embedded = parse_variant_id(text)
    if seed is not None:
        if embedded is not None and embedded != seed:
            raise TemplateError(f"two different seeds given ({embedded} and {seed})")
        embedded = seed
    if embedded is None:
        if default is None:
            raise TemplateError("a seed is needed: --seed N or TEMPLATE_ID#SEED")
        embedded = default
    from questions.seeds import check_seed

    try:
        return tid, check_seed(embedded)
    except ValueError as exc:
        raise TemplateError(str(exc)) from None


def make_variant(t: Template, seed: int) -> Variant:
    """Draw the variant of `t` at `seed`: parameters, prompts, keys and mistakes.

    Raises:
        TemplateError: the constraints cannot be met in MAX_DRAWS draws, or an answer
            cannot be derived (named, with the solver's reason).
    """
    return variant_with(t, seed, draw_params(t, seed)[0])


def variant_with(t: Template, seed: int, params: dict[str, Scalar]) -> Variant:
    """The variant of `t` at `seed` with these parameters, not drawn: its parts' prompts,
    keys and mistakes derived from them (a follow-up derives the same parts with one
    input changed).

    Raises:
        TemplateError: an answer cannot be derived (named, with the solver's reason).
    """
    comp = compiled(t)
    parts: list[PartVariant] = []
    for i, p in enumerate(t.all_parts(), 1):
        parts.append(_part(t, seed, i, p, params, comp, parts))
    return Variant(t, seed, params, parts)


def _value(part: Part, params: Mapping[str, Scalar], fixed: Mapping[str, Scalar],
           extra: Mapping[str, Scalar], comp: Compiled, expr: str | None = None,
           quantity: str | None = None) -> tuple[float, Inputs]:
    from solver.inputs import resolve_inputs
    from solver.light import evaluate

    model, gpu, over = _split(params, fixed, part.answer.set, extra)
    inputs = resolve_inputs(model, gpu, over)
    if expr is not None:
        e = comp.exprs[expr]
        return float(e.value(_only(inputs, e.names) | _free(params))), inputs
    name = quantity
    assert name is not None  # a kind asks for its quantity or its expression
    return evaluate([name], inputs)[name], inputs


def _follow(t: Template, part: Part, params: Mapping[str, Scalar], inputs: Inputs,
            comp: Compiled, earlier: list[PartVariant]) -> Follow | None:
    """The follow-through of a part whose answer says `follow` (validated on load)."""
    from questions.kinds import kind_of

    kind = kind_of(part.answer_kind)
    if not kind.amount:  # only an amount follows through
        return None
    a = kind.amount_of(part)
    if not a.follow or a.expr is None:
        return None
    carried = []
    for k in a.follow:
        pv = earlier[k - 1]
        name = kind_of(pv.kind).amount_of(pv.spec).quantity
        assert name is not None and pv.key.value is not None and pv.key.unit is not None
        carried.append(Carried(k, name, pv.key.unit, pv.key.value))
    e = comp.exprs[a.expr]

    def derive(values: Mapping[str, float]) -> float:
        return float(e.value(_only(inputs, e.names) | _free(params) | dict(values)))

    return Follow(tuple(carried), a.follow_credit, derive)


def _part(t: Template, seed: int, index: int, part: Part, params: dict[str, Scalar],
          comp: Compiled, earlier: list[PartVariant]) -> PartVariant:
    from questions.kinds import kind_of
    from questions.kinds.base import KeyContext
    from solver.inputs import resolve_inputs

    a = part.answer
    kind = kind_of(part.answer_kind)
    model, gpu, over = _split(params, t.fixed, a.set)
    shown = {**t.fixed, **params}
    try:
        inputs = resolve_inputs(model, gpu, over)
        env = _env(inputs, _names() & _placeholders("\n".join([t.intro, *part_texts(part)]))) \
            | _free(params)

        def render_key_text(text: str, name: str) -> str:
            names = _names() & _placeholders(text)
            return _format(text, _only(inputs, names) | _free(params), shown,
                           ("parts", index - 1, "answer", name) if t.parts
                           else ("answer", name))
        drawn = kind.draw_key(KeyContext(
            t.id, part, inputs,
            lambda extra, expr, quantity: _value(part, params, t.fixed, extra, comp, expr,
                                                 quantity)[0],
            lambda text: bool(comp.exprs[text].value(
                _only(inputs, comp.exprs[text].names) | _free(params))),
            render_key_text))
        key, mistakes, accepted = drawn.key, drawn.mistakes, drawn.accepted
        follow = _follow(t, part, params, inputs, comp, earlier)
    except (SolverError, ExprError) as exc:
        field: tuple[str | int, ...] = ("parts", index - 1) if t.parts else ()
        field += next((tuple(loc) for loc, text, _ in kind.expressions(part)
                       if isinstance(exc, ExprError) and exc.expr == text), ("answer",))
        raise TemplateError(f"{t.id}: part {index}: {exc}", field=field,
                            reason=str(exc)) from exc
    except (ArithmeticError, RecursionError) as exc:  # e.g. a drawn value too large
        reason = f"the answer cannot be derived: {type(exc).__name__}: {exc}"
        raise TemplateError(f"{t.id}: part {index}: {reason}",
                            field=("parts", index - 1, "answer") if t.parts else ("answer",),
                            reason=reason) from exc

    def render(text: str, name: str = "prompt") -> str:
        return _format(text, env, shown, ("parts", index - 1, name) if t.parts else (name,))
    def render_feedback(text: str, j: int) -> str:
        # {mistake} in a mistake's feedback is that mistake's own figure ("406 GB").
        figure = mistake_figure(part, key, mistakes[j]) if j < len(mistakes) else ""
        return _format(text, env, {**shown, MISTAKE_PLACEHOLDER: figure},
                       ("parts", index - 1, "mistakes", j, "feedback") if t.parts
                       else ("mistakes", j, "feedback"))

    prompt = render(part.prompt)
    # Every text a learner reads is rendered here, once: choices, hints, the mistakes'
    # feedback, the explanation and the accepted conventions' notes.
    spec = part.model_copy(update={
        "choices": [render(c) for c in part.choices],
        "hints": [h.model_copy(update={"text": render(h.text)}) for h in part.hints],
        "answer": _rendered(a, kind.texts(part), render),
        "mistakes": [m.model_copy(update={"feedback": render_feedback(m.feedback, j)})
                     for j, m in enumerate(part.mistakes)]})
    mistakes = tuple(replace(m, feedback=render_feedback(m.feedback, j))
                     for j, m in enumerate(mistakes))
    accepted = tuple(replace(acc, note=render(acc.note)) for acc in accepted)
    pv = PartVariant(index, prompt, spec, key, mistakes, accepted, dict(over), model, gpu,
                     env, follow)
    arrange = kind_of(part.answer_kind).arrange
    # A random stream of its own, so that arranging never moves the parameters' draws.
    return pv if arrange is None else arrange(pv, arranging(t.id, seed, index))


def arranging(tid: str, seed: int, index: int) -> random.Random:
    """The random source that arranges part `index` of variant ``tid#seed``."""
    return random.Random(f"{tid}#{seed}#{index}")



def _rendered(answer: Any, texts: list[tuple[list[str | int], str]],
              render: Callable[[str], str]) -> Any:
    """``answer`` (a model or a stored view) with each of its kind's texts rendered; a
    text is named by its path under the part (``["answer", "accept", 0, "note"]``)."""
    for path, text in texts:
        if text:
            answer = _with(answer, path[1:], render(text))
    return answer


def _with(node: Any, path: list[str | int], value: str) -> Any:
    """``node`` with the value at ``path`` replaced (models and views copied, lists and
    dicts rebuilt): a frozen template is never changed in place."""
    head, rest = path[0], path[1:]
    if isinstance(node, list):
        assert isinstance(head, int)
        return [*node[:head], _with(node[head], rest, value) if rest else value,
                *node[head + 1:]]
    if isinstance(node, dict):
        return {**node, head: _with(node[head], rest, value) if rest else value}
    assert isinstance(head, str)
    return node.model_copy(update={head: _with(getattr(node, head), rest, value)
                                   if rest else value})
