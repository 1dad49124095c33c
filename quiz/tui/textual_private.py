"""Every use of Textual's private API, in one module, each checked before it applies.

Textual is pinned exactly (pyproject.toml), but its private methods change without
notice between releases. Each patch or override below names the Textual function it
replaces or extends, and this module checks at import that the function is still the
one it was written against: the same qualified name and the same fingerprint of its
code (its arguments, local names and the names it reads: :func:`fingerprint`, which
stays the same across Python versions but not across a change of the code). A patch
whose target differs is not applied, and one warning says which (the app works
without it, only slower or with more memory kept). ``pytest -m newest_textual``
installs the newest Textual release in a temporary environment and says which patches
would not apply there (:func:`problems`).

Why each is here (the figure each buys is in bench/README.md, "Terminal app"):

**styles-cache** (:func:`fix_styles_cache`, Textualize/textual#6665). Textual decorates
the method ``StylesCache.get_inner_outer`` with ``functools.lru_cache(1024)``, so every
cache key holds the ``StylesCache`` it was called on: the last 1,024 widgets ever
painted stay reachable after they are removed, with the lines they painted. The heap a
full garbage collection scans grew with every answer (issue 15). The method's result
depends on its two colours only: the fix keys the same cache by the colours alone.

**paint-cycles** (:func:`fix_paint_cycles`). ``Strip.divide`` caches its result in the
strip itself, and cutting a line at its own end gives ``[self]``; ``Strip.crop_extend``
caches ``self`` when nothing is cropped or added: nearly every painted line became a
reference cycle, left for the cyclic collector (some 300 objects a keystroke). And
``LRUCache.clear`` dropped its ring of entries whole, another cycle per edit. The fix
returns the same results without caching a strip in itself, and unlinks the entries a
cleared cache drops.

**hidden-repaints** (:func:`fix_hidden_repaints`). Textual lets the screen under the
top one show through a transparent background, so a change to it asks the top screen
to repaint: every Enter that showed the (opaque) feedback screen painted it once more,
20-40 ms after its first frame. Under an opaque top screen the lower one keeps its own
bookkeeping but no longer repaints the top one.

**watchers** (:func:`forget_watchers`): a widget that watches an app reactive
(``TextArea`` watches ``App.theme``) stays in the app's private watcher list, with all
it holds, until that reactive next changes; the answer box drops its entries when it
is removed.

**sized-by-layout** (:class:`SizedByLayout`, over ``Widget._size_updated``) and
**painted-once** (:class:`PaintedOnce`, over ``Screen._on_update``): the feedback
screen is updated in place and was painted three or four times for one Enter. A
widget whose size a layout has just found set ``virtual_size``, a reactive that asks
for *another* layout (identical); Textual's own layout-free form of the call sets the
same values without it. And a widget refreshed just before the paint that drew it
(the scroll bars) asked for one more frame once its queue was idle; a widget with no
dirty region left has nothing to paint.

**quiet-input** (:class:`QuietInput`, over ``Input._watch_value``): Input keeps its
virtual size in a reactive declared with ``layout=True``, so every key that changed the
text's width laid the whole question screen out again; and the public ``Changed``
message arrives after the key's frame, so a preview updated from it lands a frame
late. The override stores the size without a layout and calls :meth:`QuietInput.changed`
inside the key's own handling.
"""

from __future__ import annotations

import functools
import logging
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rich.style import Style as RichStyle
from textual import messages
from textual._styles_cache import StylesCache
from textual.app import App
from textual.cache import LRUCache
from textual.color import Color
from textual.dom import DOMNode
from textual.geometry import Size
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget
from textual.widgets import Input

__all__ = ["PaintedOnce", "QuietInput", "SizedByLayout", "apply_patches", "fingerprint",
           "forget_watchers", "problems"]

_log = logging.getLogger(__name__)


def fingerprint(function: Callable[..., Any]) -> str:
    """A short fingerprint of ``function``'s code: its arguments, its local names and the
    global and attribute names it reads (not its bytecode, which changes with Python)."""
    code = function.__code__
    shape = (code.co_argcount, code.co_kwonlyargcount, code.co_varnames, code.co_names)
    return f"{zlib.crc32(repr(shape).encode()):08x}"


def _inner_outer() -> Any:
    return getattr(StylesCache.__dict__.get("get_inner_outer"), "__wrapped__", None)


