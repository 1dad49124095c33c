"""The compiled bank: every template file's id and summary, cached by file stamp.

Loading a template costs TOML parsing, pydantic validation and checks against the
solver (which imports sympy); a bank of thousands of files took seconds to load for
every command. The catalog keeps, in a small SQLite file, what loading each file
produced: its id, title, topic, tags, difficulty and answer kind, the validated data,
or its problems. A file is compiled again only when its stamp (size, modification and
change times in nanoseconds, inode) differs from the one cached, and the whole cache is
dropped when the code that compiles templates changes (see :func:`fingerprint`).

So listing templates or showing the home screen needs no sympy and no pydantic, and
``quiz ask ID`` validates one template, not all of them.

The cache holds data, never code: a cached template is validated again by pydantic when
it is used, and a damaged or unreadable cache is ignored (and rebuilt).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from questions.loader import Bank, BankFiles, Problem
    from questions.schema import Template

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    id TEXT,
    title TEXT,
    topic TEXT,
    tags TEXT,
    difficulty INTEGER,
    kind TEXT,
    data TEXT,
    problems TEXT
);
"""


@dataclass(frozen=True)
class Entry:
    """One template file that loads, summarized without loading it again.

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


def stamp(path: Path) -> str:
    """What tells a changed file from an unchanged one, without reading it.

    Raises:
        OSError: the file cannot be looked at.
    """
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def fingerprint() -> str:
    """Stamps of the code that compiles templates (the questions and solver packages).

    A cached compilation is only as good as the schema and solver that checked it, so
    any change to them (an upgrade, an edit in a checkout) drops the whole cache.
    """
    parts = []
    for package in ("questions", "solver"):
        root = Path(__file__).parent.parent / package
        for source in sorted(root.glob("*.py")):
            st = source.stat()
            parts.append(f"{package}/{source.name}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


@dataclass
class Catalog:
    """Every template file of a bank, compiled or read from the cache.

    Attributes:
        entries: id -> entry, in file order (the first file with an id wins).
        problems: broken files and duplicate ids, as located messages.
        pack_labels: pack name -> ``pack NAME (DIST VERSION)`` for messages.
    """

    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    pack_labels: dict[str, str] = field(default_factory=dict)
    _fresh: dict[str, Template] = field(default_factory=dict, repr=False)
    _cache: Path | None = field(default=None, repr=False)

    @property
    def ids(self) -> list[str]:
        """Every template id, sorted."""
        return sorted(self.entries)

    def entry(self, template_id: str) -> Entry:
        """The entry of this id.

        Raises:
            LookupError: with a one-line message and a suggestion.
        """
        found = self.entries.get(template_id)
        if found is None:
            from questions.loader import unknown_template

            raise unknown_template(template_id, self.entries)
        return found

    def bank(self, only: Sequence[str] | None = None) -> Bank:
        """The templates as a :class:`~questions.loader.Bank` (``only``: just these ids;
        its ``sources`` still name every id)."""
        from questions.loader import Bank

        return Bank(self.templates(only), {tid: e.file for tid, e in self.entries.items()},
                    list(self.problems),
                    {tid: e.pack for tid, e in self.entries.items() if e.pack is not None},
                    dict(self.pack_labels))

    def templates(self, ids: Sequence[str] | None = None) -> dict[str, Template]:
        """The templates with these ids (None: all), validated; unknown ids are left out.

        Templates compiled by this run are returned as they are; the others are
        validated from the cached data (pydantic only: no TOML, no solver checks).
        """
        from questions.schema import Template

        wanted = list(self.entries) if ids is None else [i for i in ids if i in self.entries]
        out = {tid: self._fresh[tid] for tid in wanted if tid in self._fresh}
        missing = {self.entries[tid].file: tid for tid in wanted if tid not in out}
        if missing:
            rows = _cached_data(self._cache, list(missing))
            for path, tid in missing.items():
                data = rows.get(path)
                if data is None:  # the cache went away under us: compile the file
                    from questions.loader import load_template

                    out[tid] = load_template(Path(path))
                    continue
                template = Template.model_validate(json.loads(data))
                template.all_parts()
                out[tid] = template
        return {tid: out[tid] for tid in wanted}


def build(source: BankFiles | Sequence[Path], cache: Path | None = None) -> Catalog:
    """Compile the template files that changed since they were cached; summarize all.

    Args:
        source: the bank's files in order (:func:`questions.loader.bank_files`), or
            just a list of files.
        cache: the cache file (created when missing), or None to compile everything.
    """
    from questions.loader import (
        BankFiles,
        Problem,
        TemplateFileError,
        _line_of,
        load_template,
        read_template_text,
    )

    if not isinstance(source, BankFiles):
        source = BankFiles(list(source))
    catalog = Catalog(problems=list(source.problems), pack_labels=dict(source.pack_labels),
                      _cache=cache)

    def in_pack(pack: str | None) -> str:
        return f" in {source.pack_labels[pack]}" if pack else ""

    with _open(cache) as conn:
        cached = _cached_rows(conn)
        writes: list[tuple[Any, ...]] = []
        for path in source.files:
            name = str(path)
            pack = source.packs.get(name)
            try:
                current = stamp(path)
            except OSError as exc:
                catalog.problems.append(Problem(name, 1, "(file)",
                                                f"cannot read: {exc.strerror}"))
                continue
            row = cached.get(name)
            fresh: Template | None = None
            if row is not None and row[0] == current:
                entry, problems = _from_row(name, row)
            else:
                entry, problems = None, []
                try:
                    template = load_template(path)
                except TemplateFileError as exc:
                    problems = exc.problems
                    writes.append((name, current, None, None, None, None, None, None, None,
                                   json.dumps([[p.line, p.field, p.reason]
                                               for p in problems])))
                else:
                    fresh = template
                    entry = Entry(name, template.id, template.title, template.topic,
                                  tuple(template.tags), template.difficulty, template.kind)
                    writes.append((name, current, entry.id, entry.title, entry.topic,
                                   json.dumps(entry.tags), entry.difficulty, entry.kind,
                                   json.dumps(_dump(template)), None))
            if pack is not None:
                where = f" (in {source.pack_labels[pack]})"
                problems = [Problem(p.file, p.line, p.field, p.reason + where)
                            for p in problems]
                entry = replace(entry, pack=pack) if entry is not None else None
            catalog.problems += problems
            if entry is None:
                continue
            first = catalog.entries.get(entry.id)
            if first is not None:
                try:
                    line = _line_of(read_template_text(path), ["id"])
                except TemplateFileError:
                    line = 1
                catalog.problems.append(Problem(name, line, "id", f"duplicate id "
                                                f"{entry.id!r}{in_pack(pack)} (already in "
                                                f"{first.file}{in_pack(first.pack)}); "
                                                "this file is skipped"))
                continue
            catalog.entries[entry.id] = entry
            if fresh is not None:
                catalog._fresh[entry.id] = fresh
        if conn is not None and writes:
            with contextlib.suppress(sqlite3.Error), conn:
                conn.executemany("INSERT OR REPLACE INTO files VALUES "
                                 "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", writes)
    return catalog


def _dump(template: Template) -> dict[str, Any]:
    """The template as data that validates back to an equal template."""
    return template.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _from_row(name: str, row: tuple[Any, ...]) -> tuple[Entry | None, list[Problem]]:
    from questions.loader import Problem

    _, tid, title, topic, tags, difficulty, kind, problems = row
    if tid is None:
        return None, [Problem(name, line, fld, reason)
                      for line, fld, reason in json.loads(problems or "[]")]
    return Entry(name, tid, title, topic, tuple(json.loads(tags)), difficulty, kind), []


@contextlib.contextmanager
def _open(cache: Path | None) -> Iterator[sqlite3.Connection | None]:
    """The cache, checked against :func:`fingerprint`; None when there is none to use."""
    conn = None
    if cache is not None:
        try:
            conn = _connect(cache)
        except sqlite3.DatabaseError:  # not a database any more: it is only a cache
            with contextlib.suppress(OSError):
                cache.unlink()
            with contextlib.suppress(OSError, sqlite3.Error):
                conn = _connect(cache)
        except (OSError, sqlite3.Error):  # an unwritable folder: do without
            conn = None
    try:
        yield conn
    finally:
        if conn is not None:
            conn.close()


def _connect(cache: Path) -> sqlite3.Connection:
    cache.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(cache, timeout=5)
    try:
        conn.executescript(_SCHEMA)
        mark = fingerprint()
        found = conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if found is None or found[0] != mark:
            with conn:
                conn.execute("DELETE FROM files")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)",
                             (mark,))
    except BaseException:
        conn.close()
        raise
    return conn


def _cached_rows(conn: sqlite3.Connection | None) -> dict[str, tuple[Any, ...]]:
    if conn is None:
        return {}
    try:
        return {row[0]: row[1:] for row in conn.execute(
            "SELECT path, stamp, id, title, topic, tags, difficulty, kind, problems "
            "FROM files")}
    except sqlite3.Error:
        return {}


def _cached_data(cache: Path | None, paths: list[str]) -> dict[str, str]:
    """path -> cached template data, for these files (missing ones left out)."""
    if cache is None:
        return {}
    out: dict[str, str] = {}
    try:
        with contextlib.closing(sqlite3.connect(cache, timeout=5)) as conn:
            for i in range(0, len(paths), 500):
                chunk = paths[i:i + 500]
                marks = ",".join("?" * len(chunk))
                out.update(conn.execute(f"SELECT path, data FROM files WHERE path IN "
                                        f"({marks}) AND data IS NOT NULL", chunk))
    except sqlite3.Error:
        return {}
    return out
