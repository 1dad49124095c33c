"""Spoken answers (the 30-second answer): a paragraph graded against a rubric.

The rubric lives in the template's answer: figures the answer should state (each a
solver quantity or an expression, with a tolerance, a label and a weight), claims
(phrases and their synonyms), order rules and a model answer. A variant's key holds
every figure's value; its display is the model answer written for that variant, so
typing the key back states every figure and grades correct. Reading and grading the
paragraph is :mod:`quiz.core.kinds.spoken`'s work.
"""

from __future__ import annotations

import math
import string
from typing import TYPE_CHECKING, cast

from questions.errors import FieldError, TemplateError
from questions.kinds.base import DrawnKey, KeyContext, Location, QuestionKind
from questions.model import KnownMistake

if TYPE_CHECKING:
    from questions.fields import PartFields as Part
    from questions.kinds.answers.spoken import Figure, SpokenAnswer, SpokenMistake
    from questions.kinds.base import Rederived
    from questions.model import FigureKey, Key, PartVariant

__all__ = ["KIND", "MAX_UNSTATED_SHARE", "NAME", "SpokenKnownMistake", "answer", "fields",
           "figure_derivation", "fill_figures", "known"]

MAX_UNSTATED_SHARE = 0.2
"""The most that claims and order rules together may be worth: an answer that states
no figure at all must not score more than this."""


def fields() -> type[SpokenAnswer]:
    """The model of a spoken answer's `[answer]` (the rubric)."""
    from questions.kinds.answers.spoken import SpokenAnswer

    return SpokenAnswer


def answer(part: Part) -> SpokenAnswer:
    """A spoken part's `[answer]`."""
    return cast("SpokenAnswer", part.answer)


def mistake_fields() -> type[SpokenMistake]:
    """The model of a spoken answer's `[[mistakes]]` (a wrong value of one figure)."""
    from questions.kinds.answers.spoken import SpokenMistake

    return SpokenMistake


def mistakes(part: Part) -> list[SpokenMistake]:
    """A spoken part's known mistakes."""
    return cast("list[SpokenMistake]", part.mistakes)


class SpokenKnownMistake(KnownMistake, frozen=True):
    """A spoken answer's known mistake as drawn: a wrong value of one figure."""

    value: float
    """In the figure's base unit."""
    figure: str
    """The id of the figure it is a wrong value of."""


def known(pv: PartVariant) -> tuple[SpokenKnownMistake, ...]:
    """A spoken part's known mistakes as drawn (:func:`draw_key`)."""
    return cast("tuple[SpokenKnownMistake, ...]", pv.mistakes)


def mistake_value(m: KnownMistake) -> float:
    """The wrong value a known mistake states (of its figure)."""
    return cast("SpokenKnownMistake", m).value


def mistake_figure(part: Part, key: Key, m: KnownMistake) -> str:
    """The mistake's value in its figure's unit."""
    from solver.units import format_value

    sm = cast("SpokenKnownMistake", m)
    unit = next((f.unit for f in key.figures if f.id == sm.figure), key.unit) or "1"
    return format_value(sm.value, unit)


def rederived(part: Part) -> list[tuple[int, Rederived]]:
    """Every known mistake: each is one figure derived another way."""
    return list(enumerate(mistakes(part)))


def _total(part: Part) -> tuple[float, float]:
    a = answer(part)
    figures = sum(f.weight for f in a.figures)
    words = sum(c.weight for c in a.claims) + sum(o.weight for o in a.order)
    return figures, words


def key_texts(part: Part) -> list[tuple[Location, str]]:
    """The model answer (its `{figure}` placeholders are the rubric's)."""
    return [(["answer", "model_answer"], answer(part).model_answer)]


def expressions(part: Part) -> list[tuple[Location, str, str | None]]:
    """Each figure's expression, in the figure's unit."""
    return [(["answer", "figures", i, "expr"], f.expr, f.unit)
            for i, f in enumerate(answer(part).figures) if f.expr]


def quantities(part: Part) -> list[str]:
    """The figures' quantities."""
    return [f.quantity for f in answer(part).figures if f.quantity]


