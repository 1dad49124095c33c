"""What the settings model made of the settings file last time, read without pydantic.

Validating the settings file means importing pydantic and building the model, about
0.1 s: most of what the home screen waited for at start-up. Before that, the home
needs two numbers from the settings (the drill's daily limits, for today's counts),
and they are the ones the model produced last time whenever neither the file nor the
model has changed since. So each validation stores its values here, keyed by the
file's text and the model's source code; a start whose key matches reads them back
with :mod:`json` alone. The model still validates the file right behind the home
screen, and reports every problem in it from there, exactly as before: this cache
only lets today's counts be shown first.

A cache that is missing, unreadable, written for other text or another model, or
holding a value of the wrong type is a miss, and the caller validates first. The cache
never holds anything the model did not produce.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct

from questions.private import private_folder
from questions.textfile import TextFileError, read_text_file

__all__ = ["MAX_SETTINGS_BYTES", "DailyLimits", "cached_limits", "remember"]

FORMAT = 1
"""Changes when the cache file's layout does (an old layout is a miss)."""

MAX_SETTINGS_BYTES = 64 * 1024
"""Largest settings file read (the whole file written by the app is about 2 KB). It
lives here, not with the model, so that reading it costs no pydantic."""

MODEL_SOURCE = Path(__file__).with_name("settings.py")
"""The settings model's module: a changed model (a new range, a new default) makes
every stored result stale."""


class DailyLimits(Struct, frozen=True):
    """The settings today's drill reads (see :class:`quiz.core.schedule.Drill`)."""

    new_per_day: int
    reviews_per_day: int


def key_of(text: str | None) -> str:
    """The cache key of a settings file's text (None: there is no file)."""
    digest = hashlib.sha256(MODEL_SOURCE.read_bytes())
    digest.update(b"\0missing" if text is None else b"\0file\0" + text.encode("utf-8"))
    return digest.hexdigest()


def _stored(cache: Path) -> dict[str, object] | None:
    try:
        data = json.loads(cache.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def cached_limits(config: Path, cache: Path) -> DailyLimits | None:
    """The daily limits validated from this exact settings file, or None (a miss).

    Args:
        config: the settings file (it need not exist).
        cache: the cache file (:func:`quiz.locations.settings_cache_path`).
    """
    try:
        text: str | None = read_text_file(config, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        text = None
    except (OSError, TextFileError):
        return None  # the model reports it; nothing was stored for it
    stored = _stored(cache)
    if stored is None or stored.get("format") != FORMAT or stored.get("key") != key_of(text):
        return None
    values = stored.get("values")
    if not isinstance(values, dict):
        return None
    new, reviews = values.get("new_per_day"), values.get("reviews_per_day")
    # bool is an int to Python; the model never produces one for these fields
    if type(new) is not int or type(reviews) is not int:
        return None
    return DailyLimits(new, reviews)


def remember(cache: Path, text: str | None, values: Mapping[str, object]) -> None:
    """Store what the model made of ``text`` (None: no file). Only a cache: a folder
    that cannot be written is left as it is, and the next start validates first.

    Args:
        cache: the cache file.
        text: the settings file's text exactly as validated.
        values: the model's values (``Settings.model_dump()``: JSON types only).
    """
    data = {"format": FORMAT, "key": key_of(text), "values": dict(values)}
    if _stored(cache) == data:
        return  # the usual start: nothing changed, nothing to write
    payload = json.dumps(data, indent=1, sort_keys=True).encode("utf-8")
    tmp: str | None = None
    try:
        private_folder(cache.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{cache.name}.", suffix=".tmp", dir=cache.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(tmp, cache)  # whole or not at all: a reader never sees half a file
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
