"""Number answers: a value in a base unit, from a solver quantity or an expression."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, cast

from questions.errors import FieldError, TemplateError
from questions.kinds.base import DrawnKey, KeyContext, Location, QuestionKind
from questions.model import KnownMistake

if TYPE_CHECKING:
    from questions.fields import PartFields as Part
    from questions.kinds.answers.number import NumberAnswer, NumberMistake
    from questions.kinds.base import Rederived
    from questions.model import Key, PartVariant

__all__ = ["KIND", "NAME", "TOLERANCE", "NumberKnownMistake", "answer", "fields", "key",
           "known", "known_mistake", "mistake_fields", "mistakes"]

NAME = "number"
"""The kind's name in templates (``answer_kind``)."""


TOLERANCE = 0.03
"""A number's relative tolerance unless its template says otherwise (within 3 %)."""


def key(display: str, value: float, unit: str, tolerance: float = TOLERANCE) -> Key:
    """A number key: ``value`` in base ``unit``, graded within ``tolerance``."""
    from questions.model import Key

    return Key(NAME, display, value, unit, tolerance)


def step_part(prompt: str, unit: str, tolerance: float, quantity: str = "") -> Part:
    """A number part without a template: a derivation's step (``quantity``: the solver
    quantity it works out; one that rounds to a whole number is graded exactly)."""
    from questions.schema import Part as ValidatedPart

    answer = fields()(unit=unit, tolerance=tolerance,
                      count="exact" if quantity in WHOLE_QUANTITIES else "")
    # Every field given: pydantic inspects a default factory's signature on each
    # model_construct that calls one (1 ms, most of a step's cost).
    return ValidatedPart.model_construct(prompt=prompt, answer_kind=NAME, answer=answer,
                                         choices=[], rows=[], columns={}, mistakes=[],
                                         hints=[], tags=[])


def fields() -> type[NumberAnswer]:
    """The model of a number's `[answer]`."""
    from questions.kinds.answers.number import NumberAnswer

    return NumberAnswer


def answer(part: Part) -> NumberAnswer:
    """A number part's `[answer]` (validated as :func:`fields`, or its stored view)."""
    return cast("NumberAnswer", part.answer)


def mistake_fields() -> type[NumberMistake]:
    """The model of a number's `[[mistakes]]`."""
    from questions.kinds.answers.number import NumberMistake

    return NumberMistake


def mistakes(part: Part) -> list[NumberMistake]:
    """A number part's known mistakes (validated as :func:`mistake_fields`)."""
    return cast("list[NumberMistake]", part.mistakes)


class NumberKnownMistake(KnownMistake, frozen=True):
    """A number's known mistake as drawn: the value a learner who makes it types."""

    value: float
    """In the key's base unit."""


def known_mistake(name: str, feedback: str, credit: float, value: float) -> KnownMistake:
    """A known mistake whose answer is ``value`` (in the key's base unit)."""
    return NumberKnownMistake(name, feedback, credit, value)


def known(pv: PartVariant) -> tuple[NumberKnownMistake, ...]:
    """A number part's known mistakes as drawn (:func:`draw_key`)."""
    return cast("tuple[NumberKnownMistake, ...]", pv.mistakes)


def mistake_value(m: KnownMistake) -> float:
    """The value a known mistake stands for."""
    return cast("NumberKnownMistake", m).value


def mistake_figure(part: Part, key: Key, m: KnownMistake) -> str:
    """The mistake's value in the key's unit (in IEC units where the answer is)."""
    from solver.units import format_value

    unit = key.unit or "1"
    binary = unit in ("B", "B/s") and answer(part).binary
    return format_value(mistake_value(m), unit, binary=binary)


def rederived(part: Part) -> list[tuple[int, Rederived]]:
    """Every known mistake: each is the answer derived another way."""
    return list(enumerate(mistakes(part)))


def check_part(part: Part) -> None:
    """A number answer derives from exactly one of a quantity or an expression."""
    a = answer(part)
    if (a.quantity is None) == (a.expr is None):
        raise FieldError(("answer",), "a number answer needs exactly one of "
                         "answer.quantity or answer.expr")


def texts(part: Part) -> list[tuple[Location, str]]:
    """The explanation, the combination's why and the accepted conventions' notes."""
    a = answer(part)
    out: list[tuple[Location, str]] = [(["answer", "explanation"], a.explanation),
                                       (["answer", "why"], a.why)]
    return out + [(["answer", "accept", i, "note"], acc.note)
                  for i, acc in enumerate(a.accept)]


