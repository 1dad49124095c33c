"""The root of quiz's errors: the user's or the environment's fault, never a bug.

Every layer raises a subclass of :class:`QuizError` for a problem a person can fix (a
bad ``--set``, a broken template file, an unusable data folder). The command line
catches ``QuizError`` (and ``OSError``) and prints ``str(exc)`` as one line with exit
code 2; anything else is a bug and is reported as one (see ``quiz.cli``).

The root lives here because ``solver`` is the bottom layer: ``questions`` and
``quiz.core`` derive their own errors from it without importing upwards. This module
imports nothing heavy, so the command line can catch these before sympy loads.

>>> issubclass(SolverError, QuizError)
True
"""

from __future__ import annotations

__all__ = ["QuizError", "SolverError", "Undefined"]


class QuizError(Exception):
    """A problem the user can fix; ``str()`` is one line for a person."""


class SolverError(QuizError, ValueError):
    """An input the solver cannot work with (an unknown key, a value out of range)."""


class Undefined(SolverError, ArithmeticError):
    """A formula with no value for these inputs: it divides by an input that is 0, or
    its value is past the range of a number. Also an ``ArithmeticError``, so callers that
    treat a drawn value out of range as one keep doing so."""
