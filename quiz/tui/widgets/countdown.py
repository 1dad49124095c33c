"""A countdown clock for the mock interview."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static


class Countdown(Static):
    """Shows the time left as ``m:ss``; turns to the warning, then error color."""

    DEFAULT_CSS = """
    Countdown { width: auto; text-style: bold; color: $text; }
    Countdown.-low { color: $text-warning; }
    Countdown.-critical { color: $text-error; }
    """

    seconds_left: reactive[float] = reactive(0.0)

    def __init__(self, seconds: float = 0.0, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.set_reactive(Countdown.seconds_left, seconds)

    def on_mount(self) -> None:
        self.watch_seconds_left(self.seconds_left)

    def watch_seconds_left(self, seconds: float) -> None:
        # (imported here: the question screen imports this widget, and `quiz drill`
        # shows its first question before quiz.tui.data's imports are needed)
        from quiz.tui.data import clock_text

        self.update(f"{clock_text(seconds)} left")
        self.set_class(seconds <= 300, "-low")
        self.set_class(seconds <= 60, "-critical")
