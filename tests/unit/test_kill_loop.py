"""A SIGKILL loop: 32 writers killed mid-answer while two others keep writing.

Each writer (a forked process) answers like a session does (an attempt, then its template's card and
review log) and prints ``ok LABEL N`` only after the attempt is committed: that line is
the acknowledgement a person would see. Every acknowledged attempt must be in the
history afterwards, the file must pass ``PRAGMA integrity_check``, and nothing may have
been taken for corruption and moved aside.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from quiz.core.store import Store

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

KILLS = 32

def write_forever(db: Path, label: str, out: int, pause: float) -> None:
    """The child: answer again and again, acknowledging each committed attempt."""
    import time
    from datetime import UTC, datetime

    from quiz.core.errors import StoreError
    from quiz.core.store import Attempt, Review

    store = Store.open(db)
    n = 0
    while True:
        try:
            attempt_id = store.record_attempt(Attempt(
                template_id=f"memory/t{n % 5}", template_version=1, seed=n, mode="drill",
                answer_text=f"{label}:{n}", verdict="correct", score=1.0, topic="memory",
                answered_at=datetime.now(UTC), seconds=1.0))
        except StoreError:  # a lock held too long on a busy machine: try again, as a
            continue        # person would (the plain drill and the TUI offer a retry)
        os.write(out, f"ok {label} {n}\n".encode())
        with contextlib.suppress(StoreError):  # the answer is saved, as in a session
            store.put_card(f"memory/t{n % 5}", f'{{"due": "{n}"}}',
                           Review(template_id=f"memory/t{n % 5}", rating=3, state_before=0,
                                  reviewed_at=datetime.now(UTC), attempt_id=attempt_id))
        n += 1
        time.sleep(pause)


class Writer:
    """A forked writer process (no interpreter start-up: 32 kills stay fast) and the
    answers it acknowledged."""

    def __init__(self, db: Path, label: str, pause: float = 0.0) -> None:
        self.label = label
        self.acked: set[str] = set()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child never returns into pytest
            try:
                os.close(read_end)
                write_forever(db, label, write_end, pause)
            finally:
                os._exit(1)
        os.close(write_end)
        self.pid = pid
        self.stream = os.fdopen(read_end, "r")
        # A hang detector: a writer that blocks forever is killed, and the test fails.
        self.watchdog = threading.Timer(120, self._kill_quietly)
        self.watchdog.start()

    def _kill_quietly(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def read(self, count: int) -> None:
        for _ in range(count):
            line = self.stream.readline()
            assert line.startswith("ok "), f"writer {self.label} stopped: {line!r}"
            self.acked.add(line.split()[1] + ":" + line.split()[2])

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        _, status = os.waitpid(self.pid, 0)
        self.watchdog.cancel()
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        rest = self.stream.read()  # acknowledgements already in the pipe count too
        self.stream.close()
        self.acked |= {f"{w[1]}:{w[2]}" for w in (x.split() for x in rest.splitlines())
                       if len(w) == 3 and w[0] == "ok"}


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A RAM-backed folder where there is one: a kill, unlike a power cut, never loses
    what the kernel already has, so fsync's cost (seconds per test on a busy disk)
    buys this test nothing."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=shm) as name:
        yield Path(name)


def test_sigkills_mid_answer_with_concurrent_writers_lose_no_acknowledged_answer(
    folder: Path,
) -> None:
    db = folder / "history.db"
    Store.open(db).close()
    rng = random.Random(11)
    # Two writers that keep answering, at a (fast) human pace, through all the kills.
    steady = [Writer(db, "steady-a", 0.01), Writer(db, "steady-b", 0.01)]
    acked: set[str] = set()
    for i in range(KILLS):
        victim = Writer(db, f"k{i}")
        victim.read(rng.randint(1, 4))  # then killed in the middle of its next answer
        for w in steady:
            w.read(1)
        victim.kill()
        acked |= victim.acked
    for w in steady:
        w.kill()
        acked |= w.acked
    with Store.open(db) as store:
        assert store.recovered_from is None  # a kill is never taken for damage
        assert store.integrity_ok()
        stored = {a.answer_text for a in store.attempts()}
    assert len(acked) >= KILLS + 2 * KILLS
    assert acked <= stored
    assert not list(folder.glob("*.corrupt-*"))
