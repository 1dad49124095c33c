"""The compiled bank: every template file's id and summary, cached by file stamp.

Loading a template costs TOML parsing, pydantic validation and checks against the
solver (which imports sympy); a bank of thousands of files took seconds to load for
every command. The catalog keeps, in a small SQLite file, what loading each file
produced: its id, title, topic, tags, difficulty and answer kind, the validated data,
or its problems.

When is a file compiled again? Its stamp (size, modification and change times in
nanoseconds, inode) is read for every file, every time (a ``stat``, microseconds); its
content is read only when that stamp changed, or when the file was written so shortly
before it was last looked at that a second write in the same clock tick would leave
the same stamp (a file system that keeps times to the second or two: FAT, HFS+, some
network shares). Then a digest of the text decides: the same text as cached is not
compiled again (a ``touch``, a checkout, a copy), a different one is. This is git's
answer to "racily clean" index entries. The whole cache is dropped when the code that
compiles templates changes (see :func:`fingerprint`).

So listing templates or showing the home screen needs no sympy and no pydantic, and
``quiz ask ID`` validates one template, not all of them. The summaries live in their
own table, away from the (large) compiled data, so listing reads a few hundred bytes
per template.

The cache holds data, never code: a cached template is validated again by pydantic when
it is used, and a damaged or unreadable cache is ignored (and rebuilt). One exception,
for one-shot commands (``quiz ask``/``check``, :func:`questions.stored.variant`): beside
the data, the cache keeps the fields pydantic gave when it compiled the file (a *view*,
:func:`questions.views.bank_view_json`, with one shape of the models and the solver's
quantity catalogue for the whole cache), so that a template's first draw needs neither
pydantic nor, for a question that derives nothing, sympy. A view is only as fresh as
its file's row (the same stamp checks), is read as plain JSON (records, lists, tuples,
numbers, text), and one that does not read or draw falls back to validating the data.

A listing needs less than a compile: ``build(..., compile_up_to=N)`` only summarizes
the changed files when there are more than N (:mod:`questions.summaries`), and
:func:`find` compiles the one template a first ``quiz ask`` draws. This module is the
bank's front (:func:`build`, :func:`find`, :func:`load_bank`) and its cache; compiling
one file is :mod:`questions.compiling`, many in other processes
:mod:`questions.bankpool`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import ItemsView, Iterator, Mapping, Sequence, ValuesView
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from questions import bankpool
from questions.compiling import EXTRAS, Writes, digest, extras, summarize_file
from questions.compiling import Entry as Entry  # the front's type: catalog.entries

if TYPE_CHECKING:
    from questions.loader import Bank, BankFiles, Problem
    from questions.packs import Pack
    from questions.schema import Template

SCHEMA_VERSION = 7
"""The cache's own layout (``PRAGMA user_version``; 6: a view keeps an `[answer]` as its
kind's model; 7: and each `[[mistakes]]` entry as its kind's); another one is dropped
and rebuilt."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    path TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,      -- size:mtime_ns:ctime_ns:inode when compiled
    mtime INTEGER NOT NULL,   -- st_mtime_ns, for the racy test
    checked INTEGER NOT NULL, -- wall clock (ns) just before the stamp was read
    digest TEXT,              -- of the text compiled (NULL: unreadable)
    id TEXT,                  -- NULL: the file has problems
    title TEXT,
    topic TEXT,
    tags TEXT,                -- JSON array
    difficulty INTEGER,
    kind TEXT,
    problems TEXT,            -- JSON [[line, field, reason], ...]
    full INTEGER NOT NULL     -- 1: compiled and checked; 0: only summarized
);
CREATE TABLE IF NOT EXISTS compiled (
    path TEXT PRIMARY KEY,
    data TEXT NOT NULL,       -- what pydantic validates again (questions.schema)
    view BLOB                 -- zlib: the validated fields (questions.stored.bank_view)
);
"""

RACY_NS = 3 * 10**9
"""A file modified less than this before it was last looked at may have been modified
again since without a new stamp (FAT keeps times to 2 s; a margin for a clock that
differs a little from a network share's), so its content is checked."""


def stamp(path: Path | str) -> tuple[str, int]:
    """What tells a changed file from an unchanged one without reading it, and its
    modification time (ns).

    Raises:
        OSError: the file cannot be looked at.
    """
    st = os.stat(path)
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}", st.st_mtime_ns


