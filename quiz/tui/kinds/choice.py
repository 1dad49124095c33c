"""How the question screen asks for one letter (``choice``) or several (``multi``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def how_to_answer(part: PartVariant) -> str:
    """One letter, or every letter that applies."""
    if part.kind == "multi":
        return "Type every letter that applies, e.g. [b]a, c[/b]."
    return "Type the letter of one choice, e.g. [b]b[/b]."


def placeholder(part: PartVariant) -> str:
    """An example of the letters."""
    return "e.g. a, c" if part.kind == "multi" else "e.g. b"


def choices(part: PartVariant) -> str | None:
    """The labelled choices."""
    if not part.spec.choices:
        return None
    return "\n".join(f"[b $text-accent]{chr(ord('a') + i)})[/] {escape(text)}"
                     for i, text in enumerate(part.spec.choices))


ASKED_AS = AskedAs(how_to_answer, placeholder, choices)
