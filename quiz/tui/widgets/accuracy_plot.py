"""Accuracy over time, plotted with textual-plotext."""

from __future__ import annotations

from textual_plotext import PlotextPlot

MAX_DAYS = 60
"""Days shown at most (the latest ones): more bars than that would be a blur."""

MIN_DAYS = 7
"""The x axis spans at least this many days: on day one a single bar (or dot) stands at
the start of a week that fills in, instead of stretching across the whole plot."""


def day_axis(days: int) -> tuple[float, float]:
    """The x range for ``days`` days plotted at x = 1 .. days."""
    return 0.5, max(days, MIN_DAYS) + 0.5


class AccuracyPlot(PlotextPlot):
    """Share of correct answers per day (the store's ``accuracy_by_day``), as bars."""

    def show(self, days: list[tuple[str, int, float]]) -> None:
        """Plot (local date ISO, attempts, share correct) per day."""
        days = days[-MAX_DAYS:]
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("Share of answers correct, by day")
        if days:
            xs = [float(x) for x in range(1, len(days) + 1)]
            values = [round(share * 100, 1) for _, _, share in days]
            plt.bar(xs, values, marker="sd", width=0.6)
            step = max(1, len(xs) // 6)
            plt.xticks(xs[::step], [d[5:] for d, _, _ in days][::step])  # MM-DD
            plt.xlim(*day_axis(len(days)))
        plt.ylim(0, 100)
        plt.yticks([0.0, 25.0, 50.0, 75.0, 100.0], ["0%", "25%", "50%", "75%", "100%"])
        self.refresh()