def fingerprint() -> str:
    """Stamps of the code that compiles templates (the questions and solver packages).

    A cached compilation is only as good as the schema and solver that checked it, so
    any change to them (an upgrade, an edit in a checkout) drops the whole cache.
    """
    from solver.shipped import python_files

    parts = []
    for package in ("questions", "solver"):
        root = os.path.join(os.path.dirname(os.path.dirname(__file__)), package)
        # questions/kinds/ checks too; the bundled bank holds templates, no code
        for rel in python_files(root, data="bank" if package == "questions" else ""):
            st = os.stat(os.path.join(root, rel))
            parts.append(f"{package}/{rel}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


class Catalog(Struct):
    """Every template file of a bank, compiled or read from the cache.

    Attributes:
        entries: id -> entry, in file order (the first file with an id wins).
        problems: broken files and duplicate ids, as located messages.
        pack_labels: pack name -> ``pack NAME (DIST VERSION)`` for messages.
    """

    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    pack_labels: dict[str, str] = field(default_factory=dict)
    _fresh: dict[str, Template] = field(default_factory=dict)
    _cache: Path | None = None
    _meta: dict[str, str] | None = None

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
        its ``sources`` still name every id). No template is validated here: each is
        when first read (:class:`Templates`); lists read :attr:`Bank.summaries`."""
        from questions.loader import Bank

        ids = list(self.entries) if only is None else \
            [tid for tid in dict.fromkeys(only) if tid in self.entries]
        return Bank(Templates(self, ids), {tid: e.file for tid, e in self.entries.items()},
                    list(self.problems),
                    {tid: e.pack for tid, e in self.entries.items() if e.pack is not None},
                    dict(self.pack_labels), {tid: self.entries[tid] for tid in ids})

    def cached_view(self, template_id: str) -> str | None:
        """The validated fields the cache keeps of a template compiled by an earlier run
        (:func:`questions.views.bank_view_json`; None: none kept, or the template was
        compiled by this run, or there is no cache). Read by one-shot commands, which
        draw from it without pydantic (:func:`questions.stored.variant`)."""
        entry = self.entries.get(template_id)
        if entry is None or template_id in self._fresh or self._cache is None:
            return None
        try:
            with contextlib.closing(_reader(self._cache)) as conn:
                row = conn.execute("SELECT view FROM compiled WHERE path = ?",
                                   (entry.file,)).fetchone()
        except sqlite3.Error:
            return None
        if row is None or not isinstance(row[0], bytes):
            return None
        import zlib

        try:
            return zlib.decompress(row[0]).decode("utf-8")
        except (zlib.error, UnicodeDecodeError):
            return None

    def fresh(self, template_id: str) -> Template | None:
        """The template, if this run compiled (and validated) it."""
        return self._fresh.get(template_id)

    def kept(self, key: str) -> str | None:
        """What drawing reads of the solver, as the cache keeps it for this code: the
        quantity catalogue (``quantities``); None: not kept (a derivation plan: the
        bank keeps none, a template's first draw derives its own)."""
        return self.cached_meta(key) if key in EXTRAS else None

    def cached_meta(self, key: str) -> str | None:
        """What the cache keeps beside the templates for the code that compiled them:
        ``shape`` (:func:`questions.views.view_shape`) and ``quantities`` (the solver's
        catalogue, :func:`solver.light.catalogue_json`); None: not kept."""
        if self._meta is None:
            self._meta = {}
            if self._cache is not None:
                with contextlib.suppress(sqlite3.Error), \
                        contextlib.closing(_reader(self._cache)) as conn:
                    self._meta = {str(k): str(v) for k, v in conn.execute(
                        "SELECT key, value FROM meta WHERE key IN (?, ?)", EXTRAS)}
        return self._meta.get(key)

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


class Templates(Mapping[str, "Template"]):
    """A catalog's templates by id, each validated the first time it is read.

    Validating a cached template (pydantic, no TOML, no solver checks) takes about half
    a millisecond; a bank of thousands took seconds before anything could be drawn.
    Keys, length and membership come from the catalog and cost nothing; reading all
    values (``values()``, ``items()``, ``==``) validates the rest in one batch.

    Safe to read from several threads: two threads reading the same id at once may
    both validate it, and get equal templates.
    """

    def __init__(self, catalog: Catalog, ids: Sequence[str]) -> None:
        self._catalog = catalog
        self._ids = dict.fromkeys(ids)
        self._done: dict[str, Template] = {}

    def __getitem__(self, template_id: str) -> Template:
        found = self._done.get(template_id)
        if found is None:
            if template_id not in self._ids:
                raise KeyError(template_id)
            found = self._catalog.templates([template_id])[template_id]
            self._done[template_id] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, template_id: object) -> bool:
        return template_id in self._ids

    def __repr__(self) -> str:
        return f"<Templates: {len(self._ids)}, {len(self._done)} validated>"

    @property
    def validated(self) -> int:
        """How many templates have been validated so far."""
        return len(self._done)

    def _all(self) -> None:
        missing = [tid for tid in self._ids if tid not in self._done]
        if missing:
            self._done.update(self._catalog.templates(missing))

    def values(self) -> ValuesView[Template]:
        self._all()
        return super().values()

    def items(self) -> ItemsView[str, Template]:
        self._all()
        return super().items()


