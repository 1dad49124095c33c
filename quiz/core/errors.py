"""Every error quiz reports to a person, in one place (the front ends catch these).

The hierarchy, rooted in :class:`solver.errors.QuizError`:

- :class:`~solver.errors.SolverError`: an input the solver cannot work with.
- :class:`~questions.errors.TemplateError`: a template file or a seed that cannot be
  used; :class:`~questions.errors.UnknownTemplate`: no template has that id.
- :class:`StoreError`: the history cannot be opened, read or written.
- :class:`SettingsError`: the settings file cannot be written.
- :class:`UsageError`: a command asked for something that cannot be done (a file that
  already exists); :class:`NoQuestions`: no template matches a topic, tag or id.

``str(exc)`` is always one line. Anything that is not a ``QuizError`` (or an
``OSError`` from the environment) is a bug.
"""

from __future__ import annotations

from questions.errors import TemplateError, UnknownTemplate
from solver.errors import QuizError, SolverError

__all__ = [
    "NoQuestions",
    "QuizError",
    "SettingsError",
    "SolverError",
    "StoreError",
    "TemplateError",
    "UnknownTemplate",
    "UsageError",
]


class StoreError(QuizError):
    """The history cannot be used for a reason that moving the file aside won't fix."""


class SettingsError(QuizError):
    """The settings file cannot be written."""


class UsageError(QuizError, ValueError):
    """A command asked for something that cannot be done; the message says what to do."""


class NoQuestions(UsageError, LookupError):
    """No template matches the topic, tag, id or difficulty asked for."""
