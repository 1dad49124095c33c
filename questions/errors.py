"""Errors of the question layer: templates that cannot be used, ids that do not exist.

Both derive from :class:`solver.errors.QuizError`, so the command line reports them as
one line with exit code 2.
"""

from __future__ import annotations

from solver.errors import QuizError

__all__ = ["TemplateError", "UnknownTemplate"]


class TemplateError(QuizError, ValueError):
    """A template (or a seed for it) that cannot be turned into a question."""


class UnknownTemplate(QuizError, LookupError):
    """No template has the id that was asked for."""