def load_bank(extra_dirs: Sequence[Path] = (), *, bundled: bool = True,
              packs: Sequence[Pack] | None = None, cache: Path | None = None,
              only: Sequence[str] | None = None) -> Bank:
    """Load the bundled bank, installed template packs and user folders, in that order;
    broken or duplicate files, and folders that cannot be read, are skipped and reported
    in `Bank.problems` (naming both sources of a duplicate id) so the app keeps working.

    Args:
        extra_dirs: user template folders.
        bundled: whether to load the bank that ships with the app.
        packs: the template packs to load; None: every installed one
            (:func:`questions.packs.discover`).
        cache: the compiled-bank cache (:mod:`questions.catalog`): only files changed
            since they were cached are compiled. None: compile every file.
        only: load just these ids (``sources`` still names every id), e.g. the one
            template ``quiz ask`` draws.
    """
    from questions.loader import bank_files

    return build(bank_files(extra_dirs, bundled=bundled, packs=packs, cache=cache),
                 cache).bank(only)


def find(source: BankFiles, template_id: str, cache: Path | None = None) -> Catalog:
    """The catalog with one template compiled: what drawing one template needs in a
    data folder whose bank was never compiled (a first ``quiz ask``/``check``).

    Every file of the bank is summarized (:func:`build` with ``compile_up_to=0``: the
    first file with the id wins, as always) and only the file that holds the id is
    compiled; its row in the cache is then complete, as after a full build.

    Raises:
        UnknownTemplate: no file has this id.
        TemplateFileError: the file that has it does not compile (every problem).
    """
    from questions.loader import BankFiles, TemplateFileError

    catalog = build(source, cache, compile_up_to=0)
    entry = catalog.entry(template_id)
    pack = source.packs.get(entry.file)
    one = build(BankFiles([entry.file], {entry.file: pack} if pack else {},
                          dict(source.pack_labels)), cache)
    if template_id not in one.entries:
        raise TemplateFileError(one.problems)
    catalog._fresh.update(one._fresh)
    return catalog


