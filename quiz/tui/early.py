"""Today's figures from a helper process, computed while the app imports Textual.

`quiz` spends most of its start-up importing Textual and painting the first frame, and
all of that runs on one core. The home's figures (importing the history's queries,
opening it, reading the template ids, counting today's drill: some 40 ms) used to follow
on that same core, after the first frame. :func:`start` forks, before Textual is
imported, a child that computes them on another core and writes them to a pipe; the
app's start-up worker reads them (:meth:`EarlyFigures.result`) after the first frame and
shows them at once, then opens the history itself as before (issue 15).

The child changes nothing and decides nothing. It computes only when the history was
closed cleanly, so that opening it reads no pages, migrates nothing and repairs nothing
(``open_folder(repair=False)``: a problem is an error, never a file moved aside), and
when the drill's daily limits are cached (the settings file is unchanged since the
settings model last read it). Anything else, and any error, ends it without an answer,
and the app computes the figures itself, exactly as before. It closes the history before
it answers, so the app's own open finds the clean-close mark again and skips the check
of every page. It runs only where ``fork`` is safe and cheap (Linux) and only while the
process has a single thread.

Importing this module costs nothing: the child imports what it needs after the fork.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from quiz.tui.today import HomeSummary

WAIT = 20.0
"""Most seconds the app waits for the child's answer (it usually has it before the
first frame). Past that the child is stopped and the app computes the figures itself.
Generous: the child does what the app would do in its place, and with a big bank that
was never compiled (a new folder, an upgrade) that is seconds of compiling, which
stopping it would only start again."""


SHARED = ("dataclasses", "datetime", "difflib", "tempfile", "typing_extensions")
"""Modules the child needs that Textual imports anyway (some 15 ms of the child's 50):
imported before the fork, the child has them for nothing and the app pays no more."""

class Figures(NamedTuple):
    """What the home needs to be usable: the payload of ``HomeReady``."""

    first_run: bool
    """No answer is stored yet (the welcome screen shows)."""
    template_ids: list[str]
    """Every template's id, from the compiled-bank cache."""
    summary: HomeSummary
    """Today's figures."""


def compute(data_dir: str | Path | None, template_dirs: Sequence[str]) -> Figures | None:
    """Today's figures, or None when they must be left to the app (the history was not
    closed cleanly, the settings file changed since its limits were cached).

    This is what the child runs; it changes nothing in the data folder but what the app
    itself writes when it opens it (the compiled-bank and packs caches, the clean-close
    mark, which it puts back on closing).

    Raises:
        StoreError: the history cannot be opened as it is (the app finds out why).
        Exception: anything else that went wrong (the app tries for itself).
    """
    from quiz import locations
    from quiz.core.state import cached_limits, catalog_for, open_folder
    from quiz.core.store import recovery
    from quiz.tui.today import home_summary

    if not recovery.closed_cleanly(locations.db_path(locations.data_dir(data_dir))):
        return None  # a crash, another quiz running, a first start: the app checks it
    folder = open_folder(data_dir, template_dirs, repair=False)
    try:
        limits = cached_limits(folder)
        if limits is None:
            return None  # the settings model reads the file first (pydantic)
        ids = list(catalog_for(folder).ids)
        first_run = not folder.store.has_attempts()
        summary = home_summary(folder.store, limits, ids, None)
    finally:
        folder.store.close()
    return Figures(first_run, ids, summary)


class EarlyFigures:
    """The parent's end of the helper process started by :func:`start`."""

    def __init__(self, pid: int, fd: int) -> None:
        self._pid: int | None = pid
        self._fd: int | None = fd

    def done(self) -> bool:
        """Whether the child has answered (or ended) already: :meth:`result` would not
        wait."""
        import select

        return self._fd is not None and bool(select.select([self._fd], [], [], 0)[0])

    def result(self, timeout: float = WAIT) -> Figures | None:
        """The child's figures, or None (it had none, it failed, or it took longer than
        ``timeout`` seconds and was stopped). Only the first call reads them; later
        calls return None."""
        import pickle
        import select

        fd, self._fd = self._fd, None
        if fd is None:
            return None
        chunks: list[bytes] = []
        finished = False
        try:
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    break
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    finished = True
                    break
                chunks.append(chunk)
        except OSError:
            finished = False
        finally:
            os.close(fd)
            self._reap(stop=not finished)
        if not finished or not chunks:
            return None
        try:
            figures = pickle.loads(b"".join(chunks))  # our own child's bytes, our pipe
        except Exception:
            return None
        return figures if isinstance(figures, Figures) else None

    def close(self) -> None:
        """Read the answer if nobody did (the app quit at once): the child closes the
        history it opened (keeping the clean-close mark) before it answers, so once the
        answer is read the history is the app's alone."""
        self.result()
        self._reap(stop=False)

    def _reap(self, *, stop: bool) -> None:
        """Stop the child (``stop``) and collect its exit; a child that has answered and
        has not ended yet is collected later, or by no one (it is detached)."""
        pid = self._pid
        if pid is None:
            return
        try:
            if stop:
                import signal

                os.kill(pid, signal.SIGKILL)
            if os.waitpid(pid, 0 if stop else os.WNOHANG) == (0, 0):
                return  # still running: not waited for
        except OSError:
            pass  # already collected
        self._pid = None


def start(data_dir: str | Path | None, template_dirs: Sequence[str]) -> EarlyFigures | None:
    """Fork a child that computes today's figures (:func:`compute`) and writes them to a
    pipe; None where that is not done (not Linux, another thread running, no fork, or
    the environment says ``QUIZ_HELPER=0``: the app then computes them itself, as the
    benchmark's "no helper" row does).

    Call it before importing Textual: the child should not inherit what it does not
    need, and the point is that it runs while Textual is being imported.
    """
    import importlib
    import threading

    if (sys.platform != "linux" or threading.active_count() != 1
            or os.environ.get("QUIZ_HELPER") == "0"):
        return None
    for name in SHARED:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: never returns
        _child(read, write, data_dir, template_dirs)
    os.close(write)
    return EarlyFigures(pid, read)


def _child(read: int, write: int, data_dir: str | Path | None,
           template_dirs: Sequence[str]) -> None:
    """Compute, answer, and end the process without running the parent's exit code
    (flushing its buffers, its exit handlers)."""
    try:
        os.close(read)
        # Out of the terminal the app is about to take over: nothing to read from or
        # draw on, and no signal of its job.
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        figures = compute(data_dir, template_dirs)
        if figures is not None:
            import pickle

            data = memoryview(pickle.dumps(figures))
            while data:
                data = data[os.write(write, data):]
        os.close(write)  # the end of the answer now, not when the process is gone
    finally:
        os._exit(0)
