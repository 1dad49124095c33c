"""Literal types the question layer shares with the core (defined once, here)."""

from __future__ import annotations

from typing import Literal

__all__ = ["AnswerKind", "StoredVerdict", "Verdict"]

AnswerKind = Literal["number", "formula", "choice", "multi", "table", "layout", "spoken"]
"""How an answer is typed and graded; each kind has one module per layer."""

Verdict = Literal["correct", "partial", "incorrect", "invalid"]
"""What grading says of an answer; ``invalid`` means it could not be read."""

StoredVerdict = Literal["correct", "partial", "incorrect"]
"""The verdicts that are stored as attempts (unreadable input costs no attempt)."""
