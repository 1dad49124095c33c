"""The building blocks of the template format: every model a template's fields hold,
and the fields of a part (:class:`PartFields`).

Kept below :mod:`questions.schema` (which adds the part's checks by answer kind and the
template itself), so that the answer kinds (:mod:`questions.kinds`) and the value types
of a drawn variant (:mod:`questions.model`) name a part's fields without importing the
schema that dispatches to them. Every field has a docstring, which is also its
description in the JSON Schema and in AUTHORING.md.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, model_validator

from questions.errors import FieldError
from questions.types import Verdict

MAX_STEPS = 1e15
"""A range's bounds may be at most this many steps from 0 (float precision ends there)."""

Scalar = str | int | float | bool


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Base(_Model):
    """A model only ever validated as its subclasses: pydantic builds its validator
    when first asked (never), not at import (a subclass validated on its own says
    ``defer_build=False``)."""

    model_config = ConfigDict(defer_build=True)


class ParamSpec(_Model):
    """How one parameter of a variant is drawn from the seed."""

    choices: list[Scalar] | None = None
    """Pick one of these (preset names for `model` and `gpu`)."""
    range: tuple[float, float] | None = None
    """Draw from [low, high] (inclusive)."""
    step: float | None = None
    """Snap a drawn range value to a multiple of this step."""
    log: bool = False
    """Draw uniformly in log space (for quantities spanning orders of magnitude)."""
    sig: int | None = Field(default=None, ge=1, le=6)
    """Round a drawn value to this many significant digits (before the answer is derived)."""
    integer: bool = False
    """Round a drawn value to a whole number."""
    free: bool = False
    """Not a solver key: a number for the prompt, constraints and expressions only
    (e.g. `deadline_days`, `tokens_per_second`)."""

    @model_validator(mode="after")
    def _one_source(self) -> ParamSpec:
        if (self.choices is None) == (self.range is None):
            raise FieldError((), "give exactly one of choices or range")
        if self.choices is not None and not self.choices:
            raise FieldError(("choices",), "choices must not be empty")
        if self.range is not None:
            lo, hi = self.range
            if not lo <= hi:
                raise FieldError(("range",), "range must be [low, high] with low <= high")
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise FieldError(("range",), "range must be finite numbers")
            if self.log and lo <= 0:
                raise FieldError(("range",), "a log range must be positive")
            if self.step is not None:
                if not (math.isfinite(self.step) and self.step > 0):
                    raise FieldError(("step",), "step must be a positive number")
                if max(abs(lo), abs(hi)) / self.step > MAX_STEPS:
                    raise FieldError(("step",), f"step {self.step:g} is too small for the range "
                                     f"[{lo:g}, {hi:g}]: at most {MAX_STEPS:.0e} steps "
                                     "from 0")
        return self


class AnswerFields(_Model):
    """The fields of an `[answer]` table that every answer kind has. Each kind's model
    (``answer_model`` of its entry in :data:`questions.kinds.KINDS`, declared in its
    module under ``questions/kinds/``) adds its own; :class:`questions.schema.Part`
    validates a part's answer with the model of its ``answer_kind``, so a field of
    another kind is refused."""

    set: dict[str, Scalar] = Field(default_factory=dict)
    """Solver keys fixed for this answer, on top of the drawn parameters."""
    show: list[str] = Field(default_factory=list)
    """Solver quantities whose worked derivation the explanation adds."""
    explanation: str = ""
    """Why the key is right, in words (the worked solution's text; a choice's or a
    table's whole explanation)."""


class MistakeFields(_Base):
    """The fields of a `[[mistakes]]` entry that every kind's mistakes have: what it is
    called, what to say and what it is worth. How it is recognised is the kind's own
    (``mistake_fields`` of its entry in :data:`questions.kinds.KINDS`, declared beside
    its `[answer]` model under ``questions/kinds/answers/``): :class:`questions.schema.Part`
    validates a part's mistakes with the model of its ``answer_kind``, so a recogniser
    of another kind is refused."""

    name: str
    """A short name, e.g. "forgot the master copy"."""
    feedback: str
    """Why it is wrong and how to fix it, in a sentence or two."""
    credit: float = Field(default=0.0, ge=0, lt=1)
    """Partial credit when matched (0 = none)."""


