"""Start-up as a person feels it: `quiz` against the smallest Textual app, in a terminal.

Each run starts a detached tmux session of 120x40 running the command and polls
`tmux capture-pane -p` every 10 ms until the expected text is on screen: "ready" for the
baseline (an App that yields one Static); for `quiz`, the home screen's headline (first
paint) and the menu with today's counts ("home usable": the person can start). Rows
with a 100k-attempt history and a 6,500-template bank (the bundled templates copied
under new ids into a --templates folder) are built in a temp folder, plus `quiz
templates list` on that bank. The cases run alternately, so machine noise hits all
alike. Prints min / median / p99 and the ratios of medians; asserts nothing.

With a bank, `quiz drill` is also timed until its first question is on screen, with
the bundled bank and with the big one (a question to answer is what "usable" means),
and the first `templates list` of the big bank compiles it into an empty cache (one
sample).

``--without PIECE...`` adds, for each piece of latency machinery (bench/without.py),
"home usable" and "drill first question" rows without it and with everything (the
same launcher), and prints each round's ratio to the same round's "with everything".

``--cpu`` times instead the CPU of each start (``time.process_time`` of the process,
headless at 120x40, until a frame holding the text is rendered: the same texts, each
frame's terminal output rendered as the terminal driver would), alternating the same
cases: a figure a loaded machine disturbs less than the wall time in tmux. It pairs
each round's sample with the same round's minimal app.

Run: python bench/bench_startup.py [--rounds N] [--history N] [--bank N] [--compare SOURCE]
     [--without PIECE...] [--cpu]
(``--compare`` also runs a source tree of the code before a change, e.g. ``git archive
main | tar -x -C SOURCE``, for the first-paint, home-usable and drill rows, alternating
with this one sample by sample, and prints after/before ratios.)
Targets (issues 15, 30, 34): home usable and drill's first question <= 1.6x the minimal
app; home usable <= 0.3 s with 100k attempts; <= 2 s with 6,500 templates and
`templates list` <= 1 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from timing import summary

SOCKET = f"quiz-bench-{os.getpid()}"
"""A tmux server of our own (one per run: its closing ``kill-server`` must not end
another run's sessions, or anyone else's)."""

BASELINE = """\
from textual.app import App, ComposeResult
from textual.widgets import Static


