"""How the question screen asks for one letter (``choice``) or several (``multi``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def how_to_answer(part: PartVariant) -> str:
    """One letter, or every letter that applies (the example is never the key)."""
    from quiz.core.kinds.choice import example_picks

    if part.kind == "multi":
        return f"Type every letter that applies, e.g. [b]{example_picks(part)}[/b]."
    return f"Type the letter of one choice, e.g. [b]{example_picks(part)}[/b]."


def placeholder(part: PartVariant) -> str:
    """An example of the letters."""
    from quiz.core.kinds.choice import example_picks

    return f"e.g. {example_picks(part)}"


def choices(part: PartVariant) -> str | None:
    """The labelled choices."""
    if not part.spec.choices:
        return None
    return "\n".join(f"[b $text-accent]{chr(ord('a') + i)})[/] {escape(text)}"
                     for i, text in enumerate(part.spec.choices))


ASKED_AS = AskedAs(how_to_answer, placeholder, choices)
