"""Compiling many template files in several processes (a cold bank of thousands).

Why it is kept (bench/bench_bank.py ``pool``, paired in one run): the first full build
of a 6,500-template bank takes 0.64x the wall time on two processes that it takes on
one (n = 3, 0.58-0.72; the CPU is the same), over the 15% a piece of machinery must
buy. It serves a full build only (loading the bank, the app's first start, ``quiz
templates test``): listing summarizes instead of compiling.

Plain processes rather than :mod:`multiprocessing`, which runs the main script again in
each process: a script that loads a bank without a ``__main__`` guard would run twice
over.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from questions.compiling import Writes, compile_file

if TYPE_CHECKING:
    from questions.compiling import Entry
    from questions.loader import Problem
    from questions.schema import Template


Job = tuple[str, str, int]
"""A file to compile: its path, stamp and modification time."""

_Compiled = tuple["Entry | None", "list[Problem]", "Template | None"]
"""What compiling a file gave: its entry (None: it has problems), its problems, and
the template when compiled in this process."""

PER_PROCESS = 1000
"""Files to compile for each process: starting one costs what compiling ~500 does
(it imports pydantic, the schema and the solver), so a process takes on a share only
when it is well over that."""


def compile_all(stale: list[Job], writes: Writes) -> dict[str, _Compiled]:
    """Compile the files whose stamp changed; with many of them, in several processes.

    A cold cache of thousands of templates (a new folder, or any upgrade, which drops
    the cache) costs about 1.2 ms of CPU a file: ``tomllib`` about half of it, the
    solver checks a third, pydantic the rest, each file on its own. Threads cannot share
    that out (it is pure Python); processes can, one per core, this one included.
    Templates compiled in another process come back as cached data, validated again
    when first used: the catalog and the cache are the same as compiling them here.
    """
    if not stale:  # a warm cache: nothing to compile, no processes to think of
        return {}
    count = min(_cores(), len(stale) // PER_PROCESS)
    done: dict[str, _Compiled] = {}
    shares = [stale[i::count] for i in range(count)] if count >= 2 else [stale]
    with _in_processes(shares[1:], writes.now) as answers:
        for name, current, mtime in shares[0]:
            done[name] = compile_file(name, current, mtime, writes)
        for results, made in answers():
            writes.merge(made)
            done.update((name, (entry, problems, None)) for name, entry, problems in results)
    for name, current, mtime in stale:  # what a process could not do
        if name not in done:
            done[name] = compile_file(name, current, mtime, writes)
    return done


def _cores() -> int:
    """The processors this process may run on that are idle, counting its own: on a
    busy machine another process only adds the cost of starting it."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        busy = int(os.getloadavg()[0])  # this process's own core is among them
    except (AttributeError, OSError):  # Windows, or no load figure
        return cores
    return max(1, min(cores, cores - busy + 1))


_Done = tuple[list[tuple[str, "Entry | None", "list[Problem]"]], "Writes"]


@contextlib.contextmanager
def _in_processes(shares: list[list[Job]], now: int) -> Iterator[
        Callable[[], Iterator[_Done]]]:
    """Start a Python process for each share (:func:`serve`), working while this one
    does its own; then the answers as each finishes. A process that fails gives none
    (its files are compiled here); none outlives the block (Ctrl+C, a quit).

    """
    import pickle
    import subprocess
    import sys

    env = dict(os.environ)  # this copy of questions, wherever it is imported from
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    started: list[subprocess.Popen[bytes]] = []

    def answers() -> Iterator[_Done]:
        for process in started:
            assert process.stdout is not None
            try:
                data = process.stdout.read()
                if process.wait() == 0:
                    yield pickle.loads(data)  # our own process's answer
            except (OSError, pickle.UnpicklingError, EOFError):
                continue

    try:
        for share in shares:
            try:
                process = subprocess.Popen(
                    [sys.executable, "-c", "from questions.bankpool import serve; serve()"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL, env=env)
            except OSError:  # no processes here (a sandbox): the rest in this one
                break
            started.append(process)
            assert process.stdin is not None
            with contextlib.suppress(OSError), process.stdin:
                pickle.dump((share, now), process.stdin)
        yield answers
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait()


def serve() -> None:
    """The other end of :func:`_in_processes`: read files to compile from stdin, write
    what compiling them gave to stdout."""
    import pickle
    import signal
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is for the command
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # see quiz.cli.main
    jobs, now = pickle.load(sys.stdin.buffer)
    writes = Writes(now)
    results = []
    for name, current, mtime in jobs:
        entry, problems, _ = compile_file(name, current, mtime, writes)
        results.append((name, entry, problems))
    pickle.dump((results, writes), sys.stdout.buffer)
