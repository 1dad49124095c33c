"""What a person feels at the keyboard: keystroke -> "read as" painted, Enter -> feedback.

The app runs headless in this process with the bundled bank; a hook on the app's
display step (where a composited frame goes to the terminal) timestamps every frame.
Each sample is the time from the key press to the last frame it caused, so a preview
that lands a frame late counts late. Baselines run in the same process, alternating with
the samples: a bare Textual app with one Input (the echo of a key) and one that pushes
a screen of one Static (a screen change). Prints min / median / p99 and the ratios of
the medians; asserts nothing.

The mixed run (``--answers``) also prints the p99 ratios to the baselines' p99 and its
slowest samples by name (kind and template), each with the full collections inside it,
the frames it painted and the event loop's CPU: what makes its p99.

Run: python bench/bench_tui.py [--answers N]
Targets (issue 15): keystroke p99 <= 16 ms; Enter -> feedback p99 <= 100 ms, every kind.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Static, TextArea

sys.path.insert(0, str(Path(__file__).parent))
from timing import P99_MIN_SAMPLES, percentile, summary


def hook_frames(app: App[Any]) -> list[float]:
    """Timestamps of every frame the app composes from now on."""
    frames: list[float] = []
    display = app._display

    def timed(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None:
            frames.append(time.perf_counter())

    app._display = timed  # type: ignore[method-assign]
    return frames


async def until_quiet(pilot: Any, done: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let the app run until ``done()`` holds and no worker is running."""
    deadline = time.perf_counter() + timeout
    while True:
        await pilot.pause()
        busy = any(w.is_running for w in pilot.app.workers)
        if done() and not busy:
            await pilot.pause()
            return
        if time.perf_counter() > deadline:
            screen = pilot.app.screen
            print(getattr(getattr(screen, "question", None), "label", None),
                  [w.value for w in screen.query(Input)], file=sys.stderr)
            raise TimeoutError(f"no quiet within {timeout}s on {pilot.app.screen!r}")
        await asyncio.sleep(0.001)


@contextlib.asynccontextmanager
async def fresh_app(size: tuple[int, int] = (120, 40)) -> AsyncIterator[tuple[Any, Any,
                                                                               list[float]]]:
    """The app on an empty data folder, headless, past the first-run welcome, with its
    frames timestamped: (app, pilot, frames)."""
    from quiz.tui.app import QuizApp

    with tempfile.TemporaryDirectory() as tmp:
        app = QuizApp(data_dir=Path(tmp) / "data", seed=1)
        async with app.run_test(size=size) as pilot:
            await until_quiet(pilot, lambda: app.bank is not None)
            while len(app.screen_stack) > 1:  # the first-run welcome
                app.pop_screen()
            yield app, pilot, hook_frames(app)


async def timed(pilot: Any, frames: list[float], act: Callable[[], Awaitable[object]],
                done: Callable[[], bool]) -> float:
    """Seconds from ``act`` until the last frame painted before things went quiet."""
    frames.clear()
    start = time.perf_counter()
    await act()
    await until_quiet(pilot, done)
    after = [f for f in frames if f >= start]
    return (after[-1] if after else time.perf_counter()) - start


class Echo(Screen[None]):
    """Baseline: a screen of one Input (the echo of a key)."""

    def compose(self) -> ComposeResult:
        yield Input(id="echo")


class EchoArea(Screen[None]):
    """Baseline for paragraphs: a screen of one six-line text area (the echo of a key
    in the widget a 30-second answer is typed in)."""

    DEFAULT_CSS = "EchoArea > TextArea { height: 6; }"

    def compose(self) -> ComposeResult:
        yield TextArea(soft_wrap=True, show_line_numbers=False)


class OneStatic(Screen[None]):
    """Baseline: a screen of one Static (a screen change)."""

    def compose(self) -> ComposeResult:
        yield Static("feedback")