class Ready(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("ready")


Ready().run()
"""


CPU_PROBE = """\
import os, sys, time
from textual.app import App

TEXTS = tuple(sys.argv[2:])
_display = App._display


def display(self, screen, renderable):  # the frame as the terminal driver writes it
    _display(self, screen, renderable)
    if renderable is not None and any(t in renderable.render_segments(self.console)
                                      for t in TEXTS):
        print(f"{time.process_time():.6f}", flush=True)
        os._exit(0)


def run(self, *args, **kwargs):
    return _run(self, *args, **{**kwargs, "headless": True, "size": (120, 40)})


App._display, _run, App.run = display, App.run, run
if sys.argv[1] == "minimal":
    from textual.widgets import Static

    class Ready(App[None]):
        def compose(self):
            yield Static("ready")

    Ready().run()
else:
    from quiz.cli import main

    sys.stdin = os.fdopen(os.openpty()[1])  # a terminal: `quiz drill` opens the app
    main(sys.argv[1].split())
sys.exit("the text never showed")
"""
"""The ``--cpu`` probe: ``python probe.py ARGS TEXT...`` runs the minimal app (ARGS
``minimal``) or ``quiz ARGS`` headless and prints the process's CPU seconds when a frame
holding any TEXT is rendered (its standard input a pseudo-terminal: `quiz drill` opens
the app only from a terminal)."""


def cpu_to_any(command: list[str], texts: tuple[str, ...]) -> float:
    """CPU seconds of ``command`` (a ``--cpu`` probe run) until any of ``texts`` shows."""
    done = subprocess.run([*command, *texts], capture_output=True, text=True, check=False,
                          timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{command}: {done.stderr.strip()[-500:]}")
    return float(done.stdout.split()[-1])


def _tmux(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True,
                          check=False)


USABLE = ("in today's drill", "Done for today.")
"""What the home shows once the menu has today's counts (the person can start)."""

QUESTION = ("left today", "again today")
"""What the drill's question screen shows beside the question's label once a question
is drawn and shown (``12 left today``, ``1 again today``). Not the keys line ("Enter
Submit"): that is composed with the screen, before its question is drawn, so waiting for
it timed an empty question screen."""


def time_to_any(command: list[str], texts: tuple[str, ...], timeout: float = 60.0) -> float:
    """Seconds from starting ``command`` in a 120x40 tmux session until any of ``texts``
    shows."""
    name = f"bench-{time.monotonic_ns()}"
    shell = " ".join(f"'{part}'" for part in command)
    start = time.perf_counter()
    started = _tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", shell)
    if started.returncode != 0:
        raise RuntimeError(f"tmux new-session failed: {started.stderr.strip()}")
    try:
        while True:
            pane = _tmux("capture-pane", "-p", "-t", name).stdout
            if any(text in pane for text in texts):
                return time.perf_counter() - start
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"none of {texts!r} appeared within {timeout}s:\n{pane}")
            time.sleep(0.01)
    finally:
        # Quit as a person does (ctrl+q) before closing the session: a killed app leaves
        # its history marked open, and the next start then checks every page of it.
        _tmux("send-keys", "-t", name, "C-q")
        deadline = time.perf_counter() + 5
        while (time.perf_counter() < deadline
               and _tmux("has-session", "-t", name).returncode == 0):
            time.sleep(0.02)
        _tmux("kill-session", "-t", name)


def big_bank(folder: Path, size: int) -> Path:
    """``size`` template files in ``folder``: the bundled ones again and again under new ids
    (each a valid template, so loading and validating them is real work)."""
    import re

    from questions.loader import bundled_files

    sources = bundled_files()
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(size):
        source = sources[i % len(sources)]
        text = source.read_text(encoding="utf-8")
        text, n = re.subn(r'^id = "([^"]+)"', rf'id = "\1-x{i}"', text, count=1, flags=re.M)
        assert n == 1, source
        (folder / f"t{i:05d}.toml").write_text(text, encoding="utf-8")
    return folder