class Hint(_Model):
    """A nudge the user may ask for; it costs part of the score."""

    text: str
    """The hint."""
    cost: float = Field(default=0.2, ge=0, le=1)
    """How much of the score it costs (0.2 = the answer is worth at most 0.8)."""


class Example(_Model):
    """A typed answer and the verdict it must get; `quiz templates test` checks them."""

    answer: str
    """What a user might type. `{key}` is replaced by the key's display, `{part:N}` by
    part N's, `{mistake:NAME}` by what the known mistake NAME types and `{expr:EXPR}` by
    an expression's value; an answer with these is checked on every seed."""
    verdict: Verdict
    """The verdict it must get."""
    seed: int = 0
    """The variant it is graded against."""
    mistake: str | None = None
    """The known mistake it must be recognized as, if any."""
    part: int = 1
    """For scenarios: which part (1-based)."""
    earlier: list[str] = Field(default_factory=list)
    """For follow-through: the answers typed to parts 1, 2, ... before this one
    (`{key}` is each part's key; `{part:N}`, `{mistake:NAME}` and `{expr:EXPR}` work as
    in `answer`)."""


class StepSpec(_Model):
    """How learn mode asks one step of a part's worked derivation (optional: without
    it every step that computes something is asked, its prompt made from the quantity's
    meaning)."""

    quantity: str
    """The step, by the solver quantity it computes (as `quiz ask ID --steps` lists
    it), e.g. "params_per_gpu"."""
    part: int = Field(default=1, ge=1)
    """For scenarios: which part's derivation (1-based)."""
    prompt: str = ""
    """A friendlier prompt for the step, e.g. "First: how many parameters does one GPU
    hold?"."""
    skip: bool = False
    """Show the step worked out instead of asking it."""

    @model_validator(mode="after")
    def _prompt_or_skip(self) -> StepSpec:
        if bool(self.prompt.strip()) == self.skip:
            raise FieldError(("prompt",) if not self.skip else ("skip",),
                             "give a step either a prompt or skip = true (not both)")
        return self


class PartKey(_Base):
    """A part's prompt and key (a single-part template has them at its top level,
    optional there: :class:`questions.schema.Template`)."""

    prompt: str
    """The question, with {placeholders} for parameters and quantities."""
    answer_kind: str
    """How the answer is typed and graded (:class:`questions.schema.Part` admits the
    registered kinds' names)."""
    answer: AnswerFields
    """The key."""


class PartExtras(_Base):
    """What a part has beside its prompt and key: its options, a table's rows and
    columns, its known mistakes and its hints. One definition for a scenario's part
    (:class:`PartFields`) and a single-part template's top level
    (:class:`questions.schema.Template`)."""

    choices: list[str] = Field(default_factory=list)
    """For choice/multi: the options, labelled a, b, c ... in order."""
    rows: list[str] = Field(default_factory=list)
    """For tables: the row names (e.g. the five axes)."""
    columns: dict[str, str] = Field(default_factory=dict)
    """For tables: column code -> meaning (e.g. w = "weights")."""
    mistakes: list[MistakeFields] = Field(default_factory=list)
    """Known mistakes, checked in order after the key."""
    hints: list[Hint] = Field(default_factory=list)
    """Hints, shown one at a time."""


class PartFields(PartExtras, PartKey):
    """The fields of one part (:class:`questions.schema.Part` adds the checks of its
    answer kind): its prompt and key, then the rest, in that order."""

    model_config = ConfigDict(defer_build=False)

    tags: list[str] = Field(default_factory=list)
    """In a scenario, the template's tags this part drills (e.g. the rapid-fire item of
    its step): its answers count under these in the stats. The tags no part names count
    once per scenario, through its first part."""
