"""The `[answer]` table of a choice (``answer_kind = "choice"``: one letter) or a
multi-select (``"multi"``: every letter that applies)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from questions.fields import AnswerFields, MistakeFields, _Model

__all__ = ["ChoiceAnswer", "ChoiceMistake", "Condition"]


class Condition(_Model):
    """A choice key that depends on the drawn numbers."""

    if_: str = Field(alias="if")
    """An expression over solver keys, quantities and free parameters, e.g.
    "memory_per_gpu <= hbm_bytes"."""
    correct: list[str]
    """The right labels when the expression holds."""

    model_config = ConfigDict(extra="forbid", frozen=True,
                              populate_by_name=True)


class ChoiceAnswer(AnswerFields):
    """A choice or multi-select answer: the right labels of the options."""

    correct: list[str] = Field(default_factory=list)
    """The labels (a, b, ...) of the right choices."""
    option_feedback: dict[str, str] = Field(default_factory=dict)
    """Label -> why that option is right or wrong, shown when it is picked wrongly or
    missed, e.g. b = "Interleaving shrinks the bubble, it does not remove it."."""
    when: list[Condition] = Field(default_factory=list)
    """Keys that depend on the draw; the first whose `if` holds wins, otherwise
    `correct` applies."""


class ChoiceMistake(MistakeFields):
    """A known wrong pick."""

    choice: list[str] = Field(min_length=1)
    """The labels that are this mistake (picked exactly these)."""
