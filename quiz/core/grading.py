"""Grading: a typed answer against a variant's key, with tolerance, partial credit and
known mistakes.

The order of checks is the same for every numeric answer: read it (unreadable is
*invalid* and costs nothing), then the key, then other accepted conventions, then the
template's known mistakes, then the generic slips (GB vs GiB, bits vs bytes, off by a
thousand), then a near miss. The first match decides.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from questions.variants import Key, PartVariant, table_display
from quiz.core.reading import MAX_NUMBER_CHARS, Unreadable, read_choice, read_number
from quiz.core.types import Verdict
from solver.units import format_value


@dataclass(frozen=True)
class Grade:
    """The outcome of grading one answer.

    Attributes:
        verdict: correct, partial, incorrect or invalid.
        score: 0..1 after hint costs (0 for invalid).
        read_as: how the answer was read ("" when invalid).
        mistake: the known mistake it matched, or None.
        feedback: what to say to the user.
        key: the expected answer.
    """

    verdict: Verdict
    score: float
    read_as: str
    mistake: str | None
    feedback: str
    key: Key

    def expected_json(self) -> dict[str, Any]:
        """The `expected` object of the JSON contract."""
        out: dict[str, Any] = {"display": self.key.display}
        if self.key.value is not None:
            out |= {"value": self.key.value, "unit": self.key.unit}
        if self.key.kind in ("choice", "multi"):
            out["correct"] = list(self.key.correct)
        return out


def by_credit(credit: float) -> Verdict:
    """``partial`` for an answer worth some credit, ``incorrect`` for none."""
    return "partial" if credit > 0 else "incorrect"


def relative_error(a: float, b: float) -> float:
    """|a - b| / |b| (|a| when b is 0)."""
    if b == 0:
        return abs(a)
    return abs(a - b) / abs(b)



def unreadable_message(exc: Unreadable) -> str:
    """What was wrong and, unless the message already shows one, an example that works."""
    message = exc.message
    if exc.example and exc.example not in message:
        message = f"{message.rstrip()} For example: {exc.example}"
    return message


def _invalid(pv: PartVariant, message: str, example: str = "") -> Grade:
    return Grade("invalid", 0.0, "", None, unreadable_message(Unreadable(message, example)),
                 pv.key)


def grade(pv: PartVariant, text: str, *, hint_cost: float = 0.0,
          tolerance_scale: float = 1.0) -> Grade:
    """Grade `text` against one part of a variant.

    Args:
        pv: the part.
        text: what the user typed.
        hint_cost: the share of the score the hints used cost (0..1).
        tolerance_scale: multiplies the template's tolerance (a user setting).

    Returns:
        A Grade; unreadable input gives verdict "invalid" with a message and an example.
    """
    graders = {"number": _number, "formula": _formula, "choice": _choice,
               "multi": _choice, "table": _table, "layout": _layout}
    g = graders[pv.kind](pv, text, tolerance_scale)
    if g.verdict == "invalid" or hint_cost <= 0:
        return g
    score = max(0.0, g.score * (1 - min(hint_cost, 1.0)))
    return Grade(g.verdict, round(score, 4), g.read_as, g.mistake, g.feedback, g.key)


# ---------------------------------------------------------------- reading


@dataclass(frozen=True)
class Read:
    """An answer as read for one part, before any grading.

    Attributes:
        value: what the kind's reader returned (a Reading, FormulaReading, ChoiceReading,
            row -> columns, or Layout).
        read_as: how it was read, for people.
    """

    value: Any
    read_as: str


def letters_of(key: Key) -> dict[str, Any]:
    """The formula's symbols, named by the prompt's letters; built here, never looked up
    in sympy's namespace (where N, S, E, I, Q, O mean something else)."""
    import sympy as sp

    return {letter: sp.Symbol(letter, positive=True) for letter in key.symbols}


