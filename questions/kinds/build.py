"""The questions generic code asks of its own, built by the kind that asks each.

Learn mode works a derivation out step by step, each step an amount to type; the
interviewer's follow-ups ask an amount, a pick of one option or a layout. Which kind
asks each is said here, once (:data:`AMOUNT`, :data:`PICK`, :data:`LAYOUT`), and the
key, known mistakes and part are built by that kind's module: code outside
``questions/kinds/`` imports no kind's module (``tests/unit/test_structure.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from questions.fields import PartFields
    from questions.model import Key, KnownMistake

__all__ = ["AMOUNT", "LAYOUT", "PICK", "amount_key", "amount_mistake", "amount_part",
           "layout_key", "pick_key", "pick_mistake"]

AMOUNT = "number"
"""The kind that asks one amount in a unit (a derivation's step, a follow-up's figure)."""
PICK = "choice"
"""The kind that asks for one of several options."""
LAYOUT = "layout"
"""The kind that asks for a parallel layout."""


def amount_key(display: str, value: float, unit: str, tolerance: float | None = None) -> Key:
    """The key of an amount: ``value`` in base ``unit``, graded within ``tolerance``
    (default: a typed number's)."""
    from questions.kinds import number

    return number.key(display, value, unit, number.TOLERANCE if tolerance is None
                      else tolerance)


def amount_part(prompt: str, unit: str, tolerance: float | None = None,
                quantity: str = "") -> PartFields:
    """A part that asks an amount in ``unit`` (a derivation's step: ``quantity`` is the
    solver quantity it works out, graded exactly when it is a whole count), without a
    template behind it."""
    from questions.kinds import number

    return number.step_part(prompt, unit, number.TOLERANCE if tolerance is None
                            else tolerance, quantity)


def amount_mistake(name: str, feedback: str, credit: float, value: float) -> KnownMistake:
    """A known mistake of an amount: a learner who makes it types ``value`` (in the
    key's base unit)."""
    from questions.kinds import number

    return number.known_mistake(name, feedback, credit, value)


def pick_key(correct: tuple[str, ...]) -> Key:
    """The key of a pick of one option: its label."""
    from questions.kinds import choice

    return choice.key(correct)


def pick_mistake(name: str, feedback: str, credit: float,
                 labels: tuple[str, ...]) -> KnownMistake:
    """A known mistake of a pick: a learner who makes it picks ``labels``."""
    from questions.kinds import choice

    return choice.known_mistake(name, feedback, credit, labels)


def layout_key(display: str, step_time: float) -> Key:
    """The key of a layout: the layout as typed back, and its step time in seconds."""
    from questions.kinds import layout

    return layout.key(display, step_time)
