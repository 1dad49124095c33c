"""A worked derivation, laid out for reading: prose, numbered steps, indented math."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style as RichStyle
from rich.text import Text
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, RichVisual
from textual.widget import Widget

from quiz.tui.data import Block, derivation_blocks

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


class Derivation(Widget):
    """A derivation as one widget, each kind of line styled apart.

    One widget, not one per line: a screen of thirty small widgets spends most of its
    time in styling and layout, which made the feedback screen slow to appear. The
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
        self._rendered: _RenderedOnce | None = None

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

    def render(self) -> RichVisual:
        styles = {name: self.get_component_rich_style(name, partial=True)
                  for name in self.COMPONENT_CLASSES}
        rendered = self._rendered
        if rendered is None or rendered.styles != styles:  # new blocks, or a new theme
            rendered = self._rendered = _RenderedOnce(self, self._group(styles), styles)
        return rendered

    def _group(self, styles: dict[str, RichStyle]) -> RenderableType:
        parts: list[RenderableType] = []
        for block in self.blocks:
            gap, indent = _LAYOUT.get(block.kind, (True, 0))
            style = styles.get(f"derivation--{block.kind}", "")
            parts.append(Padding(Text(block.text, style=style), (int(gap), 0, 0, indent)))
        return Group(*parts)


class _RenderedOnce(RichVisual):
    """A derivation's renderable, rendered through Rich once per width.

    Textual asks a widget's visual for its height at every layout and for its lines at
    every paint that finds the widget changed, and a screen's first layout runs twice:
    the derivation, the tallest thing on the feedback screen, went through Rich four
    times for one Enter. Its text and styles are fixed (the widget makes a new one when
    either changes), so the lines are kept by width.
    """

    def __init__(self, widget: Widget, renderable: RenderableType,
                 styles: dict[str, RichStyle]) -> None:
        super().__init__(widget, renderable)
        self.styles = styles
        """The component styles it was made with."""
        self._heights: dict[int, int] = {}
        self._strips: dict[tuple[int, int | None, Style], list[Strip]] = {}

    def get_height(self, rules: RulesMap, width: int) -> int:
        if width not in self._heights:
            self._heights[width] = super().get_height(rules, width)
        return self._heights[width]

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        if options.selection is not None:  # text being selected: drawn as it changes
            return super().render_strips(width, height, style, options)
        key = (width, height, style)
        if key not in self._strips:
            self._strips[key] = super().render_strips(width, height, style, options)
        return self._strips[key]
