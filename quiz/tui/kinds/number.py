"""How the question screen asks for a number."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def _examples(part: PartVariant) -> list[str]:
    """Ways to type a value of the part's unit, none of them near its key (or a
    reference figure: 1.13 TB is Llama-3-70B's state)."""
    from solver.units import example_values

    return example_values(part.key.unit or "1", avoid=part.key.value)


def how_to_answer(part: PartVariant) -> str:
    """A number, with its unit unless the answer is a plain count or ratio."""
    shown = _examples(part)
    example = escape(shown[0] if len(shown) == 1 else
                     f"{', '.join(shown[:-1])} or {shown[-1]}")
    if part.key.unit in (None, "1"):
        return f"Type a plain number, e.g. {example}."
    return f"Type a number with its unit, e.g. {example}."


def placeholder(part: PartVariant) -> str:
    """The first example for the unit."""
    return "e.g. " + _examples(part)[0]


ASKED_AS = AskedAs(how_to_answer, placeholder)
