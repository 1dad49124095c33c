"""Formula answers: an expression in the prompt's letters, graded by equivalence.

Typed text is read by our own tokenizer (:func:`solver.formula.read_formula`), never by
``eval`` or ``sympify``; sympy is imported only when a formula is read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, cast

from questions.kinds.formula import FormulaKnownMistake, known
from questions.variants import Key, KnownMistake, PartVariant
from quiz.core.kinds.base import Grade, Read, by_credit, invalid
from solver.formula import Unreadable  # quiz.core.reading's, without the number reader

__all__ = ["accepted_text", "grade", "key_example", "letters_of", "mistake_answer", "read",
           "warm_texts"]


def accepted_text(pv: PartVariant) -> str:
    """Any equivalent formula, with what each letter stands for."""
    if not pv.key.symbols:
        return ""
    legend = ", ".join(f"{k} = {v}" for k, v in pv.key.symbols.items())
    return f"Any equivalent formula ({legend})"


def letters_of(key: Key) -> dict[str, Any]:
    """The formula's symbols, named by the prompt's letters; built here, never looked up
    in sympy's namespace (where N, S, E, I, Q, O mean something else)."""
    return _symbols(tuple(key.symbols))


def _symbols(letters: Sequence[str]) -> dict[str, Any]:
    import sympy as sp

    return {letter: sp.Symbol(letter, positive=True) for letter in letters}


def read(pv: PartVariant, text: str) -> Read:
    """Read a formula over the key's letters.

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    key = pv.key
    from solver.formula import read_formula

    # "C = 6PD": a left-hand side that names none of the letters is what is asked for
    lhs, sep, rhs = text.partition("=")
    if sep and "=" not in rhs and re.fullmatch(r"\s*[A-Za-z][\w()]{0,20}\s*", lhs) and \
            lhs.strip() not in key.symbols and rhs.strip():
        text = rhs
    mistakes = _mistake_formulas(pv)
    try:
        f = read_formula(text, letters_of(key))
    except Unreadable as exc:  # its example, in the key's letters, but never the key
        raise Unreadable(exc.message, key_example(key, mistakes)) from None
    except ValueError as exc:  # defensive: any other refusal is still "unreadable"
        raise Unreadable(str(exc), key_example(key, mistakes)) from exc
    return Read(f, f.read_as)


def grade(pv: PartVariant, text: str, scale: float) -> Grade:
    from solver.formula import formulas_equivalent, read_formula

    key = pv.key
    try:
        got = read(pv, text).value
    except Unreadable as exc:
        return invalid(pv, exc.message, exc.example)
    letters = letters_of(key)
    symbols = list(letters.values())
    expected = read_formula(key.formula or "", letters).expr
    if formulas_equivalent(got.expr, expected, symbols):
        return Grade("correct", 1.0, got.read_as, None, "Correct.", key)
    for m in known(pv):
        if m.formula and formulas_equivalent(got.expr, read_formula(m.formula, letters).expr,
                                             symbols):
            verdict = by_credit(m.credit)
            return Grade(verdict, m.credit, got.read_as, m.name, m.feedback, key)
    ratio = _constant_ratio(got.expr, expected, symbols)
    if ratio is not None:
        # No name for the slip, so no credit: partial credit is for named mistakes only.
        return Grade("incorrect", 0.0, got.read_as, None,
                     f"The right variables in the right places, but off by a constant "
                     f"factor of {ratio:.3g}. The key is {key.formula}.", key)
    return Grade("incorrect", 0.0, got.read_as, None,
                 f"Not equivalent to the key, {key.formula}.", key)


def key_example(key: Key, mistakes: Sequence[str] = ()) -> str:
    """A formula in the key's letters that reads, for error messages: never one equal to
    the key or to a known mistake (so a refusal never gives the answer away).

    Worked out once per key and mistakes (comparing formulas takes milliseconds, and
    every refusal of the live preview, one per keystroke, names the example).

    >>> from questions.variants import Key
    >>> key_example(Key("formula", "6*P*D", formula="6*P*D", symbols={"P": "params",
    ...                                                                "D": "tokens"}))
    '3*P/D'
    """
    return _key_example(key.formula, tuple(key.symbols), tuple(mistakes))


@lru_cache(maxsize=256)
def _key_example(formula: str | None, letters: tuple[str, ...],
                 mistakes: tuple[str, ...]) -> str:
    from solver.formula import formulas_equivalent, read_formula

    if not letters:
        return "2*(3 + 4)"
    a, b = letters[0], letters[1] if len(letters) > 1 else "2"
    shapes = [f"3*{a}/{b}", f"({a} + 1)*{b}", f"{a}^2/{b}"]
    allowed = _symbols(letters)
    symbols = list(allowed.values())
    taken = [read_formula(f, allowed).expr for f in (formula, *mistakes) if f]
    for shape in shapes:
        expr = read_formula(shape, allowed).expr
        if not any(formulas_equivalent(expr, other, symbols) for other in taken):
            return shape
    return shapes[-1]


def warm_texts(pv: PartVariant) -> tuple[str, ...]:
    """The example refusals name, read, and then refused (a formula cut short): the
    first reading of a part builds its letters in sympy and prints an expression over
    them, and its first refusal works out the example (several milliseconds each);
    afterwards a reading takes well under a millisecond.
    """
    example = key_example(pv.key, _mistake_formulas(pv))
    return example, example + " *"


def _mistake_formulas(pv: PartVariant) -> list[str]:
    return [m.formula for m in known(pv) if m.formula]


def mistake_answer(pv: PartVariant, m: KnownMistake) -> str | None:
    """The wrong formula."""
    return cast(FormulaKnownMistake, m).formula or None


def _constant_ratio(a: Any, b: Any, symbols: Sequence[Any]) -> float | None:
    """a/b when it is the same number at several points, else None (typed text is
    evaluated under the same limits as `formulas_equivalent`: never unbounded)."""
    from solver.formula import formula_ratio

    return formula_ratio(a, b, symbols)


def json_fields(pv: PartVariant) -> dict[str, Any]:
    """What each letter stands for."""
    return {"symbols": dict(pv.key.symbols)}
