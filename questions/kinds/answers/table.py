"""The `[answer]` table of a table answer (``answer_kind = "table"``)."""

from __future__ import annotations

from pydantic import Field

from questions.fields import AnswerFields, MistakeFields

__all__ = ["TableAnswer", "TableMistake"]


class TableAnswer(AnswerFields):
    """A table answer: for each row, the columns that apply."""

    cells: dict[str, list[str]] = Field(default_factory=dict)
    """Row -> the column codes that are right for it ([] for none)."""


class TableMistake(MistakeFields):
    """A known wrong way of filling rows in."""

    cells: dict[str, list[str]]
    """Rows answered this (wrong) way are this mistake."""
