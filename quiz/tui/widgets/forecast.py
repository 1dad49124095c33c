"""The due forecast as a small bar chart of text (one line per day)."""

from __future__ import annotations

from datetime import date

from textual.widgets import Static


def forecast_lines(days: list[tuple[date, int]], width: int = 30) -> list[str]:
    """One markup line per day: weekday, date, a bar and the count.

    >>> forecast_lines([(date(2025, 1, 6), 2), (date(2025, 1, 7), 0)], width=4)
    ['Mon 01-06 [$text-accent]████[/]   2', 'Tue 01-07        0']
    """
    top = max((n for _, n in days), default=0)
    lines = []
    for day, n in days:
        bar = "█" * (round(n / top * width) if top else 0)
        pad = " " * (width - len(bar))
        lines.append(f"{day:%a %m-%d} [$text-accent]{bar}[/]{pad} {n:>3}" if bar
                     else f"{day:%a %m-%d} {pad} {n:>3}")
    return lines


class ForecastChart(Static):
    """Cards due per day over the next days."""

    DEFAULT_CSS = """
    ForecastChart { height: auto; }
    """

    def show(self, days: list[tuple[date, int]]) -> None:
        """Replace the chart."""
        if not any(n for _, n in days):
            self.update("Nothing scheduled yet: answer a few drill questions first.")
            return
        self.update("\n".join(forecast_lines(days)))
