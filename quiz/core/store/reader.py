"""Reading a history file as a stream of rows, whatever its size, and only a file.

``quiz history import`` once read the whole path into memory before looking at it:
``/dev/zero`` or ``/dev/urandom`` hung while memory grew, and a 1,000,000-row file
peaked at 2.5 GB. Here the path must be a regular file (opened without blocking, so a
FIFO cannot hang the open) of at most :data:`MAX_FILE_BYTES`, and it is read in chunks:
a JSON file's ``attempts`` and ``mock_sessions`` lists yield one object at a time, a
CSV file one record at a time. One value (a row) may hold at most
:data:`MAX_VALUE_CHARS` characters; nesting deeper than the decoder's recursion limit is
refused by name wherever it is (a row nested 50,000 deep once ended in a
RecursionError), and :func:`too_deep` bounds what a row may nest (:data:`MAX_DEPTH`) where
a field takes any JSON (a mock session's report).

The rows come out as ``(kind, where, raw)``: ``kind`` is ``"attempt"``, ``"mock"`` or
``"header"``, ``where`` names the row for messages (``attempt 3``, ``line 7``), and
``raw`` is the decoded value, not yet validated (:mod:`quiz.core.store.validate` does).
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, TextIO

from quiz.core.errors import QuizError

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_VALUE_CHARS", "SPAN_CHARS", "ReadError",
           "Span", "open_file", "rows"]

MAX_FILE_BYTES: Final = 4 * 2**30
"""The largest history file read (4 GiB: about 8 million attempts as JSON)."""
MAX_VALUE_CHARS: Final = 2**20
"""The most characters one row (a JSON object, a CSV line) may hold."""
MAX_DEPTH: Final = 32
"""How deep lists and objects may nest inside one row (a mock report is the deepest
the app writes, at 4)."""

_CHUNK: Final = 1 << 16
SPAN_CHARS: Final = 1 << 18
"""The most characters of attempts handed over at once as a :class:`Span`."""
_SPACE: Final = re.compile(r"[ \t\n\r]*")
_DECODER: Final = json.JSONDecoder()


class ReadError(QuizError, ValueError):
    """The file cannot be read as a history; one line naming it (and the row)."""


class Span:
    """Several items of a JSON file's ``attempts`` list at once: ``text`` is the items
    and the commas between them (no brackets), up to the end of one item, at most
    :data:`SPAN_CHARS` characters (so no item in it is longer than a row may be).

    Handed over in place of single rows when :func:`rows` is asked for spans: the
    taker sets :attr:`taken` to how many items it read from the text, and reading
    goes on after them; left at 0, the same items come again one at a time (the
    text may even end inside a string: only decoding it can tell)."""

    __slots__ = ("taken", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.taken = 0


def open_file(path: Path) -> TextIO:
    """Open a history file for reading: a regular file only, and not too large.

    Raises:
        ReadError: anything else at the path (a device such as ``/dev/zero``, a FIFO,
            a folder), a missing or unreadable file, or a file over the size limit.
    """
    with contextlib.suppress(OSError):  # a socket cannot even be opened: say what it is
        _check_kind(path, os.stat(path))
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise ReadError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ReadError(f"{path}: is a folder, not a history file") from None
    except OSError as exc:
        raise ReadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        _check_kind(path, os.fstat(fd))  # what was opened, whatever the path is now
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        # newline="": line ends inside quoted CSV fields (typed answers) stay as written.
        return open(fd, encoding="utf-8-sig", newline="")
    except BaseException:
        os.close(fd)
        raise


def _check_kind(path: Path, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise ReadError(f"{path}: is a folder, not a history file")
    if not stat.S_ISREG(st.st_mode):
        raise ReadError(f"{path}: not a regular file (a device, FIFO or socket): "
                        "not a history file")
    if st.st_size > MAX_FILE_BYTES:
        raise ReadError(f"{path}: {st.st_size:,} bytes: larger than a history file "
                        f"can be ({MAX_FILE_BYTES:,} bytes)")


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and dicts nest more than ``limit`` levels in ``value`` (iterative:
    no recursion, whatever the depth)."""
    level: list[object] = [value]
    depth = 0
    while level:
        inner: list[object] = []
        for item in level:
            if isinstance(item, dict):
                inner.extend(item.values())
            elif isinstance(item, list | tuple):
                inner.extend(item)
        if inner:
            depth += 1
            if depth > limit:
                return True
        level = inner
    return False


