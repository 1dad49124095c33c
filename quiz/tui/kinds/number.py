"""How the question screen asks for a number."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]

_EXAMPLES = {
    "B": "1.13 TB, 80 GiB or 1.13e12 B",
    "s": "42 days, 3.5 h or 250 ms",
    "FLOP": "6.3e24 FLOP",
    "param": "70.5 billion or 70.5B",
    "B/s": "50 GB/s or 400 Gb/s",
    "FLOP/s": "396 TFLOP/s",
    "1": "0.35 or 16",
}


def how_to_answer(part: PartVariant) -> str:
    """A number, with its unit unless the answer is a plain count or ratio."""
    example = escape(_EXAMPLES.get(part.key.unit or "1", "42"))
    if part.key.unit in (None, "1"):
        return f"Type a plain number, e.g. {example}."
    return f"Type a number with its unit, e.g. {example}."


def placeholder(part: PartVariant) -> str:
    """The first example for the unit."""
    return "e.g. " + _EXAMPLES.get(part.key.unit or "1", "42").split(",")[0]


ASKED_AS = AskedAs(how_to_answer, placeholder)
