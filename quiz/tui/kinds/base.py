"""What the question screen needs from an answer kind: how to ask for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["AskedAs", "no_extra"]


def no_extra(part: PartVariant) -> str | None:
    """A kind that shows nothing between the prompt and the answer box."""
    return None


class AskedAs(Struct, frozen=True):
    """One answer kind's entry in the question screen's table.

    Attributes:
        how_to_answer: one or two lines (content markup) saying how to type the answer.
        placeholder: a short placeholder for the answer box (plain text).
        extra: content markup shown under the prompt (the choices), or None.
        multiline: the answer is a paragraph typed in a text area (Enter is a new
            line, Ctrl+D submits) rather than one line.
        reads_slowly: a reading may take longer than a frame (a formula builds sympy
            expressions; a paragraph's reading grows with its length): the answer box
            reads it on the keystroke only while readings are quick, else in a worker.
        preview: what the live preview under the box says of typed text, or None for
            the reading every kind gives (``quiz.core.session.preview``).
    """

    how_to_answer: Callable[[PartVariant], str]
    placeholder: Callable[[PartVariant], str]
    extra: Callable[[PartVariant], str | None] = no_extra
    multiline: bool = False
    reads_slowly: bool = False
    preview: Callable[[PartVariant, str], str] | None = None
