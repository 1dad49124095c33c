"""Fixes for Textual's memory that grows with every widget built (applied by the app).

Textual is pinned exactly (pyproject.toml), so each fix below is written against that
version and checks, before it applies, that the code it replaces is still there.

**Painted lines kept alive by a colour cache** (Textualize/textual#6665). Textual
decorates the *method* ``StylesCache.get_inner_outer`` with ``functools.lru_cache(1024)``,
so every cache key holds the ``StylesCache`` it was called on, and every widget has one:
the last 1,024 widgets ever painted stay reachable after they are removed, each with the
lines it painted (``Strip`` objects, seven small caches each, and the strips derived from
them). In this app a question screen per session, the choices and hints of every
question, and the notifications build widgets all the time, so the objects the garbage
collector must scan grew with every answer, and a full collection in the middle of an
Enter took up to half a second (issue 15). The method's result depends on its two colours
only: :func:`fix_styles_cache` keys the same cache by the colours alone.

**Painted lines that refer to themselves** (:func:`fix_paint_cycles`). ``Strip.divide``
caches its result in the strip itself, and cutting a line at its own end gives
``[self]``; ``Strip.crop_extend`` caches ``self`` when nothing is cropped or added. The
compositor cuts every line it paints, so nearly every painted line became a reference
cycle: refcounting never freed it, and each keystroke left some 300 container objects
(lines, their seven small caches each, their dicts) for the cyclic collector. Typing a
paragraph set off a full collection every ~150 keys, inside a keystroke (issue 15). And
``LRUCache.clear`` (a text area clears its line cache on every edit) dropped its ring of
entries whole, another cycle per keystroke. The fix returns the same results without
caching a strip in itself, and unlinks the entries a cleared cache drops.

**A screen under an opaque one repaints the top screen** (:func:`fix_hidden_repaints`).
Textual lets the screen under the top one show through a transparent background, so a
change to it asks the top screen to repaint the same places on its next tick. Pushing a
screen refreshes the one it covers: every Enter that showed the (opaque) feedback
screen painted it once more, 20-40 ms after its first frame, with nothing new. When the
top screen's background is opaque the lower screen keeps its own bookkeeping (it is
repainted in full when it shows again) but no longer repaints the top one.

**Removed widgets kept alive by the app's watchers**: a widget that watches an app
reactive (Textual's ``TextArea`` watches ``App.theme``) stays in the app's watcher list,
with everything it holds, until that reactive next changes. :func:`forget_watchers`
drops a removed node's entries (the pruning Textual does itself on the next change).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rich.style import Style as RichStyle
from textual._styles_cache import StylesCache
from textual.cache import LRUCache
from textual.color import Color
from textual.dom import DOMNode
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style

_INNER_OUTER_SIZE = 1024
"""Entries of the colour cache (Textual's own size for it)."""


def fix_styles_cache() -> bool:
    """Key ``StylesCache.get_inner_outer``'s cache by its colours, not by the instance.

    Idempotent. Returns True if Textual's method has the leaking shape (an
    ``lru_cache`` around a plain function), which is then replaced; False if it does
    not (a Textual that fixed it, or this fix already applied).
    """
    method: Any = StylesCache.__dict__.get("get_inner_outer")
    body: Callable[[object, Color, Color], tuple[Style, Style]] | None = getattr(
        method, "__wrapped__", None)
    if body is None or not hasattr(method, "cache_clear"):
        return False
    colours_only = body

    @functools.lru_cache(_INNER_OUTER_SIZE)
    def by_colour(base_background: Color, background: Color) -> tuple[Style, Style]:
        return colours_only(None, base_background, background)  # never reads ``self``

    def get_inner_outer(self: StylesCache, base_background: Color,
                        background: Color) -> tuple[Style, Style]:
        return by_colour(base_background, background)

    method.cache_clear()  # let go of the instances it holds already
    setattr(StylesCache, "get_inner_outer", get_inner_outer)  # noqa: B010 (typed apart)
    return True


def fix_paint_cycles() -> bool:
    """Stop ``Strip.divide`` and ``Strip.crop_extend`` caching a strip in itself, and
    ``LRUCache.clear`` leaving its entries linked in a ring.

    ``divide`` and ``crop_extend`` return the strip itself (in a list, for ``divide``)
    when the cut or crop is the whole strip; only that case changes: it is answered
    before Textual's method, which would store the strip in its own cache. A cleared
    ``LRUCache`` empties each entry (``[prev, next, key, value]``) it drops. Idempotent.
    Returns True if applied now; False if already applied, or if Textual's ``Strip`` or
    ``LRUCache`` no longer have the shape this fix is written for (nothing is changed).
    """
    if getattr(Strip.divide, "_no_self_cache", False):
        return False
    slots = getattr(Strip, "__slots__", ())
    if "_divide_cache" not in slots or "_crop_extend_cache" not in slots or \
            LRUCache.__slots__ != ["_maxsize", "_cache", "_full", "_head", "hits", "misses"]:
        return False
    divide = Strip.divide
    crop_extend = Strip.crop_extend

    def divide_without_cycle(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        cuts = [cut for cut in cuts if cut <= self.cell_length]  # as Textual filters
        if cuts == [self.cell_length]:
            return [self]
        return divide(self, cuts)

    def crop_extend_without_cycle(self: Strip, start: int, end: int,
                                  style: RichStyle | None) -> Strip:
        if start <= 0 and end == self.cell_length:  # nothing cut, nothing added
            return self
        return crop_extend(self, start, end, style)

    clear = LRUCache.clear

    def clear_unlinked(self: LRUCache[Any, Any]) -> None:
        entries: dict[Any, list[object]] = self._cache  # Textual's own attributes
        for entry in entries.values():
            entry.clear()
        clear(self)

    divide_without_cycle._no_self_cache = True  # type: ignore[attr-defined]
    fixes: list[tuple[Any, object]] = [(divide_without_cycle, divide), (clear_unlinked, clear),
                                       (crop_extend_without_cycle, crop_extend)]
    for fixed, textual in fixes:
        fixed.__wrapped__ = textual  # Textual's own, which the tests compare them with
    setattr(Strip, "divide", divide_without_cycle)  # noqa: B010 (typed apart)
    setattr(Strip, "crop_extend", crop_extend_without_cycle)  # noqa: B010
    setattr(LRUCache, "clear", clear_unlinked)  # noqa: B010
    return True


def fix_hidden_repaints() -> bool:
    """Stop a screen covered by an opaque one from repainting the top screen.

    Idempotent. Returns True if applied now; False if already applied or if Textual's
    ``Screen`` and ``App`` no longer have the private methods this is written for.
    """
    from textual.app import App

    refresh: Any = getattr(Screen, "_compositor_refresh", None)
    if refresh is None or getattr(refresh, "_hidden_repaints", False) or not all(
            hasattr(App, name) for name in ("_background_screens", "_update_mouse_over")):
        return False

    def compositor_refresh(self: Screen[Any]) -> None:
        app = self.app
        top = app.screen
        if (self is not top and not app.is_inline and top.styles.background.a >= 1
                and self in app._background_screens and self._compositor._dirty_regions):
            # Textual's own steps for a screen under the top one, but the top's repaint
            self._set_dirty(*self._compositor._dirty_regions)
            self._repaint_required = True
            self._compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
            app._update_mouse_over(self)
            return
        refresh(self)

    compositor_refresh._hidden_repaints = True  # type: ignore[attr-defined]
    compositor_refresh.__wrapped__ = refresh  # type: ignore[attr-defined]
    setattr(Screen, "_compositor_refresh", compositor_refresh)  # noqa: B010
    return True


def forget_watchers(node: DOMNode, watched: DOMNode) -> None:
    """Drop ``node``'s watchers of ``watched``'s reactives (call when ``node`` is
    removed and ``watched`` lives on, e.g. the app).

    Textual keeps them in a private per-object dict, ``__watchers``, as
    ``{name: [(watching node, callback)]}``; if that shape is gone, nothing is done.
    """
    watchers = getattr(watched, "__watchers", None)
    if not isinstance(watchers, dict):
        return
    for entries in watchers.values():
        if isinstance(entries, list):
            entries[:] = [e for e in entries
                          if not (isinstance(e, tuple) and e and e[0] is node)]
