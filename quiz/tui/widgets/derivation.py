"""A worked derivation, laid out for reading: prose, numbered steps, indented math."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widget import Widget

from quiz.tui.data import Block, derivation_blocks
from quiz.tui.textual_private import SizedByLayout

if TYPE_CHECKING:
    from questions.derivation import Derivation as Worked

_LAYOUT = {  # kind -> (blank line above, left indent)
    "title": (True, 0),
    "text": (True, 0),
    "quantity": (True, 0),
    "step": (True, 2),
    "math": (False, 5),
    "note": (True, 2),
    "answer": (True, 0),
}


class Derivation(SizedByLayout, Widget):
    """A derivation as one widget, each kind of line styled apart.

    One widget, not one per line: a screen of thirty small widgets spends most of its
    time in styling and layout, which made the feedback screen slow to appear (and
    its new height asks for no second layout: :class:`SizedByLayout`). The
    kinds are styled by component classes (``derivation--step`` and so on), so themes
    and the stylesheet still decide the colours.

    Args:
        content: the structured derivation (a part's, a template preview's, a
            report's), or blocks already classified (:class:`quiz.tui.data.Block`).
        title: a heading shown above it, or None.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "derivation--title", "derivation--text", "derivation--quantity",
        "derivation--step", "derivation--math", "derivation--note", "derivation--answer",
    }

    DEFAULT_CSS = """
    Derivation { height: auto; }
    Derivation > .derivation--title { text-style: bold; color: $text-primary; }
    Derivation > .derivation--quantity { text-style: bold; color: $text-accent; }
    Derivation > .derivation--math { color: $text-muted; }
    Derivation > .derivation--note { color: $text-muted; text-style: italic; }
    Derivation > .derivation--answer { text-style: bold; color: $text-success; }
    """

    def __init__(self, content: Worked | Sequence[Block], *, title: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.title = title
        self.blocks: list[Block] = self._blocks(content)
        """What is shown, in order (the title first, as a block of kind ``title``)."""
        self._rendered: _Lines | None = None

    def _blocks(self, content: Worked | Sequence[Block]) -> list[Block]:
        blocks = list(content) if isinstance(content, Sequence) else derivation_blocks(content)
        return ([Block("title", self.title)] if self.title else []) + blocks

    def show(self, content: Worked | Sequence[Block]) -> None:
        """Show another derivation under the same title."""
        self.blocks = self._blocks(content)
        self._rendered = None
        self.refresh(layout=True)

    @property
    def text(self) -> str:
        """The derivation as plain text, one block per paragraph."""
        return "\n\n".join(block.text for block in self.blocks)

    def render(self) -> Visual:
        styles = {name: self.get_component_rich_style(name, partial=True)
                  for name in self.COMPONENT_CLASSES}
        rendered = self._rendered
        if rendered is None or rendered.styles != styles:  # new blocks, or a new theme
            rendered = self._rendered = _Lines(self, self.blocks, styles)
        return rendered


class _Lines(Visual):
    """A derivation's lines: each block wrapped once per width and base style.

    Textual asks a widget's visual for its height at every layout and for its lines at
    every paint that finds the widget changed, and a screen's first layout may run
    twice. The lines are made once, by width and base style, and the height is their
    count. They are what Rich made of a ``Group`` of ``Padding(Text(block), (gap, 0,
    0, indent))`` (a blank line above most blocks, an indent, each line padded to the
    width), made directly: Rich's ``Text.wrap`` wraps each block, and nothing else of
    Rich's render pipeline runs (Padding, Group, lines split and cropped twice, the
    whole thing once for the height and again for the lines), which took 6-12 ms of
    the Enter on a long worked solution (issue 15). A test compares the two over the
    whole bank.
    """

    def __init__(self, widget: Widget, blocks: Sequence[Block],
                 styles: dict[str, RichStyle]) -> None:
        self.widget = widget
        self.blocks = list(blocks)
        self.styles = styles
        """The component styles it was made with."""
        self._lines: dict[tuple[int, RichStyle], list[Strip]] = {}

    def lines(self, width: int, base: RichStyle) -> list[Strip]:
        """The lines at ``width`` on ``base`` (the widget's own style), made once."""
        key = (width, base)
        made = self._lines.get(key)
        if made is None:
            made = self._lines[key] = self._make(width, base)
        return made

    def _make(self, width: int, base: RichStyle) -> list[Strip]:
        console = self.widget.app.console
        options = self.widget.app.console_options
        justify = options.justify or "default"
        overflow = options.overflow or "fold"
        tab_size = console.tab_size or 8
        add = base.__add__
        blank = Strip([Segment(" " * width, base)], width)
        out: list[Strip] = []
        for block in self.blocks:
            gap, indent = _LAYOUT.get(block.kind, (True, 0))
            if gap:
                out.append(blank)
            inner = max(1, width - indent)  # a terminal narrower than the indent
            style = self.styles.get(f"derivation--{block.kind}") or RichStyle.null()
            text = Text(block.text, style=style, end="")
            left = [Segment(" " * indent, base)] if indent else []
            for line in text.wrap(console, inner, justify=justify, overflow=overflow,
                                  tab_size=tab_size, no_wrap=options.no_wrap or False):
                # Rich styles a line without spans by its text's style (as a span of
                # the joined lines); a block's text is plain, but keep spans if any
                parts = line.render(console) if line.spans else [Segment(line.plain, style)]
                segments = left + [Segment(t, add(s)) for t, s, _ in parts if t]
                length = indent + line.cell_len
                if length < width:
                    segments.append(Segment(" " * (width - length), base))
                out.append(Strip(segments, max(width, length)).crop(0, width))
        return out

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width, self.widget.visual_style.rich_style))

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        lines = self.lines(width, style.rich_style)
        return lines if height is None else lines[:height]