def rows(handle: TextIO, fmt: str | None, source: str,
         spans: bool = False) -> Iterator[tuple[str, str, Any]]:
    """The rows of a history file, streamed (see the module docstring).

    Args:
        handle: the open file (text).
        fmt: ``json`` or ``csv``; None: JSON when the text starts with ``{``.
        source: the file's name, for messages.
        spans: hand a JSON file's attempts over several at a time where the layout
            allows, as ``("attempts", where, Span)`` (see :class:`Span`).

    Raises:
        ReadError: text that is not UTF-8, not JSON or CSV, a row too large or too deep.
    """
    try:
        first = _read(handle, source)
        if fmt is None:
            fmt = "json" if first.lstrip().startswith("{") else "csv"
        if fmt == "json":
            yield from _Json(handle, first, source, spans).rows()
        elif fmt == "csv":
            yield from _csv_rows(handle, first, source)
        else:
            raise ReadError(f"unknown history format {fmt!r}: use json or csv")
    except MemoryError:
        raise ReadError(f"{source}: too large to read") from None


def _read(handle: TextIO, source: str, size: int = _CHUNK) -> str:
    try:
        return handle.read(size)
    except UnicodeDecodeError:
        raise ReadError(f"{source}: not a text file (not UTF-8): not a history file") from None
    except OSError as exc:
        raise ReadError(f"{source}: cannot read: {exc.strerror or exc}") from None