async def baselines(app: App[Any], pilot: Any, frames: list[float]) -> tuple[float, float]:
    """One echo sample and one push sample, in the app under test (same loop, same CSS)."""
    echo = Echo()
    await app.push_screen(echo)
    await until_quiet(pilot, lambda: True)
    field = echo.query_one(Input)
    field.cursor_blink = False
    field.focus()
    await until_quiet(pilot, lambda: True)
    key = await timed(pilot, frames, lambda: pilot.press("x"), lambda: field.value == "x")
    app.pop_screen()
    await until_quiet(pilot, lambda: True)
    one = OneStatic()
    push = await timed(pilot, frames, lambda: _push(app, one),
                       lambda: app.screen is one)
    app.pop_screen()
    await until_quiet(pilot, lambda: True)
    return key, push


async def _push(app: App[Any], screen: Screen[Any]) -> None:
    app.push_screen(screen)


async def run(answers: int) -> None:
    from quiz.tui.screens.feedback import FeedbackScreen
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.widgets.answer_box import AnswerBox

    key_times: dict[str, list[float]] = defaultdict(list)
    enter_times: dict[str, list[float]] = defaultdict(list)
    echo: list[float] = []
    push: list[float] = []
    collections = FullCollections()
    key_rows: list[Sampled] = []
    enter_rows: list[Sampled] = []
    async with fresh_app() as (app, pilot, frames):
        app.router.start_practice(None, None, False)

        def asking() -> bool:
            s = app.screen
            return isinstance(s, QuestionScreen) and s.question is not None \
                and not s.busy

        for n in range(answers):
            await until_quiet(pilot, asking)
            screen = app.screen
            assert isinstance(screen, QuestionScreen) and screen.question is not None
            part = screen.question.part
            box = screen.query_one(AnswerBox)
            if box.multiline:  # spoken answers: typed in a text area, sent with ^D
                box.paragraph.text = part.key.display
                await pilot.press("ctrl+d")
                await until_quiet(pilot, lambda: isinstance(app.screen, FeedbackScreen))
                await pilot.press("enter")
                continue
            box.input.cursor_blink = False
            typed = part.key.display.rstrip()
            box.input.value = typed[:-1]
            box.input.cursor_position = len(typed) - 1
            last = {" ": "space"}.get(typed[-1], typed[-1])
            await until_quiet(pilot, lambda: True)
            where = f"{part.kind} {screen.question.template.id}"
            with sampling(collections, frames, where, key_rows) as sample:
                sample.time = await timed(
                    pilot, frames, lambda k=last: pilot.press(k),  # type: ignore[misc]
                    lambda b=box: "read" in str(b.query_one("#answer-preview").render()))
            key_times[part.kind].append(sample.time)
            with sampling(collections, frames, where, enter_rows) as sample:
                sample.time = await timed(
                    pilot, frames, lambda: pilot.press("enter"),
                    lambda: isinstance(app.screen, FeedbackScreen))
            enter_times[part.kind].append(sample.time)
            await pilot.press("enter")
            await until_quiet(pilot, asking)
            e, p = await baselines(app, pilot, frames)
            echo.append(e)
            push.append(p)
            print(f"\r{n + 1}/{answers} answers", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    every_key = [t for ts in key_times.values() for t in ts]
    every_enter = [t for ts in enter_times.values() for t in ts]
    e, p = statistics.median(echo), statistics.median(push)
    print(f"baseline: echo of a key in a bare Input      {summary(echo)}")
    print(f"baseline: push a screen of one Static        {summary(push)}")
    print(f"keystroke -> 'read as' painted, all kinds    {summary(every_key)}"
          f"  median {statistics.median(every_key) / e:.2f}x echo  {tail(every_key, echo)}"
          "echo p99   (goal p99 <= 16 ms)")
    for kind, ts in sorted(key_times.items()):
        print(f"    {kind:<8}                                 {summary(ts)}")
    print(f"Enter -> feedback painted, all kinds         {summary(every_enter)}"
          f"  median {statistics.median(every_enter) / p:.2f}x push  {tail(every_enter, push)}"
          "push p99 (goal p99 <= 100 ms)")
    for kind, ts in sorted(enter_times.items()):
        print(f"    {kind:<8}                                 {summary(ts)}")
    for name, rows in (("keystrokes", key_rows), ("Enters", enter_rows)):
        print(f"slowest {name} (ms; full GC inside; frames; main thread CPU):")
        for row in sorted(rows, key=lambda r: -r.time)[:SLOWEST]:
            print(f"    {row}")


def tail(samples: list[float], baseline: list[float]) -> str:
    """The samples' p99 over the baseline's p99, taken side by side ("" under 100 samples:
    no p99)."""
    if min(len(samples), len(baseline)) < P99_MIN_SAMPLES:
        return ""
    return f"p99 {percentile(samples, 0.99) / percentile(baseline, 0.99):.2f}x "


SLOWEST = 8
"""Samples listed by name at the end of the mixed run: the p99 of 300 is its top three."""


@dataclass
class Sampled:
    """One sample of the mixed run, with what it holds: where (kind and template), the
    full collections inside it, the frames it painted and the event loop's CPU."""

    where: str
    time: float = 0.0
    gc: float = 0.0
    frames: int = 0
    cpu: float = 0.0

    def __str__(self) -> str:
        return (f"{self.time * 1e3:6.1f}  gc {self.gc * 1e3:5.1f}  frames {self.frames}  "
                f"cpu {self.cpu * 1e3:6.1f}  {self.where}")


@contextlib.contextmanager
def sampling(collections: FullCollections, frames: list[float], where: str,
             into: list[Sampled]) -> Iterator[Sampled]:
    """Fill a :class:`Sampled` around one timed act (the act sets its ``time``)."""
    sample = Sampled(where)
    start, cpu = time.perf_counter(), time.thread_time()
    yield sample
    sample.cpu = time.thread_time() - cpu
    sample.gc = collections.within(start, start + sample.time)
    sample.frames = sum(1 for f in frames if f >= start)
    into.append(sample)


# ---------------------------------------------------------------- keystrokes, per kind

KEY_ROWS = ("number", "choice", "choice-arrow", "multi", "table", "layout", "formula",
            "formula-first", "spoken", "spoken-long", "spoken-1500")
"""The keystroke rows: a kind, or a kind and what is pressed: choice-arrow, the cursor
moved in a typed letter, which reads nothing new; formula, every keystroke's text read
for the first time in the question (the box's cache of readings emptied before each);
formula-first, the first keystroke of a new formula question (each sample a new
question, once it has painted and gone quiet); spoken-long, the last sentence of a whole
30-second answer typed and deleted (a reading's cost grows with the paragraph);
spoken-1500, the same at the end of a 1,500-character paragraph (the answer said about
three times over)."""

LONG_PARAGRAPH = 1500
"""Characters of the spoken-1500 row's paragraph."""


def paragraph(row: str, display: str) -> str:
    """The whole paragraph a spoken row types the end of: the key's model answer, or
    for spoken-1500 that answer repeated to :data:`LONG_PARAGRAPH` characters."""
    if row != "spoken-1500":
        return display
    text = display
    while len(text) < LONG_PARAGRAPH:
        text += " " + display
    return text[:LONG_PARAGRAPH]


def templates_of(bank: Any, kind: str) -> list[str]:
    """The bundled templates (by id) whose first part is of this kind."""
    out = [str(tid) for tid, t in sorted(bank.templates.items())
           if (t.parts[0].answer_kind if t.parts else t.answer_kind) == kind]
    if not out:
        raise LookupError(f"no template asks for a {kind} answer first")
    return out


LETTER_TOGGLES = frozenset({"multi"})
"""Rows whose key ("a, d") is typed as letters toggled one by one (a, space, d)."""
READING_CACHE = frozenset({"formula"})
"""Rows whose answer box keeps readings by text: cleared per sample, so that every
keystroke reads afresh."""
PARAGRAPHS = frozenset({"spoken"})
"""Kinds typed in a text area: each sample is also paired with the area's own echo."""


def key_script(row: str, display: str) -> list[str]:
    """The keys pressed, in a cycle: the key as shown letter by letter (readings and
    refusals in turn), then deleted letter by letter; arrows move the cursor about."""
    if row == "choice-arrow":
        return ["left", "right", "home", "end"]
    typed = {"spoken": display[:60], "spoken-long": display[-60:],
             "spoken-1500": display[-60:]}.get(row, display)
    if row in LETTER_TOGGLES:
        typed = " ".join(c for c in typed if c.isalpha())
    keys = [{" ": "space"}.get(c, c) for c in typed]
    return keys + ["backspace"] * len(keys)


async def key_frames(pilot: Any, frames: list[float], key: str) -> tuple[float, float]:
    """Seconds from a key press to its first frame (the echo) and to the last frame
    before the app went quiet (the preview, when a worker read it)."""
    frames.clear()
    start = time.perf_counter()
    await pilot.press(key)
    await until_quiet(pilot, lambda: True)
    after = [f for f in frames if f >= start]
    if not after:  # nothing changed on screen (cannot happen for these keys)
        now = time.perf_counter() - start
        return now, now
    return after[0] - start, after[-1] - start


async def echo_sample(app: App[Any], pilot: Any, frames: list[float], *,
                      area: bool = False, text: str = "", key: str = "x") -> float:
    """One baseline sample: a key echoed by a bare Input (or text area) on a screen of
    its own; in a text area, ``key`` typed at the end of ``text`` (the paragraph of the
    sample it is paired with)."""
    echo = EchoArea() if area else Echo()
    await app.push_screen(echo)
    field = echo.query_one(TextArea if area else Input)
    field.cursor_blink = False
    if isinstance(field, TextArea) and text:
        field.load_text(text)
        field.move_cursor(field.document.end)
    field.focus()
    await until_quiet(pilot, lambda: True)
    _echo, last = await key_frames(pilot, frames, key)
    app.pop_screen()
    await until_quiet(pilot, lambda: True)
    return last


class FullCollections:
    """When full (generation-2) collections ran, in any thread (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.spans.append((self._start, time.perf_counter()))

    def within(self, start: float, end: float) -> float:
        """Seconds of full collection between ``start`` and ``end``."""
        return sum(max(0.0, min(b, end) - max(a, start)) for a, b in self.spans)


def gc_line(samples: list[tuple[float, float]]) -> str:
    """How many samples held a full collection, the largest, and the slowest samples."""
    with_gc = [g for _, g in samples if g > 0]
    worst = sorted(samples, reverse=True)[:5]
    slowest = ", ".join(f"{t * 1e3:.0f} ms (gc {g * 1e3:.0f})" for t, g in worst)
    biggest = f"{max(with_gc) * 1e3:.0f} ms" if with_gc else "-"
    return (f"full GC inside {len(with_gc)}/{len(samples)} samples, largest {biggest}; "
            f"slowest: {slowest}")



async def keystrokes(samples: int, rows: tuple[str, ...] = KEY_ROWS,
                     pace: float = 0.0) -> None:
    """Print keystroke -> painted per kind, each sample paired with an echo sample.

    Args:
        pace: seconds to wait before each key once the last has painted (0: at once),
            as a person types: 0.2 is 60 words a minute.
    """
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.widgets.answer_box import AnswerBox

    collections = FullCollections()
    in_gc: dict[str, list[tuple[float, float]]] = defaultdict(list)

    echo: list[float] = []
    area_echo: dict[str, list[float]] = defaultdict(list)
    first: dict[str, list[float]] = defaultdict(list)
    last: dict[str, list[float]] = defaultdict(list)
    late: dict[str, int] = defaultdict(int)

    async def ask(template_ids: list[str]) -> tuple[QuestionScreen, AnswerBox, str]:
        app.start_practice_on(template_ids)
        await until_quiet(pilot, lambda: isinstance(app.screen, QuestionScreen)
                          and app.screen.question is not None)
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.question is not None
        box = screen.query_one(AnswerBox)
        box.input.cursor_blink = False
        box.paragraph.cursor_blink = False
        # as a person reads the question: the box's warm-up readings are done
        await until_quiet(pilot, lambda: not getattr(box, "_warming", False))
        return screen, box, screen.question.part.key.display

    async def leave(screen: QuestionScreen) -> None:
        screen.dismiss(None)
        await until_quiet(pilot, lambda: not isinstance(app.screen, QuestionScreen))

    def sampled(row: str, n: int, times: tuple[float, float]) -> None:
        first[row].append(times[0])
        last[row].append(times[1])
        late[row] += times[1] > times[0]
        print(f"\r{row}: {n + 1}/{samples}", end=" " * 8, file=sys.stderr, flush=True)

    async with fresh_app() as (app, pilot, frames):
        for row in rows:
            kind = row.split("-")[0]
            if row == "formula-first":  # a new question per sample
                ids = templates_of(app.bank, kind)
                for n in range(samples):
                    screen, box, display = await ask([ids[n % len(ids)]])
                    sampled(row, n, await key_frames(pilot, frames, display[0]))
                    await leave(screen)
                    echo.append(await echo_sample(app, pilot, frames))
                continue
            screen, box, display = await ask(templates_of(app.bank, kind)[:1])
            if row == "choice-arrow":
                box.input.value = display
            if row in ("spoken-long", "spoken-1500"):
                box.paragraph.load_text(paragraph(row, display)[:-60])
                box.paragraph.move_cursor(box.paragraph.document.end)
                await until_quiet(pilot, lambda: True)
            keys = key_script(row, display)
            for n in range(samples):
                if row in READING_CACHE:
                    box._readings.clear()
                key = keys[n % len(keys)]
                before = box.paragraph.text
                if pace:
                    await asyncio.sleep(pace)
                start = time.perf_counter()
                times = await key_frames(pilot, frames, key)
                in_gc[row].append((times[1], collections.within(start, start + times[1])))
                sampled(row, n, times)
                echo.append(await echo_sample(app, pilot, frames))
                if kind in PARAGRAPHS:  # the same key at the end of the same text
                    area_echo[row].append(await echo_sample(
                        app, pilot, frames, area=True, text=before, key=key))
            await leave(screen)
    print(file=sys.stderr)
    e = statistics.median(echo)
    print(f"baseline: echo of a key in a bare Input   {summary(echo)}")
    print("keystroke -> last frame painted (echo and 'read as'), paired with the baseline "
          "(goal p99 <= 16 ms):")
    for row in rows:
        ts = last[row]
        tail_ratio = (f"p99 {percentile(ts, 0.99) / percentile(echo, 0.99):.2f}x echo p99  "
                      if len(ts) >= P99_MIN_SAMPLES else "")  # no p99 ratio from a few
        print(f"    {row:<13} {summary(ts)}  median {statistics.median(ts) / e:.2f}x echo  "
              f"{tail_ratio}{late[row]} of {len(ts)} painted over more than one frame")
    print("full (generation-2) garbage collections inside a keystroke's sample:")
    for row in rows:
        if in_gc[row]:
            print(f"    {row:<13} {gc_line(in_gc[row])}")
    for row, area in area_echo.items():
        print(f"baseline for {row}: the same key at the end of the same text in a bare "
              f"6-line TextArea  {summary(area)}")
        ts = last[row]
        tail = (f"  p99 {percentile(ts, 0.99) / percentile(area, 0.99):.2f}x its p99"
                if len(ts) >= P99_MIN_SAMPLES else "")
        print(f"    {row:<13} median {statistics.median(ts) / statistics.median(area):.2f}x "
              f"the TextArea's echo (the widget a paragraph is typed in){tail}")
    print("keystroke -> first frame painted (the echo; a reading from a worker comes "
          "after it):")
    for row in rows:
        if row.startswith(("formula", "spoken")):
            print(f"    {row:<13} {summary(first[row])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=60)
    parser.add_argument("--keys", type=int, default=0, metavar="N",
                        help="instead: N keystrokes per answer kind (>= 100 for a p99)")
    parser.add_argument("--rows", nargs="+", choices=KEY_ROWS, default=KEY_ROWS,
                        metavar="ROW", help="with --keys: only these rows "
                        f"({', '.join(KEY_ROWS)})")
    parser.add_argument("--pace", type=float, default=0.0, metavar="SECONDS",
                        help="with --keys: wait this long before each key, as a person "
                        "types (0.2 s: 60 words a minute); 0: each key once the last "
                        "has painted")
    parser.add_argument("--without", default="nothing", metavar="PIECE",
                        help="switch off one piece of latency machinery first "
                        "(bench/without.py), to pair a run without it with one with it")
    args = parser.parse_args()
    from without import switch_off

    switch_off(args.without)
    asyncio.run(keystrokes(args.keys, tuple(args.rows), args.pace) if args.keys
                else run(args.answers))


if __name__ == "__main__":
    main()
