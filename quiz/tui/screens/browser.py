"""The template browser: a searchable list of every loaded template.

The list (:class:`~quiz.tui.widgets.template_list.TemplateList`) draws only the rows on
screen, and its rows and the text the filter searches are made once from the bank's
summaries (no template is validated): with 6,500 templates, opening the browser and
typing in its filter cost what they cost with a hundred.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from quiz.tui.messages import PracticeRequested
from quiz.tui.widgets.template_list import Row, TemplateList
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank, Summary


def matches(template: Summary, query: str, pack: str | None = None) -> bool:
    """Whether every word of the query is in the id, title, topic, kind, tags or pack."""
    hay = haystack(template, pack)
    return all(word in hay for word in query.lower().split())


def haystack(template: Summary, pack: str | None = None) -> str:
    """What the filter searches in a template, in lower case."""
    return " ".join([template.id, template.title, template.topic, template.kind,
                     *template.tags, pack or ""]).lower()


class BrowserScreen(Screen[None]):
    """Type to filter; Enter opens a template's preview."""

    DEFAULT_CSS = """
    #browser-search { margin: 1 1 0 1; }
    #browser-table { height: 1fr; margin: 0 1; }
    #browser-count { padding: 0 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
        Binding("slash", "search", "Search", show=False),
        # From the filter only (see check_action): the list handles its own arrow keys
        # and Enter. A priority binding runs when the key arrives, before the keys typed
        # after it are handed to the focused widget, so "↓ p" or "Enter p" in one burst
        # practises.
        Binding("down", "to_table", "List", show=False, priority=True),
        Binding("enter", "submit_filter", "Open", show=False, priority=True),
        # In the list (the filter takes letters as text); a priority binding too, so that
        # a p typed right after an Enter that opens a preview still practises.
        Binding("p", "practise", "Practise it", priority=True),
    ]

    def __init__(self, bank: Bank) -> None:
        super().__init__()
        self.bank = bank
        # Made once: a keystroke in the filter only picks rows.
        summaries = sorted(bank.summaries.items())
        self._rows = [(Row.of(t, bank.packs.get(tid)), haystack(t, bank.packs.get(tid)))
                      for tid, t in summaries]
        self._query: str | None = None
        """The filter the list shows (None before the first)."""
        self._search_on_resume = False

    def compose(self) -> ComposeResult:
        yield TitleBar("Template browser")
        yield Input(placeholder="Filter by id, title, topic, kind or tag",
                    id="browser-search")
        yield TemplateList(id="browser-table")
        yield Static("", id="browser-count", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        # Columns as wide as the widest of every template: filtering never moves them.
        self.query_one("#browser-table", TemplateList).size_columns(
            [row for row, _ in self._rows])
        self._fill("")
        self.query_one("#browser-search", Input).focus()

    def _fill(self, query: str) -> None:
        self._query = query
        kept = self._rows
        for word in query.lower().split():  # one pass per word: `in` on plain strings
            kept = [(row, hay) for row, hay in kept if word in hay]
        table = self.query_one("#browser-table", TemplateList)
        table.set_rows([row for row, _ in kept])
        self.query_one("#browser-count", Static).update(
            f"{len(kept)} of {len(self._rows)} templates · ↓ to the list, Enter to "
            "preview, p to practise")

    def action_search(self) -> None:
        """Focus the filter."""
        self.query_one("#browser-search", Input).focus()

    @on(Input.Changed, "#browser-search")
    def _filter(self, event: Input.Changed) -> None:
        if event.value == event.input.value:  # not a letter of a burst already shown
            self._sync_filter()

    def _sync_filter(self) -> None:
        """Show the rows of what the filter holds now, unless the list shows them."""
        value = self.query_one("#browser-search", Input).value
        if value != self._query:
            self._fill(value)

    def _after_typed(self, then: Callable[[], object]) -> None:
        """Run ``then`` once the letters already typed are in the filter and filtered.

        Keys typed in one burst are all queued before the first is handled: the letters
        wait in the filter's own queue while the app already acts on an Enter or a p
        after them. A callback queued behind them runs after the last."""
        def synced() -> None:
            self._sync_filter()
            then()

        self.query_one("#browser-search", Input).call_later(synced)

    def action_submit_filter(self) -> None:
        """Enter in the filter: to the list at once (so that the keys typed after it go
        there), or, when the filter leaves one template, to its preview."""
        self.action_to_table()
        self._after_typed(self._open_the_only_row)

    def _open_the_only_row(self) -> None:
        table = self.query_one("#browser-table", TemplateList)
        if self.is_current and len(table.rows) == 1 and table.highlighted is not None:
            self._search_on_resume = True  # not now: a p typed after the Enter practises
            self._open(table.highlighted)

    def on_screen_resume(self) -> None:
        if self._search_on_resume:  # back from the only row's preview: filter again
            self._search_on_resume = False
            self.action_search()

    def action_practise(self) -> None:
        """Practise the highlighted template (Escape comes back to the list), once the
        letters typed before the p have filtered the list."""
        self._after_typed(self._practise_highlighted)

    def _practise_highlighted(self) -> None:
        key = self.query_one("#browser-table", TemplateList).highlighted
        # Not only when current: "Enter p" on a one-row filter opens the preview first,
        # and p there practises the same template.
        if key is not None and self in self.app.screen_stack:
            self.post_message(PracticeRequested([key]))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # p is a letter while the filter has the focus: the footer shows it in the list.
        if action == "practise":
            return self.focused is self.query_one("#browser-table")
        if action in ("to_table", "submit_filter"):  # elsewhere the focused widget's own
            return self.focused is self.query_one("#browser-search")
        return True

    def action_to_table(self) -> None:
        """Move from the filter to the list, at once (``Widget.focus`` would wait for
        the messages already queued: the next key of a burst still went to the filter)."""
        self.set_focus(self.query_one("#browser-table", TemplateList))

    @on(TemplateList.Selected, "#browser-table")
    def _selected(self, event: TemplateList.Selected) -> None:
        self._open(event.template_id)

    def _open(self, template_id: str) -> None:
        from quiz.tui.screens.template_preview import TemplatePreviewScreen

        self.app.push_screen(TemplatePreviewScreen(self.bank, template_id))
