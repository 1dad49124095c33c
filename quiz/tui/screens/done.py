"""Done for today: the drill's summary, what is coming, and what else to do."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from quiz.core.words import plural
from quiz.tui.data import percent
from quiz.tui.messages import DrillSummarized, ForecastComputed, TaskFailed, while_shown
from quiz.tui.widgets.forecast import ForecastChart
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank
    from quiz.core.drill import DrillSummary
    from quiz.core.session import Session
    from quiz.core.state import AppState


class DoneScreen(Screen[None]):
    """The daily drill has nothing left today.

    Args:
        state: the open data (for the forecast).
        bank: the loaded templates.
        now: injected clock, or None.
        finished: the user just answered the last due question.
        session: the drill that just ended (its summary is shown).
    """

    DEFAULT_CSS = """
    #done-scroll { padding: 1 2; }
    #done-title { text-style: bold; color: $text-success; }
    #done-text { margin-top: 1; }
    #done-summary { margin-top: 1; }
    #done-next { margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "app.open_mode('home')", "Home"),
        Binding("p", "app.open_mode('practice')", "Practice"),
        Binding("m", "app.open_mode('mock')", "Mock"),
    ]

    def __init__(self, state: AppState, bank: Bank | None,
                 now: Callable[[], datetime] | None, *, finished: bool = False,
                 session: Session | None = None) -> None:
        super().__init__()
        self.state, self.bank, self.now, self.finished = state, bank, now, finished
        self.session = session

    def compose(self) -> ComposeResult:
        yield TitleBar("Daily drill")
        with VerticalScroll(id="done-scroll"):
            yield Static("Done for today", id="done-title")
            yield Static(
                "That was the last question due today. Well done." if self.finished
                else "Nothing is due in the drill right now: come back tomorrow.",
                id="done-text")
            yield Static("", id="done-summary", markup=False)
            yield Static("More practice never hurts: [b $text-accent]p[/] practice a topic, "
                         "[b $text-accent]m[/] a mock interview.", id="done-next")
            yield Static("Due in the next 14 days", classes="section-title")
            yield ForecastChart("…", id="done-forecast")
        yield Footer()

    def on_mount(self) -> None:
        self._compute()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _compute(self) -> None:
        from quiz.core.drill import DrillSession
        from quiz.tui.data import forecast

        try:
            if isinstance(self.session, DrillSession) and self.session.answered:
                self.post_message(DrillSummarized(self.session.summary()))
            days = forecast(self.state, self.bank, self.now)
        except Exception as exc:  # scheduling state we cannot read: say so, stay up
            self.post_message(TaskFailed("reading the forecast", str(exc)))
            return
        self.post_message(ForecastComputed(days))

    @on(DrillSummarized)
    @while_shown
    def _summarized(self, event: DrillSummarized) -> None:
        self.query_one("#done-summary", Static).update(summary_text(event.summary))

    @on(ForecastComputed)
    @while_shown
    def _show(self, event: ForecastComputed) -> None:
        self.query_one(ForecastChart).show(event.days)


def summary_text(summary: DrillSummary) -> str:
    """The drill's summary in a few lines: score, each miss with its named mistake,
    what was skipped, and how many questions tomorrow brings."""
    lines = [f"Today: {summary.correct} of {plural(summary.questions, 'question')} "
             f"right, mean score {percent(summary.score)}."]
    if summary.missed:
        lines.append("")
        lines.append("Missed (see them again in Mistakes):")
        for miss in summary.missed:
            named = f" — {miss.mistake}" if miss.mistake else ""
            answer = miss.answer.strip() or "(blank)"
            lines.append(f"  {miss.label}  {miss.verdict}{named}")
            lines.append(f"      you: {answer}   key: {miss.key}")
    if summary.skipped:
        lines.append(f"Skipped and not answered: {plural(summary.skipped, 'question')}.")
    lines.append("")
    coming = [plural(summary.tomorrow, "review")] if summary.tomorrow else []
    if summary.new_tomorrow:
        coming.append(f"up to {summary.new_tomorrow} new")
    lines.append(f"Tomorrow: {' and '.join(coming)}." if coming
                 else "Tomorrow: nothing is due yet.")
    return "\n".join(lines)
