"""Errors of the question layer: templates that cannot be used, ids that do not exist.

Both derive from :class:`solver.errors.QuizError`, so the command line reports them as
one line with exit code 2.
"""

from __future__ import annotations

from collections.abc import Sequence

from solver.errors import QuizError

__all__ = ["FieldError", "TemplateError", "UnknownTemplate"]


class TemplateError(QuizError, ValueError):
    """A template (or a seed for it) that cannot be turned into a question.

    ``str()`` is the one line for the command line. The template's author also gets
    where it comes from, as data: ``field`` (a path in the template file, e.g.
    ``("constraints", 0)``; empty when unknown) and ``reason`` (the sentence to show
    there), so nothing has to recover them from the wording of the message.
    """

    def __init__(self, message: str, *, field: Sequence[str | int] = (),
                 reason: str | None = None) -> None:
        super().__init__(message)
        self.field: tuple[str | int, ...] = tuple(field)
        self.reason = message if reason is None else reason


class UnknownTemplate(QuizError, LookupError):
    """No template has the id that was asked for."""


class FieldError(ValueError):
    """A wrong field, raised inside the schema's validators.

    The field travels with the reason as data (pydantic keeps the exception in the
    error's context), so the loader places the problem on its line without reading the
    sentence; rewording a message cannot move it.

    Attributes:
        field: the path below the model that raised it, e.g. ``("answer", "cells")``;
            empty for the model itself.
        reason: what is wrong, for the author.
    """

    def __init__(self, field: Sequence[str | int], reason: str) -> None:
        super().__init__(reason)
        self.field = tuple(field)
        self.reason = reason
