"""The self-test of many templates across processes (``quiz templates test``).

One template's self-test shares nothing with another's, and the whole bank at 100 seeds
is seconds of CPU (from a millisecond to a second or two per template), so
:func:`check_all` hands the templates to one process per CPU and gives the results back
in the order asked: the report is the same, byte for byte, whatever the number of
processes. One process (``workers=1``), or a single template, runs here, with no pool.

Workers are forked where the platform allows it and this process runs no other thread:
they start at once, with the bank and the solver's caches already loaded. Elsewhere
they are spawned and load the bank again (``reload``).

Ctrl+C stops every worker and raises ``KeyboardInterrupt`` here: workers ignore the
interrupt themselves (the terminal sends it to all of them), so none prints a traceback.
The stop does not wait on a worker that outlives its SIGTERM (one that inherited an
ignored SIGTERM from whatever started ``quiz``: a worker that never dies left the pool's
shutdown waiting for it forever): after :data:`STOP_GRACE_S` it is killed.

Why it is kept (bench/bench_bank.py ``checkpool``, paired in one run): ``quiz templates
test`` of 30 templates at the default 20 seeds takes 0.77x the wall time on two workers
that it takes on one (n = 3, on a loaded 2-core machine; 1.2x the CPU), over the 15% a
piece of machinery must buy; a bank's self-test is about 0.25 s of CPU per template.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from quiz.core.errors import QuizError

if TYPE_CHECKING:
    from questions.loader import Bank
    from quiz.core.authoring import Checked
    from quiz.core.selftest import Bodies

__all__ = ["Job", "check_all", "default_workers"]


@dataclass(frozen=True)
class Job:
    """One template to self-test.

    Attributes:
        source: its file.
        template_id: the id of a bank template, checked as the bank loaded it; None:
            the file is read and checked on its own (``quiz templates test FILE``).
        cost: a guess at its share of the work (any scale): the dearest start first,
            so that no worker is left with a long one when the others are done.
        group: jobs of one group run in one worker, one after the other (None: a
            group of its own). The copies of one template body are a group: a worker
            checks each draw of a body once (:class:`quiz.core.selftest.Bodies`), and
            a body whose copies were spread over two workers had the draws they share
            checked on both.
    """

    source: str
    template_id: str | None = None
    cost: float = 0.0
    group: str | None = None


def default_workers() -> int:
    """One process per CPU this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux: every CPU of the machine
        return os.cpu_count() or 1


def check_all(jobs: Sequence[Job], seeds: int, workers: int, bank: Bank | None = None,
              reload: Callable[[], Bank] | None = None) -> list[Checked]:
    """Self-test each job over `seeds` seeds on up to `workers` processes.

    Args:
        jobs: the templates, in the order their results are returned.
        seeds: seeds per template.
        workers: processes to use (at most one per job; 1: this process only).
        bank: the bank that jobs with a ``template_id`` come from.
        reload: loads that bank again in a spawned worker (picklable, e.g. a
            ``functools.partial`` of :func:`questions.catalog.load_bank`).

    Raises:
        QuizError: a worker process died (killed, or out of memory).
        KeyboardInterrupt: Ctrl+C; every worker has been stopped.
    """
    from quiz.core.selftest import Bodies

    groups = _groups(jobs)
    workers = max(1, min(workers, len(groups)))
    if workers == 1:
        bodies = Bodies()  # copies of a template (equal but for the id) share findings
        return [_check(job, seeds, bank, bodies) for job in jobs]
    global _BANK
    method = "fork" if _can_fork() else "spawn"
    if method == "fork":
        _BANK = bank  # inherited by the forked workers
    try:
        pool = ProcessPoolExecutor(workers, multiprocessing.get_context(method),
                                   initializer=_start, initargs=(reload,))
        try:
            futures: list[tuple[list[int], Future[list[Checked]]]] = []
            with _interrupts_held():  # a worker must ignore Ctrl+C before it can get one
                for group in sorted(groups, key=lambda g: -sum(jobs[i].cost for i in g)):
                    futures.append((group, pool.submit(_check_here,
                                                       [jobs[i] for i in group], seeds)))
            done: dict[int, Checked] = {}
            for group, future in futures:
                done.update(zip(group, future.result(), strict=True))
            return [done[i] for i in range(len(jobs))]
        except BrokenProcessPool as exc:
            raise QuizError(f"a self-test process stopped unexpectedly ({exc}); try "
                            "--workers 1") from None
        except BaseException:  # Ctrl+C (or a bug): stop the workers, not just the queue
            _stop(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        _BANK = None


_BANK: Bank | None = None
"""The bank of a worker process (forked: the parent's; spawned: loaded again)."""

_BODIES: Bodies | None = None
"""What a worker process found of the template bodies it checked
(:class:`quiz.core.selftest.Bodies`), its own."""


def _can_fork() -> bool:
    # Forking a process that runs other threads can copy a lock another thread holds.
    return "fork" in multiprocessing.get_all_start_methods() and \
        threading.active_count() == 1


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl+C back while workers start (they inherit the mask, forked or spawned,
    and unblock it once they ignore it); this process gets it when the block ends (or
    as the block begins, when it came just before: the mask is restored either way)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start(reload: Callable[[], Bank] | None) -> None:
    """A worker's start: ignore Ctrl+C (the parent stops the workers), stop at SIGTERM
    (even where this process was started with it ignored), load the bank."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    global _BANK, _BODIES
    if _BANK is None and reload is not None:
        _BANK = reload()
    from quiz.core.selftest import Bodies

    _BODIES = Bodies()


STOP_GRACE_S = 2.0
"""How long a stopped worker has to end at SIGTERM before it is killed."""


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now, even one halfway through a template, and wait until each
    has ended: the pool's shutdown waits for every running template of a worker still
    alive (with ``--seeds 100000``, for good)."""
    # ProcessPoolExecutor has no public way to stop its workers before Python 3.14.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.exitcode is None:  # SIGTERM ignored, or not handled yet
            process.kill()
            process.join()


def _groups(jobs: Sequence[Job]) -> list[list[int]]:
    """The jobs' indexes by :attr:`Job.group`, each group in the order given."""
    out: dict[object, list[int]] = {}
    for i, job in enumerate(jobs):
        out.setdefault(i if job.group is None else job.group, []).append(i)
    return list(out.values())


def _check_here(jobs: Sequence[Job], seeds: int) -> list[Checked]:
    return [_check(job, seeds, _BANK, _BODIES) for job in jobs]


def _check(job: Job, seeds: int, bank: Bank | None, bodies: Bodies | None) -> Checked:
    """One job's self-test, every problem located in its file."""
    from questions.loader import TemplateFileError, read_template_text
    from quiz.core.authoring import Checked, check_file, check_loaded

    if job.template_id is None:
        return check_file(Path(job.source), seeds, bodies)
    assert bank is not None, "a bank template's job needs its bank"
    try:
        text = read_template_text(Path(job.source))
    except TemplateFileError as exc:  # changed or removed since the bank loaded
        return Checked(job.template_id, job.source, 0, problems=list(exc.problems))
    return check_loaded(bank.templates[job.template_id], job.source, text, seeds, bodies)