EXPECTED: dict[str, tuple[Callable[[], Any], str, str]] = {
    # patch name: (how to find Textual's function, its qualname, its fingerprint)
    "styles-cache": (_inner_outer, "StylesCache.get_inner_outer", "e0e62666"),
    "paint-cycles": (lambda: Strip.divide, "Strip.divide", "0cc5f256"),
    "paint-cycles:crop_extend": (lambda: Strip.crop_extend, "Strip.crop_extend",
                                 "9d1ff2ab"),
    "paint-cycles:clear": (lambda: LRUCache.clear, "LRUCache.clear", "233eb28c"),
    "hidden-repaints": (lambda: Screen.__dict__.get("_compositor_refresh"),
                        "Screen._compositor_refresh", "d2453112"),
    "sized-by-layout": (lambda: Widget.__dict__.get("_size_updated"),
                        "Widget._size_updated", "83f87d31"),
    "painted-once": (lambda: Screen.__dict__.get("_on_update"), "Screen._on_update",
                     "d2ea822b"),
    "quiet-input": (lambda: Input.__dict__.get("_watch_value"), "Input._watch_value",
                    "5bf0410c"),
}
"""What each patch replaces or extends, as it was when the patch was written."""


def _problem(name: str) -> str | None:
    find, qualname, expected = EXPECTED[name]
    try:
        function = find()
    except AttributeError:
        function = None
    if function is None or not hasattr(function, "__code__"):
        return f"{qualname} is gone"
    if getattr(function, "_quiz_patch", False):
        return None  # our own, applied already
    if function.__qualname__ != qualname:
        return f"{qualname} is now {function.__qualname__}"
    found = fingerprint(function)
    if found != expected:
        return f"{qualname} changed (fingerprint {found}, written for {expected})"
    return None


def problems() -> dict[str, str]:
    """Each patch that would not apply, with why (empty: all apply)."""
    found: dict[str, str] = {}
    for name in EXPECTED:
        problem = _problem(name)
        if problem:
            found.setdefault(name.split(":")[0], problem)
    for name, problem in _watchers_problem().items():
        found[name] = problem
    missing = [n for n in ("_background_screens", "_update_mouse_over") if not hasattr(App, n)]
    if missing:  # what the hidden-repaints fix reads of the app
        found.setdefault("hidden-repaints", f"App has no {', '.join(missing)}")
    return found


def _watchers_problem() -> dict[str, str]:
    # The watcher list is a private attribute, not a function: check it is where
    # forget_watchers looks (App._watch registers into ``__watchers``).
    from textual import reactive

    source_names = reactive._watch.__code__.co_names + reactive._watch.__code__.co_consts
    if "__watchers" not in source_names:
        return {"watchers": "textual.reactive._watch no longer keeps '__watchers'"}
    return {}


PROBLEMS = problems()
"""The patches that do not apply to the installed Textual (checked once, at import)."""
for _name, _why in PROBLEMS.items():
    _log.warning("quiz: not applying the %s fix to Textual: %s", _name, _why)


def _ok(name: str) -> bool:
    return name not in PROBLEMS


# ---------------------------------------------------------------- patches

_INNER_OUTER_SIZE = 1024
"""Entries of the colour cache (Textual's own size for it)."""


def _mark(fixed: Any, textual: object) -> None:
    fixed._quiz_patch = True
    fixed.__wrapped__ = textual  # Textual's own, which the tests compare them with


def fix_styles_cache() -> bool:
    """Key ``StylesCache.get_inner_outer``'s cache by its colours, not by the instance.
    True if applied now (False: applied already, or the check failed)."""
    method: Any = StylesCache.__dict__.get("get_inner_outer")
    if not _ok("styles-cache") or getattr(method, "_quiz_patch", False):
        return False
    colours_only: Callable[[object, Color, Color], tuple[Style, Style]] = method.__wrapped__

    @functools.lru_cache(_INNER_OUTER_SIZE)
    def by_colour(base_background: Color, background: Color) -> tuple[Style, Style]:
        return colours_only(None, base_background, background)  # never reads ``self``

    def get_inner_outer(self: StylesCache, base_background: Color,
                        background: Color) -> tuple[Style, Style]:
        return by_colour(base_background, background)

    _mark(get_inner_outer, method)
    method.cache_clear()  # let go of the instances it holds already
    setattr(StylesCache, "get_inner_outer", get_inner_outer)  # noqa: B010 (typed apart)
    return True


