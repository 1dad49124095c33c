"""Reading small text files that users control (templates, settings) defensively.

A file named ``*.toml`` may be a folder, a pipe that blocks forever, a link to
``/dev/zero`` that reports size 0 and never ends, or megabytes of nesting that send a
parser into deep recursion. These helpers read only regular files, only up to a limit,
and spot the one TOML shape whose parsing time grows with the square of its size.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from solver.errors import QuizError

MAX_KEY_DEPTH = 64
"""Deepest dotted key or table header read (``a.b.c = 1`` is 3 deep): tomllib's time
grows with the square of a dotted key's depth, 20 s at 60,000."""

_DEEP_KEY = re.compile(r"""(?:(?:[\w-]+|"[^"\n]{0,200}"|'[^'\n]{0,200}')\s*\.\s*)"""
                       + f"{{{MAX_KEY_DEPTH}}}")


class TextFileError(QuizError, ValueError):
    """A file that cannot be read as small UTF-8 text; the message says why, in words."""


def read_text_file(path: Path | str, limit: int) -> str:
    """The text of a small file, read defensively.

    Only a regular file is read (a folder, pipe or device, or a link to one, is refused
    without waiting on it), at most ``limit + 1`` bytes of it (a file may grow, or report
    size 0, after it was looked at), as UTF-8 with or without a BOM.

    Raises:
        FileNotFoundError: no such file (callers often treat that as "use defaults").
        TextFileError: cannot be read, not a regular file, over the limit, not UTF-8.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise TextFileError(f"cannot read: {exc.strerror or exc}") from None
    try:  # plain reads, no buffered file object: a bank reads thousands of files
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TextFileError("not a regular file (a folder, pipe or device)")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            if len(chunks) == 1 and len(chunk) == st.st_size:  # the whole file at once:
                break  # no second read to see its end (a bank reads thousands)
        data = b"".join(chunks)
    except OSError as exc:
        raise TextFileError(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise TextFileError(f"over the {limit // 1024} KB limit")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TextFileError("not UTF-8 text") from None


def too_deep(text: str) -> int | None:
    """The first line with a dotted key nested deeper than MAX_KEY_DEPTH (in a key, a
    table header or an inline table), or None; multi-line strings are not looked at."""
    in_string = False
    for n, line in enumerate(text.splitlines(), 1):
        quotes = line.count('"""') + line.count("'''")
        if not in_string and line.count(".") >= MAX_KEY_DEPTH and _DEEP_KEY.search(line):
            return n
        if quotes % 2:
            in_string = not in_string
    return None
