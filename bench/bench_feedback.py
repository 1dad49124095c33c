"""Enter -> feedback painted, per answer kind, as a person feels it.

The app runs headless with the bundled bank (as in ``bench_tui.py``, whose frame hook
it uses): each sample is the time from the Enter (Ctrl+D for a paragraph) to the last
frame it caused, so grading, storing, building the feedback and painting it all count.
Practice sessions of one kind at a time (single-part templates of that kind) answer a
first question and ``--block`` more each, kinds taking turns, alternating the key and a
wrong answer (another variant's key), so the feedback of both verdicts is timed. The
first Enter of every session is also reported on its own ("first of a session"), and
``--cold`` runs time the very first Enter of a fresh process, once per kind per run.

Baseline, paired: after every sample the same app pushes a screen of one Static (the
cost of any screen change in this app), so ratios compare medians taken side by side.
Prints min / median / p99 (or max under 100 samples); asserts nothing.

Garbage collection, per sample: the wall time spent in full (generation-2) collections
between the Enter and the last frame it caused, read from ``gc.callbacks``. The summary line
says how many samples had one and the largest such pause, and the tail line lists the
slowest samples with the collection time inside each: a p99 made of GC pauses shows here.

Frames, per sample: how many the Enter painted and how long after the first the last one
came. The feedback is laid out once and painted twice in the same update (the layout's
frame, then the full repaint a screen just shown asks for): a later frame is another
update, which the person waits for.

Reading time: after each feedback is painted the bench waits ``--read`` seconds (0.3 by
default) before pressing Enter, as anyone does who reads a verdict: the app uses that
moment for its garbage collection (``quiz.tui.heap``). ``--read 0`` moves on at machine
speed, which no person does.

Run: python bench/bench_feedback.py [--answers 100] [--block 10] [--cold 3] [--size 120x40]
     [--read 0.3]
Target (issue 15): Enter -> feedback p99 <= 100 ms, every kind.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_tui import FullCollections, OneStatic, _push, fresh_app, gc_line, timed, until_quiet
from timing import percentile, summary

KINDS = ("number", "formula", "choice", "multi", "table", "layout", "spoken")


def kind_ids(bank: Any) -> dict[str, list[str]]:
    """Single-part templates by the kind of their answer."""
    from questions.variants import make_variant

    out: dict[str, list[str]] = defaultdict(list)
    for tid, t in sorted(bank.templates.items()):
        parts = make_variant(t, 1).parts
        if len(parts) == 1:
            out[parts[0].kind].append(tid)
    return out


def frames_line(painted: list[tuple[int, float]]) -> str:
    """How many frames each Enter painted, and how long after its first the last came
    (one layout paints twice in the same tick; a later frame is a second update)."""
    counts = Counter(n for n, _ in painted)
    spread = [s for _, s in painted]
    shares = ", ".join(f"{n}: {c}" for n, c in sorted(counts.items()))
    return (f"frames per Enter {{{shares}}}; last frame after the first: "
            f"median {statistics.median(spread) * 1e3:.1f} ms, "
            f"max {max(spread) * 1e3:.1f} ms")


WRONG = {"number": "42", "formula": "2*x", "choice": "a", "multi": "a", "table": "dp: -",
         "layout": "tp=1 pp=1 mb=1 zero=0", "spoken": "It needs about 1 GB."}
"""Fallback wrong answers, for kinds whose key is the same in every variant."""


def wrong_answer(question: Any) -> str:
    """A readable answer other than the key: another variant's key if it differs,
    else a fixed one (the key itself if neither reads)."""
    from questions.variants import make_variant
    from quiz.core.grading import read_answer
    from quiz.core.reading import Unreadable

    part = question.part
    key = part.key.display
    tries = [make_variant(question.template, seed).parts[part.index - 1].key.display
             for seed in range(question.variant.seed + 1, question.variant.seed + 8)]
    for text in [*tries, WRONG.get(part.kind, "1")]:
        if text == key:
            continue
        try:
            read_answer(part, text)
        except Unreadable:
            continue
        return str(text)
    return str(key)


async def answer(app: Any, pilot: Any, frames: list[float], text: str) -> float:
    """Type ``text`` into the showing question and time Enter -> feedback painted."""
    from quiz.tui.screens.feedback import FeedbackScreen
    from quiz.tui.widgets.answer_box import AnswerBox

    box = app.screen.query_one(AnswerBox)
    if box.multiline:
        box.paragraph.text = text
        key = "ctrl+d"
    else:
        box.input.cursor_blink = False
        box.input.value = text
        key = "enter"
    await until_quiet(pilot, lambda: True)
    return await timed(pilot, frames, lambda: pilot.press(key),
                       lambda: isinstance(app.screen, FeedbackScreen))


def asking(app: Any) -> bool:
    from quiz.tui.screens.question import QuestionScreen

    s = app.screen
    return isinstance(s, QuestionScreen) and s.question is not None and not s.busy


async def run(answers: int, block: int, size: tuple[int, int], kinds: list[str],
              read: float) -> None:

    times: dict[str, list[float]] = defaultdict(list)
    first: dict[str, list[float]] = defaultdict(list)
    push: list[float] = []
    collections = FullCollections()
    pauses: list[tuple[float, float]] = []  # (Enter -> feedback, full GC inside it)
    painted: list[tuple[int, float]] = []  # (frames of an Enter, last frame - first)
    async with fresh_app(size) as (app, pilot, frames):
        ids = kind_ids(app.bank)
        while any(len(times[k]) < answers for k in kinds):
            for kind in kinds:
                # one session: its first Enter, then up to `block` more
                steady = min(block, answers - len(times[kind]))
                if steady <= 0:
                    continue
                app.start_practice_on(ids[kind])
                for i in range(steady + 1):
                    await until_quiet(pilot, lambda: asking(app))
                    q = app.screen.question
                    text = q.part.key.display if i % 2 == 0 else wrong_answer(q)
                    t = await answer(app, pilot, frames, text)
                    (first if i == 0 else times)[kind].append(t)
                    if i:  # the collections between the Enter and the last frame
                        end = frames[-1] if frames else time.perf_counter()
                        pauses.append((t, collections.within(end - t, end)))
                        painted.append((len(frames), frames[-1] - frames[0] if frames
                                        else 0.0))
                    await asyncio.sleep(read)  # the verdict is read
                    await pilot.press("escape" if i == steady else "enter")
                    one = OneStatic()
                    push.append(await timed(pilot, frames, lambda s=one: _push(app, s),
                                            lambda s=one: app.screen is s))
                    app.pop_screen()
                    await until_quiet(pilot, lambda: True)
                print(f"\r{len(times[kind])}/{answers} answers per kind ({kind})    ",
                      end="", file=sys.stderr, flush=True)
        # What a full collection would cost now, inside an Enter: what the answers left
        # alive (start-up's objects are frozen out of it), in CPU time.
        gc.collect()
        tracked = len(gc.get_objects())
        start_cpu = time.thread_time()
        gc.collect()
        full_gc = time.thread_time() - start_cpu
    print(file=sys.stderr)
    p = statistics.median(push)
    print(f"baseline: push a screen of one Static          {summary(push)}")
    every = [t for ts in times.values() for t in ts]
    print(f"Enter -> feedback painted, all kinds           {summary(every)}  "
          f"median {statistics.median(every) / p:.2f}x push, p99 "
          f"{percentile(every, 0.99) / percentile(push, 0.99):.2f}x push p99 "
          "(goal p99 <= 100 ms)")
    print(f"    {gc_line(pauses)}")
    print(f"    {frames_line(painted)}")
    for kind in kinds:
        print(f"    {kind:<8}                                   {summary(times[kind])}  "
              f"median {statistics.median(times[kind]) / p:.2f}x push")
    print(f"after the run: {tracked:,} objects a full collection scans, one takes "
          f"{full_gc * 1e3:.1f} ms CPU")
    every_first = [t for ts in first.values() for t in ts]
    print(f"first Enter of a session, all kinds            {summary(every_first)}")
    for kind in kinds:
        print(f"    {kind:<8}                                   {summary(first[kind])}")


async def cold(kind: str, size: tuple[int, int]) -> None:
    """The first Enter of a fresh process, printed in ms (run by --cold)."""

    async with fresh_app(size) as (app, pilot, frames):
        app.start_practice_on(kind_ids(app.bank)[kind])
        await until_quiet(pilot, lambda: asking(app))
        t = await answer(app, pilot, frames, app.screen.question.part.key.display)
    print(f"{t * 1e3:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100, help="answers per kind")
    parser.add_argument("--block", type=int, default=10, help="answers per session after its first")
    parser.add_argument("--cold", type=int, default=3,
                        help="fresh processes per kind timing their first Enter")
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--read", type=float, default=0.3,
                        help="seconds spent reading each feedback before Enter")
    parser.add_argument("--cold-kind", help=argparse.SUPPRESS)
    parser.add_argument("--without", default="nothing", metavar="PIECE",
                        help="switch off one piece of latency machinery first "
                        "(bench/without.py), to pair a run without it with one with it")
    args = parser.parse_args()
    from without import switch_off

    switch_off(args.without)
    width, height = (int(v) for v in args.size.split("x"))
    if args.cold_kind:
        asyncio.run(cold(args.cold_kind, (width, height)))
        return
    kinds = args.kinds.split(",")
    asyncio.run(run(args.answers, args.block, (width, height), kinds, args.read))
    if args.cold:
        firsts: dict[str, list[float]] = defaultdict(list)
        for _ in range(args.cold):
            for kind in kinds:
                out = subprocess.run([sys.executable, __file__, "--cold-kind", kind,
                                      "--size", args.size, "--without", args.without],
                                     capture_output=True,
                                     text=True, check=True)
                firsts[kind].append(float(out.stdout.split()[-1]) / 1e3)
        every = [t for ts in firsts.values() for t in ts]
        print(f"first Enter of a process, all kinds            {summary(every)}")
        for kind in kinds:
            print(f"    {kind:<8}                                   {summary(firsts[kind])}")


if __name__ == "__main__":
    main()
