"""How the question screen asks for a parallel layout."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def how_to_answer(part: PartVariant) -> str:
    """The axes to give; dp follows."""
    return ("Type a layout, e.g. [b]tp=8 pp=2 cp=1 ep=1 mb=1 zero=1[/b] "
            "(dp follows from the GPU count).")


def placeholder(part: PartVariant) -> str:
    """A short layout."""
    return "e.g. tp=8 pp=2 mb=1 zero=1"


ASKED_AS = AskedAs(how_to_answer, placeholder)
