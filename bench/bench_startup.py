"""Time to first screen: `quiz` against the smallest Textual app, in a real terminal.

Each run starts a detached tmux session of 120x40 running the command and polls
`tmux capture-pane -p` every 10 ms until the expected text is on screen: the home
screen's headline for `quiz`, "ready" for the baseline (an App that yields one
Static). The two run alternately, so machine noise hits both alike. Prints the
medians and their ratio (target <= 1.3x); asserts nothing.

Run: python bench/bench_startup.py [--rounds N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOCKET = "quiz-bench"
"""A tmux server of our own, so the user's sessions are never touched."""

BASELINE = """\
from textual.app import App, ComposeResult
from textual.widgets import Static


class Ready(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("ready")


Ready().run()
"""


def _tmux(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True,
                          check=False)


def time_to_text(command: list[str], text: str, timeout: float = 30.0) -> float:
    """Seconds from starting ``command`` in a 120x40 tmux session until ``text`` shows."""
    name = f"bench-{time.monotonic_ns()}"
    shell = " ".join(f"'{part}'" for part in command)
    start = time.perf_counter()
    started = _tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", shell)
    if started.returncode != 0:
        raise RuntimeError(f"tmux new-session failed: {started.stderr.strip()}")
    try:
        while True:
            pane = _tmux("capture-pane", "-p", "-t", name).stdout
            if text in pane:
                return time.perf_counter() - start
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"{text!r} did not appear within {timeout}s:\n{pane}")
            time.sleep(0.01)
    finally:
        _tmux("kill-session", "-t", name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("bench_startup needs tmux")

    from quiz.tui.screens.home import TITLE_TEXT

    quiz_bin = Path(sys.executable).with_name("quiz")
    # A session that outlives the measured ones keeps the tmux server up between runs
    # (a server that is shutting down can swallow the next new-session).
    _tmux("new-session", "-d", "-s", "anchor", "sleep 3600")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "ready_app.py"
        script.write_text(BASELINE)
        data = Path(tmp) / "data"
        quiz = [str(quiz_bin), "--data-dir", str(data)]
        base = [sys.executable, str(script)]
        # Warm-up: compiled bytecode, the file cache, and quiz's data folder (so that
        # the first-run welcome is not part of what is measured).
        time_to_text(base, "ready")
        time_to_text(quiz, TITLE_TEXT)
        a, b = [], []
        for _ in range(args.rounds):
            b.append(time_to_text(base, "ready"))
            a.append(time_to_text(quiz, TITLE_TEXT))
    _tmux("kill-server")
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"time to first screen, median of {args.rounds}: quiz {ma * 1000:.0f} ms; "
          f"minimal Textual app {mb * 1000:.0f} ms; ratio {ma / mb:.2f}x (target <= 1.3x)")


if __name__ == "__main__":
    main()
