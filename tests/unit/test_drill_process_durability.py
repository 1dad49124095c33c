"""A real `quiz drill` process, killed with SIGKILL mid-drill, loses no answered question."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from questions.catalog import load_bank
from questions.variants import make_variant
from quiz.core.store import Store

LABEL = re.compile(r"^\[([a-z0-9_/-]+)#(\d+)")


def _read_until(proc: subprocess.Popen[str], pattern: str) -> list[str]:
    assert proc.stdout is not None
    lines: list[str] = []
    while True:
        line = proc.stdout.readline()
        assert line, f"process ended early: {lines}"
        lines.append(line)
        if re.search(pattern, line):
            return lines


def test_killed_drill_process_keeps_every_answered_question(tmp_path: Path) -> None:
    bank = load_bank()
    env = {**os.environ, "QUIZ_DATA_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "quiz.cli", "drill", "--plain"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdin is not None
    # A watchdog: if the drill ever waits for something the test does not send, kill it
    # so that readline() sees end-of-file and the test fails instead of hanging.
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    answered = 0
    try:
        for _ in range(3):
            lines = _read_until(proc, r"^\[")
            tid, seed = LABEL.match(lines[-1]).groups()  # type: ignore[union-attr]
            key = make_variant(bank.get(tid), int(seed)).parts[0].key.display
            # An unreadable line first: it must not become an attempt.
            proc.stdin.write("!!nonsense!!\n")
            proc.stdin.flush()
            _read_until(proc, r"no attempt used")
            proc.stdin.write(key + "\n")
            proc.stdin.flush()
            _read_until(proc, r"^(> )?(CORRECT|PARTIAL|INCORRECT)")
            answered += 1
    finally:
        watchdog.cancel()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    with Store.open(tmp_path / "history.db") as store:
        attempts = store.attempts()
        assert store.integrity_ok() and store.recovered_from is None
    assert len(attempts) == answered == 3
    assert {a.verdict for a in attempts} == {"correct"}
