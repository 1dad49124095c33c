"""The body of a question: prompt, parameters, choices or table, and how to answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.markup import escape
from textual.widgets import Static

from quiz.tui.widgets.params_table import ParamsTable

if TYPE_CHECKING:
    from questions.variants import PartVariant
    from quiz.core.session import Question

_NUMBER_EXAMPLES = {
    "B": "1.13 TB, 80 GiB or 1.13e12 B",
    "s": "42 days, 3.5 h or 250 ms",
    "FLOP": "6.3e24 FLOP",
    "param": "70.5 billion or 70.5B",
    "B/s": "50 GB/s or 400 Gb/s",
    "FLOP/s": "396 TFLOP/s",
    "1": "0.35 or 16",
}


def how_to_answer(part: PartVariant) -> str:
    """One or two lines (content markup) saying how to type this part's answer."""
    kind, key, spec = part.kind, part.key, part.spec
    if kind == "number":
        example = escape(_NUMBER_EXAMPLES.get(key.unit or "1", "42"))
        if key.unit in (None, "1"):
            return f"Type a plain number, e.g. {example}."
        return f"Type a number with its unit, e.g. {example}."
    if kind == "formula":
        legend = ", ".join(f"[b]{escape(k)}[/b] = {escape(v)}" for k, v in key.symbols.items())
        return f"Type a formula with + - * / ^ and parentheses. Letters: {legend}."
    if kind == "choice":
        return "Type the letter of one choice, e.g. [b]b[/b]."
    if kind == "multi":
        return "Type every letter that applies, e.g. [b]a, c[/b]."
    if kind == "table":
        columns = ", ".join(f"[b]{escape(code)}[/b] = {escape(meaning)}"
                            for code, meaning in spec.columns.items())
        rows = ", ".join(f"[b]{escape(r)}[/b]" for r in spec.rows)
        first = spec.rows[0] if spec.rows else "dp"
        return (f"Rows: {rows}.\nColumns: {columns}.\n"
                f"Type each row and its columns, - for none, e.g. "
                f"[b]{escape(first)}: -; ...[/b]")
    if kind == "layout":
        return ("Type a layout, e.g. [b]tp=8 pp=2 cp=1 ep=1 mb=1 zero=1[/b] "
                "(dp follows from the GPU count).")
    return "Type your answer."


def placeholder_for(part: PartVariant) -> str:
    """A short placeholder for the answer input."""
    if part.kind == "table" and part.spec.rows and part.spec.columns:
        rows, first = part.spec.rows, next(iter(part.spec.columns))
        return f"e.g. {rows[0]}: -; {rows[-1]}: {first}"
    return {
        "number": "e.g. " + _NUMBER_EXAMPLES.get(part.key.unit or "1", "42").split(",")[0],
        "formula": "a formula in " + " and ".join(part.key.symbols) if part.key.symbols
        else "a formula",
        "choice": "e.g. b",
        "multi": "e.g. a, c",
        "table": "e.g. dp: -; tp: w g",
        "layout": "e.g. tp=8 pp=2 mb=1 zero=1",
    }.get(part.kind, "your answer")


class QuestionCard(Vertical):
    """Everything about the current question except the answer box."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._hints: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="prompt", markup=False)
        yield ParamsTable("", id="params")
        yield Static("", id="choices")
        yield Static("", id="how-to-answer")
        yield Static("", id="hints", markup=False)

    def show(self, question: Question) -> None:
        """Show a new question (hints cleared)."""
        part = question.part
        self.query_one("#prompt", Static).update(question.prompt)
        self.query_one("#params", ParamsTable).show(question.params_table)
        choices = self.query_one("#choices", Static)
        if part.kind in ("choice", "multi") and part.spec.choices:
            choices.update("\n".join(
                f"[b $text-accent]{chr(ord('a') + i)})[/] {escape(text)}"
                for i, text in enumerate(part.spec.choices)))
            choices.display = True
        else:
            choices.display = False
        self.query_one("#how-to-answer", Static).update(how_to_answer(part))
        self._hints = []
        hints = self.query_one("#hints", Static)
        hints.update("")
        hints.display = False

    def add_hint(self, number: int, text: str) -> None:
        """Append a revealed hint."""
        self._hints.append(f"Hint {number}: {text}")
        hints = self.query_one("#hints", Static)
        hints.update("\n".join(self._hints))
        hints.display = True