def check_part(part: Part) -> None:
    """Figures, a model answer that states each, unique ids, known order ids, mistakes
    tied to a figure, and figures worth at least 80 % of the score."""
    a = answer(part)
    if not a.figures:
        raise FieldError(("answer", "figures"), "a spoken answer needs at least one "
                         "[[answer.figures]]: the figures the answer should state")
    if not a.model_answer.strip():
        raise FieldError(("answer", "model_answer"), "a spoken answer needs a "
                         "model_answer that states every figure ({id}) and claim")
    ids: set[str] = set()
    for where, item_id in [("figures", f.id) for f in a.figures] + [
            ("claims", c.id) for c in a.claims]:
        if item_id in ids:
            raise FieldError(("answer", where), f"the id {item_id!r} is used twice; "
                             "figures and claims need ids of their own")
        ids.add(item_id)
    for i, rule in enumerate(a.order):
        for side in ("before", "after"):
            name = getattr(rule, side)
            if name not in ids:
                raise FieldError(("answer", "order", i, side), f"{name!r} names no figure "
                                 f"or claim; the ids are {', '.join(sorted(ids))}")
        if rule.before == rule.after:
            raise FieldError(("answer", "order", i, "after"), "an order rule needs two "
                             "different items")
    try:
        placed = {name for _, name, _, _ in string.Formatter().parse(a.model_answer)
                  if name}
    except ValueError as exc:
        raise FieldError(("answer", "model_answer"), f"unbalanced braces ({exc})") from None
    unstated = [f.id for f in a.figures if f.id not in placed]
    if unstated:
        raise FieldError(("answer", "model_answer"), f"the model answer does not state "
                         f"{{{unstated[0]}}}: write each figure as {{id}} so it is right "
                         "for every variant")
    figure_ids = {f.id for f in a.figures}
    for i, m in enumerate(mistakes(part)):
        if m.figure not in figure_ids:
            raise FieldError(("mistakes", i, "figure"), "a spoken answer's mistake names "
                             "the figure it is a wrong value of: one of "
                             f"{', '.join(sorted(figure_ids))}")
    figures, words = _total(part)
    if words > MAX_UNSTATED_SHARE * (figures + words):
        share = words / (figures + words)
        raise FieldError(("answer", "claims"), f"claims and order rules are worth "
                         f"{share:.0%} of the score, so an answer stating no figure could "
                         f"score that much; keep them at most {MAX_UNSTATED_SHARE:.0%} "
                         "(raise the figures' weights)")


def check_loaded(part: Part, base: Location) -> list[tuple[Location, str]]:
    """Figures name quantities, keys and expressions the solver knows; the model
    answer's placeholders exist and do not say a figure's unit twice; `answer.show` is
    given."""
    from questions.dimensions import dim_of_unit
    from questions.text import NAMES, placeholder_problems
    from solver.keys import KEYS
    from solver.light import QUANTITIES
    from solver.units import BASE_UNITS

    out: list[tuple[Location, str]] = []
    a = answer(part)
    for i, f in enumerate(a.figures):  # the exprs compile with every kind's expressions
        at: Location = base + ["answer", "figures", i]
        if f.quantity is not None and f.quantity not in QUANTITIES:
            out.append((at + ["quantity"], f"unknown quantity {f.quantity!r}"))
        for k in f.set:
            if k not in KEYS:
                out.append((at + ["set", k], f"unknown solver key {k!r}"))
        if f.unit is not None:
            if f.unit not in BASE_UNITS:
                out.append((at + ["unit"], f"{f.unit!r} is not a base unit; use one of "
                            f"{', '.join(BASE_UNITS)}"))
            elif f.quantity in QUANTITIES and \
                    dim_of_unit(QUANTITIES[str(f.quantity)].unit) != dim_of_unit(f.unit):
                out.append((at + ["unit"], f"{f.quantity} is in "
                            f"{QUANTITIES[str(f.quantity)].unit}, not {f.unit}"))
        elif f.expr is not None:
            out.append((at + ["unit"], "a figure with an expr needs its unit"))
    names = NAMES | frozenset({"model", "gpu"}) | frozenset(f.id for f in a.figures)
    texts = {"model": True, "gpu": True} | {f.id: True for f in a.figures}
    from questions.checks import _unit_twice
    from questions.located import AT

    for written, reason in placeholder_problems(a.model_answer, names, texts,
                                                [f.id for f in a.figures]):
        # located on the placeholder's own line of the (long) model answer
        out.append((base + ["answer", "model_answer", AT + written], f"{written}: {reason}"))
    # Learn mode walks through `answer.show`: a spoken part has no quantity of its own.
    if not a.show:
        named = [f.quantity for f in a.figures if f.quantity in QUANTITIES]
        example = ", ".join(f'"{q}"' for q in dict.fromkeys(named)) or '"QUANTITY"'
        out.append((base + ["answer"], "a spoken answer needs answer.show: learn mode walks "
                    "through those quantities, as a spoken part has no single quantity of "
                    f"its own; e.g. show = [{example}] (the quantities of its figures)"))
    # The model answer does not follow a figure with the figure's own unit.
    units = {f.id: f.unit or (QUANTITIES[str(f.quantity)].unit if f.quantity in QUANTITIES
                              else "1") for f in a.figures}
    for written, reason in _unit_twice(a.model_answer, frozenset(), units):
        out.append((base + ["answer", "model_answer", AT + written], reason))
    return out


