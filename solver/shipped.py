"""Derivation plans shipped with the package: ``solver/plans.tsv``, read-only.

A one-shot command in a new data folder (every new user's first minute, every script
that uses a temporary folder) would otherwise import sympy (about a second) to derive the
plans its numbers run (:mod:`solver.light`): this file (1.5 MB, about 7 ms of CPU to
read, once, on the first plan a data folder lacks) holds those the bundled bank's seeds
0-7, ``quiz solve`` of every quantity at its defaults and in the README's examples and
``quiz layout``'s README examples read, and the quantity catalogue, as the JSON texts a
:class:`solver.light` source keeps, by key. :class:`questions.plancache.PlanFile` reads
a plan the data folder lacks from here; only what is derived anew is written to the
data folder. bench/README.md has what it buys.

The file carries a digest of the solver's code (:func:`code_digest`, its text, so that
an installed copy matches): a file written by other code is ignored, and the plans are
derived as before (never a wrong number). ``python -m questions.shipplans --update``
writes it from the engine; a test fails when it differs from what the engine derives.
"""

from __future__ import annotations

import contextlib
import hashlib
from functools import cache
from pathlib import Path

FILE = Path(__file__).with_name("plans.tsv")
"""The shipped file (package data)."""

FORMAT = 1
"""The layout of the file; part of its digest."""


@cache
def code_digest() -> str:
    """A digest of the text of every module of the solver, and :data:`FORMAT`."""
    h = hashlib.sha256(f"format {FORMAT}".encode())
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(f"\0{path.relative_to(root).as_posix()}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@cache
def plans() -> dict[str, str]:
    """The shipped texts by key; empty when the file is missing, damaged, or written by
    other solver code."""
    with contextlib.suppress(OSError, ValueError):
        lines = FILE.read_text(encoding="utf-8").split("\n")
        if lines[0] == f"code\t{code_digest()}":
            return dict(line.split("\t", 1) for line in lines[1:] if line)
    return {}


def get(key: str) -> str | None:
    """The shipped JSON text of a plan or of the quantity catalogue (None: not shipped)."""
    return plans().get(key)


def write(texts: dict[str, str], file: Path = FILE) -> None:
    """Write ``texts`` (key -> JSON text) under the current code's digest: a line
    ``code<TAB>digest``, then a line ``key<TAB>text`` a plan (JSON keeps tabs and line
    breaks out of both)."""
    lines = [f"code\t{code_digest()}"]
    for key, text in sorted(texts.items()):
        if "\t" in key or "\n" in key or "\n" in text:
            raise ValueError(f"not a JSON key and text: {key!r}")
        lines.append(f"{key}\t{text}")
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
