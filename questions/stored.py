"""Drawn variants kept on disk, so that asking or checking one again needs no solver.

Drawing a variant runs the solver (sympy, about half a second to import) for the keys,
the known mistakes and the worked derivation, and validating its template takes
pydantic (a fifth of a second to import and build). ``quiz ask`` and ``quiz check`` are
one-shot processes, often run twice for the same ``ID#SEED`` (ask, then check), so
:func:`variant` keeps what drawing produced -- the template's summary, the prompts, keys,
mistakes, accepted conventions, the parts' rendered specs and their derivations -- as
JSON in a small SQLite file beside the compiled bank, and rebuilds the variant from it
with neither: the template and each part's spec come back as :class:`View` records
(the validated fields, read-only), which is all that asking and grading read.

A stored variant is found by template id and seed, and used only when its stamp
matches: a hash of the template file's bytes (the file the compiled bank says holds
the id) and of the code that draws variants (the ``questions`` and ``solver`` packages'
file stamps). Editing a template or upgrading the app therefore draws again. The file
holds data, never code; a damaged, locked or unwritable cache is ignored (the variant is
drawn as before), and the table keeps at most :data:`MAX_ROWS` variants, the oldest
dropped first.

One thing is not stored: a follow-through part's re-derivation from the learner's own
earlier answers (a function of them); it draws the variant again when it is first
called (``quiz check --earlier``).

A new seed is drawn without sympy or pydantic too, once its template was drawn before
(at any seed): a second file beside it, ``drawing.db`` (:data:`DRAWING`), keeps what
drawing reads of the validated template (as a :class:`TemplateView`, by template id and
the same stamp) and of the solver (derivations as :class:`solver.light.Plan` data, and
the quantities' names, units and meanings, all under the code stamp), so a cold variant
only draws its numbers and fills them in. A template never drawn here comes from the
view the compiled bank kept when pydantic validated it (:func:`bank_view`), else it is
validated; a derivation never built is built by the engine; both are then kept. A view
that cannot be drawn (a bug the tests look for) only costs the full draw.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from questions.derivation import Derivation, derivation_of, keep
from questions.private import private_file

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.schema import Part, Template
    from questions.variants import PartVariant, Variant

DRAWING = "drawing.db"
"""The file beside the variants' that keeps templates and derivations for new draws."""

MAX_ROWS = 2000
"""Variants kept (a few kB each); beyond this the oldest are dropped."""

FORMAT = 3
"""The layout of a stored record; part of every stamp."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS variants (
    variant TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    data TEXT NOT NULL
);
"""

TEMPLATE_FIELDS = ("id", "version", "title", "topic", "tags", "difficulty", "intro",
                   "fixed")
"""What a stored variant keeps of its template: what asking and checking it read."""


def variant(catalog: Catalog, template_id: str, seed: int, cache: Path | None) -> Variant:
    """The variant of a template at ``seed``: read back from ``cache`` when it was
    stored from the same template file and code, else drawn (and stored).

    Args:
        catalog: the compiled bank (which file holds which id).
        template_id: the template's id.
        seed: the seed.
        cache: the cache file (created when missing), or None to always draw.

    Raises:
        UnknownTemplate: no template has this id.
        TemplateError: as :func:`questions.variants.make_variant`.
    """
    entry = catalog.entry(template_id)
    ref = f"{template_id}#{seed}"
    mark = stamp(Path(entry.file)) if cache is not None else None
    if cache is None or mark is None:
        from questions.variants import make_variant

        return make_variant(catalog.templates([template_id])[template_id], seed)
    found = _read(cache, ref, mark)
    if found is not None:
        try:
            return from_json(catalog, seed, json.loads(found))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            pass  # a record this code cannot read: draw it again (and replace it)
    drawing = Drawing(cache.with_name(DRAWING), base=catalog.kept)
    drawn, data = _draw(catalog, template_id, seed, mark, drawing)
    drawing.save()
    _write(cache, ref, mark, json.dumps(data))
    return drawn


