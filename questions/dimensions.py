"""Dimensions of template expressions: bytes, FLOP and seconds, and their rates and ratios.

Counts (parameters, tokens, layers, GPUs, requests) are dimensionless here: a parameter
count times bytes per parameter is bytes. A number written in an expression may carry a
unit (the 2 FLOP per parameter of ``2 * params``, the 3600 s of an hour), so a product
with a number in it is not checked strictly; sums, names and each argument of
``min``/``max`` are, on their own. Read with plain numbers (``plain_numbers=True``), an
expression that then does not fit its unit gets a warning ("unit not checked") that
names the unit its numbers would have to carry. The loader compares the
dimension of an answer's ``expr`` (and of each known mistake's) with the answer's
``unit``, so that ``kv_cache_bytes / hbm_bytes`` cannot be graded in seconds.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

__all__ = ["Dim", "dim_of_unit", "expr_dim", "has_number", "per", "show_dim"]

Dim = tuple[tuple[str, int], ...]
"""Exponents of the base dimensions B, FLOP and s, without zeros, e.g. (("B", 1), ("s", -1))."""

_BASES = ("B", "FLOP", "s")
_COUNTS = ("1", "", "param", "params", "token", "tokens", "request", "requests")


def _make(exps: Mapping[str, int]) -> Dim:
    return tuple((b, exps[b]) for b in _BASES if exps.get(b))


def dim_of_unit(unit: str) -> Dim:
    """The dimension of a base unit such as "B/s", "FLOP", "1/s" or "tokens/s".

    Raises:
        ValueError: a unit that is not a product of B, FLOP, s and counts.
    """
    exps: dict[str, int] = {}
    num, _, den = unit.partition("/")
    for side, sign in ((num, 1), (den, -1)):
        for word in side.split("*") if side else []:
            word = word.strip()
            if word in _COUNTS:
                continue
            if word not in _BASES:
                raise ValueError(f"unknown unit {unit!r}")
            exps[word] = exps.get(word, 0) + sign
    return _make(exps)


def show_dim(dim: Dim) -> str:
    """A dimension as a unit: "B/s", "FLOP", "1/s", or "1" for a ratio or count."""
    num = "*".join(b if e == 1 else f"{b}^{e}" for b, e in dim if e > 0) or "1"
    den = "*".join(b if e == -1 else f"{b}^{-e}" for b, e in dim if e < 0)
    return f"{num}/{den}" if den else num


def _mul(a: Dim, b: Dim, sign: int = 1) -> Dim:
    exps = dict(a)
    for base, e in b:
        exps[base] = exps.get(base, 0) + sign * e
    return _make(exps)


def per(a: Dim, b: Dim) -> Dim:
    """The dimension a / b.

    >>> show_dim(per(dim_of_unit("FLOP"), dim_of_unit("s")))
    'FLOP/s'
    """
    return _mul(a, b, -1)


class DimensionError(ValueError):
    """Two terms of different dimensions added, subtracted or compared."""


def expr_dim(text: str, units: Mapping[str, str], *, plain_numbers: bool = False
             ) -> Dim | None:
    """The dimension of an expression whose names have these base units; None when it
    cannot be known (a free parameter, a power with a non-constant exponent, a product
    with a number in it, which may carry a unit).

    Args:
        text: the expression.
        units: name -> base unit.
        plain_numbers: read every number as a plain number (no unit): what the
            expression's dimension is unless one of its numbers carries a unit.

    Raises:
        DimensionError: terms of different dimensions added, subtracted, compared or
            given to min()/max() (each argument is checked on its own: a number in one
            of them leaves the others checked).
    """
    return _dim(ast.parse(text.strip(), mode="eval").body, units, plain_numbers)


def has_number(text: str) -> bool:
    """Whether an expression holds a number (which may carry a unit).

    >>> has_number("2 * params * tokens"), has_number("kv_cache_bytes / hbm_bw")
    (True, False)
    """
    return any(isinstance(n, ast.Constant) and not isinstance(n.value, bool)
               for n in ast.walk(ast.parse(text.strip(), mode="eval")))


def _dim(node: ast.expr, units: Mapping[str, str], plain: bool = False) -> Dim | None:
    if isinstance(node, ast.Constant):
        # a number may carry a unit: 2 FLOP per parameter, 3600 s per hour
        return () if plain else None
    if isinstance(node, ast.Name):
        unit = units.get(node.id)
        return None if unit is None else dim_of_unit(unit)
    if isinstance(node, ast.UnaryOp):
        return () if isinstance(node.op, ast.Not) else _dim(node.operand, units, plain)
    if isinstance(node, ast.BinOp):
        left, right = _dim(node.left, units, plain), _dim(node.right, units, plain)
        if isinstance(node.op, ast.Pow):
            if left == ():
                return ()
            if left is not None and isinstance(node.right, ast.Constant) and isinstance(
                    node.right.value, int) and not isinstance(node.right.value, bool):
                return _make({b: e * node.right.value for b, e in left})
            return None
        if isinstance(node.op, ast.Add | ast.Sub | ast.Mod) and (left is None) != (
                right is None):
            return left if right is None else right
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Mult):
            return _mul(left, right)
        if isinstance(node.op, ast.Div):
            return _mul(left, right, -1)
        if isinstance(node.op, ast.FloorDiv):
            return _mul(left, right, -1)
        return _same(node, left, right)  # + - %
    if isinstance(node, ast.Compare):
        dims = [_dim(x, units, plain) for x in (node.left, *node.comparators)]
        known = [d for d in dims if d is not None]
        if any(d != known[0] for d in known):
            raise DimensionError(f"compares {show_dim(known[0])} with "
                                 f"{show_dim(next(d for d in known if d != known[0]))}")
        return ()
    if isinstance(node, ast.BoolOp):
        return ()
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_dim(a, units, plain) for a in node.args]
        if node.func.id == "log2":
            return ()
        # Each argument on its own: one with a number in it (unknown) leaves the
        # others checked, and they give the call's dimension.
        known = [a for a in args if a is not None]
        if not known:
            return None
        first = known[0]
        for other in known[1:]:
            if other != first:
                raise DimensionError(f"{node.func.id}() of {show_dim(first)} and "
                                     f"{show_dim(other)}")
        return first
    return None


def _same(node: ast.BinOp, left: Dim, right: Dim) -> Dim:
    if left != right:
        op = {ast.Add: "adds", ast.Sub: "subtracts", ast.Mod: "takes % of"}.get(
            type(node.op), "combines")
        raise DimensionError(f"{op} {show_dim(left)} and {show_dim(right)}")
    return left