def _wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--history", type=int, default=100_000,
                        help="attempts in the big-history rows (0: skip them)")
    parser.add_argument("--bank", type=int, default=6_500,
                        help="templates in the big-bank rows (0: skip them)")
    parser.add_argument("--compare", type=Path, default=None, metavar="SOURCE",
                        help="also run the source tree SOURCE (e.g. the code before a change, "
                        "from git archive) for the first paint and home usable, alternating, "
                        "and print the ratio of medians to it")
    parser.add_argument("--cpu", action="store_true",
                        help="time the CPU of each start, headless, instead of the wall "
                        "time in tmux (the minimal app, first paint, home usable, drill, "
                        "and with --compare the same before)")
    parser.add_argument("--without", nargs="*", default=[], metavar="PIECE",
                        help="also time home usable and drill's first question without "
                        "each PIECE of latency machinery (bench/without.py), through the "
                        "same launcher as the 'with everything' row")
    args = parser.parse_args()
    if args.cpu:
        cpu_rounds(args)
        return
    if shutil.which("tmux") is None:
        sys.exit("bench_startup needs tmux")

    from bench_history import build_history

    from quiz.tui.screens.home import TITLE_TEXT

    quiz_bin = Path(sys.executable).with_name("quiz")
    # A session that outlives the measured ones keeps the tmux server up between runs
    # (a server that is shutting down can swallow the next new-session).
    _tmux("new-session", "-d", "-s", "anchor", "sleep 3600")
    rows: dict[str, list[float]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp) / "ready_app.py"
            script.write_text(BASELINE)
            data = Path(tmp) / "data"
            build_history(data, 20)  # a person who has answered before: no welcome screen
            # Bytecode is written and used (as for an installed quiz): with
            # PYTHONDONTWRITEBYTECODE set, a source tree is compiled again at every start.
            env = ["env", "-u", "PYTHONDONTWRITEBYTECODE"]
            quiz = [*env, str(quiz_bin), "--data-dir", str(data)]
            base = [*env, sys.executable, str(script)]
            cases: dict[str, tuple[list[str], tuple[str, ...]]] = {
                "minimal Textual app": (base, ("ready",)),
                "quiz first paint": (quiz, (TITLE_TEXT,)),
                "quiz home usable": (quiz, USABLE),
            }
            cases["drill first question"] = ([*quiz, "drill"], QUESTION)
            if args.without:
                launcher = [*env, sys.executable, str(Path(__file__).with_name("without.py"))]
                for piece in ["nothing", *args.without]:
                    name = "with everything" if piece == "nothing" else f"without {piece}"
                    command = [*launcher, piece, "--data-dir", str(data)]
                    cases[f"home usable, {name}"] = (command, USABLE)
                    cases[f"drill first question, {name}"] = ([*command, "drill"],
                                                              QUESTION)
            if args.compare is not None:
                # PYTHONPATH comes before the editable install's finder: the old tree's
                # quiz, on a copy of the history (each tree keeps its own caches, which
                # may be keyed by the code that wrote them).
                old = Path(tmp) / "data-before"
                build_history(old, 20)
                before = [*env, f"PYTHONPATH={args.compare.resolve()}", str(quiz_bin),
                          "--data-dir", str(old)]
                cases["before: quiz first paint"] = (before, (TITLE_TEXT,))
                cases["before: quiz home usable"] = (before, USABLE)
                cases["before: drill first question"] = ([*before, "drill"], QUESTION)
            if args.history:
                big = Path(tmp) / "big-history"
                build_history(big, args.history)
                cases[f"home usable, {args.history:,} attempts"] = (
                    [*env, str(quiz_bin), "--data-dir", str(big)], USABLE)
            if args.bank:
                folder = big_bank(Path(tmp) / "templates", args.bank)
                cases[f"home usable, {args.bank:,} templates"] = (
                    [*quiz, "--templates", str(folder)], USABLE)
                # Usable means a question to answer: `quiz drill` until its first question.
                cases[f"drill first question, {args.bank:,} templates"] = (
                    [*quiz, "--templates", str(folder), "drill"], QUESTION)
            cold: list[float] = []
            if args.bank:
                # The first listing compiles every template (an empty cache: a new folder,
                # or the first start after an upgrade): one sample, it takes seconds.
                cold.append(_wall([*quiz, "--templates", str(folder), "templates", "list"]))
            # Warm-up: compiled bytecode, the file cache, the compiled-bank cache, today's
            # backup, the data folder.
            for command, texts in cases.values():
                time_to_any(command, texts)
            for _ in range(args.rounds):
                for name, (command, texts) in cases.items():
                    rows.setdefault(name, []).append(time_to_any(command, texts))
            if args.bank:
                listing = [*quiz, "--templates", str(folder), "templates", "list"]
                _wall(listing)
                rows[f"templates list, {args.bank:,} templates"] = [
                    _wall(listing) for _ in range(args.rounds)]
                rows[f"templates list, {args.bank:,} templates, cold cache"] = cold
    finally:
        _tmux("kill-server")  # this run's own server (see SOCKET)
    baseline = statistics.median(rows["minimal Textual app"])
    targets = {"quiz first paint": "<= 1.3x", "quiz home usable": "<= 1.6x",
               "drill first question": "<= 1.6x"}
    for name, values in rows.items():
        m = statistics.median(values)
        ratio = "" if name == "minimal Textual app" or name.startswith("templates") else \
            f"; {m / baseline:.2f}x the minimal app {targets.get(name, '')}"
        if f"before: {name}" in rows:
            ratio += f"; {m / statistics.median(rows[f'before: {name}']):.2f}x before"
        print(f"{name:<44} {summary(values)}{ratio}")
    for name in targets:  # paired: each round's sample over the same round's minimal app
        if name in rows:
            ratios = sorted(a / b for a, b in zip(rows[name], rows["minimal Textual app"],
                                                  strict=False))
            print(f"{name:<44} per-round / minimal app: n={len(ratios)}, min "
                  f"{ratios[0]:.2f}x, median {statistics.median(ratios):.2f}x, max "
                  f"{ratios[-1]:.2f}x")
    for name in rows:  # each piece against the same launcher with everything on
        if name.startswith(("home usable, without", "drill first question, without")):
            with_all = f"{name.split(', without')[0]}, with everything"
            # paired: each round's sample over the same round's "with everything"
            ratios = sorted(a / b for a, b in zip(rows[name], rows[with_all], strict=False))
            print(f"{name:<44} {statistics.median(ratios):.3f}x with everything "
                  f"(per-round ratios: n={len(ratios)}, min {ratios[0]:.3f}, "
                  f"max {ratios[-1]:.3f})")
    print("targets: home usable <= 0.3 s with 100k attempts; <= 2 s with 6,500 templates, "
          "templates list <= 1 s")


