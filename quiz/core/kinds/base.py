"""What every answer kind shares: the grade, the read answer, and the kind's entry.

Each answer kind is one module beside this one (``number``, ``formula``, ``choice``,
``table``, ``layout``) with a ``read`` and a ``grade`` function; the table in
:mod:`quiz.core.kinds` registers them. Nothing here imports sympy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from questions.variants import Key, KnownMistake, PartVariant
from quiz.core.types import Verdict
from solver.formula import Unreadable  # quiz.core.reading's, without the number reader

if TYPE_CHECKING:
    from quiz.core.rubric import Checklist

__all__ = ["AnswerKind", "Grade", "Read", "by_credit", "invalid", "relative_error",
           "unreadable_message"]


@dataclass(frozen=True)
class Grade:
    """The outcome of grading one answer.

    Attributes:
        verdict: correct, partial, incorrect or invalid.
        score: 0..1 after hint costs (0 for invalid).
        read_as: how the answer was read ("" when invalid).
        mistake: the known mistake it matched, or None.
        feedback: what to say to the user.
        key: the expected answer.
        checklist: a spoken answer's checklist (None for every other kind).
        key_text: the key as people read it where it says more than ``key.display``
            (a choice's letters with their options' text); None where it does not.
    """

    verdict: Verdict
    score: float
    read_as: str
    mistake: str | None
    feedback: str
    key: Key
    checklist: Checklist | None = None
    key_text: str | None = None

    @property
    def shown_key(self) -> str:
        """The key as shown to people: :attr:`key_text`, else ``key.display``."""
        return self.key_text or self.key.display

def by_credit(credit: float) -> Verdict:
    """``partial`` for an answer worth some credit, ``incorrect`` for none."""
    return "partial" if credit > 0 else "incorrect"


def relative_error(a: float, b: float) -> float:
    """|a - b| / |b| (|a| when b is 0)."""
    if b == 0:
        return abs(a)
    return abs(a - b) / abs(b)


def unreadable_message(exc: Unreadable) -> str:
    """What was wrong and, unless the message already shows one, an example that works."""
    message = exc.message
    if exc.example and exc.example not in message:
        message = f"{message.rstrip()} For example: {exc.example}"
    return message


def invalid(pv: PartVariant, message: str, example: str = "") -> Grade:
    """The grade of an answer that could not be read: it costs nothing."""
    return Grade("invalid", 0.0, "", None, unreadable_message(Unreadable(message, example)),
                 pv.key)


@dataclass(frozen=True)
class Read:
    """An answer as read for one part, before any grading.

    Attributes:
        value: what the kind's reader returned (a Reading, FormulaReading, ChoiceReading,
            row -> columns, or Layout).
        read_as: how it was read, for people.
    """

    value: Any
    read_as: str


@dataclass(frozen=True)
class AnswerKind:
    """One answer kind's entry in the core's table.

    Attributes:
        read: reads typed text for a part of this kind, without grading.
            Raises :class:`~quiz.core.reading.Unreadable`.
        grade: grades typed text against a part (tolerance scale as third argument);
            unreadable text is an ``invalid`` grade, never an exception.
        check_key: the self-test's check of a drawn key: a reason it is unusable, or
            None.
        prompt_lines: plain-text lines shown under the prompt (the choices, the
            table's rows and columns) by ``quiz ask``, the plain drill and previews.
        json_fields: the fields ``quiz ask --json`` adds for this kind.
        key_label: what the key is called where it is shown ("Model answer" for a
            spoken answer, whose key is a paragraph).
        key_text: the key as shown to people (a choice's letters with the options'
            text); ``key.display`` is what typing back grades right.
        paragraph: the answer is a paragraph of several lines (the plain drill reads
            lines up to an empty one).
        warm_texts: texts that are never the key and never typed, whose readings do
            once, ahead of the typing, the work a part's first readings would do (the
            live preview reads them in a worker while the question is read).
        has_options: the part shows lettered options, in an order of its variant's own
            (a template's examples name them by the file's letters).
        mistake_answer: what a learner who makes a known mistake types (its value in
            the key's unit, its formula, its picks, its table); None: nothing to type
            (a spoken figure's wrong value is said in a paragraph).
        mistake_clash: the self-test's reason a known mistake can never fire in this
            draw (a value within the key's tolerance, a pick that is the key), or None.
        mistake_verdict: the verdict a known mistake's answer must get (by its credit; a
            multi-select's never below the same picks as an unnamed slip), or None: the
            grade only has to name it (a table scores the rows it gets right).
        accepted_text: what else grades right, in a sentence (a number's range, a
            formula's letters), for cards taken elsewhere (Anki); "" when nothing.
        tolerance_words: how close an answer with a value must be, for authors (a
            count is graded exactly).
        expected_fields: what the JSON contract's ``expected`` object adds for this
            kind (a choice's ``correct`` labels).
        as_shown: an answer written in the template's own letters (its examples) in
            the letters the variant shows (a choice's options are shuffled per
            variant); unchanged for a kind without options.
        carried_forward: whether typed text is the amount ``carried`` (the part worked
            out from the learner's own earlier answers, tolerance scaled by the last
            argument) where that differs from the key: the follow-through of an
            amount (:func:`quiz.core.grading.follow_through`); False for any other
            kind.
    """

    read: Callable[[PartVariant, str], Read]
    grade: Callable[[PartVariant, str, float], Grade]
    check_key: Callable[[PartVariant], str | None] = lambda pv: None
    prompt_lines: Callable[[PartVariant], list[str]] = lambda pv: []
    json_fields: Callable[[PartVariant], dict[str, Any]] = lambda pv: {}
    key_label: str = "Key"
    key_text: Callable[[PartVariant], str] = lambda pv: pv.key.display
    paragraph: bool = False
    warm_texts: Callable[[PartVariant], tuple[str, ...]] = lambda pv: ()
    has_options: bool = False
    mistake_answer: Callable[[PartVariant, KnownMistake], str | None] = lambda pv, m: None
    mistake_clash: Callable[[PartVariant, KnownMistake], str | None] = lambda pv, m: None
    mistake_verdict: Callable[[PartVariant, KnownMistake], Verdict | None] = \
        lambda pv, m: by_credit(m.credit)
    accepted_text: Callable[[PartVariant], str] = lambda pv: ""
    tolerance_words: Callable[[PartVariant], str] = \
        lambda pv: f"tolerance {pv.key.tolerance:.0%}"
    expected_fields: Callable[[Key], dict[str, Any]] = lambda key: {}
    as_shown: Callable[[PartVariant, str], str] = lambda pv, text: text
    carried_forward: Callable[[PartVariant, str, float, float], bool] = \
        lambda pv, text, carried, scale: False