def read_answer(pv: PartVariant, text: str) -> Read:
    """Read typed text the way this part's kind is read; no grading, no solver work.

    The live preview shows this on every keystroke, and every grader starts from it.

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    kind, key = pv.kind, pv.key
    if kind == "number":
        assert key.unit is not None
        bare = pv.spec.answer.bare_unit
        # The length check comes first: _BARE backtracks quadratically on long digit runs.
        if bare and len(text) <= MAX_NUMBER_CHARS and _BARE.match(text):
            text = f"{text.strip()} {bare}"  # the prompt named the unit a bare number is in
        r = read_number(text, key.unit)
        return Read(r, r.read_as)
    if kind == "formula":
        from solver.formula import read_formula

        try:
            f = read_formula(text, letters_of(key))
        except Unreadable:
            raise
        except ValueError as exc:  # defensive: any other refusal is still "unreadable"
            raise Unreadable(str(exc), key_example(key)) from exc
        return Read(f, f.read_as)
    if kind in ("choice", "multi"):
        c = read_choice(text, pv.spec.choices, kind == "multi")
        return Read(c, c.read_as)
    if kind == "table":
        rows, columns = pv.spec.rows, list(pv.spec.columns)
        got = read_table(text, rows, columns)
        return Read(got, table_display(rows, {r: tuple(c for c in columns if c in cells)
                                              for r, cells in got.items()}))
    from questions.layout import LayoutError, read_layout

    try:
        layout = read_layout(text)
    except LayoutError as exc:
        raise Unreadable(str(exc), "tp=8 pp=2 mb=1 zero=1") from exc
    return Read(layout, layout.display)


# ---------------------------------------------------------------- numbers


def generic_slips(key: float, unit: str) -> list[tuple[str, float, float, str]]:
    """Slips any numeric answer can make: (name, value, credit, feedback)."""
    slips: list[tuple[str, float, float, str]] = []
    if unit in ("B", "B/s"):
        for n, prefix in ((3, "G"), (4, "T"), (2, "M")):
            ratio = 2 ** (10 * n) / 10 ** (3 * n)
            slips.append((f"{prefix}B vs {prefix}iB", key / ratio, 0.5,
                          f"Your number is the key expressed in {prefix}iB but labelled "
                          f"{prefix}B (or the reverse): 1 {prefix}iB = {ratio:.4f} "
                          f"{prefix}B."))
        slips.append(("bits vs bytes", key * 8, 0.25,
                      "That is the key in bits: a byte is 8 bits (Gb vs GB)."))
        slips.append(("bits vs bytes", key / 8, 0.25,
                      "That is the key divided by 8: a bandwidth in Gb/s must be divided "
                      "by 8 to get GB/s, not the other way round."))
    for factor, words in ((1e3, "a thousand"), (1e-3, "a thousand"), (1e6, "a million"),
                          (1e-6, "a million")):
        slips.append((f"off by {words}", key * factor, 0.0,
                      f"Right digits, wrong power of ten: off by {words}. Check the unit "
                      "prefix (k, M, G, T) or a forgotten conversion."))
    return slips


MAX_TOLERANCE = 0.5
"""Largest relative tolerance, whatever the template and the tolerance setting say: the
accepted band [key/2, 3*key/2] never reaches 0 or a negative number."""
MAX_NEAR_MISS = 0.9
"""Largest relative error still called close (half credit); below 1, so 0 never is."""

_BARE = re.compile(r"^\s*[~≈]?\s*[-+]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def _number(pv: PartVariant, text: str, scale: float) -> Grade:
    key = pv.key
    assert key.value is not None and key.unit is not None
    try:
        r = read_answer(pv, text).value
    except Unreadable as exc:
        return _invalid(pv, exc.message, exc.example)
    tol = min(key.tolerance * scale, MAX_TOLERANCE)
    if relative_error(r.value, key.value) <= tol:
        return Grade("correct", 1.0, r.read_as, None,
                     f"Correct: the key is {key.display}.", key)
    for acc in pv.accepted:
        if relative_error(r.value, acc.value) <= tol:
            return Grade("correct", 1.0, r.read_as, None,
                         f"Correct under another convention ({acc.name}): {acc.note} "
                         f"This app's default gives {key.display}.", key)
    for m in pv.mistakes:
        if m.value is not None and relative_error(m.value, key.value) > tol and \
                relative_error(r.value, m.value) <= tol:
            verdict = by_credit(m.credit)
            return Grade(verdict, m.credit, r.read_as, m.name, m.feedback, key)
    for name, value, credit, feedback in generic_slips(key.value, key.unit):
        if relative_error(value, key.value) > tol and relative_error(r.value, value) <= tol:
            verdict = by_credit(credit)
            return Grade(verdict, credit, r.read_as, name, feedback, key)
    err = relative_error(r.value, key.value)
    if err <= min(2.5 * tol, MAX_NEAR_MISS):
        return Grade("partial", 0.5, r.read_as, None,
                     f"Close, but {err:.1%} off; the tolerance is {tol:.0%}. Check your "
                     f"rounding: the key is {key.display}.", key)
    direction = "high" if r.value > key.value else "low"
    times = r.value / key.value if key.value else math.inf
    return Grade("incorrect", 0.0, r.read_as, None,
                 f"Not quite: {format_value(r.value, key.unit)} is {times:.3g}x the key "
                 f"({key.display}), too {direction}.", key)


# ---------------------------------------------------------------- formulas


def _formula(pv: PartVariant, text: str, scale: float) -> Grade:
    from solver.formula import formulas_equivalent, read_formula

    key = pv.key
    try:
        got = read_answer(pv, text).value
    except Unreadable as exc:
        return _invalid(pv, exc.message, exc.example)
    letters = letters_of(key)
    symbols = list(letters.values())
    expected = read_formula(key.formula or "", letters).expr
    if formulas_equivalent(got.expr, expected, symbols):
        return Grade("correct", 1.0, got.read_as, None, "Correct.", key)
    for m in pv.mistakes:
        if m.formula and formulas_equivalent(got.expr, read_formula(m.formula, letters).expr,
                                             symbols):
            verdict = by_credit(m.credit)
            return Grade(verdict, m.credit, got.read_as, m.name, m.feedback, key)
    ratio = _constant_ratio(got.expr, expected, symbols)
    if ratio is not None:
        return Grade("partial", 0.25, got.read_as, None,
                     f"The right variables in the right places, but off by a constant "
                     f"factor of {ratio:.3g}. The key is {key.formula}.", key)
    return Grade("incorrect", 0.0, got.read_as, None,
                 f"Not equivalent to the key, {key.formula}.", key)


def key_example(key: Key) -> str:
    """A formula that reads, for error messages."""
    letters = list(key.symbols)
    return "*".join(["6", *letters[:2]]) if letters else "6*P*D"


def _constant_ratio(a: Any, b: Any, symbols: Sequence[Any]) -> float | None:
    """a/b when it is the same number at several points, else None (typed text is
    evaluated under the same limits as `formulas_equivalent`: never unbounded)."""
    from solver.formula import formula_ratio

    return formula_ratio(a, b, symbols)


# ---------------------------------------------------------------- choices


def _choice(pv: PartVariant, text: str, scale: float) -> Grade:
    key = pv.key
    choices = pv.spec.choices
    try:
        r = read_answer(pv, text).value
    except Unreadable as exc:
        return _invalid(pv, exc.message, exc.example)
    labels = {text: chr(ord("a") + i) for i, text in enumerate(choices)}
    picked, right = {labels[t] for t in r.picked}, set(key.correct)
    if picked == right:
        return Grade("correct", 1.0, r.read_as, None, "Correct.", key)
    for m in pv.mistakes:
        if m.choice and set(m.choice) == picked:
            verdict = by_credit(m.credit)
            return Grade(verdict, m.credit, r.read_as, m.name, m.feedback, key)
    if pv.kind == "multi":
        score = max(0.0, (len(picked & right) - len(picked - right)) / len(right))
        missing = ", ".join(sorted(right - picked)) or "none"
        extra = ", ".join(sorted(picked - right)) or "none"
        return Grade(by_credit(score), round(score, 4), r.read_as,
                     None, f"Missed: {missing}; wrongly picked: {extra}. The key is "
                     f"{key.display}.", key)
    return Grade("incorrect", 0.0, r.read_as, None, f"The key is {key.display}.", key)


# ---------------------------------------------------------------- tables

_ROW = re.compile(r"^\s*([A-Za-z][\w-]*)\s*[:=]\s*(.*?)\s*$")


def read_table(text: str, rows: Sequence[str], columns: Sequence[str]) -> dict[str, set[str]]:
    """Read `dp: -; tp: w g o a; ...` (rows separated by `;` or newlines).

    Raises:
        Unreadable: a row or column that does not exist, or a row given twice.
    """
    if len(text) > 500:
        raise Unreadable("That is too long for a table answer.", _table_example(rows))
    lower_rows = {r.lower(): r for r in rows}
    lower_cols = {c.lower(): c for c in columns}
    out: dict[str, set[str]] = {}
    for chunk in re.split(r"[;\n]+", text):
        if not chunk.strip():
            continue
        m = _ROW.match(chunk)
        if not m or m.group(1).lower() not in lower_rows:
            raise Unreadable(f"Cannot read {chunk.strip()!r} as 'row: columns'; rows are "
                             f"{', '.join(rows)}.", _table_example(rows))
        row = lower_rows[m.group(1).lower()]
        if row in out:
            raise Unreadable(f"{row} is given twice.", _table_example(rows))
        cells = set()
        for cell in re.split(r"[\s,]+", m.group(2)):
            if not cell or cell in ("-", "none"):
                continue
            if cell.lower() not in lower_cols:
                raise Unreadable(f"Unknown column {cell!r}; columns are "
                                 f"{', '.join(columns)}.", _table_example(rows))
            cells.add(lower_cols[cell.lower()])
        out[row] = cells
    if not out:
        raise Unreadable("No rows given.", _table_example(rows))
    return out


def _table_example(rows: Sequence[str]) -> str:
    return "; ".join(f"{r}: ..." for r in rows[:2]) + " (use - for none)"


def _table(pv: PartVariant, text: str, scale: float) -> Grade:
    key = pv.key
    rows = pv.spec.rows
    try:
        read = read_answer(pv, text)
    except Unreadable as exc:
        return _invalid(pv, exc.message, exc.example)
    got, read_as = read.value, read.read_as
    wrong = [r for r in rows if got.get(r, set()) != set(key.cells[r])]
    if not wrong:
        return Grade("correct", 1.0, read_as, None, "Correct.", key)
    score = round(1 - len(wrong) / len(rows), 4)
    fixes = "; ".join(f"{r}: {' '.join(key.cells[r]) or '-'}" for r in wrong)
    verdict = by_credit(score)
    for m in pv.mistakes:
        if m.cells and all(got.get(r, set()) == set(c) for r, c in m.cells.items()):
            return Grade(verdict, score, read_as, m.name,
                         f"{m.feedback} ({len(wrong)} of {len(rows)} rows differ; they "
                         f"should read: {fixes}.)", key)
    return Grade(verdict, score, read_as, None,
                 f"{len(wrong)} of {len(rows)} rows differ. They should read: {fixes}.", key)


# ---------------------------------------------------------------- layouts


def _layout(pv: PartVariant, text: str, scale: float) -> Grade:
    from questions.layout import judge

    key = pv.key
    try:
        layout = read_answer(pv, text).value
    except Unreadable as exc:
        return _invalid(pv, exc.message)
    from solver.engine import resolve_inputs

    base = resolve_inputs(pv.model, pv.gpu, pv.overrides)
    j = judge(layout, base, pv.model, pv.gpu, pv.overrides)
    read_as = layout.display
    if not j.legal:
        return Grade("incorrect", 0.0, read_as, "illegal layout",
                     f"That layout cannot be built: {j.reason}.", key)
    if not j.fits:
        return Grade("incorrect", 0.0, read_as, "does not fit",
                     f"It does not fit: {j.reason}. Shard more (ZeRO, TP or PP) or "
                     "recompute activations.", key)
    assert key.value is not None
    ratio = min(1.0, key.value / j.step_time) if j.step_time > 0 else 0.0
    if not j.inside_node:
        return Grade("partial", round(min(ratio, 0.3), 4), read_as, "TP across nodes",
                     f"It fits ({j.reason}), but TP spans more than one node: its "
                     "per-layer collectives would run on the network, far slower than "
                     "NVLink.", key)
    if ratio >= 0.85:  # the step-time model is rough: within 15% of the best is right
        return Grade("correct", 1.0, read_as, None,
                     f"A good layout: {j.reason}. The best found takes "
                     f"{format_value(key.value, 's')} per step ({key.display}).", key)
    return Grade("partial", round(ratio, 4), read_as, None,
                 f"Legal and it fits ({j.reason}), but the best layout found steps in "
                 f"{format_value(key.value, 's')} ({key.display}): yours reaches "
                 f"{ratio:.0%} of its speed.", key)
