"""The template browser: a searchable list of every loaded template."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank, Summary

_DIFFICULTY = {1: "easy", 2: "medium", 3: "hard"}


def matches(template: Summary, query: str, pack: str | None = None) -> bool:
    """Whether every word of the query is in the id, title, topic, kind, tags or pack."""
    haystack = " ".join([template.id, template.title, template.topic, template.kind,
                         *template.tags, pack or ""]).lower()
    return all(word in haystack for word in query.lower().split())


class BrowserScreen(Screen[None]):
    """Type to filter; Enter opens a template's preview."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
        Binding("slash", "search", "Search", show=False),
        # Only reached from the filter: the table handles its own arrow keys.
        Binding("down", "to_table", "List", show=False),
        # In the list (the filter takes letters as text).
        Binding("p", "practise", "Practise it"),
    ]

    def __init__(self, bank: Bank) -> None:
        super().__init__()
        self.bank = bank

    def compose(self) -> ComposeResult:
        yield TitleBar("Template browser")
        yield Input(placeholder="Filter by id, title, topic, kind or tag",
                    id="browser-search")
        yield DataTable(id="browser-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="browser-count", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#browser-table", DataTable)
        # The title goes before the topic: the topic is the id's first part anyway.
        table.add_column("id", key="id")
        table.add_column("level", key="level")
        table.add_column("kind", key="kind")
        table.add_column("title", key="title")
        table.add_column("topic", key="topic")
        self._fill("")
        self.query_one("#browser-search", Input).focus()

    def _fill(self, query: str) -> None:
        table = self.query_one("#browser-table", DataTable)
        table.clear()
        shown = [t for tid, t in sorted(self.bank.summaries.items())
                 if matches(t, query, self.bank.packs.get(tid))]
        for t in shown:
            pack = self.bank.packs.get(t.id)
            title = f"{t.title} (pack {pack})" if pack else t.title
            table.add_row(t.id, _DIFFICULTY.get(t.difficulty, str(t.difficulty)), t.kind,
                          title, t.topic, key=t.id)
        total = len(self.bank.summaries)
        self.query_one("#browser-count", Static).update(
            f"{len(shown)} of {total} templates · ↓ to the list, Enter to preview, "
            "p to practise")

    def action_search(self) -> None:
        """Focus the filter."""
        self.query_one("#browser-search", Input).focus()

    @on(Input.Changed, "#browser-search")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#browser-search")
    def _to_table(self) -> None:
        table = self.query_one("#browser-table", DataTable)
        if table.row_count == 1:
            self._open(str(table.coordinate_to_cell_key(table.cursor_coordinate)
                           .row_key.value))
        else:
            table.focus()

    def action_practise(self) -> None:
        """Practise the highlighted template (Escape comes back to the list)."""
        from quiz.tui.app import QuizApp

        table = self.query_one("#browser-table", DataTable)
        if not table.row_count:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        assert isinstance(self.app, QuizApp)
        if key is not None:
            self.app.start_practice_on([str(key)])

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # p is a letter while the filter has the focus: the footer shows it in the list.
        if action == "practise":
            return self.focused is self.query_one("#browser-table")
        return True

    def action_to_table(self) -> None:
        """Move from the filter to the list."""
        self.query_one("#browser-table", DataTable).focus()

    @on(DataTable.RowSelected, "#browser-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self._open(str(event.row_key.value))

    def _open(self, template_id: str) -> None:
        from quiz.tui.screens.template_preview import TemplatePreviewScreen

        self.app.push_screen(TemplatePreviewScreen(self.bank, template_id))
