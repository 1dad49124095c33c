"""The `[answer]` table of a spoken answer (``answer_kind = "spoken"``): the rubric."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from questions.errors import FieldError
from questions.fields import AnswerFields, Scalar, _Model
from questions.kinds.answers.number import NumberMistake

__all__ = ["Claim", "Figure", "OrderRule", "SpokenAnswer", "SpokenMistake"]


class Figure(_Model):
    """A figure the answer should state, derived by the solver."""

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40)]
    """A short name (lower case, digits, _): `{id}` in the model answer shows the figure,
    and order rules name it."""
    label: str = Field(min_length=2, max_length=60)
    """What the checklist calls it, e.g. "model state"."""
    quantity: str | None = None
    """A solver quantity (see `quiz solve --list`)."""
    expr: str | None = None
    """Or an expression over solver quantities and keys."""
    unit: str | None = None
    """Base unit (B, FLOP, s, param, B/s, FLOP/s, 1); default: the quantity's."""
    set: dict[str, Scalar] = Field(default_factory=dict)
    """Solver keys changed for this figure only (e.g. tp = 8 for a per-GPU figure)."""
    tolerance: float = Field(default=0.1, gt=0, lt=1)
    """Relative tolerance; a typed answer's 3% applies when this is looser, and a figure
    said rounded ("1.3 TB") is also right within the rounding said."""
    weight: float = Field(default=2.0, gt=0, le=100)
    """Its share of the score, relative to the other items."""

    @model_validator(mode="after")
    def _one_source(self) -> Figure:
        if (self.quantity is None) == (self.expr is None):
            raise FieldError((), "a figure needs exactly one of quantity or expr")
        return self


class Claim(_Model):
    """A choice the answer should state, recognized by its phrases."""

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$", max_length=40)]
    """A short name for order rules."""
    label: str = Field(min_length=2, max_length=60)
    """What the checklist calls it, e.g. "TP inside the node"."""
    phrases: list[Annotated[str, Field(min_length=2, max_length=80)]] = Field(min_length=1)
    """Ways of saying it (case, punctuation and spacing do not matter; "..." stands for
    up to four words of the same clause), e.g. "tp ... inside the node", "tensor
    parallel within a node", "tp 8 on nvlink". A phrase right after "not", "no",
    "never" or "without" does not count."""
    against: list[Annotated[str, Field(min_length=2, max_length=80)]] = Field(
        default_factory=list)
    """Phrases that state the opposite ("tp across nodes"): said (not negated), they
    mark the claim contradicted, worth nothing."""
    weight: float = Field(default=0.5, gt=0, le=100)
    """Its share of the score, relative to the other items."""


class OrderRule(_Model):
    """Two items the answer should state in this order."""

    before: str
    """A figure or claim id said first."""
    after: str
    """A figure or claim id said later."""
    label: str = Field(min_length=2, max_length=60)
    """What the checklist calls it, e.g. "the inventory before the axes"."""
    weight: float = Field(default=0.5, gt=0, le=100)
    """Its share of the score, relative to the other items."""


class SpokenAnswer(AnswerFields):
    """A spoken answer: the rubric a paragraph is graded against."""

    figures: list[Figure] = Field(default_factory=list)
    """The figures the answer should state."""
    claims: list[Claim] = Field(default_factory=list)
    """The choices the answer should state."""
    order: list[OrderRule] = Field(default_factory=list)
    """Items to state in a given order."""
    model_answer: str = ""
    """An answer that states every figure and claim, written with `{figure_id}` and the
    usual placeholders, so it is right for every variant."""


class SpokenMistake(NumberMistake):
    """A known wrong value of one figure: that figure re-derived another way (exactly
    one of set, expr or scale, as a number's mistake)."""

    figure: str | None = None
    """Required: the id of the figure this is a wrong value of (derived with set, expr
    or scale from that figure)."""
