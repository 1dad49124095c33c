"""Calibration of the scheduler: predicted recall against actual, plotted with plotext."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual_plotext import PlotextPlot

if TYPE_CHECKING:
    from quiz.core.optimizer import CalibrationBin

MIN_BIN_REVIEWS = 5
"""Bins with fewer reviews are left out of the plot: one or two outcomes are noise."""


class CalibrationPlot(PlotextPlot):
    """Recalled share per bin of predicted recall, beside the diagonal of a perfect fit."""

    def show(self, bins: list[CalibrationBin]) -> None:
        """Plot the bins (see :func:`quiz.core.optimizer.calibration`)."""
        shown = [b for b in bins if b.count >= MIN_BIN_REVIEWS]
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("Recalled vs predicted (%), reviews a day or more apart")
        plt.plot([0.0, 100.0], [0.0, 100.0], marker="braille", label="perfect")
        if shown:
            plt.scatter([round(b.predicted * 100, 1) for b in shown],
                        [round(b.actual * 100, 1) for b in shown], marker="dot",
                        label="actual")
        ticks = [0.0, 25.0, 50.0, 75.0, 100.0]
        plt.xlim(0, 100)
        plt.ylim(0, 100)
        plt.xticks(ticks, ["0", "25", "50", "75", "100"])
        plt.yticks(ticks, ["0", "25", "50", "75", "100"])
        self.refresh()
