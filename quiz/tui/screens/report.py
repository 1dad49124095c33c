"""The mock interview's report: score, per topic, per question, solutions, progress."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich import box
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from quiz.tui.data import percent, seconds_text
from quiz.tui.widgets.derivation import Derivation
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from quiz.core.mock import MockReport

_MARKS = {"correct": "✓ correct", "partial": "~ partial", "incorrect": "✗ wrong"}


def comparison(score: float, previous: list[float]) -> str:
    """How this mock compares with the earlier ones (oldest first).

    >>> comparison(0.6, [])
    'Your first mock interview: the next ones will be compared with it.'
    >>> comparison(0.6, [0.4, 0.5])
    'Earlier mocks: 40%, 50%. This one: 60%, 10 points up on the last; your best yet.'
    """
    if not previous:
        return "Your first mock interview: the next ones will be compared with it."
    shown = ", ".join(percent(p) for p in previous[-5:])
    more = f" (and {len(previous) - 5} before)" if len(previous) > 5 else ""
    diff = round((score - previous[-1]) * 100)
    trend = (f"{diff} points up on the last" if diff > 0 else
             f"{-diff} points down on the last" if diff < 0 else "level with the last")
    best = "; your best yet" if score > max(previous) else ""
    return f"Earlier mocks: {shown}{more}. This one: {percent(score)}, {trend}{best}."


def questions_table(report: MockReport) -> Table:
    """One row per question: label, topic, verdict, score, time."""
    table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
    # The label column folds first when the terminal is narrow.
    for name, justify in (("#", "right"), ("question", "left"), ("topic", "left"),
                          ("verdict", "left"), ("score", "right"), ("time", "right")):
        table.add_column(name, justify=justify,  # type: ignore[arg-type]
                         overflow="fold" if name == "question" else "ellipsis",
                         no_wrap=name != "question")
    for i, row in enumerate(report.rows, 1):
        mistake = row.get("mistake")
        verdict = f"- {mistake}" if mistake in ("unanswered", "unreached") else \
            _MARKS.get(str(row["verdict"]), str(row["verdict"]))
        table.add_row(str(i), str(row["question"]), str(row["topic"]), verdict,
                      percent(float(row["score"])), seconds_text(float(row["seconds"])))
    return table


def topics_table(report: MockReport) -> Table:
    """Mean score per topic."""
    table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
    table.add_column("topic")
    table.add_column("score", justify="right")
    table.add_column("questions", justify="right")
    for topic, (score, n) in report.by_topic.items():
        table.add_row(topic, percent(score), str(n))
    return table


def not_reached(report: MockReport) -> str:
    """A line about planned questions the clock never reached (they score 0)."""
    missed = report.unreached
    if missed <= 0:
        return ""
    noun = "question was" if missed == 1 else "questions were"
    return f"{missed} {noun} not reached before time ran out; each scores 0."


def answers_text(report: MockReport) -> str:
    """Per question: what was typed, how it read, the key, and the named mistake."""
    lines = []
    for i, row in enumerate(report.rows, 1):
        typed = str(row.get("answer") or "").strip()
        read_as = str(row.get("read_as") or "")
        yours = read_as or typed or "(no answer)"
        line = f"{i}. you: {yours}   key: {row['key']}"
        if row.get("mistake") and row.get("mistake") not in ("unanswered", "unreached"):
            line += f"\n   mistake: {row['mistake']}"
        lines.append(line)
    return "\n".join(lines)


def chains_text(report: MockReport) -> str:
    """The interviewer's follow-up chains, one question each: what changed, in order."""
    blocks = []
    for chain in report.chains:
        blocks.append("\n".join([chain[0], *(f"  → {link}" for link in chain[1:])]))
    return "\n\n".join(blocks)


class ReportScreen(Screen[None]):
    """Everything about a finished mock interview."""

    DEFAULT_CSS = """
    #report-scroll { padding: 0 2; }
    #report-score { text-style: bold; color: $text-primary; margin-top: 1; }
    #report-compare { margin-top: 1; }
    #report-missed { color: $text-warning; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "app.open_mode('home')", "Home"),
    ]

    def __init__(self, report: MockReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        report = self.report
        answered = len({str(row["question"]).split(" (part")[0] for row in report.rows
                        if "followup" not in row})
        yield TitleBar("Mock interview report")
        with VerticalScroll(id="report-scroll"):
            yield Static(f"Mock interview score: {percent(report.score)}", id="report-score")
            yield Static(comparison(report.score, report.previous), id="report-compare",
                         markup=False)
            yield Static("By topic", classes="section-title")
            yield Static(topics_table(report), classes="table")
            yield Static(f"Questions ({answered})", classes="section-title")
            yield Static(questions_table(report), classes="table")
            missed = not_reached(report)
            if missed:
                yield Static(missed, id="report-missed", markup=False)
            if report.chains:
                yield Static("The interviewer's follow-ups", classes="section-title")
                yield Static(chains_text(report), id="report-chains", markup=False)
            yield Static("Your answers", classes="section-title")
            yield Static(answers_text(report), id="report-answers", markup=False)
            yield Static("Worked solutions", classes="section-title")
            for i, (label, text) in enumerate(report.solutions, 1):
                yield Derivation(text, title=f"{i}. {label}")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#report-scroll").focus()