def fix_paint_cycles() -> bool:
    """Stop ``Strip.divide`` and ``Strip.crop_extend`` caching a strip in itself, and
    ``LRUCache.clear`` leaving its entries linked in a ring. True if applied now."""
    if not _ok("paint-cycles") or getattr(Strip.divide, "_quiz_patch", False):
        return False
    divide = Strip.divide
    crop_extend = Strip.crop_extend
    clear = LRUCache.clear

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

    def clear_unlinked(self: LRUCache[Any, Any]) -> None:
        entries: dict[Any, list[object]] = self._cache
        for entry in entries.values():
            entry.clear()
        clear(self)

    _mark(divide_without_cycle, divide)
    _mark(crop_extend_without_cycle, crop_extend)
    _mark(clear_unlinked, clear)
    setattr(Strip, "divide", divide_without_cycle)  # noqa: B010 (typed apart)
    setattr(Strip, "crop_extend", crop_extend_without_cycle)  # noqa: B010
    setattr(LRUCache, "clear", clear_unlinked)  # noqa: B010
    return True


def fix_hidden_repaints() -> bool:
    """Stop a screen covered by an opaque one from repainting the top screen. True if
    applied now."""
    refresh: Any = Screen.__dict__.get("_compositor_refresh")
    if not _ok("hidden-repaints") or getattr(refresh, "_quiz_patch", False):
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

    _mark(compositor_refresh, refresh)
    setattr(Screen, "_compositor_refresh", compositor_refresh)  # noqa: B010
    return True


PATCHES = ("fix_styles_cache", "fix_paint_cycles", "fix_hidden_repaints")
"""The global patches :func:`apply_patches` applies, by function name."""


def apply_patches() -> None:
    """Apply every global patch whose target checked out (idempotent; the app calls it
    when it is built)."""
    fix_styles_cache()
    fix_paint_cycles()
    fix_hidden_repaints()


def forget_watchers(node: DOMNode, watched: DOMNode) -> None:
    """Drop ``node``'s watchers of ``watched``'s reactives (call when ``node`` is
    removed and ``watched`` lives on, e.g. the app).

    Textual keeps them in a private per-object dict, ``__watchers``, as
    ``{name: [(watching node, callback)]}``; if that shape is gone, nothing is done.
    """
    if not _ok("watchers"):
        return
    watchers = getattr(watched, "__watchers", None)
    if not isinstance(watchers, dict):
        return
    for entries in watchers.values():
        if isinstance(entries, list):
            entries[:] = [e for e in entries
                          if not (isinstance(e, tuple) and e and e[0] is node)]


# ---------------------------------------------------------------- overrides

ResultT = TypeVar("ResultT")

if TYPE_CHECKING:
    _Mixin = Widget
else:  # a plain mixin: Textual takes a widget's CSS from its first DOMNode base only
    _Mixin = object


class SizedByLayout(_Mixin):
    """A widget whose size, as a layout finds it, does not ask for another layout
    (a mixin: put it before the widget class, ``class X(SizedByLayout, Static)``)."""

    if _ok("sized-by-layout"):
        def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                          layout: bool = True) -> bool:
            return super()._size_updated(size, virtual_size, container_size, layout=False)


class PaintedOnce(Screen[ResultT]):
    """A screen that does not paint again a widget that has drawn its current content.

    A widget's ``refresh()`` marks it dirty (``_dirty_regions``) and, when its message
    queue is next idle, sends the screen an ``Update``; drawing the widget's lines
    clears its dirty regions. A widget whose ``Update`` arrives after a frame that drew
    it has nothing left to paint. Widgets that draw themselves line by line (text
    areas, tables) never clear their dirty regions and so always get their frame.
    """

    if _ok("painted-once"):
        async def _on_update(self, message: messages.Update) -> None:
            # Textual calls each class's handler along the MRO until one prevents the
            # default: an update let through goes on to Screen's own.
            widget = message.widget
            if (widget is not self and isinstance(widget, Widget)
                    and not widget._dirty_regions):
                message.stop()
                message.prevent_default()


class QuietInput(Input):
    """An Input that tells :meth:`changed` of every change inside the key's handling,
    and whose text's width never lays its screen out again."""

    if _ok("quiet-input"):
        def _watch_value(self, value: str) -> None:
            # The input's own size does not depend on its text (Input lays out again
            # itself when a style makes it auto-sized): store the virtual size without a
            # layout pass; scrolling to the cursor reads it directly.
            self.set_reactive(Input.virtual_size, Size(self.content_width, 1))
            super()._watch_value(value)
            self.changed(value)
    else:
        def watch_value(self, value: str) -> None:
            self.changed(value)

    def changed(self, value: str) -> None:
        """The value changed (override)."""


ONE_FRAME_OVERRIDES: list[tuple[type, str]] = [(SizedByLayout, "_size_updated"),
                                                (PaintedOnce, "_on_update")]
"""The overrides of the one-frame feedback (the benches switch them off to pair them)."""