def build(source: BankFiles | Sequence[Path | str], cache: Path | None = None, *,
          compile_up_to: int | None = None) -> Catalog:
    """Compile the template files that changed since they were cached; summarize all.

    Args:
        source: the bank's files in order (:func:`questions.loader.bank_files`), or
            just a list of files.
        cache: the cache file (created when missing), or None to compile everything.
        compile_up_to: None: compile every file not compiled yet (the bank's every
            problem is known). A number: compile the changed files only when there are
            at most that many; with more, only summarize them
            (:func:`questions.summaries.summarize`; a file that does not summarize is
            compiled), which is what listing needs: their problems are found by the
            next build that compiles (``compile_up_to=None``: loading the bank, the
            app, ``quiz templates test``) or by ``quiz templates validate``.
    """
    from questions.loader import BankFiles, Problem, TemplateFileError, read_template_text
    from questions.located import line_of

    if not isinstance(source, BankFiles):
        source = BankFiles([str(p) for p in source])
    catalog = Catalog(problems=list(source.problems), pack_labels=dict(source.pack_labels),
                      _cache=cache)

    def in_pack(pack: str | None) -> str:
        return f" in {source.pack_labels[pack]}" if pack else ""

    with _open(cache) as conn:
        cached = _cached_rows(conn)
        writes = Writes(_now())  # before any stamp is read: see _racy
        # First every file's stamp (a stat each): the files whose stamp changed are
        # compiled together, spread over processes when there are many of them.
        looked: list[tuple[str, tuple[Any, ...] | None, OSError | None]] = []
        stale: list[bankpool.Job] = []
        for name in source.names:
            try:
                current, mtime = stamp(name)
            except OSError as exc:
                looked.append((name, None, exc))
                continue
            row = cached.get(name)
            if row is not None and not row[11] and compile_up_to is None:
                row = None  # only summarized: compile it now
            if row is not None and ((row[0] == current and not _racy(row[1], row[2]))
                                    or _same_text(name, current, mtime, row, writes)):
                looked.append((name, row, None))
            else:
                looked.append((name, None, None))
                stale.append((name, current, mtime))
        if compile_up_to is not None and len(stale) > compile_up_to:
            compiled = {name: summarize_file(name, current, mtime, writes)
                        for name, current, mtime in stale}
        else:
            compiled = bankpool.compile_all(stale, writes)
        if writes.compiled:  # this code's schema and solver were imported to compile
            writes.extras = extras()
        for name, row, failure in looked:
            pack = source.packs.get(name)
            if failure is not None:
                catalog.problems.append(Problem(name, 1, "(file)",
                                                f"cannot read: {failure.strerror}"))
                continue
            fresh: Template | None = None
            if row is not None:
                entry, problems = _from_row(name, row)
            else:
                entry, problems, fresh = compiled[name]
            if pack is not None:
                where = f" (in {source.pack_labels[pack]})"
                problems = [Problem(p.file, p.line, p.field, p.reason + where)
                            for p in problems]
                entry = entry._replace(pack=pack) if entry is not None else None
            catalog.problems += problems
            if entry is None:
                continue
            first = catalog.entries.get(entry.id)
            if first is not None:
                try:
                    line = line_of(read_template_text(Path(name)), ["id"])
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
        if conn is not None:
            writes.gone = _gone(cached, source.names)
            writes.save(conn)
    return catalog


def _gone(cached: dict[str, tuple[Any, ...]], names: list[str]) -> list[tuple[str]]:
    """Cached files of folders that no longer exist (a temporary folder of templates),
    so the cache does not grow with every folder ever read. A folder still there keeps
    its rows: another ``--templates`` run may read it again."""
    folders: dict[str, list[str]] = {}
    for path in cached.keys() - set(names):
        folders.setdefault(os.path.dirname(path), []).append(path)
    return [(path,) for folder, paths in folders.items() if not os.path.isdir(folder)
            for path in paths]