class _Json:
    """A JSON document read a chunk at a time: the top-level object's fields, and the
    items of its lists one by one."""

    def __init__(self, handle: TextIO, first: str, source: str, spans: bool = False) -> None:
        self.handle = handle
        self.buf = first
        self.pos = 0
        self.eof = not first
        self.line = 1  # the line of buf[0]
        self.source = source
        self.spans = spans
        self.start = 0  # where buf[0] is in the file's text
        self.single_until = 0  # read one item at a time up to here (a span not taken)

    def _fill(self) -> None:
        chunk = _read(self.handle, self.source)
        self.line += self.buf.count("\n", 0, self.pos)
        self.start += self.pos
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        self.eof = not chunk

    def _span(self) -> Span | None:
        """The items ahead as a :class:`Span`, or None (one item at a time here)."""
        if self.start + self.pos < self.single_until:
            return None
        while len(self.buf) - self.pos < SPAN_CHARS and not self.eof:
            self._fill()
        # An item's end, then the comma before the next: where the exporter's layout
        # ("},\n  {") and compact JSON ("},{") can be cut. Anywhere else (another
        # layout, or inside a string) decoding the span fails and it is not taken.
        end = self.buf.rfind("},", self.pos, self.pos + SPAN_CHARS)
        if end < 0:  # not this far, whatever the layout: one at a time, then look again
            self.single_until = self.start + min(len(self.buf), self.pos + SPAN_CHARS)
            return None
        return Span(self.buf[self.pos:end + 1])

    def _line_at(self, pos: int) -> int:
        return self.line + self.buf.count("\n", 0, pos)

    def _error(self, message: str, pos: int | None = None) -> ReadError:
        where = self._line_at(self.pos if pos is None else pos)
        return ReadError(f"{self.source}: not valid JSON (line {where}: {message})")

    def _peek(self) -> str:
        while True:
            end = _SPACE.match(self.buf, self.pos)
            self.pos = end.end() if end else self.pos
            if self.pos < len(self.buf) or self.eof:
                return self.buf[self.pos:self.pos + 1]
            self._fill()

    def _expect(self, chars: str, what: str) -> str:
        found = self._peek()
        if not found or found not in chars:
            raise self._error(f"expected {what}")
        self.pos += 1
        return found

    def _value(self, where: str) -> Any:
        self._peek()  # raw_decode reads no leading white space
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if not self.eof and len(self.buf) - self.pos <= MAX_VALUE_CHARS:
                    self._fill()  # perhaps only cut off at the chunk's end
                    continue
                if len(self.buf) - self.pos > MAX_VALUE_CHARS:
                    raise ReadError(f"{self.source}: {where}: longer than "
                                    f"{MAX_VALUE_CHARS:,} characters") from None
                raise self._error(exc.msg, exc.pos) from None
            except RecursionError:
                raise ReadError(f"{self.source}: {where}: nested too deeply (at most "
                                f"{MAX_DEPTH} levels)") from None
            if end == len(self.buf) and not self.eof:
                self._fill()  # a number may go on in the next chunk
                continue
            self.pos = end
            return value

    def rows(self) -> Iterator[tuple[str, str, Any]]:
        self._expect("{", "an object ({) at the start")
        lists = {"attempts": "attempt", "mock_sessions": "mock"}
        if self._peek() == "}":
            self.pos += 1
        else:
            while True:
                if self._peek() != '"':
                    raise self._error("expected a field name")
                key = self._value("header")
                self._expect(":", "':' after a field name")
                if key in lists and self._peek() == "[":
                    self.pos += 1
                    count = 0
                    if self._peek() == "]":
                        self.pos += 1
                    else:
                        while True:
                            span = self._span() if self.spans and key == "attempts" else None
                            if span is not None:
                                yield "attempts", f"attempt {count + 1}", span
                                if span.taken:
                                    count += span.taken
                                    self.pos += len(span.text)
                                else:
                                    self.single_until = self.start + self.pos + len(span.text)
                                    continue
                            else:
                                count += 1
                                where = f"{lists[key].replace('mock', 'mock session')} {count}"
                                yield lists[key], where, self._value(where)
                            if self._expect(",]", "',' or ']' after a row") == "]":
                                break
                else:
                    yield "header", key, self._value(f"header field {key!r}")
                if self._expect(",}", "',' or '}' after a field") == "}":
                    break
        if self._peek():
            raise self._error("extra text after the document")


def _lines(handle: TextIO, first: str, source: str) -> Iterator[str]:
    """The file's lines (ends kept), none longer than :data:`MAX_VALUE_CHARS`: the
    first chunk's, then the rest of the file's."""
    def checked(line: str) -> str:
        if len(line) > MAX_VALUE_CHARS:
            raise ReadError(f"{source}: a line longer than {MAX_VALUE_CHARS:,} characters: "
                            "not a history file")
        return line

    head = io.StringIO(first, newline="")
    while line := head.readline(MAX_VALUE_CHARS + 1):
        if not line.endswith(("\n", "\r")) and len(line) <= MAX_VALUE_CHARS:
            line += _readline(handle, MAX_VALUE_CHARS + 1 - len(line), source)
        yield checked(line)
    while line := _readline(handle, MAX_VALUE_CHARS + 1, source):
        yield checked(line)


def _readline(handle: TextIO, size: int, source: str) -> str:
    try:
        return handle.readline(size)
    except UnicodeDecodeError:
        raise ReadError(f"{source}: not a text file (not UTF-8): not a history file") from None
    except OSError as exc:
        raise ReadError(f"{source}: cannot read: {exc.strerror or exc}") from None


def _csv_rows(handle: TextIO, first: str, source: str) -> Iterator[tuple[str, str, Any]]:
    reader = csv.reader(_lines(handle, first, source))
    try:
        for cells in reader:
            yield "record", f"line {reader.line_num}", cells
    except csv.Error as exc:
        raise ReadError(f"{source}: line {reader.line_num}: not readable as CSV ({exc})") from None