def _draw(catalog: Catalog, template_id: str, seed: int, mark: str,
          drawing: Drawing) -> tuple[Variant, dict[str, Any]]:
    """Draw a variant (and its record) from the kept template view and derivations,
    else from the validated template; whatever the draw built is kept in ``drawing``."""
    from questions.variants import make_variant
    from solver import light  # not imported by a variant read back

    view = drawing.template(template_id, mark)
    first = view is None  # the template's first draw here: no view kept yet
    if first:
        view = _bank_view(catalog, template_id)  # as the bank compiled it
    with light.using(drawing):
        if view is not None:
            try:
                drawn = make_variant(cast("Template", view), seed)
                data = to_json(drawn)  # derivations are worked out here
            except Exception:  # a view drawn unlike its model: the model says what is wrong
                view = None
            else:
                if first:
                    _predraws(cast("Template", view), seed, drawing)
                    drawing.keep_template(template_id, mark, view)
                return drawn, data
        template = catalog.templates([template_id])[template_id]
        drawn = make_variant(template, seed)
        data = to_json(drawn)
        if first:
            _predraws(template, seed, drawing)
    drawing.keep_template(template_id, mark, template)
    return drawn, data


def _bank_view(catalog: Catalog, template_id: str) -> TemplateView | None:
    """The template as the compiled bank keeps it (validated when it was compiled), else
    None."""
    text, shape = catalog.cached_view(template_id), catalog.cached_meta("shape")
    if text is None or shape is None:
        return None
    try:
        return bank_view(text, shape)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _predraws(template: Template, seed: int, drawing: Drawing) -> None:
    """A template's first draw: its other seeds' derivations too, now or (a one-shot
    command) after the output; not for a layout key, a search that reads the engine
    itself at every draw."""
    from questions.kinds import kind_of

    if not any(kind_of(p.answer_kind).searches_layout for p in template.all_parts()):
        if DEFERRED is None:
            _predraw(template, seed)
        else:
            DEFERRED.append((template, seed, drawing))


PREDRAWN = 8
"""Seeds (0, 1, ...) also drawn when a template is first drawn, so that the derivations
their parameters need (another model, pipelining, ZeRO stage ...) are kept as plans."""

DEFERRED: list[tuple[Template, int, Drawing]] | None = None
"""None: a template's first draw predraws its other seeds there and then. A list (set by
a one-shot command, see ``quiz.cli``): the predraws are left in it, to be done by
:func:`predraw_deferred` after the command's output is written."""


def _predraw(template: Template, seed: int) -> None:
    from questions.variants import make_variant
    from solver.errors import QuizError

    for other in range(PREDRAWN):
        if other != seed:
            with contextlib.suppress(QuizError):  # a seed the template cannot draw
                to_json(make_variant(template, other))


def predraw_deferred() -> None:
    """Do the predraws left in :data:`DEFERRED` and keep their plans in each template's
    ``drawing.db``, unless that file is gone meanwhile (the cache was cleared: nothing is
    put back); then stop deferring."""
    global DEFERRED
    from solver import light

    pending, DEFERRED = DEFERRED or [], None
    for template, seed, drawn in pending:
        drawing = Drawing(drawn.file, base=drawn.base)  # the file as it is now
        with light.using(drawing):
            _predraw(template, seed)
        if drawing.file.exists():
            drawing.save()


FILL_SEEDS = PREDRAWN
"""Seeds (0, 1, ...) of each template drawn by :func:`fill_plans`."""
FILL_BUDGET_S = 5.0
"""CPU seconds :func:`fill_plans` may spend (a bank of thousands stops part way: the
templates listed first have their plans; a first draw of another derives its own)."""


