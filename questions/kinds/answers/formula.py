"""The `[answer]` table of a formula answer (``answer_kind = "formula"``)."""

from __future__ import annotations

from pydantic import Field

from questions.fields import AnswerFields

__all__ = ["FormulaAnswer"]


class FormulaAnswer(AnswerFields):
    """A formula answer: an expression in the prompt's letters."""

    formula: str | None = None
    """The expected formula in the prompt's letters."""
    symbols: dict[str, str] = Field(default_factory=dict)
    """Letter in the prompt -> solver key or quantity it stands for."""
