"""The answer kinds of the core, in one table: how each is read, graded and self-tested.

One module per kind (:mod:`~quiz.core.kinds.number`, :mod:`~quiz.core.kinds.formula`,
:mod:`~quiz.core.kinds.choice`, :mod:`~quiz.core.kinds.table`,
:mod:`~quiz.core.kinds.layout`, :mod:`~quiz.core.kinds.spoken`); :data:`KINDS` registers
them under the names templates use (``answer_kind``). :func:`quiz.core.grading.grade` and
:func:`quiz.core.grading.read_answer` dispatch through this table, and so does the
self-test. A new kind is one module here, one line in :data:`KINDS`, and its
counterparts in ``questions.kinds`` (schema checks and keys) and ``quiz.tui.kinds``
(how the question screen asks for it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from questions.lazytable import LazyTable
from quiz.core.kinds.base import AnswerKind

if TYPE_CHECKING:
    from questions.variants import Key, PartVariant

__all__ = ["KINDS", "expected_json", "key_text", "kind_of"]


# Each entry imports its own module when first asked for: grading one kind (a one-shot
# `quiz check`) does not pay for importing the others.
def _number() -> AnswerKind:
    from quiz.core.kinds import number

    return AnswerKind(number.read, number.grade, number.check_key,
                      accepted_text=number.accepted_text,
                      tolerance_words=number.tolerance_words,
                      carried_forward=number.carried_forward,
                      mistake_answer=number.mistake_answer,
                      mistake_clash=number.mistake_clash)


def _formula() -> AnswerKind:
    from quiz.core.kinds import formula

    return AnswerKind(formula.read, formula.grade, json_fields=formula.json_fields,
                      warm_texts=formula.warm_texts, accepted_text=formula.accepted_text,
                      mistake_answer=formula.mistake_answer)


def _choice() -> AnswerKind:
    from quiz.core.kinds import choice

    return AnswerKind(choice.read, choice.grade, prompt_lines=choice.prompt_lines,
                      key_text=choice.key_text, has_options=True,
                      expected_fields=choice.expected_fields, as_shown=choice.as_shown,
                      mistake_answer=choice.mistake_answer,
                      mistake_clash=choice.mistake_clash)


def _multi() -> AnswerKind:
    from quiz.core.kinds import choice

    return replace(_choice(), mistake_verdict=choice.multi_mistake_verdict)


def _table() -> AnswerKind:
    from quiz.core.kinds import table

    # (a table's grade scores the rows it gets right, whatever the mistake's credit)
    return AnswerKind(table.read, table.grade, prompt_lines=table.prompt_lines,
                      json_fields=table.json_fields, mistake_answer=table.mistake_answer,
                      mistake_verdict=lambda pv, m: None)


def _layout() -> AnswerKind:
    from quiz.core.kinds import layout

    return AnswerKind(layout.read, layout.grade)


def _spoken() -> AnswerKind:
    from quiz.core.kinds import spoken

    return AnswerKind(spoken.read, spoken.grade, spoken.check_key,
                      prompt_lines=spoken.prompt_lines, json_fields=spoken.json_fields,
                      key_label="Model answer", paragraph=True)


KINDS: Mapping[str, AnswerKind] = LazyTable({
    "number": _number, "formula": _formula, "choice": _choice, "multi": _multi,
    "table": _table, "layout": _layout, "spoken": _spoken})
"""Every answer kind the core can read and grade (the keys are
:data:`questions.types.AnswerKind`'s names; a test keeps them equal)."""


def kind_of(name: str) -> AnswerKind:
    """The entry of the kind called ``name``.

    Raises:
        KeyError: no such kind (templates are validated against the same names, so
            this is a bug).
    """
    return KINDS[name]


def key_text(pv: PartVariant) -> str:
    """A part's key as shown to people: a choice's letters with their options' text,
    any other key as it displays (``key.display`` is what typing back grades right)."""
    return kind_of(pv.kind).key_text(pv)


def expected_json(key: Key) -> dict[str, Any]:
    """The JSON contract's ``expected`` object of a key: its display, its value and unit
    when it has a value, and what its kind adds (a choice's ``correct`` labels, even
    when no label is right). The one builder for ``quiz ask --json`` and ``quiz check
    --json``."""
    out: dict[str, Any] = {"display": key.display}
    if key.value is not None:
        out |= {"value": key.value, "unit": key.unit}
    return out | kind_of(key.kind).expected_fields(key)
