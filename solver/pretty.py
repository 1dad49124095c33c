"""Formulas printed as a person writes them on a whiteboard.

sympy's own printer writes ``Min(32, 4)``, ``P**2``, ``-0 + 32`` and sorts the terms of
``weight_bytes + grad_bytes + master_bytes + optimizer_bytes`` alphabetically. This
printer keeps what a reader expects instead:

* terms and factors in the order the keys are introduced (model shape, workload,
  precision, hardware, layout; so ``weight + grad + master + optimizer`` stays in that
  order), a number before the letters it multiplies, additions before subtractions;
* ``·`` between letters and ``×`` between numbers, a division as ``a/b`` once;
* ``min(..)``/``max(..)``, powers as superscripts (``h²``), no ``**``.

>>> import sympy as sp
>>> from solver.quantities import sym
>>> pretty(sp.Min(sym("tp"), 4))
'min(tp, 4)'
>>> pretty(sym("weight_bytes") + sym("grad_bytes") + sym("master_bytes"))
'weight_bytes + grad_bytes + master_bytes'
>>> pretty(32 - sym("pp"), {"pp": 0})
'32 − 0'
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import sympy as sp

from solver.keys import KEYS
from solver.plan import fill_pretty
from solver.plan import number as number  # re-exported: substitutions use it
from solver.quantities import QUANTITIES

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_ORDER: dict[str, int] = {name: i for i, name in enumerate([*KEYS, *QUANTITIES])}


def pretty(expr: Any, env: Mapping[str, float] | None = None) -> str:
    """`expr` as a person writes it; with `env`, every symbol replaced by its number."""
    # Only expressions the solver built come here, never typed text: a plain number is
    # wrapped explicitly, and anything else (a string above all) is refused.
    if isinstance(expr, sp.Basic):
        node = expr
    elif isinstance(expr, int) and not isinstance(expr, bool):
        node = sp.Integer(expr)
    elif isinstance(expr, float):
        node = sp.Float(expr)
    else:
        raise TypeError(f"pretty() takes a sympy expression or a number, not {type(expr).__name__}")
    if env is None:
        return _Printer(None).show(node)
    return fill_pretty(_plan(node), env)


_MARK = "\x00"


@lru_cache(maxsize=4096)
def _plan(node: sp.Basic) -> tuple[str, ...]:
    """`node` printed once with numbers in, its symbols marked (text, mark, text, ...):
    walking many variants prints the same formulas with new numbers. Nothing but a
    symbol's number depends on the numbers, so filling the marks in prints the same."""
    return tuple(_Printer(_MARKED).show(node).split(_MARK))


_MARKED: Mapping[str, float] = {}
"""The environment that makes :class:`_Printer` mark each symbol (see :func:`_plan`)."""