class _Plans:
    """Plans a fill reads (the compiled bank's, and the catalogue) and works out."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.new: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.new.get(key) or self.catalog.kept(key)

    def put(self, key: str, text: str) -> None:
        self.new[key] = text


def fill_plans(catalog: Catalog, cache: Path, budget: float = FILL_BUDGET_S) -> int:
    """Work out the derivation plans of the templates the catalog's build compiled
    (seeds 0 to :data:`FILL_SEEDS` - 1, in catalog order, within ``budget`` CPU seconds)
    and keep them in the compiled bank ``cache``, so that a template's first draw needs
    no sympy. Done behind a command that compiled the bank (``quiz.cli``); returns the
    plans kept.
    """
    import time

    from questions.kinds import kind_of
    from questions.variants import make_variant
    from solver import light

    source = _Plans(catalog)
    deadline = time.process_time() + budget
    with light.using(source):
        for template_id in catalog.compiled:
            if time.process_time() > deadline:
                break
            view = catalog.fresh(template_id) or cast("Template | None",
                                                      _bank_view(catalog, template_id))
            if view is None or any(kind_of(p.answer_kind).searches_layout
                                   for p in view.all_parts()):
                continue  # (a layout key reads the engine itself at every draw)
            for seed in range(FILL_SEEDS):
                with contextlib.suppress(Exception):  # a seed that cannot be drawn
                    to_json(make_variant(view, seed))
    from questions.catalog import keep_plans

    plans = {k: v for k, v in source.new.items() if k != light.CATALOGUE_KEY}
    keep_plans(cache, plans)
    return len(plans)


def stamp(file: Path) -> str | None:
    """What a stored variant of the template in ``file`` must match: the file's bytes
    and the code (None when the file cannot be read: nothing is stored then)."""
    try:
        content = file.read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(f"{FORMAT}|{code_stamp()}|".encode())
    digest.update(content)
    return digest.hexdigest()


@cache
def code_stamp() -> str:
    """Size and modification time of every module of the code that draws variants."""
    parts = []
    root = Path(__file__).resolve().parent.parent
    for package in ("questions", "solver"):
        for folder, dirs, files in os.walk(root / package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(folder, name))
                    rel = os.path.relpath(os.path.join(folder, name), root)
                    parts.append(f"{rel}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


class View:
    """A validated model's fields as a read-only record, without pydantic: nested models
    are views too, lists and dicts stay lists and dicts.

    >>> v = View({"prompt": "How many?", "choices": ["a", "b"]})
    >>> v.prompt, v.choices
    ('How many?', ['a', 'b'])
    """

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.__dict__.update(fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a stored {name!r} is read-only")

    def __repr__(self) -> str:
        return f"View({self.__dict__!r})"

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> View:
        """A copy with some fields replaced (as a frozen pydantic model's, unvalidated)."""
        return View({**self.__dict__, **(update or {})})


class TemplateView(View):
    """A validated template's fields, and its parts as :meth:`Template.all_parts` gave
    them: what drawing a variant reads of a template."""

    def __init__(self, fields: Mapping[str, Any], parts: list[View]) -> None:
        super().__init__(fields)
        self.__dict__["_parts"] = parts

    def all_parts(self) -> list[View]:
        """The parts (a single-part template has one)."""
        return list(self.__dict__["_parts"])

    @property
    def kind(self) -> str:
        """The answer kind people see first."""
        return str(self.all_parts()[0].__dict__["answer_kind"])


def template_json(t: Template | TemplateView) -> dict[str, Any]:
    """What :func:`template_from_json` needs: every field, and the parts (of a validated
    template, or of a view of one)."""
    names = [n for n in t.__dict__ if n != "_parts"] if isinstance(t, TemplateView) \
        else type(t).model_fields
    return {"fields": {name: encode(getattr(t, name)) for name in names},
            "parts": [encode(p) for p in t.all_parts()]}


def template_from_json(data: Mapping[str, Any]) -> TemplateView:
    """The :class:`TemplateView` :func:`template_json` described.

    Raises:
        KeyError, TypeError, ValueError, AttributeError: data of another shape.
    """
    parts = [decode(p) for p in data["parts"]]
    if not parts or not all(isinstance(p, View) for p in parts):
        raise ValueError("a template's parts are not records")
    return TemplateView({k: decode(v) for k, v in data["fields"].items()}, parts)


# ---------------------------------------------------------------- views kept by the bank


def bank_view_json(t: Template) -> str:
    """What the compiled bank keeps of a validated template for :func:`bank_view`: its
    fields as pydantic dumps them (in pydantic's compiled code: a tenth of a millisecond,
    where :func:`template_json` walks every field in Python), and a single-part
    template's one part, which :meth:`Template.all_parts` builds."""
    part = None if t.parts else t.all_parts()[0].model_dump()
    return json.dumps({"fields": t.model_dump(), "part": part})


def view_shape() -> str:
    """Which fields of the template models hold models, tuples, lists and dicts of them,
    as JSON (see :func:`bank_view`); the same for every template, so the bank keeps it
    once. Built from the models' annotations (imports the schema: pydantic).

    Raises:
        TypeError: an annotation this shape cannot describe (a union of a model and
            something else): then the bank keeps no views.
    """
    import types
    import typing

    from pydantic import BaseModel

    from questions.schema import Part, Template

    models: dict[str, dict[str, Any]] = {}

    def describe(a: Any) -> Any:
        if isinstance(a, type) and issubclass(a, BaseModel):
            if a.__name__ not in models:
                models[a.__name__] = {}  # before its fields: a model may hold itself
                models[a.__name__] = {n: describe(f.annotation)
                                      for n, f in a.model_fields.items()}
            return {"m": a.__name__}
        origin, args = typing.get_origin(a), typing.get_args(a)
        if origin is typing.Annotated:
            return describe(args[0])
        if origin in (typing.Union, types.UnionType):
            inner = [describe(x) for x in args if x is not type(None)]
            if all(d == "v" for d in inner):
                return "v"
            if len(inner) == 1:  # Model | None, tuple | None: None is kept as None
                return inner[0]
            raise TypeError(f"cannot describe {a!r}")
        if origin is list:
            d = describe(args[0])
            return "v" if d == "v" else {"l": d}
        if origin is dict:
            d = describe(args[1])
            return "v" if d == "v" else {"d": d}
        if origin is tuple:
            if any(describe(x) != "v" for x in args if x is not Ellipsis):
                raise TypeError(f"cannot describe {a!r}")
            return {"t": "v"}
        if origin is typing.Literal or a in (str, int, float, bool, type(None)):
            return "v"
        raise TypeError(f"cannot describe {a!r}")

    describe(Template)
    describe(Part)
    return json.dumps(models)


def bank_view(text: str, shape: str) -> TemplateView:
    """The :class:`TemplateView` of a template the bank kept (:func:`bank_view_json`),
    given the models' :func:`view_shape`: the same fields, records, tuples and lists as
    :func:`template_from_json` gives, read without pydantic.

    Raises:
        KeyError, TypeError, ValueError, AttributeError: data of another shape.
    """
    models = json.loads(shape)
    data = json.loads(text)

    def build(value: Any, d: Any) -> Any:
        if d == "v" or value is None:
            return value
        (tag, inner), = d.items()
        if tag == "m":
            fields = models[inner]
            if not isinstance(value, dict) or value.keys() != fields.keys():
                raise ValueError(f"a {inner} of other fields")
            return View({n: build(v, fields[n]) for n, v in value.items()})
        if tag == "d" and isinstance(value, dict):
            return {str(k): build(v, inner) for k, v in value.items()}
        if tag in ("l", "t") and isinstance(value, list):
            return [build(v, inner) for v in value] if tag == "l" else tuple(value)
        raise ValueError(f"{value!r} is not of shape {d!r}")

    fields = build(data["fields"], {"m": "Template"}).__dict__
    parts = list(fields["parts"]) or [build(data["part"], {"m": "Part"})]
    return TemplateView(fields, parts)


# ---------------------------------------------------------------- records


def to_json(v: Variant) -> dict[str, Any]:
    """What :func:`from_json` needs to rebuild the variant (derivations included)."""
    t = v.template
    return {"template": {name: encode(getattr(t, name)) for name in TEMPLATE_FIELDS},
            "params": v.params, "parts": [_part_json(pv) for pv in v.parts]}


def _part_json(pv: PartVariant) -> dict[str, Any]:
    follow = None
    if pv.follow is not None:
        follow = {"carried": [asdict(c) for c in pv.follow.carried],
                  "credit": pv.follow.credit}
    return {"index": pv.index, "prompt": pv.prompt, "spec": encode(pv.spec),
            "key": asdict(pv.key), "mistakes": [asdict(m) for m in pv.mistakes],
            "accepted": [asdict(a) for a in pv.accepted], "overrides": pv.overrides,
            "model": pv.model, "gpu": pv.gpu, "env": pv.env, "follow": follow,
            "labels": pv.labels, "derivation": derivation_of(pv).to_json()}


def encode(value: Any) -> Any:
    """A validated model (or any value inside one) as JSON that :func:`decode` turns
    into :class:`View` records, telling models from plain dicts and tuples from lists."""
    fields = getattr(type(value), "model_fields", None)
    if fields is not None:  # a pydantic model: its fields, by attribute name
        return {"$model": {name: encode(getattr(value, name)) for name in fields}}
    if type(value) is View:  # a model drawn from a stored one: the same fields
        return {"$model": {name: encode(v) for name, v in value.__dict__.items()}}
    if isinstance(value, dict):
        return {"$dict": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot store a {type(value).__name__}")


def decode(data: Any) -> Any:
    """The value :func:`encode` stored; models come back as :class:`View` records.

    Raises:
        ValueError: data :func:`encode` did not write.
    """
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    (tag, inner), = data.items()
    if tag == "$model":
        return View({name: decode(v) for name, v in inner.items()})
    if tag == "$dict":
        return {k: decode(v) for k, v in inner.items()}
    if tag == "$tuple":
        return tuple(decode(v) for v in inner)
    raise ValueError(f"unknown record tag {tag!r}")


def from_json(catalog: Catalog, seed: int, data: Mapping[str, Any]) -> Variant:
    """The variant :func:`to_json` described, with no solver work and no pydantic.

    Raises:
        KeyError, TypeError, ValueError, IndexError, AttributeError: a record of
            another shape.
    """
    from questions.variants import Variant

    template = cast("Template", View({name: decode(data["template"][name])
                                      for name in TEMPLATE_FIELDS}))
    parts = [_part(catalog, template.id, seed, p) for p in data["parts"]]
    return Variant(template, seed, dict(data["params"]), parts)


def _part(catalog: Catalog, template_id: str, seed: int,
          p: Mapping[str, Any]) -> PartVariant:
    from questions.variants import (
        AcceptedVariant,
        Carried,
        FigureKey,
        Follow,
        Key,
        KnownMistake,
        PartVariant,
    )

    k = p["key"]
    key = Key(**{**k, "correct": tuple(k["correct"]), "cells": _cells(k["cells"]),
                 "figures": tuple(FigureKey(**f) for f in k["figures"])})
    mistakes = tuple(KnownMistake(**{**m, "choice": tuple(m["choice"]),
                                     "cells": _cells(m["cells"])}) for m in p["mistakes"])
    follow = None
    index = int(p["index"])
    if p["follow"] is not None:
        follow = Follow(tuple(Carried(**c) for c in p["follow"]["carried"]),
                        float(p["follow"]["credit"]),
                        _Redraw(catalog, template_id, seed, index))
    spec = decode(p["spec"])
    if not isinstance(spec, View):
        raise ValueError("a part's spec is not a record")
    pv = PartVariant(index, str(p["prompt"]), cast("Part", spec), key, mistakes,
                     tuple(AcceptedVariant(**a) for a in p["accepted"]),
                     dict(p["overrides"]), p["model"], p["gpu"], dict(p["env"]), follow,
                     dict(p["labels"]))
    keep(pv, derivation_from_json(p["derivation"]))
    return pv


def _cells(cells: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    return {row: tuple(codes) for row, codes in cells.items()}


def derivation_from_json(d: Mapping[str, Any]) -> Derivation:
    """The :class:`Derivation` whose ``to_json()`` is ``d``."""
    from questions.derivation import Section, Step

    combination = d["combination"]
    return Derivation(
        intro=d["intro"],
        sections=tuple(Section(s["quantity"], s["meaning"],
                               tuple(Step(**step) for step in s["steps"]),
                               tuple(s["conventions"])) for s in d["sections"]),
        combination=Step(**combination) if combination is not None else None,
        answer=d["answer"], also=tuple(d["also"]),
        mistake=(str(d["mistake"][0]), str(d["mistake"][1])) if d["mistake"] else None)


class _Redraw:
    """A stored part's follow-through: the variant is drawn again when first needed."""

    def __init__(self, catalog: Catalog, template_id: str, seed: int, index: int) -> None:
        self.catalog, self.template_id, self.seed, self.index = (catalog, template_id,
                                                                 seed, index)
        self._derive: Callable[[Mapping[str, float]], float] | None = None

    def __call__(self, values: Mapping[str, float]) -> float:
        if self._derive is None:
            from questions.variants import make_variant

            template = self.catalog.templates([self.template_id])[self.template_id]
            follow = make_variant(template, self.seed).parts[self.index - 1].follow
            assert follow is not None  # the stored record said it follows through
            self._derive = follow.derive
        return self._derive(values)


# ---------------------------------------------------------------- the file


_NO_SYNC = "PRAGMA synchronous = OFF"
"""Cache files are written without waiting for the disk (an fsync was a third of a cold
ask): a record lost or torn by a power cut is read as missing or damaged, and drawn
again."""


def _read(cache: Path, ref: str, mark: str) -> str | None:
    try:
        uri = f"{cache.absolute().as_uri()}?mode=ro"  # reading never creates the file
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as conn:
            row = conn.execute("SELECT stamp, data FROM variants WHERE variant = ?",
                               (ref,)).fetchone()
    except sqlite3.Error:  # missing, damaged or locked: only a cache
        return None
    if row is None or row[0] != mark:
        return None
    return str(row[1])


def _write(cache: Path, ref: str, mark: str, data: str) -> None:
    with contextlib.suppress(OSError, sqlite3.Error):
        private_file(cache)  # which questions the user asked: 0600 in a 0700 folder
        try:
            conn = sqlite3.connect(cache, timeout=1)
        except sqlite3.Error:
            return
        try:
            conn.execute(_NO_SYNC)
            with conn:
                conn.executescript(_SCHEMA)
                conn.execute("INSERT OR REPLACE INTO variants VALUES (?, ?, ?)",
                             (ref, mark, data))
                conn.execute("DELETE FROM variants WHERE rowid <= "
                             "(SELECT max(rowid) FROM variants) - ?", (MAX_ROWS,))
        except sqlite3.OperationalError:  # locked by another process: not stored now
            return
        except sqlite3.DatabaseError:  # not a database any more: start it again
            conn.close()
            with contextlib.suppress(OSError):
                cache.unlink()
            return
        finally:
            conn.close()


class Drawing:
    """The file of template views and derivation plans (:data:`DRAWING`): read on
    demand, written once after a draw. Everything is kept under the code stamp (a file
    written by other code is emptied); reading never creates the file, and a missing,
    damaged, locked or unwritable one only means drawing with pydantic and sympy."""

    def __init__(self, file: Path, base: Callable[[str], str | None] | None = None) -> None:
        self.file = file
        self.base = base
        self._conn: sqlite3.Connection | None = None
        self._opened = False
        self._pending: dict[str, str] = {}
        self._templates: list[tuple[str, str, str]] = []

    def _db(self) -> sqlite3.Connection | None:
        if not self._opened:
            self._opened = True
            try:
                uri = f"{self.file.absolute().as_uri()}?mode=ro"
                conn = sqlite3.connect(uri, uri=True, timeout=1)
                row = conn.execute("SELECT value FROM meta WHERE key = 'code'").fetchone()
            except sqlite3.Error:
                return None
            if row is None or row[0] != _code_digest():
                conn.close()
                return None
            self._conn = conn
        return self._conn

    def get(self, key: str) -> str | None:
        """A derivation plan or the quantity catalogue, as JSON text (None: not kept
        here nor by the ``base`` the file was opened with)."""
        if key in self._pending:
            return self._pending[key]
        db = self._db()
        row = None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                row = db.execute("SELECT data FROM plans WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return str(row[0])
        return None if self.base is None else self.base(key)

    def put(self, key: str, text: str) -> None:
        """Keep a plan (written by :meth:`save`)."""
        self._pending[key] = text

    def template(self, template_id: str, mark: str) -> TemplateView | None:
        """The kept view of a template whose file and code have stamp ``mark``."""
        db = self._db()
        if db is None:
            return None
        try:
            row = db.execute("SELECT data FROM templates WHERE id = ? AND stamp = ?",
                             (template_id, mark)).fetchone()
            return None if row is None else template_from_json(json.loads(row[0]))
        except (sqlite3.Error, KeyError, TypeError, ValueError, AttributeError):
            return None

    def keep_template(self, template_id: str, mark: str, t: Template | TemplateView) -> None:
        """Keep a validated template's view (written by :meth:`save`)."""
        with contextlib.suppress(TypeError):  # a field no record can hold: not kept
            self._templates.append((template_id, mark, json.dumps(template_json(t))))

    def save(self) -> None:
        """Write what was kept, in one transaction, and close the file."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if not self._pending and not self._templates:
            return
        with contextlib.suppress(OSError, sqlite3.Error):
            private_file(self.file)
            conn = sqlite3.connect(self.file, timeout=1)
            try:
                conn.execute(_NO_SYNC)
                with conn:
                    conn.executescript(_DRAWING_SCHEMA)
                    row = conn.execute("SELECT value FROM meta WHERE key = 'code'").fetchone()
                    if row is None or row[0] != _code_digest():
                        conn.execute("DELETE FROM plans")
                        conn.execute("DELETE FROM templates")
                        conn.execute("INSERT OR REPLACE INTO meta VALUES ('code', ?)",
                                     (_code_digest(),))
                    conn.executemany("INSERT OR REPLACE INTO plans VALUES (?, ?)",
                                     self._pending.items())
                    conn.executemany("INSERT OR REPLACE INTO templates VALUES (?, ?, ?)",
                                     self._templates)
            except sqlite3.DatabaseError as exc:
                conn.close()
                if not isinstance(exc, sqlite3.OperationalError):  # not a database
                    with contextlib.suppress(OSError):
                        self.file.unlink()
                return
            conn.close()


_DRAWING_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plans (key TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS templates (id TEXT PRIMARY KEY, stamp TEXT NOT NULL,
                                      data TEXT NOT NULL);
"""


@cache
def _code_digest() -> str:
    return hashlib.sha256(f"{FORMAT}|{code_stamp()}".encode()).hexdigest()
