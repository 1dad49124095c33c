"""Safe formula reading: typed or template text to sympy, never through eval.

Formulas are read by a small tokenizer and a recursive-descent parser that builds sympy
objects itself from the names it is given (sympy's own namespace, where ``N``, ``S``,
``E``, ``I``, ``Q`` and ``O`` mean something else, is never consulted). Input length,
token count, nesting depth, exponent size and power towers are capped, so a reply comes
back in milliseconds whatever is typed. This lives in the solver layer because template
formulas go through it too; :mod:`quiz.core.reading` re-exports it for typed answers.

In formulas a run of letters that is not an allowed name is split into allowed names
when exactly one split exists (``6PD`` is ``6*P*D`` when ``P`` and ``D`` are allowed,
but not when a name ``PD`` also exists, which then wins). Implicit multiplication is
inserted only before a name or an opening parenthesis (``2(N-1)``, ``6 P D``,
``(a)(b)``); two numbers side by side are refused.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import sympy

SUPERSCRIPT_DIGITS: Final = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
"""Superscript digits and signs to ASCII, for exponents such as 10²⁴."""

__all__ = ["FormulaReading", "Unreadable", "clean_text", "formula_ratio",
           "formulas_equivalent", "read_formula"]

MAX_FORMULA_CHARS: Final = 500
MAX_EXPONENT: Final = 400
"""Largest power of ten a number may carry; floats end near 1e308 anyway."""
MAX_POWER: Final = 64
"""Largest numeric exponent in a formula: enough for any formula of the domain, small
enough that ``10**10**10`` is refused instead of computed."""
MAX_DEPTH: Final = 50
"""Deepest nesting of parentheses in a formula."""
MAX_TOKENS: Final = 200
MAX_TOWER: Final = 8
"""Highest stack of powers in a formula (``a^b^c`` is 2 high)."""
MAX_NUMBER_BITS: Final = 20_000
"""Largest exact number (numerator or denominator bits) a formula may build by powers."""
MAX_ROOT_BITS: Final = 256
"""Largest number (in bits) whose root a formula may take, since sympy factors it."""


class Unreadable(ValueError):
    """An answer that cannot be read; it costs the person no attempt.

    Attributes:
        message: what was wrong, one sentence for a person (capitalized, with a full stop,
            so callers can append "For example: ..." to it). It does not repeat `example`.
        example: an input of the same kind that would be read.
    """

    def __init__(self, message: str, example: str) -> None:
        message = message.strip()
        if message and message[0].islower():
            message = message[0].upper() + message[1:]
        if message and message[-1] not in ".!?":
            message += "."
        super().__init__(message)
        self.message = message
        self.example = example


@dataclass(frozen=True)
class FormulaReading:
    """A formula answer as read.

    Attributes:
        expr: the sympy expression, built only from numbers and the allowed symbols.
        read_as: the expression as sympy prints it ("6*D*P").
        text: the text as typed.
    """

    expr: sympy.Expr
    read_as: str
    text: str


def _sympy() -> Any:
    """sympy, imported on first use: it costs ~0.3 s, which number answers never pay."""
    import sympy

    return sympy


# ---------------------------------------------------------------- cleaning text

_ASCII_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(text: str, limit: int, example: str) -> str:
    """Check length and characters; fold tabs, newlines and Unicode spaces to spaces."""
    if len(text) > limit:
        raise Unreadable(
            f"that answer is {len(text):,} characters long; answers here are at most {limit}",
            example,
        )
    if text.isascii():
        if _ASCII_CONTROL.search(text):
            raise Unreadable("the answer contains a control character; please retype it", example)
        return text.replace("\t", " ").replace("\n", " ").replace("\r", " ")
    out: list[str] = []
    for ch in text:
        if ch in "\t\n\r":
            out.append(" ")
            continue
        category = unicodedata.category(ch)
        # Cc controls, Cf formatting (bidi overrides, zero-width spaces), Cs/Co/Cn:
        # none can be typed on purpose, and some make the text display differently
        # from what it is.
        if category[0] == "C" or category in ("Zl", "Zp"):
            raise Unreadable(
                f"the answer contains an invisible or control character (U+{ord(ch):04X}); "
                "please retype it",
                example,
            )
        if category == "Zs":
            out.append(" ")
        elif category == "Nd" and not ch.isascii():
            raise Unreadable(f"please write digits as 0-9 (found {ch!r}, U+{ord(ch):04X})", example)
        elif ch == "−":  # U+2212 MINUS SIGN, what typographic keyboards produce
            out.append("-")
        else:
            out.append(ch)
    return "".join(out)


def compact(value: float) -> str:
    """Up to six significant digits, with a bare exponent: 1.13e12, 1.5e-5, 0.35."""
    text = f"{value:.6g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


# ---------------------------------------------------------------- formulas

_FLOAT_HUGE: Final = Fraction(10) ** 308
_FLOAT_TINY: Final = Fraction(1, 10**307)
_FORMULA_TOKEN: Final = re.compile(
    r"""
      (?P<ws>\s+)
    | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
    | (?P<name>[A-Za-z_\u0370-\u03ff][A-Za-z0-9_\u0370-\u03ff]*)
    | (?P<pow>\*\*|\^)
    | (?P<op>[-+*/×·⋅∙÷])
    | (?P<lp>[(\[])
    | (?P<rp>[)\]])
    | (?P<sup>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)
    """,
    re.VERBOSE,
)
_OPERATOR: Final = {"×": "*", "·": "*", "⋅": "*", "∙": "*", "÷": "/"}
_Token = tuple[str, str]  # (kind, text)


def _formula_example(allowed: Mapping[str, Any]) -> str:
    names = sorted(name for name in allowed if name.isidentifier())[:2]
    if len(names) == 2:
        return f"2*{names[0]}*{names[1]}"
    if names:
        return f"2*{names[0]}"
    return "2*(3 + 4)"


def _tokenize(text: str, example: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        match = _FORMULA_TOKEN.match(text, pos)
        if match is None:
            raise Unreadable(
                f"{text[pos]!r} cannot appear in a formula; use names, numbers, "
                "+ - * / ^ and parentheses",
                example,
            )
        pos = match.end()
        kind = match.lastgroup or ""
        if kind == "ws":
            continue
        token = match.group()
        if kind == "op":
            token = _OPERATOR.get(token, token)
        tokens.append((kind, token))
        if len(tokens) > MAX_TOKENS:
            raise Unreadable(f"the formula has more than {MAX_TOKENS} parts", example)
    return tokens


def _segment(word: str, names: Mapping[str, str]) -> list[str] | None:
    """Split `word` into keys of `names` if exactly one split exists, else None."""
    if not names or len(word) > 64:
        return None
    longest = max(len(name) for name in names)
    n = len(word)
    ways = [0] * (n + 1)  # ways[i]: splits of word[i:], counted up to 2
    step = [0] * (n + 1)
    ways[n] = 1
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, min(n, i + longest) + 1):
            if ways[j] and word[i:j] in names:
                if ways[i] == 0:
                    step[i] = j
                ways[i] = min(2, ways[i] + ways[j])
    if ways[0] != 1:
        return None
    pieces, i = [], 0
    while i < n:
        pieces.append(names[word[i : step[i]]])
        i = step[i]
    return pieces


class _FormulaParser:
    """Recursive descent over the tokens, building sympy objects directly.

    Grammar (``^`` binds tightest and to the right; unary minus binds looser than ``^``)::

        expr    := term (("+" | "-") term)*
        term    := unary (("*" | "/") unary | power)*     # power: implicit "*"
        unary   := ("+" | "-") unary | power
        power   := primary [superscript] ["^" unary]
        primary := number | name | "(" expr ")"
    """

    def __init__(
        self, tokens: list[_Token], resolve: Callable[[str], Any], sp: Any, example: str
    ) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.level = 0
        self.tower = 0
        self.resolve = resolve
        self.sp = sp
        self.example = example

    def fail(self, message: str) -> Unreadable:
        return Unreadable(message, self.example)

    def peek(self) -> _Token:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def take(self) -> _Token:
        token = self.peek()
        self.pos += 1
        return token

    def parse(self) -> Any:
        if not self.tokens:
            raise self.fail("the formula is empty")
        result = self.expr()
        kind, text = self.peek()
        if kind == "rp":
            raise self.fail(f"a {text!r} has no matching opening bracket")
        if kind != "end":
            raise self.fail(f"unexpected {text!r}")
        return result

    def expr(self) -> Any:
        left = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            _, op = self.take()
            right = self.term()
            left = self.sp.Add(left, right if op == "+" else -right)
        return left

    def term(self) -> Any:
        left = self.unary()
        while True:
            kind, text = self.peek()
            if kind == "op" and text in "*/":
                self.take()
                right = self.unary()
                left = self.sp.Mul(left, right if text == "*" else self.sp.Pow(right, -1))
            elif kind in ("name", "lp"):
                left = self.sp.Mul(left, self.power())
            elif kind == "num":
                raise self.fail(f"put an operator such as * before the number {text}")
            else:
                return left

    def unary(self) -> Any:
        # Every descent passes through here, so this one counter bounds the recursion
        # of long "- - - x" or "2^2^2^..." chains as well as of parentheses.
        self.level += 1
        if self.level > 3 * MAX_DEPTH:
            raise self.fail("the formula is nested too deeply")
        try:
            if self.peek() in (("op", "+"), ("op", "-")):
                _, op = self.take()
                operand = self.unary()
                return operand if op == "+" else -operand
            return self.power()
        finally:
            self.level -= 1

    def power(self) -> Any:
        base = self.primary()
        kind, text = self.peek()
        if kind == "sup":
            self.take()
            sup = text.translate(SUPERSCRIPT_DIGITS)
            base = self.raise_to(base, self.sp.Integer(int(sup)))
            kind, text = self.peek()
        if kind == "pow":
            self.take()
            # sympy's work on a power grows with what is stacked in its exponent, and
            # no formula of the domain stacks powers: cap the height of the tower.
            self.tower += 1
            if self.tower > MAX_TOWER:
                raise self.fail(f"powers stacked more than {MAX_TOWER} high are not read")
            try:
                exponent = self.unary()
            finally:
                self.tower -= 1
            base = self.raise_to(base, exponent)
        return base

    def raise_to(self, base: Any, exponent: Any) -> Any:
        sp = self.sp
        if exponent.is_Number:
            if abs(exponent) > MAX_POWER:
                raise self.fail(f"numeric exponents are limited to ±{MAX_POWER} here")
            bits = max(
                (
                    max(abs(int(r.p)).bit_length(), int(r.q).bit_length())
                    for r in base.atoms(sp.Rational)
                ),
                default=1,
            )
            if bits * abs(float(exponent)) > MAX_NUMBER_BITS:
                raise self.fail("that power makes a number too large to work with")
            if not exponent.is_Integer and bits > MAX_ROOT_BITS:
                # sympy factors the base to simplify a root: fast for small numbers, but
                # a quarter of a second for a 4096-bit one.
                raise self.fail("roots of numbers this large are not read")
        return sp.Pow(base, exponent)

    def primary(self) -> Any:
        kind, text = self.take()
        if kind == "num":
            return self.number(text)
        if kind == "name":
            factors = self.resolve(text)
            return self.sp.Mul(*factors) if len(factors) > 1 else factors[0]
        if kind == "lp":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.fail(f"parentheses are nested more than {MAX_DEPTH} deep")
            inner = self.expr()
            if self.take()[0] != "rp":
                raise self.fail("a '(' is never closed")
            self.depth -= 1
            return inner
        if kind == "end":
            raise self.fail("the formula ends where a number or name was expected")
        raise self.fail(f"{text!r} cannot start a term")

    def number(self, text: str) -> Any:
        mantissa, _, exp_text = text.lower().partition("e")
        exponent = 0
        if exp_text:
            digits = exp_text.lstrip("+-")
            if len(digits) > 4 or int(digits) > MAX_EXPONENT:
                raise self.fail(f"exponents up to ±{MAX_EXPONENT} are read")
            exponent = -int(digits) if exp_text[0] == "-" else int(digits)
        whole, _, frac = mantissa.partition(".")
        value = Fraction(int(whole + frac or "0"), 10 ** len(frac)) * Fraction(10) ** exponent
        if value and not _FLOAT_TINY <= value <= _FLOAT_HUGE:
            # Formulas are graded by evaluating them, and the answer keys are floats.
            raise self.fail(f"{text} is outside the range of numbers this quiz works with")
        return self.sp.Rational(value.numerator, value.denominator)


def _name_resolver(allowed: Mapping[str, Any], example: str) -> Callable[[str], list[Any]]:
    folded: dict[str, list[str]] = {}
    for name in allowed:
        folded.setdefault(name.casefold(), []).append(name)
    unique_folded = {key: names[0] for key, names in folded.items() if len(names) == 1}
    exact = {name: name for name in allowed}

    def resolve(word: str) -> list[Any]:
        if word in allowed:
            return [allowed[word]]
        matches = folded.get(word.casefold(), [])
        if len(matches) == 1:
            return [allowed[matches[0]]]
        if len(matches) > 1:
            raise Unreadable(
                f"{word!r} could be any of {', '.join(sorted(matches))}; mind the case",
                example,
            )
        pieces = _segment(word, exact) or _segment(word.casefold(), unique_folded)
        if pieces is not None:
            return [allowed[piece] for piece in pieces]
        known = sorted(allowed)
        listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
        raise Unreadable(
            f"unknown name {word!r}; the names you can use are: {listed or '(none)'}", example
        )

    return resolve


def read_formula(text: str, allowed: Mapping[str, sympy.Symbol]) -> FormulaReading:
    """Read a formula over the allowed names, building the sympy expression directly.

    Args:
        text: the formula as typed, e.g. "6*P*D", "6 P D", "2(N-1)/N * B", "h²".
        allowed: the names a person may use → the sympy symbols they stand for. Only
            these names are recognized; sympy's own names (N, S, E, I, Q, O) mean nothing.

    Returns:
        The expression and how sympy prints it.

    Raises:
        Unreadable: unknown names, bad syntax, division by zero, or a broken limit
            (length, tokens, nesting, exponent size).
    """
    example = _formula_example(allowed)
    cleaned = clean_text(text, MAX_FORMULA_CHARS, example).strip()
    if not cleaned:
        raise Unreadable("the formula is empty", example)
    tokens = _tokenize(cleaned, example)
    sp = _sympy()
    parser = _FormulaParser(tokens, _name_resolver(allowed, example), sp, example)
    try:
        expr = parser.parse()
    except Unreadable:
        raise
    except (ArithmeticError, RecursionError, ValueError):
        # sympy's own evaluation can fail on odd numbers (sympy 1.14 raises ValueError
        # from its factor cache for some roots); to the person it is just unreadable.
        raise Unreadable("that formula is too large or too odd to work with", example) from None
    if expr.has(sp.zoo, sp.nan, sp.oo, sp.S.NegativeInfinity):
        raise Unreadable("the formula divides by zero or is otherwise undefined", example)
    return FormulaReading(expr=expr, read_as=str(expr), text=text)


class _OutOfBudget(Exception):
    """The evaluation budget of `formulas_equivalent` ran out."""


_MAX_LOG2: Final = 65_536
"""Largest binary order of magnitude a value may reach while formulas are compared."""
_FRACTION_BITS: Final = 4_096
"""Past this size exact fractions give way to 50-digit floats, to bound the time spent."""
MAX_EVALUATIONS: Final = 20_000
"""Terms :func:`formulas_equivalent` and :func:`formula_ratio` may evaluate, over all
their points and both formulas, before they give up (a count, not a clock: a verdict
is the same on every machine and under any load). One term's cost is bounded by
_FRACTION_BITS and _MAX_LOG2, and a typed formula by MAX_TOKENS: a formula of 200
parts against its expanded form took 815, and "6*P*D" against a rewritten form 129."""


def _evaluator(ctx: Any, sp: Any, point: dict[Any, Fraction], budget: list[int]) -> Any:
    """Evaluate a sympy tree at `point`: exactly where possible, else with mpmath; each
    term evaluated takes one from ``budget[0]`` (a subtree sympy evaluates, its size)."""

    def as_mp(x: Any) -> Any:
        return ctx.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else x

    def fallback(node: Any) -> Any:
        # Anything but + * ^ (Max, ceiling, pi, ...) is rare here: let sympy evaluate it.
        budget[0] -= sum(1 for _ in sp.preorder_traversal(node))
        if budget[0] < 0:
            raise _OutOfBudget
        subs = {symbol: sp.Rational(v.numerator, v.denominator) for symbol, v in point.items()}
        number = node.xreplace(subs).evalf(ctx.dps)
        real, imag = number.as_real_imag()
        if not (real.is_Number and imag.is_Number):
            raise ValueError("not a number")
        return ctx.mpc(ctx.mpf(str(real)), ctx.mpf(str(imag))) if imag else ctx.mpf(str(real))

    def ev(node: Any) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudget
        if node.is_Symbol:
            return point[node]
        if node.is_Rational:
            return Fraction(int(node.p), int(node.q))
        if node.is_Float:
            return ctx.make_mpf(node._mpf_)
        if node.is_Add or node.is_Mul:
            values = [ev(arg) for arg in node.args]
            if all(isinstance(v, Fraction) for v in values):
                total = values[0]
                for v in values[1:]:
                    total = total + v if node.is_Add else total * v
                return total
            mp_values = [as_mp(v) for v in values]
            return ctx.fsum(mp_values) if node.is_Add else ctx.fprod(mp_values)
        if node.is_Pow:
            base, exponent = ev(node.base), ev(node.exp)
            if (
                isinstance(base, Fraction)
                and isinstance(exponent, Fraction)
                and exponent.denominator == 1
            ):
                bits = max(base.numerator.bit_length(), base.denominator.bit_length())
                if bits * abs(exponent.numerator) <= _FRACTION_BITS:
                    return base ** int(exponent)  # ZeroDivisionError for 0**-1: caught
            base, exponent = as_mp(base), as_mp(exponent)
            if base != 0 and exponent != 0:
                # mpmath works with any exponent size, but a tower such as P^P^P^P
                # makes it grind for minutes: refuse results beyond 2^±65536.
                size = abs(exponent) * (abs(ctx.log(abs(base), 2)) + 5)
                if size > _MAX_LOG2:
                    raise OverflowError("too large to evaluate")
            return ctx.power(base, exponent)
        return fallback(node)

    return ev


def _as_sympy(sp: Any, x: Any) -> Any:
    """Plain Python numbers become sympy numbers; anything else is passed through."""
    if isinstance(x, bool):
        return x  # not a formula: rejected by the caller
    if isinstance(x, int):
        return sp.Integer(x)
    if isinstance(x, float):
        return sp.Float(x)
    return x


def _agree(ctx: Any, a: Any, b: Any) -> bool | None:
    """True/False for equal/unequal values; None when either is not a finite number."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    a = ctx.mpf(a.numerator) / a.denominator if isinstance(a, Fraction) else a
    b = ctx.mpf(b.numerator) / b.denominator if isinstance(b, Fraction) else b
    if not (ctx.isfinite(a) and ctx.isfinite(b)):
        return None
    scale = max(abs(a), abs(b))
    return bool(abs(a - b) <= scale * ctx.mpf("1e-9"))


