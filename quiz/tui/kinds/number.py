"""How the question screen asks for a number."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]

# Examples of how to type a value: deliberately none of them is a reference figure, so
# the hint under a question never shows its own answer (1.13 TB is Llama-3-70B's state).
_EXAMPLES = {
    "B": "3.2 TB, 48 GiB or 3.2e12 B",
    "s": "17 days, 2.5 h or 120 ms",
    "FLOP": "4.2e23 FLOP",
    "param": "12.5 billion or 12.5B",
    "B/s": "25 GB/s or 200 Gb/s",
    "FLOP/s": "120 TFLOP/s",
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
