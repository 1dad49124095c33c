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

from questions.derivation import Derivation

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.schema import Part, Template
    from questions.variants import PartVariant, Variant

MAX_ROWS = 2000
"""Variants kept (a few kB each); beyond this the oldest are dropped."""

FORMAT = 2
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
    if cache is not None and mark is not None:
        found = _read(cache, ref, mark)
        if found is not None:
            try:
                return from_json(catalog, seed, json.loads(found))
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                pass  # a record this code cannot read: draw it again (and replace it)
    from questions.variants import make_variant

    drawn = make_variant(catalog.templates([template_id])[template_id], seed)
    if cache is not None and mark is not None:
        _write(cache, ref, mark, json.dumps(to_json(drawn)))
    return drawn


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
            "labels": pv.labels, "derivation": pv.derivation.to_json()}


def encode(value: Any) -> Any:
    """A validated model (or any value inside one) as JSON that :func:`decode` turns
    into :class:`View` records, telling models from plain dicts and tuples from lists."""
    fields = getattr(type(value), "model_fields", None)
    if fields is not None:  # a pydantic model: its fields, by attribute name
        return {"$model": {name: encode(getattr(value, name)) for name in fields}}
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
    pv.__dict__["derivation"] = derivation_from_json(p["derivation"])  # cached_property
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
        cache.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(cache, timeout=1)
        except sqlite3.Error:
            return
        try:
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
