"""The `[answer]` table of a formula answer (``answer_kind = "formula"``)."""

from __future__ import annotations

from pydantic import Field

from questions.fields import AnswerFields, MistakeFields

__all__ = ["FormulaAnswer", "FormulaMistake"]


class FormulaAnswer(AnswerFields):
    """A formula answer: an expression in the prompt's letters."""

    formula: str | None = None
    """The expected formula in the prompt's letters."""
    symbols: dict[str, str] = Field(default_factory=dict)
    """Letter in the prompt -> solver key or quantity it stands for."""


class FormulaMistake(MistakeFields):
    """A known wrong formula."""

    formula: str
    """The wrong formula, in the prompt's letters."""
