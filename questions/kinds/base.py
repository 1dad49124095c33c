"""What every answer kind shares in the question layer: the kind's entry and its inputs.

Each kind is one module beside this one; :mod:`questions.kinds` registers them. A kind
says which fields its parts must have (checked when a template is validated), what else
to check against the solver when a template loads, how its key, known mistakes and other
accepted answers are drawn for a variant, and the last line of its worked explanation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct

if TYPE_CHECKING:
    import random

    from questions.fields import AnswerFields, MistakeFields, Scalar
    from questions.fields import PartFields as Part
    from questions.model import AcceptedVariant, Key, KnownMistake, PartVariant
    from solver.engine import Inputs

__all__ = ["AddStep", "Amount", "DrawnKey", "KeyContext", "Location", "QuestionKind",
           "Rederived", "common_fields", "common_texts", "default_answer_line", "no_checks",
           "no_loaded_checks", "nothing"]

Location = list[str | int]
"""A field path in a template file, e.g. ``["parts", 0, "answer", "formula"]``."""


class KeyContext(Struct, frozen=True):
    """What drawing a part's key may use.

    Attributes:
        template_id: the template's id (for messages).
        part: the part being drawn.
        inputs: the solver's inputs for this draw (model, GPU, keys).
        value: ``value(set, expr, quantity)``: the answer re-derived with the keys in
            ``set`` changed, from ``expr`` when given, else from ``quantity`` (None: the
            part's own quantity).
        holds: whether a condition (an ``answer.when`` expression) holds for this draw.
        render: ``render(text, field)``: a text of the answer (named by its field)
            with its placeholders filled in for this draw.
    """

    template_id: str
    part: Part
    inputs: Inputs
    value: Callable[[Mapping[str, Scalar], str | None, str | None], float]
    holds: Callable[[str], bool]
    render: Callable[[str, str], str] = lambda text, field: text


class DrawnKey(Struct, frozen=True):
    """A part's key as drawn for one variant, with its known mistakes and the other
    conventions' answers that also grade correct."""

    key: Key
    mistakes: tuple[KnownMistake, ...] = ()
    accepted: tuple[AcceptedVariant, ...] = ()


def common_fields() -> type[AnswerFields]:
    """A kind whose `[answer]` has only the fields every kind has."""
    from questions.fields import AnswerFields

    return AnswerFields


def common_texts(part: Part) -> list[tuple[Location, str]]:
    """The explanation: the text of an `[answer]` every kind has."""
    return [(["answer", "explanation"], part.answer.explanation)]


def nothing(part: Part) -> list[Any]:
    """A kind whose answer has none of these."""
    return []


def no_checks(part: Part) -> None:
    """A kind without field requirements of its own."""


def no_loaded_checks(part: Part, base: Location) -> list[tuple[Location, str]]:
    """A kind without checks against the solver of its own."""
    return []


def default_answer_line(pv: PartVariant) -> str:
    """``Answer: <the key as displayed>``."""
    return f"Answer: {pv.key.display}"


def default_key_words(pv: PartVariant) -> str:
    """The key as displayed."""
    return pv.key.display


class Convention(Protocol):
    """Another convention whose answer also grades correct (an amount's ``accept``)."""

    @property
    def name(self) -> str: ...
    @property
    def set(self) -> Mapping[str, Scalar]: ...
    @property
    def note(self) -> str: ...


class Amount(Protocol):
    """What a kind whose key is one amount in a unit says of it
    (:attr:`QuestionKind.amount_of`): how the amount is derived, its unit, how close is
    close enough, and whether it carries forward. A number's `[answer]`
    (:class:`~questions.kinds.answers.number.NumberAnswer`) is one."""

    @property
    def quantity(self) -> str | None: ...
    @property
    def expr(self) -> str | None: ...
    @property
    def unit(self) -> str | None: ...
    @property
    def tolerance(self) -> float: ...
    @property
    def binary(self) -> bool: ...
    @property
    def bare_unit(self) -> str | None: ...
    @property
    def why(self) -> str: ...
    @property
    def follow(self) -> Sequence[int]: ...
    @property
    def follow_credit(self) -> float: ...
    @property
    def accept(self) -> Sequence[Convention]: ...
    @property
    def set(self) -> Mapping[str, Scalar]: ...


class Rederived(Protocol):
    """A known mistake the solver derives (:attr:`QuestionKind.rederived`): the key
    worked out with some keys changed, from another expression, or scaled."""

    @property
    def name(self) -> str: ...
    @property
    def feedback(self) -> str: ...
    @property
    def credit(self) -> float: ...
    @property
    def set(self) -> Mapping[str, Scalar]: ...
    @property
    def expr(self) -> str | None: ...
    @property
    def scale(self) -> float | None: ...


def no_amount(part: Part) -> Amount:
    """A kind whose key is not one amount (never called: :attr:`QuestionKind.amount` is
    false)."""
    raise TypeError(f"a {part.answer_kind} answer is not an amount")


AddStep = Callable[..., None]
"""``add(quantity, prompt, step_pv, step, explanation, what=...)``: learn mode's adder of
one step (:func:`questions.steps.walk`)."""


class QuestionKind(Struct, frozen=True):
    """One answer kind's entry in the question layer's table.

    Attributes:
        check_part: raises :class:`~questions.errors.FieldError` (the field and the
            reason) when a part of this kind lacks what it needs.
        draw_key: the key, known mistakes (each of the kind's own subclass of
            :class:`~questions.model.KnownMistake`, beside its module) and accepted
            answers of one variant's part.
        answer_line: the worked explanation's last line.
        check_loaded: problems found against the solver when a template loads, each
            located by its field path under ``base``.
        arrange: the part as shown, given a random source seeded by the variant and the
            part (choice answers shuffle their options with it); None keeps it as drawn.
        arranged: the labels ``arrange`` moves (template label -> shown label, its
            :attr:`~questions.model.PartVariant.labels`) told from the part as written and
            the same random source, without a variant (the self-test keys a seed by
            them); None: only ``arrange`` tells.
        amount_of: what the key is when it is one amount in a unit (a solver quantity
            or an expression of them; see :class:`Amount`); a kind without
            (:func:`no_amount`) is no amount: :attr:`amount` is false.
        amount: the key is one amount in a unit (``amount_of`` says what): loading checks its
            expressions' dimensions and warns of numbers whose unit it cannot check;
            its derivation works the amount out and learn mode asks it as the walk's
            last step; a follow-up asks it again after a change that moves it; an
            earlier part's answer of this kind carries forward into a later part's
            expression (follow-through).
        searches_layout: the key is found by the layout engine's search at every draw
            (it reads every solver key; no derivations are drawn ahead; the self-test of
            it costs several draws' worth; feedback offers the layout lab).
        names_mistake: whether its grader names a verdict so of its own accord (a
            number's generic slips, "bits vs bytes"; any of a layout's, "illegal
            layout"), so that a template's example may expect that mistake name though
            the part does not declare it.
        key_words: the key as people read it in a sentence (a choice's letters with
            their options' text).
        texts: the texts of its `[answer]` a learner reads, which may hold the usual
            `{placeholders}` (each with its field path under the part, e.g.
            ``["answer", "why"]``): checked when the template loads, rendered at each
            draw.
        key_texts: texts of its `[answer]` that its ``draw_key`` renders itself (a
            spoken answer's model answer, whose `{figure}` placeholders are its own).
        expressions: the expressions of its `[answer]` (field path, text, and the base
            unit the expression is in, or None): compiled when the template loads and
            drawn; one with a unit is checked against it, one without compares like with
            like (an amount's own expression is checked against its unit apart).
        quantities: the solver quantities its answer is worked out from, beside
            ``answer.show`` (keys a quoted text may rely on).
        part_fields: which of a part's fields that only some kinds read (``choices``;
            ``rows`` and ``columns``) its parts may give: another kind's is refused.
        answer_fields: the pydantic model of its `[answer]` table (a subclass of
            :class:`~questions.fields.AnswerFields`, in its module under
            ``questions/kinds/answers/``), returned when a template of the kind is
            validated: drawing from the bank's views imports no pydantic.
        mistake_fields: the pydantic model of its `[[mistakes]]` (a subclass of
            :class:`~questions.fields.MistakeFields`, beside its `[answer]` model), or
            None: its parts declare no known mistakes (a layout's grader names the
            slips it knows itself).
        rederived: its known mistakes that the solver derives (index among the part's
            mistakes, and the mistake: keys changed, expression, scale), whose
            expressions loading compiles and whose keys it checks.
        count: how its key counts (``"exact"``, ``"floor"``, ``"either"``; ``""``: not
            a count).
        mistake_value: the amount a known mistake as drawn stands for (a number's
            value, a spoken figure's wrong value), or None: its mistakes are no amount.
        mistake_figure: a known mistake's own figure, as its feedback's ``{mistake}``
            shows it (its value in the key's unit, its formula, the options it picks by
            their text); the mistake's name where it has none.
        walk_steps: learn mode's steps for a part without arithmetic of its own (a
            choice: one yes-or-no step per option; a table: one step per row), given
            the part's worked explanation and ``add`` (see :data:`AddStep`); None: no
            such steps.
    """

    check_part: Callable[[Part], None]
    draw_key: Callable[[KeyContext], DrawnKey]
    answer_line: Callable[[PartVariant], str] = default_answer_line
    check_loaded: Callable[[Part, Location], list[tuple[Location, str]]] = no_loaded_checks
    arrange: Callable[[PartVariant, random.Random], PartVariant] | None = None
    arranged: Callable[[Part, random.Random], dict[str, str]] | None = None
    amount_of: Callable[[Part], Amount] = no_amount
    searches_layout: bool = False
    names_mistake: Callable[[str], bool] = lambda name: False
    key_words: Callable[[PartVariant], str] = default_key_words
    walk_steps: Callable[[PartVariant, str, AddStep], None] | None = None
    texts: Callable[[Part], list[tuple[Location, str]]] = common_texts
    key_texts: Callable[[Part], list[tuple[Location, str]]] = nothing
    expressions: Callable[[Part], list[tuple[Location, str, str | None]]] = nothing
    quantities: Callable[[Part], list[str]] = nothing
    part_fields: frozenset[str] = frozenset()
    answer_fields: Callable[[], type[AnswerFields]] = common_fields
    mistake_fields: Callable[[], type[MistakeFields]] | None = None
    rederived: Callable[[Part], list[tuple[int, Rederived]]] = nothing
    count: Callable[[Part], str] = lambda part: ""
    mistake_value: Callable[[KnownMistake], float | None] = lambda m: None
    mistake_figure: Callable[[Part, Key, KnownMistake], str] = lambda part, key, m: m.name

    @property
    def amount(self) -> bool:
        """The key is one amount in a unit (:attr:`amount_of` says what)."""
        return self.amount_of is not no_amount