def _now() -> int:
    """The wall clock in nanoseconds (what file times are measured against)."""
    return time.time_ns()


def _racy(mtime: int, checked: int) -> bool:
    """Whether a file stamped at ``checked`` might have changed since without a new stamp:
    it had been modified within the file system's clock granularity of that moment."""
    return mtime >= checked - RACY_NS


def _same_text(name: str, current: str, mtime: int, row: tuple[Any, ...],
               writes: Writes) -> bool:
    """Whether a file whose stamp changed (or is racy) still has the text it was compiled
    from (a ``touch``, a checkout, a copy): then it keeps its cached result under the new
    stamp."""
    from questions import loader

    try:
        text = loader.read_template_text(Path(name))
    except loader.TemplateFileError:
        return False
    if row[3] != digest(text):
        return False
    writes.restamped.append((current, mtime, writes.now, name))
    return True


def _reader(cache: Path) -> sqlite3.Connection:
    """The cache opened for reading only (never created, never locked for long)."""
    return sqlite3.connect(f"{cache.absolute().as_uri()}?mode=ro", uri=True, timeout=1)


def _from_row(name: str, row: tuple[Any, ...]) -> tuple[Entry | None, list[Problem]]:
    from questions.loader import Problem

    tid, title, topic, tags, difficulty, kind, problems = row[4:11]
    if tid is None:
        return None, [Problem(name, line, fld, reason)
                      for line, fld, reason in json.loads(problems or "[]")]
    return Entry(name, tid, title, topic, tags, difficulty, kind), []


LOCK_WAIT_S = 5.0
"""How long to wait for a cache another process is writing before doing without it."""


@contextlib.contextmanager
def _open(cache: Path | None) -> Iterator[sqlite3.Connection | None]:
    """The cache, checked against :func:`fingerprint`; None when there is none to use."""
    conn = None
    if cache is not None:
        try:
            conn = _connect(cache)
        except sqlite3.OperationalError:  # locked by another process (or unwritable):
            conn = None                   # do without this time, never delete it
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
    from questions.private import private_file

    private_file(cache)  # 0600 in a 0700 folder: the cache lists the user's templates
    conn = sqlite3.connect(cache, timeout=LOCK_WAIT_S)
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            with conn:  # an older layout (or a new file): start again
                for table in ("files", "entries", "compiled", "meta", "plans"):  # plans: v4
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.executescript(_SCHEMA)
        mark = fingerprint()
        found = conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if found is None or found[0] != mark:
            with conn:
                conn.execute("DELETE FROM entries")
                conn.execute("DELETE FROM compiled")
                conn.execute("DELETE FROM meta")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)",
                             (mark,))
    except BaseException:
        conn.close()
        raise
    return conn


def _cached_rows(conn: sqlite3.Connection | None) -> dict[str, tuple[Any, ...]]:
    """path -> (stamp, mtime, checked, digest, id, title, topic, tags, difficulty, kind,
    problems, full), tags as a tuple (None for a file with problems)."""
    if conn is None:
        return {}
    try:
        rows = conn.execute("SELECT path, stamp, mtime, checked, digest, id, title, topic, "
                            "tags, difficulty, kind, problems, full FROM entries").fetchall()
        # One JSON document for every row's tags: a json.loads per row was a third of
        # reading a warm catalog.
        tags = json.loads("[" + ",".join(row[8] or "null" for row in rows) + "]")
        return {row[0]: (*row[1:8], tuple(t) if t is not None else None, *row[9:])
                for row, t in zip(rows, tags, strict=True)}
    except (sqlite3.Error, ValueError, TypeError):  # a damaged cache: compile again
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
                out.update(conn.execute(f"SELECT path, data FROM compiled WHERE path IN "
                                        f"({marks})", chunk))
    except sqlite3.Error:
        return {}
    return out
