"""The record the compiled bank keeps of a template file (:class:`Entry`), in a module of
its own: the compiler, the summaries and the catalog share it, and `quiz drill`'s first
question reads the catalog without importing the summaries' patterns."""

from __future__ import annotations

from typing import NamedTuple


class Entry(NamedTuple):
    """One template file that loads, summarized without loading it again (a named
    tuple: thousands are made for every listing); the compiled bank keeps one a file
    (:mod:`questions.compiling`), from its summary (:mod:`questions.summaries`) or its
    compiled template.

    Attributes:
        file: the file's path.
        id: the template id.
        title: its title.
        topic: its topic.
        tags: its tags.
        difficulty: 1-3.
        kind: the answer kind of its (first) part: number, formula, choice...
        pack: the template pack it comes from (None: the bundled bank or a folder).
    """

    file: str
    id: str
    title: str
    topic: str
    tags: tuple[str, ...]
    difficulty: int
    kind: str
    pack: str | None = None
