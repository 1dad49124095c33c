"""A Static and a VerticalScroll sized by their screen's layout alone (no second layout
when their height changes: :class:`~quiz.tui.textual_private.SizedByLayout`)."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static

from quiz.tui.textual_private import SizedByLayout

__all__ = ["SizedScroll", "SizedStatic"]


class SizedStatic(SizedByLayout, Static):
    """A :class:`~textual.widgets.Static` sized by its screen's layout alone."""


class SizedScroll(SizedByLayout, VerticalScroll):
    """A :class:`~textual.containers.VerticalScroll` sized by its screen's layout alone
    (its scroll bars still ask for a layout when they show or hide)."""