def formulas_equivalent(
    a: sympy.Expr,
    b: sympy.Expr,
    symbols: Sequence[sympy.Symbol],
    *,
    positive: bool = True,
    budget: int = MAX_EVALUATIONS,
) -> bool:
    """Whether two formulas are the same function of their symbols.

    ``sympy.simplify`` is not used: it cannot be interrupted, and on some inputs it runs
    for seconds. Instead both formulas are evaluated at five pseudo-random points —
    exactly, with fractions, wherever only + * / and integer powers occur, otherwise with
    50-digit mpmath floats and a relative tolerance of 1e-9. Two different rational
    functions agree on random points only by a vanishing chance (the Schwartz-Zippel
    lemma), and the points are drawn from a fixed seed, so a given pair always gets the
    same verdict.

    Args:
        a: a formula (sympy expression, or a plain int or float).
        b: the formula to compare with.
        symbols: the symbols the formulas are functions of; any other free symbol of `a`
            or `b` is also given values.
        positive: draw only positive values (the quantities of this domain are).
        budget: terms that may be evaluated (:data:`MAX_EVALUATIONS`); when they run
            out the answer is False.

    Returns:
        True when the formulas agree at every point; False when they differ anywhere,
        cannot be evaluated, or the budget runs out. Never raises.
    """
    left = [budget]
    try:
        sp = _sympy()
        import mpmath  # type: ignore[import-untyped, unused-ignore]  # ships no types

        a, b = (_as_sympy(sp, a), _as_sympy(sp, b))
        if not (isinstance(a, sp.Basic) and isinstance(b, sp.Basic)):
            return False
        if a == b:
            return True
        free = sorted(set(symbols) | a.free_symbols | b.free_symbols, key=str)
        ctx = mpmath.MPContext()
        ctx.dps = 50
        rng = random.Random(20240611)
        agreed = 0
        for _attempt in range(12):
            point = {}
            for symbol in free:
                value = Fraction(rng.randint(2, 97), rng.randint(1, 13))
                point[symbol] = -value if not positive and rng.random() < 0.5 else value
            evaluate = _evaluator(ctx, sp, point, left)
            try:
                verdict = _agree(ctx, evaluate(a), evaluate(b))
            except (ArithmeticError, ValueError):
                verdict = None  # a pole or an undefined value at this point: try another
            if verdict is False:
                return False
            if verdict:
                agreed += 1
                if agreed == 5:
                    return True
        return False
    except Exception:
        # _OutOfBudget, and anything odd a caller's expression may raise: "not shown equal".
        return False


