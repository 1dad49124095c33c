"""Drawn variants kept on disk, so that asking or checking one again needs no solver.

Drawing a variant runs the solver (sympy, about half a second to import) for the keys,
the known mistakes and the worked derivation. ``quiz ask`` and ``quiz check`` are
one-shot processes, often run twice for the same ``ID#SEED`` (ask, then check), so
:func:`variant` keeps what drawing produced -- prompts, keys, mistakes, accepted
conventions, the parts' rendered specs and their derivations -- as JSON in a small
SQLite file beside the compiled bank, and rebuilds the same :class:`Variant` from it
without importing the solver.

A stored variant is found by template id and seed, and used only when its stamp
matches: a hash of the template's content (as validated) and of the code that draws
variants (the ``questions`` and ``solver`` packages' file stamps). Editing a template
or upgrading the app therefore draws again. The file holds data, never code; a
damaged, locked or unwritable cache is ignored (the variant is drawn as before), and
the table keeps at most :data:`MAX_ROWS` variants, the oldest dropped first.

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
from typing import TYPE_CHECKING, Any

from questions.derivation import Derivation

if TYPE_CHECKING:
    from questions.schema import Template
    from questions.variants import PartVariant, Variant

MAX_ROWS = 2000
"""Variants kept (a few kB each); beyond this the oldest are dropped."""

FORMAT = 1
"""The layout of a stored record; part of every stamp."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS variants (
    variant TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    data TEXT NOT NULL
);
"""


def variant(template: Template, seed: int, cache: Path | None) -> Variant:
    """The variant of ``template`` at ``seed``: read back from ``cache`` when it was
    stored from the same template content and code, else drawn (and stored).

    Args:
        template: the validated template.
        seed: the seed.
        cache: the cache file (created when missing), or None to always draw.

    Raises:
        TemplateError: as :func:`questions.variants.make_variant`.
    """
    ref = f"{template.id}#{seed}"
    mark = stamp(template) if cache is not None else ""
    if cache is not None:
        found = _read(cache, ref, mark)
        if found is not None:
            try:
                return from_json(template, seed, json.loads(found))
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # a record this code cannot read: draw it again (and replace it)
    from questions.variants import make_variant

    drawn = make_variant(template, seed)
    if cache is not None:
        _write(cache, ref, mark, json.dumps(to_json(drawn)))
    return drawn


def stamp(template: Template) -> str:
    """What a stored variant of this template must match: its content and the code."""
    content = template.model_dump_json(by_alias=True)
    return hashlib.sha256(f"{FORMAT}|{code_stamp()}|{content}".encode()).hexdigest()


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


# ---------------------------------------------------------------- records


def to_json(v: Variant) -> dict[str, Any]:
    """What :func:`from_json` needs to rebuild the variant (derivations included)."""
    return {"params": v.params, "parts": [_part_json(pv) for pv in v.parts]}


def _part_json(pv: PartVariant) -> dict[str, Any]:
    follow = None
    if pv.follow is not None:
        follow = {"carried": [asdict(c) for c in pv.follow.carried],
                  "credit": pv.follow.credit}
    return {"index": pv.index, "prompt": pv.prompt,
            "spec": pv.spec.model_dump(mode="json", by_alias=True, exclude_unset=True),
            "key": asdict(pv.key), "mistakes": [asdict(m) for m in pv.mistakes],
            "accepted": [asdict(a) for a in pv.accepted], "overrides": pv.overrides,
            "model": pv.model, "gpu": pv.gpu, "env": pv.env, "follow": follow,
            "labels": pv.labels, "derivation": pv.derivation.to_json()}


def from_json(template: Template, seed: int, data: Mapping[str, Any]) -> Variant:
    """The variant :func:`to_json` described, with no solver work.

    Raises:
        KeyError, TypeError, ValueError, IndexError: a record of another shape.
    """
    from questions.variants import Variant

    parts: list[PartVariant] = []
    for p in data["parts"]:
        parts.append(_part(template, seed, p))
    return Variant(template, seed, dict(data["params"]), parts)


def _part(template: Template, seed: int, p: Mapping[str, Any]) -> PartVariant:
    from questions.schema import Part
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
    if p["follow"] is not None:
        index = int(p["index"])
        follow = Follow(tuple(Carried(**c) for c in p["follow"]["carried"]),
                        float(p["follow"]["credit"]), _Redraw(template, seed, index))
    pv = PartVariant(int(p["index"]), str(p["prompt"]), Part.model_validate(p["spec"]), key,
                     mistakes, tuple(AcceptedVariant(**a) for a in p["accepted"]),
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

    def __init__(self, template: Template, seed: int, index: int) -> None:
        self.template, self.seed, self.index = template, seed, index
        self._derive: Callable[[Mapping[str, float]], float] | None = None

    def __call__(self, values: Mapping[str, float]) -> float:
        if self._derive is None:
            from questions.variants import make_variant

            follow = make_variant(self.template, self.seed).parts[self.index - 1].follow
            assert follow is not None  # the stored record said it follows through
            self._derive = follow.derive
        return self._derive(values)


# ---------------------------------------------------------------- the file


def _read(cache: Path, ref: str, mark: str) -> str | None:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{cache}?mode=ro", uri=True,
                                                timeout=1)) as conn:
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
        except sqlite3.DatabaseError:  # not a database any more: start it again
            conn.close()
            with contextlib.suppress(OSError):
                cache.unlink()
            return
        finally:
            conn.close()
