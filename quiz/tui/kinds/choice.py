"""How the question screen asks for one letter (``choice``) or several (``multi``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.markup import escape

from quiz.tui.kinds.base import AskedAs

if TYPE_CHECKING:
    from questions.variants import PartVariant

__all__ = ["ASKED_AS"]


def how_to_answer(part: PartVariant) -> str:
    """One letter, or every letter that applies (the example is never the key); yes or
    no on a walk-through's yes-or-no step, which refuses a letter."""
    from quiz.core.kinds.choice import example_picks, yes_no_step

    if yes_no_step(part):
        return "Type [b]yes[/b] or [b]no[/b]."
    if part.kind == "multi":
        return f"Type every letter that applies, e.g. [b]{example_picks(part)}[/b]."
    return f"Type the letter of one choice, e.g. [b]{example_picks(part)}[/b]."


def placeholder(part: PartVariant) -> str:
    """An example of the letters (yes or no on a yes-or-no step)."""
    from quiz.core.kinds.choice import example_picks, yes_no_step

    return "yes or no" if yes_no_step(part) else f"e.g. {example_picks(part)}"


def choices(part: PartVariant) -> str | None:
    """The labelled choices (none on a yes-or-no step: its prompt says yes or no)."""
    from quiz.core.kinds.choice import yes_no_step

    if not part.spec.choices or yes_no_step(part):
        return None
    return "\n".join(f"[b $text-accent]{chr(ord('a') + i)})[/] {escape(text)}"
                     for i, text in enumerate(part.spec.choices))


def preview(part: PartVariant, text: str) -> str:
    """The letters read ("read as A, C"), not the options' text: the options are listed
    with their letters just above the box, and their text made the reading of a
    multi-select two to six lines long, so each letter typed grew the preview and laid
    the whole question screen out again (64-103 ms a keystroke under load, the mixed
    run's slowest; bench/README.md, "Keystroke and Enter, mixed kinds"). A refusal, and
    a walk-through's yes or no, read as every kind's do."""
    from quiz.core.grading import read_answer
    from quiz.core.kinds.choice import yes_no_step
    from quiz.core.reading import Unreadable
    from quiz.core.session import preview as reading

    options = list(part.spec.choices)
    try:
        picked = read_answer(part, text).value.picked if text.strip() else None
    except Unreadable:
        picked = None
    if not picked or yes_no_step(part) or not set(picked) <= set(options):
        return reading(part, text)
    return "read as " + ", ".join(chr(ord("A") + options.index(p)) for p in picked)


ASKED_AS = AskedAs(how_to_answer, placeholder, choices, preview=preview)