def _unit(f: Figure) -> str:
    from solver.light import QUANTITIES

    if f.unit:
        return f.unit
    q = f.quantity
    return str(QUANTITIES[q].unit) if q is not None and q in QUANTITIES else "1"


def fill_figures(text: str, figures: dict[str, str]) -> str:
    """Replace each ``{id}`` of a figure by its display; other placeholders stay.

    >>> fill_figures("{state} for {model}", {"state": "1.13 TB"})
    '1.13 TB for {model}'
    """
    out = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        if name in figures:
            out.append(figures[name].replace("{", "{{").replace("}", "}}"))
        else:
            out.append("{" + name + (f"!{conversion}" if conversion else "")
                       + (f":{spec}" if spec else "") + "}")
    return "".join(out)


def draw_key(ctx: KeyContext) -> DrawnKey:
    """Every figure's value; the key's display is the model answer for this draw."""
    from questions.model import FigureKey, Key
    from solver.units import format_value

    part = ctx.part
    figures: list[FigureKey] = []
    for f in answer(part).figures:
        value = ctx.value(dict(f.set), f.expr, f.quantity)
        if not math.isfinite(value) or value <= 0:
            reason = f"figure {f.id!r} is not a finite positive number ({value})"
            raise TemplateError(f"{ctx.template_id}: {reason}", reason=reason)
        unit = _unit(f)
        figures.append(FigureKey(f.id, f.label, value, unit, format_value(value, unit),
                                 f.tolerance, f.weight, dict(f.set), f.quantity or "",
                                 f.expr or ""))
    by_id = {f.id: f for f in answer(part).figures}
    keys = {f.id: f for f in figures}
    found: list[KnownMistake] = []
    for m in mistakes(part):
        assert m.figure is not None  # check_part requires it
        spec, fk = by_id[m.figure], keys[m.figure]
        if m.scale is not None:
            mv = fk.value * m.scale
        else:
            mv = ctx.value({**spec.set, **m.set}, m.expr or spec.expr,
                           None if (m.expr or spec.expr) else spec.quantity)
        found.append(SpokenKnownMistake(m.name, m.feedback, m.credit, mv, m.figure))
    text = fill_figures(answer(part).model_answer, {f.id: f.display for f in figures})
    model_answer = ctx.render(text, "model_answer")
    key = Key("spoken", model_answer, tolerance=min(f.tolerance for f in figures),
              figures=tuple(figures))
    return DrawnKey(key, tuple(found))


def answer_line(pv: PartVariant) -> str:
    """The figures the answer should state."""
    return "Answer: " + "; ".join(f"{f.label} {f.display}" for f in pv.key.figures)


def figure_derivation(pv: PartVariant, figure: FigureKey) -> str:
    """One line saying how the solver gets a figure: formula, numbers, result.

    Raises:
        SolverError, ExprError: the figure cannot be derived (a template bug).
    """
    from questions.derivation import show_expr
    from questions.expr import compile_expr
    from questions.text import NAMES, describe
    from solver.inputs import resolve_inputs
    from solver.light import evaluate, solve
    from solver.units import format_value

    overrides = {**pv.overrides, **figure.overrides}
    if figure.quantity:
        r = solve(figure.quantity, model=pv.model, gpu=pv.gpu, overrides=overrides)
        step = r.steps[-1]
        return f"{step.formula} = {step.substituted} = {step.display}"
    e = compile_expr(figure.expr, NAMES)
    inputs = resolve_inputs(pv.model, pv.gpu, overrides)
    values = {n: v for n, v in inputs.values.items() if n in e.names}
    values |= evaluate([n for n in e.names if n not in values], inputs)
    env = {n: str(describe(n, values[n])) for n in e.names}
    return (f"{show_expr(e.tree)} = {show_expr(e.tree, env)} = "
            f"{format_value(figure.value, figure.unit)}")


NAME = "spoken"
"""The kind's name in templates (``answer_kind``)."""


def names_slip(name: str) -> bool:
    """A figure stated wrong may be one of the number grader's generic slips."""
    from questions.kinds.number import GRADER_SLIPS

    return GRADER_SLIPS.fullmatch(name) is not None

KIND = QuestionKind(check_part, draw_key, answer_line, check_loaded, key_texts=key_texts,
                    expressions=expressions, quantities=quantities, answer_fields=fields,
                    mistake_fields=mistake_fields, rederived=rederived,
                    names_mistake=names_slip, mistake_value=mistake_value,
                    mistake_figure=mistake_figure)
