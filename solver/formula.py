"""Safe formula reading (temporary bridge; the parser moves here from quiz.core.reading)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def read_formula(text: str, allowed: Mapping[str, Any]) -> Any:
    """Read a typed formula into sympy with only the allowed symbols."""
    from quiz.core import reading

    return reading.read_formula(text, allowed)


def formulas_equivalent(a: Any, b: Any, symbols: Sequence[Any]) -> bool:
    """Whether two formulas are equal as functions of the symbols."""
    from quiz.core import reading

    return reading.formulas_equivalent(a, b, symbols)
