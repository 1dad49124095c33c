"""The value types of a drawn variant: a part's key, its known mistakes and the other
conventions accepted, its follow-through, and the part itself.

Plain data: nothing here draws, derives or renders (drawing is :mod:`questions.variants`
and :mod:`questions.params`, texts :mod:`questions.text`, the worked derivation
:mod:`questions.derivation`), so that every layer above, the answer kinds included,
imports these types one way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from msgspec import Struct, field

if TYPE_CHECKING:
    from questions.fields import PartFields, Scalar

__all__ = ["AcceptedVariant", "Carried", "FigureKey", "Follow", "Key", "KnownMistake",
           "PartVariant"]


class Key(Struct, frozen=True):
    """The expected answer of one part.

    Attributes:
        kind: the answer kind.
        value: the number in base units (number answers).
        unit: its base unit.
        display: the key as people read it; typing it back grades correct.
        tolerance: relative tolerance for numbers.
        formula: the expected formula text (formula answers).
        symbols: letter -> solver name, for formulas.
        correct: right labels (choice, multi).
        cells: row -> right column codes (table).
        figures: the figures a spoken answer should state, with their values.
    """

    kind: str
    display: str
    value: float | None = None
    unit: str | None = None
    tolerance: float = 0.03
    formula: str | None = None
    symbols: dict[str, str] = field(default_factory=dict)
    correct: tuple[str, ...] = ()
    cells: dict[str, tuple[str, ...]] = field(default_factory=dict)
    figures: tuple[FigureKey, ...] = ()


class FigureKey(Struct, frozen=True):
    """One figure a spoken answer should state, as drawn for a variant.

    Attributes:
        id: the rubric's id for it.
        label: what the checklist calls it.
        value: the value in base units.
        unit: the base unit.
        display: the value as people say it ("1.13 TB").
        tolerance: relative tolerance.
        weight: its share of the score, relative to the other items.
        overrides: the solver keys changed for this figure only (on top of the part's).
        quantity: the solver quantity it is (or "").
        expr: the expression it is (or "").
    """

    id: str
    label: str
    value: float
    unit: str
    display: str
    tolerance: float
    weight: float
    overrides: dict[str, Scalar] = field(default_factory=dict)
    quantity: str = ""
    expr: str = ""


class KnownMistake(Struct, frozen=True):
    """A known mistake as it applies to this variant: what every kind's has.

    What the mistake's answer is (a value, a formula, a pick, a table's cells) is its
    kind's own: each kind's record is a subclass of this one beside the kind's module
    (``questions/kinds/<kind>.py``, drawn by its ``draw_key``), read by that kind's
    modules; code outside them reads it through the kind's entry.
    """

    name: str
    feedback: str
    credit: float


class AcceptedVariant(Struct, frozen=True):
    """Another convention's answer that also grades correct."""

    name: str
    note: str
    value: float


class Carried(Struct, frozen=True):
    """An earlier part whose answer carries forward into a later one.

    Attributes:
        part: the earlier part (1-based).
        name: the quantity its answer is, which the later part's expression names.
        unit: its base unit.
        key: its key (the value the later part's own key is derived from).
    """

    part: int
    name: str
    unit: str
    key: float


class Follow(Struct, frozen=True):
    """Follow-through (error carried forward) of one part.

    Attributes:
        carried: the earlier parts whose answers this part's expression uses.
        credit: the score of an answer right from the learner's own earlier answers.
        derive: this part's answer with some carried quantities replaced (name ->
            value); the others keep their values.
    """

    carried: tuple[Carried, ...]
    credit: float
    derive: Callable[[Mapping[str, float]], float]


class PartVariant(Struct, dict=True):
    """One part of a variant, ready to ask and grade."""

    index: int
    prompt: str
    spec: PartFields
    key: Key
    mistakes: tuple[KnownMistake, ...]
    accepted: tuple[AcceptedVariant, ...]
    overrides: dict[str, Scalar]
    model: str | None
    gpu: str | None
    env: dict[str, float]
    follow: Follow | None = None
    """How this part follows through from earlier parts' answers (None: it does not)."""
    labels: dict[str, str] = field(default_factory=dict)
    """Choice answers: the template's label of each option -> the label shown (options
    are shuffled per variant); empty when the letters are the template's."""
    side_by_side: str = ""
    """A follow-up's before/after comparison, the first thing its worked solution shows
    ("" for any other part)."""
    synthetic: bool = False
    """Keyed by the layout engine, not by a solver derivation (a follow-up's engine
    question): its worked solution is the comparison and the key."""

    @property
    def kind(self) -> str:
        """The answer kind of this part."""
        return self.spec.answer_kind
