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

**Removed widgets kept alive by the app's watchers**: a widget that watches an app
reactive (Textual's ``TextArea`` watches ``App.theme``) stays in the app's watcher list,
with everything it holds, until that reactive next changes. :func:`forget_watchers`
drops a removed node's entries (the pruning Textual does itself on the next change).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.dom import DOMNode
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
