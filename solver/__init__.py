"""The symbolic solver: every answer key and explanation in the app comes from here.

The package exports lazily (PEP 562) so that light modules such as :mod:`solver.units`
can be imported without paying for sympy.

>>> from solver import solve
>>> r = solve("model_state_bytes", model="llama3-70b")
>>> r.display
'1.13 TB'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solver.engine import (
        Result,
        Step,
        list_quantities,
        resolve_inputs,
        solve,
        symbol,
    )
    from solver.errors import SolverError
    from solver.keys import KEYS
    from solver.light import evaluate
    from solver.presets import GPUS, MODELS

__all__ = [
    "GPUS",
    "KEYS",
    "MODELS",
    "Result",
    "SolverError",
    "Step",
    "evaluate",
    "list_quantities",
    "resolve_inputs",
    "solve",
    "symbol",
]

_WHERE = {
    "Result": "solver.engine",
    "SolverError": "solver.errors",
    "Step": "solver.engine",
    "evaluate": "solver.light",
    "list_quantities": "solver.engine",
    "resolve_inputs": "solver.engine",
    "solve": "solver.engine",
    "symbol": "solver.engine",
    "KEYS": "solver.keys",
    "GPUS": "solver.presets",
    "MODELS": "solver.presets",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
