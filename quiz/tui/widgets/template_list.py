"""A list of templates that draws only the rows on screen.

A ``DataTable`` builds, measures and styles every row it holds: with 6,500 templates the
browser took seconds to open and again for every letter typed in its filter. This list
keeps the rows as plain summaries and renders a line only when it is on screen
(``render_line``), so opening it and filtering it cost the same with 100 templates or
10,000: a filter only swaps the list of rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

if TYPE_CHECKING:
    from questions.loader import Summary

LEVELS = {1: "easy", 2: "medium", 3: "hard"}
GAP = 2
"""Spaces between two columns."""
HEADER = ("id", "level", "kind", "title", "topic")


@dataclass(frozen=True)
class Row:
    """One template as the list shows it."""

    id: str
    level: str
    kind: str
    title: str
    topic: str

    @classmethod
    def of(cls, summary: Summary, pack: str | None = None) -> Row:
        """The row of a template (its pack named after the title)."""
        title = f"{summary.title} (pack {pack})" if pack else summary.title
        return cls(summary.id, LEVELS.get(summary.difficulty, str(summary.difficulty)),
                   summary.kind, title, summary.topic)


def _cell(text: str, width: int) -> str:
    """``text`` in exactly ``width`` cells: padded, or cut with an ellipsis."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


class TemplateList(ScrollView, can_focus=True):
    """Templates, one per line under a header; Enter (or a click) selects one."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "template-list--header", "template-list--cursor", "template-list--even"}

    DEFAULT_CSS = """
    TemplateList {
        background: $surface;
        color: $foreground;
        height: 1fr;
        & > .template-list--header { text-style: bold; background: $panel; }
        & > .template-list--even { background: $surface-lighten-1 50%; }
        & > .template-list--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .template-list--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move(-1_000_000_000)", "First", show=False),
        Binding("end", "move(1_000_000_000)", "Last", show=False),
        Binding("enter", "select", "Preview", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)
    """The highlighted row's index."""

    class Selected(Message):
        """A template was chosen (Enter or a click)."""

        def __init__(self, template_list: TemplateList, template_id: str) -> None:
            super().__init__()
            self.template_list = template_list
            self.template_id = template_id

        @property
        def control(self) -> TemplateList:
            """The list it was chosen in (what ``@on(..., "#id")`` matches)."""
            return self.template_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[Row] = ()
        self._widths: tuple[int, int, int, int] | None = None  # id, level, kind, topic

    def size_columns(self, rows: Sequence[Row]) -> None:
        """Size the id, level, kind and topic columns to the widest of these rows (say,
        every template, so that filtering never moves the columns)."""
        def widest(cells: list[str], label: str) -> int:
            return max([len(label), *map(cell_len, cells)])

        self._widths = (widest([r.id for r in rows], "id"),
                        widest([r.level for r in rows], "level"),
                        widest([r.kind for r in rows], "kind"),
                        widest([r.topic for r in rows], "topic"))
        self.refresh()

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Show these rows, the first highlighted (columns as :meth:`size_columns` set
        them, or else as wide as these rows need)."""
        if self._widths is None:
            self.size_columns(rows)
        self.rows = rows
        self.virtual_size = Size(0, len(rows) + 1)
        self.scroll_to(y=0, animate=False, immediate=True)
        self.cursor = 0
        self.refresh()

    @property
    def highlighted(self) -> str | None:
        """The highlighted template's id (None when the list is empty)."""
        return self.rows[self.cursor].id if self.rows else None

    # ------------------------------------------------------------ drawing

    def _columns(self, width: int) -> tuple[int, int, int, int, int]:
        """Widths of id, level, kind, title, topic (0: left out) in ``width`` cells."""
        id_w, level_w, kind_w, topic_w = self._widths or (2, 5, 4, 5)
        id_w = min(id_w, max(16, width * 2 // 5))  # the title needs room too
        rest = width - id_w - level_w - kind_w - 3 * GAP
        if rest >= 30 + GAP + topic_w:
            return id_w, level_w, kind_w, rest - GAP - topic_w, topic_w
        return id_w, level_w, kind_w, max(rest, 0), 0

    def _line(self, cells: tuple[str, ...], width: int) -> str:
        widths = self._columns(width)
        text = (" " * GAP).join(_cell(c, w) for c, w in zip(cells, widths, strict=True)
                                if w)
        return set_cell_size(text, width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            style = base + self.get_component_rich_style("template-list--header")
            return Strip([Segment(self._line(HEADER, width), style)], width)
        index = self.scroll_offset.y + y - 1
        if index >= len(self.rows):
            return Strip([Segment(" " * width, base)], width)
        row = self.rows[index]
        style = base
        if index % 2:
            style += self.get_component_rich_style("template-list--even")
        if index == self.cursor:
            style += self.get_component_rich_style("template-list--cursor")
        return Strip([Segment(self._line((row.id, row.level, row.kind, row.title,
                                          row.topic), width), style)], width)

    # ------------------------------------------------------------ moving

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1))

    def watch_cursor(self) -> None:
        visible = max(1, self.scrollable_content_region.height - 1)  # under the header
        top = round(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)
        self.refresh()

    def action_move(self, by: int) -> None:
        """Move the highlight by ``by`` rows (clamped to the list)."""
        self.cursor = self.cursor + by

    def action_page(self, pages: int) -> None:
        """Move the highlight by a screenful."""
        self.cursor = self.cursor + pages * max(1, self.scrollable_content_region.height - 1)

    def action_select(self) -> None:
        """Choose the highlighted template."""
        if self.rows:
            self.post_message(self.Selected(self, self.rows[self.cursor].id))

    def on_click(self, event: Click) -> None:
        """A click highlights the row and chooses it, as a DataTable's does."""
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        index = self.scroll_offset.y + offset.y - 1
        if index < len(self.rows):
            self.focus()
            self.cursor = index
            self.action_select()