class _Printer:
    def __init__(self, env: Mapping[str, float] | None) -> None:
        self.env = env
        self.times = " × " if env is not None else "·"

    # ordering -------------------------------------------------------------
    def rank(self, e: sp.Basic) -> tuple[int, str]:
        names = sorted((s.name for s in e.free_symbols), key=lambda n: _ORDER.get(n, 10**6))
        if not names:
            return (10**7, "")  # plain numbers go last in a sum
        return (_ORDER.get(names[0], 10**6), names[0])

    # printing -------------------------------------------------------------
    def show(self, e: sp.Basic) -> str:
        if isinstance(e, sp.Symbol):
            if self.env is _MARKED:
                return f"{_MARK}N{e.name}{_MARK}"
            return number(self.env[e.name]) if self.env is not None else e.name
        if isinstance(e, sp.Integer):
            return str(int(e))
        if isinstance(e, sp.Rational):
            return f"{e.p}/{e.q}"
        if isinstance(e, sp.Number):
            return number(float(e))
        if isinstance(e, sp.Add):
            return self.add(e)
        if isinstance(e, sp.Mul):
            return self.mul(e)
        if isinstance(e, sp.Pow):
            return self.pow(e)
        if isinstance(e, sp.Min | sp.Max):
            name = "min" if isinstance(e, sp.Min) else "max"
            args = sorted(e.args, key=self.rank)
            return f"{name}({', '.join(self.show(a) for a in args)})"
        return str(e)

    def term_rank(self, e: sp.Basic) -> tuple[int, tuple[int, str], int]:
        """Sums list earlier steps' results first, then the biggest term first."""
        derived = any(s.name in QUANTITIES and s.name not in KEYS for s in e.free_symbols)
        return (0 if derived else 1, self.rank(e), -len(sp.Mul.make_args(e)))

    def add(self, e: sp.Add) -> str:
        plus, minus = [], []
        for term in sorted(e.args, key=self.term_rank):
            coeff, _rest = term.as_coeff_Mul()
            if coeff < 0:
                minus.append(self.show(-term))
            else:
                plus.append(self.show(term))
        text = " + ".join(plus) if plus else ""
        for m in minus:
            text = f"{text} − {m}" if text else f"−{m}"
        return text

    def factor(self, e: sp.Basic) -> str:
        text = self.show(e)
        if isinstance(e, sp.Add) or (isinstance(e, sp.Number) and e < 0):
            return f"({text})"
        return text

    def product(self, factors: list[sp.Basic]) -> str:
        return self.times.join(self.factor(f) for f in factors)

    def mul(self, e: sp.Mul) -> str:
        coeff, rest = e.as_coeff_Mul()
        if coeff < 0:
            return f"−{self.factor(-e)}" if not isinstance(-e, sp.Add) else f"−({self.show(-e)})"
        num: list[sp.Basic] = []
        den: list[sp.Basic] = []
        # Keep an unevaluated product's own order (ring factors build one on purpose).
        args = list(e.args) if not e.is_commutative or _unevaluated(e) else \
            sorted(sp.Mul.make_args(rest), key=self.rank)
        if not _unevaluated(e) and coeff != 1:
            args = [coeff, *args]
        ring: list[sp.Basic] = []
        for a in list(args):
            # N − 1 over N (a ring factor) reads as one group at the end: ·(dp − 1)/dp
            if isinstance(a, sp.Add) and len(a.args) == 2 and sp.Integer(-1) in a.args:
                n = a + 1
                if sp.Pow(n, -1) in args:
                    args.remove(a)
                    args.remove(sp.Pow(n, -1))
                    ring.append(a)
                    ring.append(n)
        for a in args:
            if isinstance(a, sp.Rational) and not isinstance(a, sp.Integer):
                if a.p != 1:
                    num.append(sp.Integer(a.p))
                den.append(sp.Integer(a.q))
            elif isinstance(a, sp.Pow) and a.exp.is_number and a.exp < 0:
                den.append(a.base if a.exp == -1 else sp.Pow(a.base, -a.exp))
            else:
                num.append(a)
        top = self.product(num) if num else "1"
        groups = [f"({self.show(ring[i])})/{self.factor(ring[i + 1])}"
                  for i in range(0, len(ring), 2)]
        if den:
            bottom = self.product(den)
            if len(den) > 1 or isinstance(den[0], sp.Mul):
                bottom = f"({bottom})"
            top = f"{top}/{bottom}"
        elif groups and not num:
            return self.times.join(groups)
        return self.times.join([top, *groups])

    def pow(self, e: sp.Pow) -> str:
        base, exp = e.args
        if exp == sp.Rational(1, 2):
            return f"√{self.factor(base)}"
        if exp.is_number and exp < 0:
            return f"1/{self.factor(sp.Pow(base, -exp))}"
        inner = self.show(base)
        if self.env is _MARKED and isinstance(base, sp.Symbol):
            inner = f"{_MARK}P{base.name}{_MARK}"  # brackets decided when filled in
        elif not isinstance(base, sp.Symbol | sp.Integer) or (
                self.env is not None and not inner.isdigit()):
            inner = f"({inner})"
        if isinstance(exp, sp.Integer):
            return f"{inner}{str(int(exp)).translate(_SUPERSCRIPT)}"
        return f"{inner}^{self.factor(exp)}"


def _unevaluated(e: sp.Mul) -> bool:
    """Whether a product was built with evaluate=False (its args are not canonical)."""
    return bool(e.args != sp.Mul(*e.args).args)
