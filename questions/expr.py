"""Safe arithmetic for template data: constraints and answer expressions.

Template files are data, so their little expressions (``heads % tp == 0``,
``tp_bytes / intra_bw``) are read by an AST *whitelist*: Python's parser only builds a
tree (it runs nothing), and we walk that tree ourselves, accepting numbers, known names,
arithmetic, comparisons and ``and``/``or``/``not``. Anything else is refused with a
reason before a template loads.

>>> c = compile_expr("heads % tp == 0", {"heads", "tp"})
>>> c.value({"heads": 64, "tp": 8})
True
>>> compile_expr("__import__('os')", {"tp"})
Traceback (most recent call last):
...
questions.expr.ExprError: function calls are not allowed (only ceil, floor, log2, max, min)
"""

from __future__ import annotations

import ast
import difflib
import math
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from msgspec import Struct

from questions.errors import TemplateError

MAX_LENGTH = 300
MAX_POWER = 64.0
MAX_INT_BITS = 4096
"""Past this many bits, a whole-number power is computed in floating point (where it
overflows at once) instead of exactly: ``((9**64)**64)**64`` would take minutes."""

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "min": min, "max": max, "ceil": math.ceil, "floor": math.floor, "log2": math.log2,
}


class ExprError(TemplateError):
    """A template expression that is not allowed or cannot be evaluated.

    ``expr`` is the expression's text when it failed while being evaluated, and
    ``reason`` what went wrong without it.
    """

    def __init__(self, message: str, *, expr: str | None = None,
                 reason: str | None = None) -> None:
        super().__init__(message, reason=reason)
        self.expr = expr


class Expr(Struct, frozen=True):
    """A checked expression: its text, the names it reads, and a safe evaluator."""

    text: str
    names: frozenset[str]
    tree: ast.expr

    def value(self, env: Mapping[str, Any]) -> Any:
        """Evaluate with names bound by `env`.

        Raises:
            ExprError: a name without a value, division by zero, an exponent too large.
        """
        try:
            return _walk(self.tree, env)
        except ZeroDivisionError as exc:
            reason = "division by zero"
            cause: BaseException = exc
        except OverflowError as exc:
            reason, cause = "a number grows too large to work with", exc
        except RecursionError as exc:
            reason, cause = "nested too deeply", exc
        except (ValueError, TypeError) as exc:
            reason, cause = str(exc), exc
        raise ExprError(f"{self.text}: {reason}", expr=self.text, reason=reason) from cause


def compile_expr(text: str, known: set[str] | frozenset[str],
                 preferred: Iterable[str] = ()) -> Expr:
    """Check `text` against the whitelist and the known names.

    Args:
        text: the expression.
        known: every name it may read.
        preferred: names suggested first for a near miss (a template's drawn and fixed
            parameters: `microbatch` means the drawn `microbatches`, not `micro_batch`).

    Raises:
        ExprError: syntax, a construct that is not allowed, or an unknown name (with a
            suggestion for a near miss).
    """
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"cannot read {text!r}: {exc.msg}") from exc
    names: set[str] = set()
    for node in ast.walk(tree):
        _check(node)
        if isinstance(node, ast.Name) and node.id not in _FUNCTIONS:
            if node.id not in known:
                close = []
                for pool in (sorted(set(preferred) & set(known)), sorted(known)):
                    close = difflib.get_close_matches(node.id, pool, n=1, cutoff=0.6)
                    if close:
                        break
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise ExprError(f"unknown name {node.id!r}{hint}")
            names.add(node.id)
    return Expr(text, frozenset(names), tree)


_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Name,
            ast.Constant, ast.Load, ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
            ast.Call)


def _check(node: ast.AST) -> None:
    if not isinstance(node, _ALLOWED):
        raise ExprError(f"{type(node).__name__} is not allowed in a template expression")
    if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
            and not node.keywords):
        raise ExprError("function calls are not allowed"
                            f" (only {', '.join(sorted(_FUNCTIONS))})")
    if isinstance(node, ast.Constant) and not isinstance(node.value, int | float | bool):
        raise ExprError("only numbers are allowed as constants")
    if isinstance(node, ast.BinOp) and type(node.op) not in _BINARY:
        raise ExprError(f"operator {type(node.op).__name__} is not allowed")


def _walk(node: ast.expr, env: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ExprError(f"{node.id} has no value here")
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        v = _walk(node.operand, env)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return +v
        if isinstance(node.op, ast.Not):
            return not v
        raise ExprError("operator not allowed")
    if isinstance(node, ast.BinOp):
        left, right = _walk(node.left, env), _walk(node.right, env)
        if isinstance(node.op, ast.Pow):
            if abs(right) > MAX_POWER:
                raise ExprError(f"exponent {right} is too large")
            if (isinstance(left, int) and isinstance(right, int)
                    and left.bit_length() * abs(right) > MAX_INT_BITS):
                return float(left) ** right  # OverflowError past 1e308: reported
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Compare):
        left = _walk(node.left, env)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _walk(comp, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        values = (_walk(v, env) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _FUNCTIONS[node.func.id](*(_walk(a, env) for a in node.args))
    raise ExprError(f"{type(node).__name__} is not allowed")
