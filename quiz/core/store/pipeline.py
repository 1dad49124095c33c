"""A big import over two processes: a child reads and prepares the file, the parent writes.

Why: a 1,000,000-row import did everything on one core, and about a third of it
(reading the file, validating its rows, making each row's insert tuple, tags text
and summary sums: :func:`.merge.prepare`) needs no database. Here a child process
does that part while the parent inserts, replays the reviews and builds the indexes
(:func:`.merge.import_prepared`): with a second core the two overlap. Paired figure
and decision: bench/README.md, "History import". A small file stays in one process
(:data:`PIPE_ROWS`): starting the child costs more than it saves there.

How: the child is ``python -P -c ...`` (no current folder on its path: the same quiz
as the parent's, found through ``PYTHONPATH``), handed the already opened file (the
parent's checks hold: a regular file, bounded) as a file descriptor. It sends
:func:`.merge.prepare`'s batches as length-prefixed :mod:`marshal` frames (plain values
only: nothing in them can run) through its stdout, a pipe of :data:`_PIPE_BYTES`:
memory stays bounded, as the child waits when the pipe is full. A problem in the file
ends the stream with the same one-line message as in one process, after every batch
before it, so the first problem in the file is the one named, and the parent's
transaction is rolled back.

No process of ours is left behind: the child ignores Ctrl+C (the parent's
KeyboardInterrupt ends it), :class:`Child` kills and waits for it when the import ends
in any way, and a killed parent's child dies at its next write (the pipe has no reader).
"""

from __future__ import annotations

import contextlib
import fcntl
import marshal
import os
import signal
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Final, TextIO

from quiz.core.store.fileformat import HistoryFileError
from quiz.core.store.merge import Prepared

__all__ = ["PIPE_ROWS", "Child"]

PIPE_ROWS: Final = 50_000
"""From how many expected rows an import reads the file in a child process."""

_HEAD: Final = struct.Struct("<Q")
_MAX_FRAME: Final = 1 << 30
"""More than a batch of the largest rows can take; a larger length is a broken stream."""

_PIPE_BYTES: Final = 1 << 20
"""The pipe's buffer: a few batches. With Linux's default 64 KiB (less than one batch)
each batch was handed over in pieces, the two processes woke each other for every
piece, and the kernel kept them on one core (wake-affine): no overlap at all, 1.03x
the one-process wall time at 1,000,000 rows; with 1 MiB, 0.69x (bench/README.md)."""

_CHILD: Final = "from quiz.core.store.pipeline import child_main; child_main()"


class Child:
    """The child reading ``handle``: iterate for :func:`.merge.prepare`'s batches.

    Raises (while iterated):
        HistoryFileError: the file's first problem (the child's message), or the child
            ended without finishing (killed, out of memory).
    """

    def __init__(self, handle: TextIO, fmt: str | None, source: str, latest: str) -> None:
        self.source = source
        root = str(Path(__file__).resolve().parents[3])  # the folder holding quiz/
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        fd = handle.fileno()
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-c", _CHILD, str(fd), fmt or "", source, latest],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            pass_fds=(fd,), env=env)
        assert self.process.stdout is not None
        self.stream: IO[bytes] = self.process.stdout
        if hasattr(fcntl, "F_SETPIPE_SZ"):  # Linux; elsewhere the pipe is as it comes
            with contextlib.suppress(OSError):
                fcntl.fcntl(self.stream.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        self.done = False

    def __iter__(self) -> Iterator[Prepared]:
        while True:
            message = self._receive()
            kind = message[0]
            if kind == "end":
                self.done = True
                return
            if kind == "error":
                raise HistoryFileError(message[1])
            if kind == "fail":  # a bug in the child: the parent's crash report names it
                raise RuntimeError(f"the process reading {self.source} failed: {message[1]}")
            yield message

    def _receive(self) -> Prepared:
        head = self.stream.read(_HEAD.size)
        size = _HEAD.unpack(head)[0] if len(head) == _HEAD.size else -1
        body = self.stream.read(size) if 0 <= size <= _MAX_FRAME else b""
        if size < 0 or len(body) != size:
            code = self.process.wait()
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            raise HistoryFileError(f"{self.source}: the process reading the file stopped "
                                   f"({how}); nothing was imported")
        value: Prepared = marshal.loads(body)
        return value

    def __enter__(self) -> Child:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """End the child (if it has not ended) and wait for it."""
        if self.process.poll() is None and not self.done:
            self.process.kill()
        self.stream.close()
        self.process.wait()


def child_main() -> None:
    """The child: ``FD FORMAT SOURCE LATEST`` on its command line; frames on stdout."""
    from quiz.core.errors import QuizError
    from quiz.core.store.merge import prepare
    from quiz.core.store.validate import read_rows

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends it
    fd, fmt, source, latest = sys.argv[1:5]
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the stream

    def send(message: Prepared) -> None:
        body = marshal.dumps(message)
        try:
            out.write(_HEAD.pack(len(body)))
            out.write(body)
            out.flush()
        except OSError:  # the parent is gone (a broken pipe): nothing to do
            os._exit(1)

    try:
        with open(int(fd), encoding="utf-8-sig", newline="") as handle:
            for batch in prepare(read_rows(handle, fmt or None, source=source, fast=True),
                                 source, latest):
                send(batch)
        send(("end",))
    except QuizError as exc:
        send(("error", str(exc)))
    except BaseException as exc:  # told to the parent, which reports it
        send(("fail", f"{type(exc).__name__}: {exc}"))
