"""A small two-column table of a question's drawn parameters."""

from __future__ import annotations

from rich.table import Table
from textual.widgets import Static


class ParamsTable(Static):
    """The parameters a variant drew, as (name, shown value) rows; hidden when empty."""

    DEFAULT_CSS = """
    ParamsTable { height: auto; width: auto; }
    ParamsTable.-empty { display: none; }
    """

    def show(self, rows: list[tuple[str, str]]) -> None:
        """Replace the rows."""
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=False)
        table.add_column("name", style="bold", no_wrap=True)
        table.add_column("value")
        for name, value in rows:
            table.add_row(name, value)
        self.set_class(not rows, "-empty")
        self.update(table)