def cpu_rounds(args: argparse.Namespace) -> None:
    """``--cpu``: the minimal app, first paint, home usable and the drill (and the same
    before, with ``--compare``), CPU to the frame, alternating; paired ratios."""
    from bench_history import build_history

    from quiz.tui.screens.home import TITLE_TEXT

    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text(CPU_PROBE)
        data = Path(tmp) / "data"
        build_history(data, 20)
        base = ["env", "-u", "PYTHONDONTWRITEBYTECODE", sys.executable, str(probe)]
        trees = {"": (base, data)}
        if args.compare is not None:
            old = Path(tmp) / "data-before"
            build_history(old, 20)
            trees["before: "] = (["env", "-u", "PYTHONDONTWRITEBYTECODE",
                                  f"PYTHONPATH={args.compare.resolve()}", sys.executable,
                                  str(probe)], old)
        cases: dict[str, tuple[list[str], tuple[str, ...]]] = {
            "minimal Textual app": ([*base, "minimal"], ("ready",))}
        for prefix, (command, folder) in trees.items():
            quiz = f"--data-dir {folder}"
            cases[f"{prefix}quiz first paint"] = ([*command, quiz], (TITLE_TEXT,))
            cases[f"{prefix}quiz home usable"] = ([*command, quiz], USABLE)
            cases[f"{prefix}drill first question"] = ([*command, f"{quiz} drill"], QUESTION)
        for command, texts in cases.values():  # warm-up: bytecode, caches, backups
            cpu_to_any(command, texts)
        for _ in range(args.rounds):
            for name, (command, texts) in cases.items():
                rows.setdefault(name, []).append(cpu_to_any(command, texts))
    print(f"CPU to the frame, headless 120x40 (load at the end {os.getloadavg()[0]:.1f})")
    minimal = rows["minimal Textual app"]
    for name, values in rows.items():
        ratios = sorted(a / b for a, b in zip(values, minimal, strict=True))
        line = (f"{name:<36} {summary(values)}; per round / minimal app: median "
                f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f})")
        if f"before: {name}" in rows:
            after = sorted(a / b for a, b in zip(values, rows[f"before: {name}"],
                                                 strict=True))
            line += (f"; after / before per round: median {statistics.median(after):.2f}x "
                     f"({after[0]:.2f}-{after[-1]:.2f})")
        print(line)


if __name__ == "__main__":
    main()
