"""Stats: accuracy by topic, by rapid-fire item and over time; retention; what is due;
how well the scheduler predicts recall, and ``o`` to fit it to your reviews."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich import box
from rich.table import Table
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from questions.tags import AREAS, tag_label
from quiz.tui.data import StatsData, percent
from quiz.tui.messages import (
    SchedulerComputed,
    SchedulerFitted,
    StatsComputed,
    TaskFailed,
    while_shown,
)
from quiz.tui.widgets.accuracy_plot import AccuracyPlot
from quiz.tui.widgets.calibration_plot import CalibrationPlot
from quiz.tui.widgets.forecast import ForecastChart
from quiz.tui.widgets.title_bar import TitleBar
from quiz.tui.widgets.trend_plot import TrendPlot

if TYPE_CHECKING:
    from questions.loader import Bank
    from quiz.core.state import AppState
    from quiz.core.store import GroupStats


def groups_table(name: str, groups: dict[str, GroupStats],
                 label: Callable[[str], str] = str) -> Table:
    """Attempts, accuracy and mean score per group (topic or tag)."""
    table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
    table.add_column(name)
    table.add_column("answers", justify="right")
    table.add_column("correct", justify="right")
    table.add_column("mean score", justify="right")
    for key, g in groups.items():
        table.add_row(label(key), str(g["attempts"]), percent(g["accuracy"]),
                      percent(g["mean_score"]))
    return table


def learn_table(data: StatsData) -> Table:
    """Per rapid-fire item and topic walked through: templates learned (answered right
    cold after a walk-through), walked through, and in all."""
    table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
    table.add_column("item or topic")
    table.add_column("learned", justify="right")
    table.add_column("walked", justify="right")
    table.add_column("templates", justify="right")
    for p in data.learn:
        if p.walked:
            label = tag_label(p.group) if p.group.startswith("rapid-fire-") else p.group
            table.add_row(label, str(p.learned), str(p.walked), str(p.templates))
    return table


def summary_text(data: StatsData) -> str:
    """The headline figures as content markup."""
    s = data.stats
    if not s["attempts"]:
        return ("No answers yet. Run a drill or some practice, and your accuracy, "
                "streak and retention will show here.")
    days = "day" if s["streak_days"] == 1 else "days"
    answers = "answer" if s["attempts"] == 1 else "answers"
    return (f"[b]{s['attempts']}[/] {answers} · [b]{percent(s['correct'] / s['attempts'])}[/] "
            f"correct · mean score [b]{percent(s['mean_score'])}[/] · streak "
            f"[b]{s['streak_days']}[/] {days}\n"
            f"Retention (review cards recalled, last 30 days): "
            f"[b]{percent(data.retention)}[/]")


class StatsScreen(Screen[None]):
    """Figures from the history, computed in a worker when the screen opens."""

    DEFAULT_CSS = """
    #stats-scroll { padding: 0 2; }
    #stats-summary { margin-top: 1; }
    #stats-plot { height: 14; margin-top: 1; }
    #stats-topic-trend, #stats-item-trend { height: 14; margin-bottom: 1; }
    #stats-calibration { height: 16; margin-bottom: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
        Binding("o", "optimize", "Fit scheduler"),
    ]

    def __init__(self, state: AppState, bank: Bank | None,
                 now: Callable[[], datetime] | None) -> None:
        super().__init__()
        self.state, self.bank, self.now = state, bank, now

    def compose(self) -> ComposeResult:
        yield TitleBar("Stats")
        with VerticalScroll(id="stats-scroll"):
            yield Static("Reading your history…", id="stats-summary")
            yield AccuracyPlot(id="stats-plot")
            yield Static("By topic", classes="section-title")
            yield Static("", id="stats-topics", classes="table")
            yield TrendPlot("Share correct so far, by topic", id="stats-topic-trend")
            yield Static("By rapid-fire item", classes="section-title")
            yield Static("", id="stats-tags", classes="table")
            yield TrendPlot("Share correct so far, by rapid-fire item (#1-#7)",
                            id="stats-item-trend")
            yield Static("By interview area", classes="section-title")
            yield Static("", id="stats-areas", classes="table")
            yield Static("Learn mode: answered cold after a walk-through",
                         classes="section-title")
            yield Static("", id="stats-learn", classes="table")
            yield Static("Due in the next 14 days", classes="section-title")
            yield ForecastChart("", id="stats-forecast")
            yield Static("Weakest templates (at least 2 answers)", classes="section-title")
            yield Static("", id="stats-weakest", classes="table")
            yield Static("Scheduler: predicted recall against actual", classes="section-title")
            yield Static("", id="stats-scheduler")
            yield CalibrationPlot(id="stats-calibration")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#stats-scroll").focus()
        self._compute()
        self._calibrate()

    @work(thread=True, exclusive=True, group="calibration", exit_on_error=False)
    def _calibrate(self) -> None:
        from quiz.tui.data import scheduler_data

        try:
            data = scheduler_data(self.state)
        except Exception as exc:  # a log we cannot read: say so, stay up
            self.post_message(TaskFailed("reading your reviews", str(exc)))
            return
        self.post_message(SchedulerComputed(data))

    @on(SchedulerComputed)
    @while_shown
    def _calibrated(self, event: SchedulerComputed) -> None:
        bins = event.data.bins
        n = sum(b.count for b in bins)
        self.query_one("#stats-scheduler", Static).update(
            f"{event.data.status}\n" + (f"{n} reviews a day or more after the one before."
                                         if n else "No reviews a day or more apart yet."))
        self.query_one(CalibrationPlot).show(bins)

    def action_optimize(self) -> None:
        """Fit the scheduler to the review log (in another process, watched by a worker),
        then plot it again."""
        self.notify("Fitting the scheduler to your reviews…", timeout=3)
        self._optimize()

    @work(thread=True, exclusive=True, group="optimize", exit_on_error=False)
    def _optimize(self) -> None:
        from quiz.tui.data import fit_scheduler

        text, ok = fit_scheduler(self.state)
        self.post_message(SchedulerFitted(text, ok=ok))

    @on(SchedulerFitted)
    @while_shown
    def _fitted(self, event: SchedulerFitted) -> None:
        self.notify(event.text, title="Scheduler", timeout=12,
                    severity="information" if event.ok else "warning")
        if event.ok:
            self._calibrate()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _compute(self) -> None:
        from quiz.tui.data import stats_data

        try:
            data = stats_data(self.state, self.bank, self.now)
        except Exception as exc:  # a history we cannot summarize: say so, stay up
            self.post_message(TaskFailed("reading your stats", str(exc)))
            return
        self.post_message(StatsComputed(data))

    @on(StatsComputed)
    @while_shown
    def _show(self, event: StatsComputed) -> None:
        data = event.data
        s = data.stats
        if s["unreadable"]:
            self.notify("Left out of these statistics, unreadable: "
                        + "; ".join(s["unreadable"][:3])
                        + (" …" if len(s["unreadable"]) > 3 else ""),
                        title="Your history", severity="warning", timeout=15)
        self.query_one("#stats-summary", Static).update(summary_text(data))
        self.query_one(AccuracyPlot).show(s["accuracy_by_day"])
        none = "[$text-muted]nothing yet[/]"
        self.query_one("#stats-topics", Static).update(
            groups_table("topic", s["by_topic"]) if s["by_topic"] else none)
        tags = {k: v for k, v in s["by_tag"].items() if k.startswith("rapid-fire-")}
        self.query_one("#stats-tags", Static).update(
            groups_table("item", tags, tag_label) if tags else none)
        areas = {k: v for k, v in s["by_tag"].items() if k in AREAS}
        self.query_one("#stats-areas", Static).update(
            groups_table("area", areas, tag_label) if areas else none)
        self.query_one("#stats-learn", Static).update(
            learn_table(data) if any(p.walked for p in data.learn) else
            "[$text-muted]nothing yet: Learn (w on the home screen) walks you through "
            "questions step by step[/]")
        self.query_one("#stats-topic-trend", TrendPlot).show(data.topic_trend)
        self.query_one("#stats-item-trend", TrendPlot).show(data.item_trend)
        self.query_one(ForecastChart).show(data.forecast)
        weakest = self.query_one("#stats-weakest", Static)
        if not s["weakest_templates"]:
            weakest.update(none)
            return
        table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
        table.add_column("template")
        table.add_column("answers", justify="right")
        table.add_column("mean score", justify="right")
        table.add_column("title")
        for t in s["weakest_templates"]:
            table.add_row(t["template_id"], str(t["attempts"]), percent(t["mean_score"]),
                          data.titles.get(t["template_id"], ""))
        weakest.update(table)
