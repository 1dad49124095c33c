"""Formula answers: an expression in the prompt's letters, each letter a solver name."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from questions.errors import FieldError
from questions.kinds.base import DrawnKey, KeyContext, Location, QuestionKind
from questions.model import KnownMistake

if TYPE_CHECKING:
    from questions.fields import PartFields as Part
    from questions.kinds.answers.formula import FormulaAnswer, FormulaMistake
    from questions.model import Key, PartVariant

__all__ = ["KIND", "NAME", "FormulaKnownMistake", "known"]

NAME = "formula"
"""The kind's name in templates (``answer_kind``)."""


def fields() -> type[FormulaAnswer]:
    """The model of a formula's `[answer]`."""
    from questions.kinds.answers.formula import FormulaAnswer

    return FormulaAnswer


def answer(part: Part) -> FormulaAnswer:
    """A formula part's `[answer]`."""
    return cast("FormulaAnswer", part.answer)


def mistake_fields() -> type[FormulaMistake]:
    """The model of a formula's `[[mistakes]]` (a wrong formula)."""
    from questions.kinds.answers.formula import FormulaMistake

    return FormulaMistake


def mistakes(part: Part) -> list[FormulaMistake]:
    """A formula part's known mistakes."""
    return cast("list[FormulaMistake]", part.mistakes)


class FormulaKnownMistake(KnownMistake, frozen=True):
    """A formula's known mistake as drawn: the wrong formula."""

    formula: str


def known(pv: PartVariant) -> tuple[FormulaKnownMistake, ...]:
    """A formula part's known mistakes as drawn (:func:`draw_key`)."""
    return cast("tuple[FormulaKnownMistake, ...]", pv.mistakes)


def mistake_figure(part: Part, key: Key, m: KnownMistake) -> str:
    """The wrong formula (its name where it has none)."""
    return cast("FormulaKnownMistake", m).formula or m.name


def check_part(part: Part) -> None:
    """A formula answer names its formula and what each letter stands for."""
    if not answer(part).formula or not answer(part).symbols:
        raise FieldError(("answer",), "a formula answer needs answer.formula and "
                         "answer.symbols")


def check_loaded(part: Part, base: Location) -> list[tuple[Location, str]]:
    """Each letter stands for a solver key or quantity; template formulas go through the
    same safe reader as typed answers."""
    import sympy as sp

    from questions.text import NAMES, suggest_name
    from solver.formula import read_formula

    a = answer(part)
    out: list[tuple[Location, str]] = []
    for sym, name in a.symbols.items():
        if name not in NAMES:
            close = suggest_name(name, NAMES)
            out.append((base + ["answer", "symbols", sym], f"unknown key or quantity "
                        f"{name!r}" + (f" (did you mean {close}?)" if close else "")))
    allowed = {letter: sp.Symbol(letter, positive=True) for letter in a.symbols}
    texts = [(base + ["answer", "formula"], a.formula)] + [
        (base + ["mistakes", i, "formula"], m.formula) for i, m in enumerate(mistakes(part))]
    for loc, text in texts:
        if text:
            try:
                read_formula(text, allowed)
            except ValueError as exc:
                out.append((loc, str(getattr(exc, "message", exc))))
    return out


def draw_key(ctx: KeyContext) -> DrawnKey:
    """The formula as written; mistakes are wrong formulas."""
    from questions.model import Key

    a = answer(ctx.part)
    key = Key(NAME, a.formula or "", formula=a.formula, symbols=dict(a.symbols))
    return DrawnKey(key, tuple(FormulaKnownMistake(m.name, m.feedback, m.credit, m.formula)
                               for m in mistakes(ctx.part)))


def answer_line(pv: PartVariant) -> str:
    """The formula and what its letters mean."""
    legend = ", ".join(f"{k} = {v}" for k, v in pv.key.symbols.items())
    return f"Answer: {pv.key.formula}   ({legend})"


KIND = QuestionKind(check_part, draw_key, answer_line, check_loaded, answer_fields=fields,
                    mistake_fields=mistake_fields, mistake_figure=mistake_figure)
