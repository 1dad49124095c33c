"""How the question screen asks for a spoken answer (the 30-second answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def how_to_answer(part: PartVariant) -> str:
    """A paragraph; Enter is a new line, Ctrl+D submits; it is graded as a checklist."""
    return ("Say it as you would out loud, figures with their units. [b]Enter[/b] starts "
            "a new line; [b]Ctrl+D[/b] submits. Graded as a checklist of the figures and "
            "choices a strong answer states.")


def placeholder(part: PartVariant) -> str:
    """How to start."""
    return "Your answer, as you would say it out loud..."


ASKED_AS = AskedAs(how_to_answer, placeholder, multiline=True, reads_slowly=True)
