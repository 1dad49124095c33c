"""Files the user names for quiz to write (``--out FILE``): whole or not at all, and only
where a file belongs.

An output is written under a fresh temporary name beside its target and renamed over it
at the end, so a failed write (a full disk, ``ulimit -f``, Ctrl+C) leaves no half file
under the name asked for. A rename replaces whatever directory entry is there, so the
target is checked first (and again just before the rename): only a regular file or a
path where nothing is yet is replaced. A device (``/dev/null``: renaming over it as root
destroys the device node), a FIFO, a socket or a folder is refused with one line. A
symbolic link is followed: the file it points to is replaced and the link kept.
``-`` means standard output, and only ``-`` does.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from quiz.core.errors import UsageError

__all__ = ["STDOUT", "OutputError", "check_target", "output_name", "replacing"]

STDOUT = "-"
"""The ``--out`` value that means standard output."""


class OutputError(UsageError):
    """An output cannot be written there; the message is one line naming the path."""


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"))


def output_name(text: str) -> str:
    """Check an ``--out`` value as typed: a file name, or ``-`` for standard output.

    Raises:
        OutputError: the value is empty (or only spaces), or holds a NUL character.
    """
    if not text.strip():
        raise OutputError("an output needs a file name (or - for standard output)")
    if "\0" in text:
        raise OutputError("a file name cannot hold a NUL character")
    return text


def check_target(path: Path) -> Path:
    """The file that writing ``path`` would replace, once it is known to be one that may
    be replaced: a regular file or nothing yet, in an existing folder.

    Returns:
        The target with symbolic links resolved (the link itself is kept).

    Raises:
        OutputError: anything else is at the path, or its folder is missing.
    """
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        if not real.parent.is_dir():
            raise OutputError(f"{path}: no such folder: {real.parent}") from None
        return real
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    if stat.S_ISREG(mode):
        return real
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    hint = "name the file to write" if stat.S_ISDIR(mode) else \
        "quiz replaces only a regular file; name a file (or - for standard output)"
    raise OutputError(f"{path}: is {kind}; {hint}")


def _new_file_mode(existing: Path) -> int:
    """The permission bits the written file gets: the replaced file's, or what the
    user's umask gives a new file."""
    try:
        return stat.S_IMODE(os.stat(existing).st_mode)
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Write an output: yields a temporary path beside the target to write to; when the
    block ends without an error, the target is checked again and replaced by it.

    An ``OSError`` while writing or renaming becomes an :class:`OutputError` (one line:
    the path and the system's reason); on any error the temporary file is removed.

    Raises:
        OutputError: see :func:`check_target`, or the file could not be written.
    """
    target = check_target(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial",
                                    dir=target.parent)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    partial = Path(name)
    try:
        try:
            yield partial
            os.chmod(partial, _new_file_mode(target))
            if check_target(path) != target:  # a link changed meanwhile: start again
                raise OutputError(f"{path}: changed while it was being written; try again")
            os.replace(partial, target)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
