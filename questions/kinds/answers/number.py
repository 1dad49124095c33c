"""The `[answer]` table of a number answer (``answer_kind = "number"``, the default)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from questions.errors import FieldError
from questions.fields import AnswerFields, MistakeFields, Scalar, _Model

__all__ = ["Accepted", "NumberAnswer", "NumberMistake"]


class Accepted(_Model):
    """Another convention whose answer also grades correct (with a note saying so)."""

    name: str
    """The convention, e.g. "published FSDP figure, without (N-1)/N"."""
    set: dict[str, Scalar] = Field(default_factory=dict)
    """Solver keys that switch to this convention."""
    note: str
    """Shown when the answer matched this convention rather than the default."""


class NumberAnswer(AnswerFields):
    """A number answer: one amount in a unit, from a solver quantity or an expression,
    and how close is close enough."""

    quantity: str | None = None
    """A solver quantity (see `quiz solve --list`)."""
    expr: str | None = None
    """An expression over solver quantities and keys, e.g. "tp_bytes / intra_bw"."""
    unit: str | None = None
    """Base unit of the answer (B, FLOP, s, param, B/s, FLOP/s, 1; the counts tokens and
    requests; the rates 1/s, tokens/s and requests/s); default: the quantity's."""
    tolerance: float = Field(default=0.03, gt=0, lt=1)
    """Relative tolerance (0.03 = within 3%)."""
    binary: bool = False
    """Display bytes in GiB/TiB in the key."""
    count: Literal["", "exact", "floor", "either"] = ""
    """For a number that counts things: "exact" grades the whole-number key exactly (128
    collectives, the smallest number of micro-batches); "floor" takes the floor of a
    real-valued key as the key and grades it exactly (the largest batch that fits: one
    more does not fit); "either" accepts the floor and the ceiling of a real-valued key
    (GPUs needed when the prompt does not say which). An `expr` whose outermost call is
    floor() or ceil(), or a `quantity` that rounds to a whole number (the requests that
    fit), is "exact" without saying so."""
    bare_unit: str | None = None
    """The unit a bare number is read in (e.g. "days" when the prompt asks for days);
    without it a bare number is in the base unit."""
    accept: list[Accepted] = Field(default_factory=list)
    """Other conventions also graded correct."""
    why: str = ""
    """For an `expr` answer: what its final combination of quantities does, in words
    (the last step of the worked solution)."""
    follow: list[int] = Field(default_factory=list)
    """For a scenario's part: the earlier parts (1-based) whose answers carry forward.
    Each such part's answer is a `quantity` that this part's `expr` names; an answer
    right from the learner's own earlier answers (even wrong ones) earns
    `follow_credit`, and the feedback says so (error carried forward)."""
    follow_credit: float = Field(default=1.0, gt=0, le=1)
    """The score of an answer right only from the learner's own earlier answers (1 =
    full credit)."""

    @field_validator("tolerance", mode="before")
    @classmethod
    def _tolerance(cls, v: object) -> object:
        if isinstance(v, int | float) and not isinstance(v, bool) and not 0 < v < 1:
            raise ValueError(f"tolerance is relative to the key (0.03 accepts answers "
                             f"within 3% of it): give a number above 0 and below 1, "
                             f"not {v!r}")
        return v


class NumberMistake(MistakeFields):
    """A known wrong number: the answer re-derived another way (exactly one of set, expr
    or scale)."""

    set: dict[str, Scalar] = Field(default_factory=dict)
    """The answer re-derived with these keys changed (e.g. bytes_per_param = 12)."""
    expr: str | None = None
    """An alternative expression over quantities and keys."""
    scale: Annotated[float, Field(allow_inf_nan=False)] | None = None
    """The key multiplied by this factor (1000 = off by 1000, 8 = bits for bytes); not 0
    (no mistake gives 0) and a finite number."""

    @model_validator(mode="after")
    def _one_recognizer(self) -> NumberMistake:
        given = [x for x in (self.set or None, self.expr, self.scale) if x is not None]
        if len(given) != 1:
            raise FieldError((), "give exactly one of set, expr, scale")
        if self.scale == 0:
            raise FieldError(("scale",), "a scale of 0 makes every answer 0; give the "
                             "factor the mistake is off by (1000, 8, 0.5, ...)")
        return self
