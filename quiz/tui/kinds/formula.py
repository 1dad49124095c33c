"""How the question screen asks for a formula."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def how_to_answer(part: PartVariant) -> str:
    """The operators and what each letter stands for."""
    legend = ", ".join(f"[b]{escape(k)}[/b] = {escape(v)}" for k, v in part.key.symbols.items())
    return f"Type a formula with + - * / ^ and parentheses. Letters: {legend}."


def placeholder(part: PartVariant) -> str:
    """The letters to use."""
    if part.key.symbols:
        return "a formula in " + " and ".join(part.key.symbols)
    return "a formula"


ASKED_AS = AskedAs(how_to_answer, placeholder, reads_slowly=True)
