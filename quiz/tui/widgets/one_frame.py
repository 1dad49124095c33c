"""A screen updated in place, painted in one frame (issue 15).

The feedback screen is built once and shows each answer by updating its few widgets.
Textual then painted it three or four times for one Enter, the last frames some 20-40 ms
after the first and none of them showing anything new:

- a widget whose size a layout has just found (new text, a new height) sets its
  ``virtual_size``, a reactive that asks for *another* layout of the screen, run on the
  next tick of the screen's update timer and painted again: the same places, the same
  lines. :class:`SizedByLayout` keeps the size without asking (as Textual does itself
  for a layout that only scrolls); anything that does change the screen's geometry (a
  scroll bar shown or hidden, new text) still asks for its layout;
- a widget refreshed just before or during the paint (the scroll bars, whose colours
  are set again when the screen is shown and whose thumb follows the new height) tells
  the screen once its own message queue is idle, after the paint that drew it, and the
  screen painted it once more. :class:`PaintedOnce` lets such a late request go when
  the widget has drawn its current content since it was refreshed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import messages
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

__all__ = ["PaintedOnce", "SizedByLayout", "SizedScroll", "SizedStatic"]

ResultT = TypeVar("ResultT")

if TYPE_CHECKING:
    _Mixin = Widget
else:  # a plain mixin: Textual takes a widget's CSS from its first DOMNode base only
    _Mixin = object


class SizedByLayout(_Mixin):
    """A widget whose size, as a layout finds it, does not ask for another layout
    (a mixin: put it before the widget class, ``class X(SizedByLayout, Static)``).

    Textual's ``Widget._size_updated`` sets ``virtual_size`` (a reactive with
    ``layout=True``) from the layout that has just placed the widget, so every change
    of height costs one more layout and one more frame, both identical to the first.
    Its own layout-free form (``layout=False``, what Textual uses when a layout only
    scrolls) sets the same values without that request.
    """

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class SizedStatic(SizedByLayout, Static):
    """A :class:`~textual.widgets.Static` sized by its screen's layout alone."""


class SizedScroll(SizedByLayout, VerticalScroll):
    """A :class:`~textual.containers.VerticalScroll` sized by its screen's layout alone
    (its scroll bars still ask for a layout when they show or hide)."""


class PaintedOnce(Screen[ResultT]):
    """A screen that does not paint again a widget that has drawn its current content.

    A widget's ``refresh()`` marks it dirty (``_dirty_regions``) and, when the widget's
    own message queue is next idle, sends the screen an ``Update``; the screen paints
    the widget on its next timer tick. Drawing the widget's lines clears its dirty
    regions, and nothing else does: a widget whose ``Update`` arrives after a frame
    that drew it (a full paint of the screen just shown, which draws every widget)
    has nothing left to paint, and the frame it would cost shows nothing new. Widgets
    that draw themselves line by line (text areas, tables) never clear their dirty
    regions and so always get their frame.
    """

    async def _on_update(self, message: messages.Update) -> None:
        # Textual calls each class's handler along the MRO until one prevents the
        # default: an update let through goes on to Screen's own.
        widget = message.widget
        if widget is not self and isinstance(widget, Widget) and not widget._dirty_regions:
            message.stop()
            message.prevent_default()
