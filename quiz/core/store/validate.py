"""Import, reading: a history file's rows validated, streamed, each problem named.

:mod:`.reader` yields a file's raw rows (a regular file only, bounded, nesting
limited); here each becomes an :class:`~quiz.core.store.fileformat.AttemptRow` or
:class:`~quiz.core.store.fileformat.MockRow`, or a :class:`HistoryFileError` of one
line naming the file, the row and its first problem. The header is checked first (the
``format`` field, a ``history_format`` no newer than this version reads: a newer file
is refused, never half-read); CSV cells are unescaped (:mod:`.csvcells`) and their
tags read as a JSON list. :func:`parse` does the same for a file held as text.
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Iterator
from typing import Any, TextIO

from pydantic import ValidationError

from quiz.core.store import fileformat, reader
from quiz.core.store.csvcells import unescape
from quiz.core.store.fileformat import (
    CSV_COLUMNS,
    CSV_OPTIONAL,
    FORMAT_NAME,
    FORMATS,
    AttemptRow,
    HistoryFile,
    HistoryFileError,
    MockRow,
    Row,
    fast_attempt_values,
    fast_attempts,
    problem,
)
from quiz.core.store.reader import too_deep

__all__ = ["no_mock", "parse", "read_rows"]


def _newer(source: str, found: object) -> HistoryFileError:
    return HistoryFileError(
        f"{source}: written by a newer quiz (history format {found}; this version reads "
        f"up to {fileformat.HISTORY_FORMAT}): upgrade quiz to import it")


def _check_format(source: str, where: str, value: object) -> None:
    try:
        found = int(str(value))
    except ValueError:
        raise HistoryFileError(f"{source}: {where}: history_format: not a whole number: "
                               f"{value!r}") from None
    if found > fileformat.HISTORY_FORMAT:
        raise _newer(source, found)
    if found < 1:
        raise HistoryFileError(f"{source}: {where}: history_format: must be >= 1")


def _row_error(source: str, where: str, exc: ValidationError) -> HistoryFileError:
    return HistoryFileError(f"{source}: {where}: {problem(exc)}")


def _header_format(source: str, value: object) -> None:
    # A JSON file's history_format is a number; "1" (a string) is not one.
    if type(value) is not int:
        raise HistoryFileError(f"{source}: header: history_format: not a whole number: "
                               f"{value!r}")
    _check_format(source, "header", value)


def _json_rows(items: Iterator[tuple[str, str, Any]], source: str) -> Iterator[Row]:
    header: dict[str, object] = {}

    def check_header() -> None:
        if header.get("format") != FORMAT_NAME:
            raise HistoryFileError(f"{source}: not a quiz history file (no \"format\": "
                                   f"\"{FORMAT_NAME}\")")
        _header_format(source, header.get("history_format"))

    checked = False
    for kind, where, raw in items:
        if kind == "header":
            if where not in ("format", "history_format"):
                if header.get("format") != FORMAT_NAME:
                    check_header()  # not ours: say so rather than name a field
                if where in ("attempts", "mock_sessions"):
                    raise HistoryFileError(f"{source}: \"attempts\" and \"mock_sessions\" "
                                           "must be lists")
                raise HistoryFileError(f"{source}: header: unknown field {where!r}")
            header[where] = raw
            if where == "format" and raw != FORMAT_NAME:
                check_header()
            continue
        if not checked and {"format", "history_format"} <= header.keys():
            check_header()  # the usual order: the header first, then the rows
            checked = True
        if kind == "attempts":  # several at once (a reader.Span): taken if all are good
            fields = fast_attempts(f"[{raw.text}]")
            if fields is not None:
                raw.taken = len(fields)
                first = int(where.removeprefix("attempt "))
                for number, row in enumerate(fields, first):
                    yield "attempt", f"attempt {number}", row
            continue
        model = AttemptRow if kind == "attempt" else MockRow
        if model is MockRow and too_deep(raw):  # a report holds any JSON
            raise HistoryFileError(f"{source}: {where}: nested too deeply (at most "
                                   f"{reader.MAX_DEPTH} levels)")
        try:
            yield kind, where, model.model_validate(raw)
        except ValidationError as exc:
            raise _row_error(source, where, exc) from None
    check_header()


def _csv_tags(cell: str) -> object:
    # A JSON list, so that a tag may hold spaces or commas (user templates' tags are
    # free text); a cell that is not one is handed to validation as is, to be named.
    try:
        tags = json.loads(cell) if cell else []
    except json.JSONDecodeError:
        return cell
    except RecursionError:
        raise ValueError("tags: nested too deeply") from None
    if too_deep(tags):
        raise ValueError("tags: nested too deeply")
    return tags


def _csv_rows(items: Iterator[tuple[str, str, Any]], source: str,
              fast: bool = False) -> Iterator[Row]:
    first = next(items, None)
    if first is None:
        raise HistoryFileError(f"{source}: empty file: not a quiz history")
    header = [unescape(cell) for cell in first[2]]
    if not header or header[0] != "history_format":
        raise HistoryFileError(f"{source}: not a quiz history file (the first CSV column "
                               "must be history_format)")
    missing = [c for c in CSV_COLUMNS if c not in header]
    extra = [c for c in header if c not in (*CSV_COLUMNS, *CSV_OPTIONAL)]
    if extra and not missing:
        raise HistoryFileError(f"{source}: line 1: unknown column {extra[0]!r}")
    # ``fast``: rows are validated _CSV_BATCH at a time (fileformat.fast_attempt_values)
    # and come as their fields; a batch with a row that cannot be told that way goes
    # row by row through the model, which names the problem. A problem found before
    # validation (a cell count, the format, the tags) is raised after the rows before
    # it, so the first problem in the file is the one named, as row by row.
    pending: list[tuple[str, dict[str, object]]] = []
    tags_seen: dict[str, object] = {}
    format_seen: str | None = None
    try:
        for _, where, cells in items:
            if not any(cells):
                continue
            if len(cells) != len(header):
                raise HistoryFileError(f"{source}: {where}: {len(cells)} cells, the "
                                       f"header has {len(header)}")
            # Only a cell that starts with ' may have been escaped.
            record = dict(zip(header, map(unescape, cells) if "'" in "".join(cells)
                              else cells, strict=True))
            history_format = record.pop("history_format")
            if history_format != format_seen:  # the same in every row, as a rule
                _check_format(source, where, history_format)
                format_seen = history_format
            if missing:  # a newer file checks first: its layout may differ
                raise HistoryFileError(f"{source}: line 1: missing column {missing[0]!r}")
            values: dict[str, object] = record  # the cells, converted in place
            values["mistake"] = record["mistake"] or None
            values["rating"] = record["rating"] or None
            tags = tags_seen.get(record["tags"])
            if tags is None:
                try:
                    tags = _csv_tags(record["tags"])
                except ValueError as exc:
                    raise HistoryFileError(f"{source}: {where}: {exc}") from None
                if len(tags_seen) < _TAGS_KEPT and len(record["tags"]) <= _TAGS_CHARS:
                    tags_seen[record["tags"]] = tags  # a few per template: kept, bounded
            values["tags"] = tags
            if "guided" in record:
                values["guided"] = record["guided"] == "1" or record["guided"] == "true"
            pending.append((where, values))
            if len(pending) >= (_CSV_BATCH if fast else 1):
                yield from _csv_batch(pending, source, fast)
    except (HistoryFileError, reader.ReadError):
        yield from _csv_batch(pending, source, fast)  # a problem in an earlier row first
        raise
    yield from _csv_batch(pending, source, fast)


_CSV_BATCH = 1000
"""How many CSV rows are validated at once."""
_TAGS_KEPT = 10_000
_TAGS_CHARS = 500
"""How many distinct tags cells, of at most how many characters, are kept decoded
(they repeat: a few per template); memory stays bounded whatever the file holds."""


def _csv_batch(pending: list[tuple[str, dict[str, object]]], source: str,
               fast: bool) -> Iterator[Row]:
    """The pending rows validated (the list emptied first)."""
    batch = pending[:]
    pending.clear()
    fields = fast_attempt_values([values for _, values in batch]) if fast else None
    if fields is not None:
        for (where, _), row in zip(batch, fields, strict=True):
            yield "attempt", where, row
    else:
        for where, values in batch:
            try:
                yield "attempt", where, AttemptRow.model_validate(values)
            except ValidationError as exc:
                raise _row_error(source, where, exc) from None


def read_rows(handle: TextIO, fmt: str | None = None, *,
              source: str = "history file", fast: bool = False) -> Iterator[Row]:
    """The validated rows of a history file, streamed (memory stays the same at any
    size: see :mod:`quiz.core.store.reader`); mock sessions may come after the
    attempts that name them (:func:`import_rows` links them at the end).

    ``fast``: a JSON file's attempts are validated many at a time where they can be
    (:func:`~quiz.core.store.fileformat.fast_attempts`), and come as their fields
    rather than as models (:func:`~quiz.core.store.fileformat.fields_of` reads both).

    Raises:
        HistoryFileError: one line naming the file, the row and the problem.
    """
    items = reader.rows(handle, fmt, source, spans=fast)
    try:
        first = next(items, None)
    except reader.ReadError as exc:
        raise HistoryFileError(str(exc)) from None
    if first is None:
        raise HistoryFileError(f"{source}: empty file: not a quiz history")
    stream = itertools.chain([first], items)
    try:
        if first[0] == "record":
            yield from _csv_rows(stream, source, fast)
        else:
            yield from _json_rows(stream, source)
    except reader.ReadError as exc:
        raise HistoryFileError(str(exc)) from None


def parse(text: str, fmt: str | None = None, *, source: str = "history file") -> HistoryFile:
    """Read and validate a whole history file held as text (see :func:`read_rows`).

    Args:
        text: The file's text.
        fmt: ``json`` or ``csv``; None: guessed from the text (JSON starts with ``{``).
        source: The file's name, for messages.

    Raises:
        HistoryFileError: one line naming the file, the row and the problem.
    """
    if fmt is not None and fmt not in FORMATS:
        raise HistoryFileError(f"unknown history format {fmt!r}: use one of "
                               f"{', '.join(FORMATS)}")
    attempts: list[AttemptRow] = []
    mocks: list[MockRow] = []
    where_of: dict[int, str] = {}
    for _, where, row in read_rows(io.StringIO(text, newline=""), fmt, source=source):
        if isinstance(row, AttemptRow):
            where_of[len(attempts)] = where
            attempts.append(row)
        elif isinstance(row, MockRow):
            mocks.append(row)
    starts = {m.started_at for m in mocks}
    for index, row in enumerate(attempts):
        if row.mock is not None and row.mock not in starts:
            raise no_mock(source, where_of[index], row.mock)
    return HistoryFile(tuple(attempts), tuple(mocks))


def no_mock(source: str, where: str, start: str) -> HistoryFileError:
    return HistoryFileError(f"{source}: {where}: mock: no mock session started at {start}")
