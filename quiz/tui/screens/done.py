"""Done for today: nothing is due in the drill; what is coming, and what else to do."""

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

from quiz.tui.messages import ForecastComputed, TaskFailed
from quiz.tui.widgets.forecast import ForecastChart
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank
    from quiz.core.state import AppState


class DoneScreen(Screen[None]):
    """The daily drill has nothing left today.

    Args:
        state: the open data (for the forecast).
        bank: the loaded templates.
        now: injected clock, or None.
        finished: the user just answered the last due question.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "app.open_mode('home')", "Home"),
        Binding("p", "app.open_mode('practice')", "Practice"),
        Binding("m", "app.open_mode('mock')", "Mock"),
    ]

    def __init__(self, state: AppState, bank: Bank | None,
                 now: Callable[[], datetime] | None, *, finished: bool = False) -> None:
        super().__init__()
        self.state, self.bank, self.now, self.finished = state, bank, now, finished

    def compose(self) -> ComposeResult:
        yield TitleBar("Daily drill")
        with VerticalScroll(id="done-scroll"):
            yield Static("Done for today", id="done-title")
            yield Static(
                "That was the last question due today. Well done." if self.finished
                else "Nothing is due in the drill right now: come back tomorrow.",
                id="done-text")
            yield Static("More practice never hurts: [b $text-accent]p[/] practice a topic, "
                         "[b $text-accent]m[/] a mock interview.", id="done-next")
            yield Static("Due in the next 14 days", classes="section-title")
            yield ForecastChart("…", id="done-forecast")
        yield Footer()

    def on_mount(self) -> None:
        self._compute()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _compute(self) -> None:
        from quiz.tui.data import forecast

        try:
            days = forecast(self.state, self.bank, self.now)
        except Exception as exc:  # scheduling state we cannot read: say so, stay up
            self.post_message(TaskFailed("reading the forecast", str(exc)))
            return
        self.post_message(ForecastComputed(days))

    @on(ForecastComputed)
    def _show(self, event: ForecastComputed) -> None:
        self.query_one(ForecastChart).show(event.days)
