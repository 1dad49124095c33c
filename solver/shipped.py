"""Derivation plans shipped with the package: ``solver/plans.tsv``, read-only.

A one-shot command in a new data folder (every new user's first minute, every script
that uses a temporary folder) would otherwise import sympy (about a second) to derive the
plans its numbers run (:mod:`solver.light`): this file (1.5 MB) holds those the
bundled bank's seeds 0-7, ``quiz solve`` of every quantity at its defaults and in the
README's examples and ``quiz layout``'s README examples read, and the quantity
catalogue, as the JSON texts a :class:`solver.light` source keeps, by key.
:class:`questions.plancache.PlanFile` reads a plan the data folder lacks from here; only
what is derived anew is written to the data folder. bench/README.md has what it buys.

A process reads only the rows it asks for: the file's second line is an index (each
key's row, by byte offset and length, as JSON), so a lookup reads that line once and then
the one row (`quiz drill`'s first question asks for two of the 389; reading them all was
about 7 ms of CPU).

The file carries a digest of the solver's code (:func:`code_digest`, its text, so that
an installed copy matches): a file written by other code is ignored, and the plans are
derived as before (never a wrong number). ``python -m questions.shipplans --update``
writes it from the engine; a test fails when it differs from what the engine derives.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from functools import cache
from pathlib import Path

FILE = Path(__file__).with_name("plans.tsv")
"""The shipped file (package data)."""

FORMAT = 2
"""The layout of the file; part of its digest."""


def python_files(root: str, data: str = "") -> list[str]:
    """The modules under the folder `root` (``__pycache__`` and the data folder `data`
    left out), as paths relative to it with ``/``, in :class:`~pathlib.Path`'s order
    (part by part). What tells one version of a package's code from another, listed
    without a ``Path`` per file (a third of the time: every start lists the solver's and
    the compiler's)."""
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", data)]
        here = os.path.relpath(folder, root).replace(os.sep, "/")
        found += [name if here == "." else f"{here}/{name}"
                  for name in files if name.endswith(".py")]
    found.sort(key=lambda rel: rel.split("/"))
    return found


@cache
def code_digest() -> str:
    """A digest of the text of every module of the solver, and :data:`FORMAT`."""
    h = hashlib.sha256(f"format {FORMAT}".encode())
    root = os.path.dirname(os.path.realpath(__file__))
    for rel in python_files(root):
        h.update(f"\0{rel}\0".encode())
        with open(os.path.join(root, rel), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


@cache
def _index() -> tuple[dict[str, list[int]], int]:
    """The rows by key (byte offset from the first row, and length), and the first row's
    offset; empty when the file is missing, damaged, or written by other solver code."""
    with contextlib.suppress(OSError, ValueError), FILE.open("rb") as f:
        if f.readline() == f"code\t{code_digest()}\n".encode():
            name, _, text = f.readline().partition(b"\t")
            index = json.loads(text)
            if name == b"index" and isinstance(index, dict):
                return index, f.tell()
    return {}, 0


def get(key: str) -> str | None:
    """The shipped JSON text of a plan or of the quantity catalogue (None: not shipped,
    or the file does not hold it where its index says)."""
    index, first = _index()
    at = index.get(key)
    if at is None:
        return None
    with contextlib.suppress(OSError, ValueError, TypeError), FILE.open("rb") as f:
        start, size = at
        f.seek(first + start)
        row = f.read(size)
        if len(row) == size and row.endswith(b"\n"):  # a whole row, not a cut one
            row_key, tab, text = row[:-1].decode("utf-8").partition("\t")
            if row_key == key and tab:
                return text
    return None


def plans() -> dict[str, str]:
    """Every shipped text by key (the self-test's view; a lookup reads one row: :func:`get`)."""
    index, _ = _index()
    return {key: text for key in index if (text := get(key)) is not None}


def forget() -> None:
    """Read the file anew at the next lookup (after it was rewritten, or in a test that
    points :data:`FILE` elsewhere)."""
    _index.cache_clear()


def write(texts: dict[str, str], file: Path = FILE) -> None:
    """Write ``texts`` (key -> JSON text) under the current code's digest: a line
    ``code<TAB>digest``, a line ``index<TAB>{key: [offset, length]}`` (from the first
    row), then a row ``key<TAB>text`` a plan (JSON keeps tabs and line breaks out of
    both)."""
    rows: list[bytes] = []
    index: dict[str, list[int]] = {}
    at = 0
    for key, text in sorted(texts.items()):
        if "\t" in key or "\n" in key or "\n" in text:
            raise ValueError(f"not a JSON key and text: {key!r}")
        row = f"{key}\t{text}\n".encode()
        index[key] = [at, len(row)]
        rows.append(row)
        at += len(row)
    head = f"code\t{code_digest()}\nindex\t{json.dumps(index)}\n".encode()
    file.write_bytes(head + b"".join(rows))
