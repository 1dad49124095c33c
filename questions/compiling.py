"""Compiling one template file into the compiled bank's rows (or only summarizing it).

What a build (:func:`questions.catalog.build`) does with a new or changed file, in this
process or in another (:mod:`questions.bankpool`): read it, compile it (TOML, pydantic,
the solver checks: :func:`questions.loader.parse_template`) or only summarize it
(:mod:`questions.summaries`), and note what the cache is to keep (:class:`Writes`,
written by the build in one transaction).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from questions.entry import Entry as Entry  # the record a file is kept as

if TYPE_CHECKING:
    from questions.loader import Problem
    from questions.schema import Template


def digest(text: str) -> str:
    """What tells one template text from another.

    >>> digest("a") == digest("a") != digest("b")
    True
    """
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class Writes(Struct):
    """What a build changes in the cache, written in one transaction at its end."""

    now: int
    entries: list[tuple[Any, ...]] = field(default_factory=list)
    compiled: list[tuple[str, str, bytes | None]] = field(default_factory=list)
    failed: list[tuple[str]] = field(default_factory=list)
    restamped: list[tuple[str, int, int, str]] = field(default_factory=list)
    gone: list[tuple[str]] = field(default_factory=list)
    extras: list[tuple[str, str]] = field(default_factory=list)

    def merge(self, other: Writes) -> None:
        """Add what another process's compilation would write."""
        self.entries += other.entries
        self.compiled += other.compiled
        self.failed += other.failed
        self.restamped += other.restamped

    def save(self, conn: sqlite3.Connection) -> None:
        if not (self.entries or self.restamped or self.gone):
            return
        with contextlib.suppress(sqlite3.Error), conn:
            conn.executemany("INSERT OR REPLACE INTO entries VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self.entries)
            conn.executemany("INSERT OR REPLACE INTO compiled VALUES (?, ?, ?)",
                             self.compiled)
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", self.extras)
            conn.executemany("DELETE FROM compiled WHERE path = ?", self.failed)
            conn.executemany("UPDATE entries SET stamp = ?, mtime = ?, checked = ? "
                             "WHERE path = ?", self.restamped)
            conn.executemany("DELETE FROM entries WHERE path = ?", self.gone)
            conn.executemany("DELETE FROM compiled WHERE path = ?", self.gone)


def compile_file(name: str, current: str, mtime: int,
             writes: Writes) -> tuple[Entry | None, list[Problem], Template | None]:
    """Read, compile and cache a new or changed file."""
    from questions import loader

    try:
        text = loader.read_template_text(Path(name))
    except loader.TemplateFileError as exc:
        text_digest, problems = None, exc.problems
    else:
        text_digest = digest(text)
        try:
            template = loader.parse_template(text, name)
        except loader.TemplateFileError as exc:
            problems = exc.problems
        else:
            entry = Entry(name, template.id, template.title, template.topic,
                          tuple(template.tags), template.difficulty, template.kind)
            writes.entries.append((name, current, mtime, writes.now, text_digest, entry.id,
                                   entry.title, entry.topic, json.dumps(entry.tags),
                                   entry.difficulty, entry.kind, None, 1))
            writes.compiled.append((name, json.dumps(_dump(template)), _view(template)))
            return entry, [], template
    writes.entries.append((name, current, mtime, writes.now, text_digest, None, None, None,
                           None, None, None,
                           json.dumps([[p.line, p.field, p.reason] for p in problems]), 1))
    writes.failed.append((name,))
    return None, problems, None


def summarize_file(name: str, current: str, mtime: int,
               writes: Writes) -> tuple[Entry | None, list[Problem], Template | None]:
    """Summarize a new or changed file without compiling it (see :func:`build`); a file
    that cannot be read, or whose summary is not plain, is compiled."""
    from questions import loader
    from questions.summaries import summarize

    try:
        text = loader.read_template_text(name)
    except loader.TemplateFileError:
        return compile_file(name, current, mtime, writes)
    found = summarize(text, name)
    if found is None:
        return compile_file(name, current, mtime, writes)
    entry = found
    # No digest: a summarized file whose stamp changes is summarized again (it costs what
    # the digest would), and one that is compiled is read again anyway.
    writes.entries.append((name, current, mtime, writes.now, None, entry.id,
                           entry.title, entry.topic, _tags_json(entry.tags),
                           entry.difficulty, entry.kind, None, 0))
    writes.failed.append((name,))  # no compiled data: compiled when first read
    return entry, [], None


def _tags_json(tags: tuple[str, ...]) -> str:
    """``json.dumps(list(tags))``, the same text, with json's C string encoder (the
    pure-Python ``dumps`` of 6,500 short lists was a tenth of a first listing).

    >>> _tags_json(("a", "é")) == json.dumps(["a", "é"])
    True
    """
    from json.encoder import encode_basestring_ascii as text

    return "[" + ", ".join(map(text, tags)) + "]"


def _dump(template: Template) -> dict[str, Any]:
    """The template as data that validates back to an equal template."""
    return template.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _view(template: Template) -> bytes | None:
    """What one-shot commands draw the template from without pydantic, compressed (a
    fifth of the size: ~1.5 kB; None: a value no JSON holds)."""
    import zlib

    from questions.views import bank_view_json

    try:
        return zlib.compress(bank_view_json(template).encode("utf-8"), 1)
    except (TypeError, ValueError):
        return None


EXTRAS = ("shape", "quantities")
"""The keys of :meth:`Catalog.cached_meta`."""


def extras() -> list[tuple[str, str]]:
    """The :data:`EXTRAS` rows for this code (none for a schema no shape describes)."""
    from questions.views import view_shape
    from solver.light import catalogue_json

    try:
        return [("shape", view_shape()), ("quantities", catalogue_json())]
    except TypeError:
        return []
