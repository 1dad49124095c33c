"""Helpers shared by the unit tests (importable as `helpers`: pytest puts this folder on
the path)."""

from __future__ import annotations

import itertools
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from typing import Any

import pytest

from questions.catalog import Catalog, build
from questions.loader import Bank, bank_files
from quiz.cli import main
from quiz.core.schedule import Drill, Rating, rating_for
from quiz.core.store import Attempt

FULL = os.environ.get("QUIZ_FUZZ") == "full"
"""The fuzz profile: ``QUIZ_FUZZ=full`` (what `.ci/run` sets) digs deep; unset, the local
suite stays quick (the README's ``pytest``: a few minutes on two cores)."""


def per_profile(local: int, full: int) -> int:
    """How many examples (or seeds) a property runs: ``local`` by default, ``full``
    under ``QUIZ_FUZZ=full``. The local figure still exercises every path the property
    guards; CI's sweep is the one that finds a rare draw."""
    return full if FULL else local


def seeds(local: int, full: int) -> range:
    """The seeds a property over the whole bank draws: 0..local-1 by default,
    0..full-1 under ``QUIZ_FUZZ=full``."""
    return range(per_profile(local, full))


FUZZ_EXAMPLES = per_profile(300, 10_000)
"""Examples per fuzz property: a few hundred locally, the full 10,000 in CI (`.ci/run`
sets QUIZ_FUZZ=full), so the local suite stays quick and CI still digs deep."""


@cache
def bundled_catalog() -> Catalog:
    """The bundled bank (and installed packs) compiled once per test process, without a
    cache: what ``load_bank()`` builds. Treat it as read-only."""
    return build(bank_files([]))


@cache
def bundled_bank() -> Bank:
    """The bundled bank of :func:`bundled_catalog`, loaded once per test process: what
    ``load_bank()`` returns, shared by every module that reads it (each used to compile
    the whole bank again when it was imported, about a fifth of collecting the suite).
    Treat it as read-only."""
    return bundled_catalog().bank()

def spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str,
        pick: Callable[..., Any] = lambda *args, **kw: args[0]) -> list[Any]:
    """Wrap ``owner.name`` so that every call still runs it and is noted (by default its
    first argument) in the returned list: how often, and on what, code is called."""
    real = getattr(owner, name)
    calls: list[Any] = []

    def noted(*args: Any, **kw: Any) -> Any:
        calls.append(pick(*args, **kw))
        return real(*args, **kw)

    monkeypatch.setattr(owner, name, noted)
    return calls


# UTC-5 without DST: local days differ from UTC days between 19:00 and 24:00 local.
LOCAL = timezone(timedelta(hours=-5))
T0 = datetime(2025, 3, 10, 15, 0, tzinfo=UTC)  # 10:00 local on 2025-03-10


class Clock:
    """A settable wall clock (aware datetimes) for the store and the scheduler."""

    def __init__(self, now: datetime) -> None:
        self.value = now

    def __call__(self) -> datetime:
        return self.value


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `quiz ARGV...` in-process: (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@dataclass(frozen=True)
class Recorded:
    """What :func:`record` stored: the attempt's id, and the rating and next due time
    of its card (None when no review happened)."""

    attempt_id: int
    rating: Rating | None
    due: datetime | None


def record(drill: Drill, attempt: Attempt, *, review: bool = True,
           expected_seconds: float = 90.0) -> Recorded:
    """Store a single-part answer and review its card, as a session does for one.

    The attempt is committed first, on its own, then the card is rated and reviewed.
    """
    attempt_id = drill.store.record_attempt(attempt)
    if not review:
        return Recorded(attempt_id, None, None)
    rating = rating_for(attempt.verdict, attempt.seconds, attempt.hints_used,
                        expected_seconds)
    assert rating is not None  # record_attempt refused "invalid" already
    due = drill.review(attempt.template_id, rating, attempt.answered_at,
                       attempt_id=attempt_id)
    return Recorded(attempt_id, rating, due)


class Hang(Exception):
    """A hostile case used more CPU than any case may (a hang detector, not a timing)."""


@contextmanager
def cpu_guard(seconds: float = 10.0, wall: float = 60.0) -> Iterator[None]:
    """Fail a case that burns `seconds` of CPU, or blocks for `wall` seconds, instead of
    letting it run for minutes or forever.

    The code under test enforces its own limits (deadlines, sizes); this only turns a
    regression into a failure instead of a stuck test run. Linux/macOS only.
    """
    def hang(signum: int, frame: object) -> None:
        raise Hang(f"over {seconds} s of CPU or {wall} s of waiting")

    previous = (signal.signal(signal.SIGVTALRM, hang), signal.signal(signal.SIGALRM, hang))
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    signal.setitimer(signal.ITIMER_REAL, wall)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGVTALRM, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


def race_the_clocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clocks that jump 1,000 s at each reading (the CPU clocks and ``perf_counter``):
    a machine as slow or as loaded as can be, as seen by anything that times itself. A
    result must not change under them (issue 30); ``monotonic`` is left alone (the
    standard library's waits and timeouts read it)."""
    for name in ("thread_time", "process_time", "perf_counter"):
        ticks = itertools.count(0.0, 1000.0)
        monkeypatch.setattr(time, name, lambda ticks=ticks: next(ticks))
    assert time.thread_time() + 1 < time.thread_time()
