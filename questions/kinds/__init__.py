"""The answer kinds of the question layer, in one table.

One module per kind (:mod:`~questions.kinds.number`, :mod:`~questions.kinds.formula`,
:mod:`~questions.kinds.choice`, :mod:`~questions.kinds.table`,
:mod:`~questions.kinds.layout`, :mod:`~questions.kinds.spoken`): which fields its parts
need, what to check against the solver when a template loads, how a variant's key is
drawn, and the last line of the worked explanation. :data:`KINDS` registers them under the names of
:data:`questions.types.AnswerKind` (a test keeps the two equal). The schema, the loader
and :func:`questions.variants.make_variant` dispatch through this table; the core has
its own table for reading and grading (:mod:`quiz.core.kinds`).

Code outside the kinds imports no kind's module: it reads a part through its kind's
entry (an amount through ``amount_of``, the mistakes the solver derives through
``rederived``), and the questions it asks of its own (learn mode's steps, the
interviewer's follow-ups) are built by :mod:`questions.kinds.build`, which says which
kind asks an amount, a pick of one option and a layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from importlib import import_module

from questions.kinds.base import QuestionKind
from questions.lazytable import LazyTable

__all__ = ["DEFAULT", "KINDS", "kind_of"]

DEFAULT = "number"
"""The kind of a part whose template names none (``answer_kind``'s default)."""


def _kind(module: str) -> QuestionKind:
    kind: QuestionKind = import_module(f"questions.kinds.{module}").KIND
    return kind


# Each kind's module is imported when the kind is first asked for: drawing one kind (a
# one-shot `quiz ask`) does not import the others.
KINDS: Mapping[str, QuestionKind] = LazyTable({
    name: partial(_kind, module) for name, module in (
        ("number", "number"), ("formula", "formula"), ("choice", "choice"),
        ("multi", "choice"), ("table", "table"), ("layout", "layout"),
        ("spoken", "spoken"))})
"""Every answer kind a template may name."""


def kind_of(name: str) -> QuestionKind:
    """The entry of the kind called ``name``.

    Raises:
        KeyError: no such kind (the schema only admits registered kinds).
    """
    return KINDS[name]

