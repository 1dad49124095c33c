"""Accuracy over time per group (topic or rapid-fire item), plotted with textual-plotext."""

from __future__ import annotations

from textual_plotext import PlotextPlot

from quiz.tui.widgets.accuracy_plot import day_axis

MAX_SERIES = 8
"""Lines drawn at most (the groups with most answers): more would be unreadable."""


class TrendPlot(PlotextPlot):
    """One line per group: its running share of correct answers, day by day."""

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title = title

    def show(self, series: dict[str, list[tuple[str, float]]]) -> None:
        """Plot group -> [(local date ISO, running accuracy 0..1)] as lines."""
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(self.title)
        days = sorted({d for points in series.values() for d, _ in points})
        index = {d: float(i) for i, d in enumerate(days, 1)}
        biggest = sorted(series.items(), key=lambda kv: -len(kv[1]))[:MAX_SERIES]
        for name, points in sorted(biggest):
            xs = [index[d] for d, _ in points]
            ys = [round(v * 100, 1) for _, v in points]
            if len(xs) == 1:  # a lone day is a dot, not a line
                plt.scatter(xs, ys, label=name, marker="dot")
            else:
                plt.plot(xs, ys, label=name, marker="braille")
        if days:
            step = max(1, len(days) // 6)
            xs = list(index.values())
            plt.xticks(xs[::step], [d[5:] for d in days][::step])  # MM-DD
            plt.xlim(*day_axis(len(days)))
        plt.ylim(0, 100)
        plt.yticks([0.0, 25.0, 50.0, 75.0, 100.0], ["0%", "25%", "50%", "75%", "100%"])
        self.refresh()