def expressions(part: Part) -> list[tuple[Location, str, str | None]]:
    """The answer's expression (its dimension is checked against the answer's unit)."""
    expr = answer(part).expr
    return [(["answer", "expr"], expr, None)] if expr else []


def quantities(part: Part) -> list[str]:
    """The answer's quantity."""
    q = answer(part).quantity
    return [q] if q else []


GIB_DISPLAY_SLIP = "right bytes, but the tool prints GiB"
"""The slip of a GB figure typed where the question asks what a tool prints in GiB."""

GRADER_SLIPS = re.compile(r"[kMGTPE]?B vs [KMGTPE]iB|bits vs bytes|off by a thousand|"
                          + re.escape(GIB_DISPLAY_SLIP))
"""Names of the slips the number grader (quiz.core.kinds.number) recognises on any
question, beside a template's own mistakes: an example may name them too."""


WHOLE_QUANTITIES = frozenset({"kv_capacity_requests"})
"""Solver quantities whose formula rounds to a whole number (the requests that fit): an
answer that is one of them is an exact count. A test keeps this equal to the quantities
whose formula's outermost call is floor or ceiling."""


def count_mode(part: Part) -> str:
    """How a number answer counts: "exact", "floor", "either" (floor or ceiling) or ""
    (not a count). An `expr` whose outermost call is
    floor() or ceil(), or a `quantity` that rounds to a whole number, is an exact
    count."""
    a = answer(part)
    if a.count:
        return str(a.count)
    if a.expr and re.fullmatch(r"\s*(?:floor|ceil)\(.*\)\s*", a.expr):
        return "exact"
    if a.quantity in WHOLE_QUANTITIES and not a.expr:
        return "exact"
    return ""


def draw_key(ctx: KeyContext) -> DrawnKey:
    """The value, its display, the mistakes' values and the accepted conventions'."""
    from questions.model import AcceptedVariant
    from solver.light import QUANTITIES
    from solver.units import COUNT_UNITS, format_value

    a = answer(ctx.part)
    value = ctx.value({}, a.expr, a.quantity)
    unit = a.unit or (QUANTITIES[a.quantity].unit if a.quantity else "1")
    if not math.isfinite(value):
        raise TemplateError(f"{ctx.template_id}: the answer is not finite",
                            reason="the answer is not finite")
    binary = a.binary and unit in ("B", "B/s")
    display = format_value(value, unit, binary=binary)
    if count_mode(ctx.part) == "floor" and abs(value) < 1e15:
        value = float(math.floor(value))  # the largest whole number that fits
    if count_mode(ctx.part) in ("exact", "floor") and value == int(value) and abs(value) < 1e15:
        # a count is shown, and graded, to the unit ("185 requests" keeps its noun)
        display = format_value(value, unit) if unit in COUNT_UNITS else f"{int(value):,}"
    drawn = key(display, value, unit, a.tolerance)
    found: list[KnownMistake] = []
    for m in mistakes(ctx.part):
        if m.scale is not None:
            mv = value * m.scale
        else:
            mv = ctx.value(m.set, m.expr if m.expr else (a.expr if m.set else None),
                           None if m.expr else a.quantity)
        found.append(NumberKnownMistake(m.name, m.feedback, m.credit, mv))
    accepted = [AcceptedVariant(acc.name, acc.note, ctx.value(acc.set, a.expr, a.quantity))
                for acc in a.accept]
    return DrawnKey(drawn, tuple(found), tuple(accepted))


def answer_line(pv: PartVariant) -> str:
    """The value in SI and, for bytes, IEC units."""
    from solver.units import format_both

    if pv.key.value is not None and pv.key.unit:
        return f"Answer: {format_both(pv.key.value, pv.key.unit)}"
    return f"Answer: {pv.key.display}"


KIND = QuestionKind(check_part, draw_key, answer_line, amount_of=answer, texts=texts,
                    expressions=expressions, quantities=quantities, answer_fields=fields,
                    mistake_fields=mistake_fields, rederived=rederived, count=count_mode,
                    names_mistake=lambda name: GRADER_SLIPS.fullmatch(name) is not None,
                    mistake_value=mistake_value, mistake_figure=mistake_figure)
