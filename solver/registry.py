"""The quantity registry: symbols by name, :class:`Quantity`, the :func:`quantity`
decorator that registers a builder, and :data:`QUANTITIES`.

It is its own module so that the modules of quantities (:mod:`solver.quantities` and the
serving, scaling and reliability ones it imports) register into one table without
importing each other: :mod:`solver.quantities` imports them, none of them imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from solver.inputs import Ctx

_SYMBOLS: dict[str, sp.Symbol] = {}


def sym(name: str) -> sp.Symbol:
    """The positive real symbol for a key or quantity name (one per name, cached).

    >>> sym("tp") is sym("tp")
    True
    """
    s = _SYMBOLS.get(name)
    if s is None:
        s = _SYMBOLS[name] = sp.Symbol(name, positive=True)
    return s


Builder = Callable[[Ctx], tuple[sp.Expr, str]]


@dataclass(frozen=True)
class Quantity:
    """A named derivation step.

    Attributes:
        name: the quantity's name (`quiz solve NAME`).
        unit: its base unit.
        meaning: one line for `quiz solve --list`.
        build: returns (local formula, step text) for the conventions in force.
        public: listed by `--list` (internal steps are still solvable).
    """

    name: str
    unit: str
    meaning: str
    build: Builder
    public: bool = True


QUANTITIES: dict[str, Quantity] = {}


def quantity(
    name: str, unit: str, meaning: str, *, public: bool = True
) -> Callable[[Builder], Builder]:
    """Register a builder as the quantity `name`."""

    def register(fn: Builder) -> Builder:
        QUANTITIES[name] = Quantity(name, unit, meaning, fn, public)
        return fn

    return register



def ring(n: sp.Expr, c: Ctx, *, allreduce: bool) -> tuple[sp.Expr, str]:
    """Bytes moved per rank, as a multiple of the buffer, by one ring collective.

    All-reduce: 2(N-1)/N exactly, or 2 when the factor is dropped (0 at N = 1 either way).
    Reduce-scatter or all-gather: half of that.
    """
    scale = 2 if allreduce else 1
    if c.ring_exact:
        # Unevaluated, so the formula reads 2*(dp - 1)/dp as on a whiteboard rather than
        # sympy's distributed (2*dp - 2)/dp.
        factor = sp.Mul(scale, (n - 1) / n, evaluate=False) if allreduce else (n - 1) / n
        return factor, f"ring factor {'2' if allreduce else ''}(N-1)/N"
    return scale * sp.Min(1, n - 1), f"ring factor {scale} (the (N-1)/N factor dropped)"