def formula_ratio(
    a: sympy.Expr,
    b: sympy.Expr,
    symbols: Sequence[sympy.Symbol],
    *,
    budget: int = MAX_EVALUATIONS,
) -> float | None:
    """The constant ``a / b`` when it is the same positive number at several points.

    Evaluated like :func:`formulas_equivalent`, under the same limits (exact fractions
    while they stay small, 50-digit floats past that, values capped at 2^±65536, and a
    budget of terms evaluated), so a typed tower such as ``P^P^P^P`` costs
    milliseconds, not minutes.

    Args:
        a: a formula (sympy expression).
        b: the formula to divide by.
        symbols: the symbols both are functions of.
        budget: terms that may be evaluated, as for :func:`formulas_equivalent`; when
            they run out the answer is None.

    Returns:
        The ratio, or None when it is not constant, not positive, cannot be evaluated,
        or the budget runs out. Never raises.
    """
    left = [budget]
    try:
        sp = _sympy()
        import mpmath  # type: ignore[import-untyped, unused-ignore]  # ships no types

        a, b = (_as_sympy(sp, a), _as_sympy(sp, b))
        if not (isinstance(a, sp.Basic) and isinstance(b, sp.Basic)):
            return None
        free = sorted(set(symbols) | a.free_symbols | b.free_symbols, key=str)
        ctx = mpmath.MPContext()
        ctx.dps = 50
        rng = random.Random(7)
        ratios = []
        for _ in range(3):
            point = {s: Fraction(rng.randint(2, 97), rng.randint(1, 13)) for s in free}
            evaluate = _evaluator(ctx, sp, point, left)
            av, bv = evaluate(a), evaluate(b)
            av = ctx.mpf(av.numerator) / av.denominator if isinstance(av, Fraction) else av
            bv = ctx.mpf(bv.numerator) / bv.denominator if isinstance(bv, Fraction) else bv
            if not (ctx.isfinite(av) and ctx.isfinite(bv)) or bv == 0:
                return None
            if isinstance(av, ctx.mpc) or isinstance(bv, ctx.mpc):
                return None  # a complex value is no ratio of quantities
            ratios.append(av / bv)
        first = ratios[0]
        if first > 0 and all(abs(r - first) <= abs(first) * ctx.mpf("1e-9") for r in ratios):
            value = float(first)
            return value if 0 < value < float("inf") else None
        return None
    except Exception:
        # _OutOfBudget, overflow, a pole, anything odd a typed expression may raise.
        return None
