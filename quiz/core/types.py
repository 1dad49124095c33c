"""Small types shared by every layer of the core, each defined once.

``AnswerKind`` and ``Verdict`` belong to the question layer (a template names its answer
kind and the verdicts its test answers expect); they are re-exported here so the core
and the front ends have one place to import them from.
"""

from __future__ import annotations

from typing import Literal

from questions.types import AnswerKind, StoredVerdict, Verdict

__all__ = ["AnswerKind", "Mode", "StoredVerdict", "Verdict"]

Mode = Literal["drill", "practice", "mock"]
"""The kind of session an attempt was made in."""


def stored(verdict: Verdict) -> StoredVerdict:
    """Narrow a verdict to one that is stored as an attempt.

    Raises:
        ValueError: ``verdict`` is ``invalid`` (unreadable input is never an attempt).

    >>> stored("partial")
    'partial'
    """
    if verdict == "invalid":
        raise ValueError("an invalid (unreadable) answer is never stored as an attempt")
    return verdict
