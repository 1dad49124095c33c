"""What a person feels at the keyboard: keystroke -> "read as" painted, Enter -> feedback.

The app runs headless in this process with the bundled bank; a hook on the app's
display step (where a composited frame goes to the terminal) timestamps every frame.
Each sample is the time from the key press to the last frame it caused, so a preview
that lands a frame late counts late. Baselines run in the same process, alternating with
the samples: a bare Textual app with one Input (the echo of a key) and one that pushes
a screen of one Static (a screen change). Prints min / median / p99 and the ratios of
the medians; asserts nothing.

Run: python bench/bench_tui.py [--answers N]
Targets (issue 15): keystroke p99 <= 16 ms; Enter -> feedback p99 <= 100 ms, every kind.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Static

sys.path.insert(0, str(Path(__file__).parent))
from timing import summary


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
    from quiz.tui.app import QuizApp
    from quiz.tui.screens.feedback import FeedbackScreen
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.widgets.answer_box import AnswerBox

    key_times: dict[str, list[float]] = defaultdict(list)
    enter_times: dict[str, list[float]] = defaultdict(list)
    echo: list[float] = []
    push: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        app = QuizApp(data_dir=Path(tmp) / "data", seed=1)
        async with app.run_test(size=(120, 40)) as pilot:
            await until_quiet(pilot, lambda: app.bank is not None)
            while len(app.screen_stack) > 1:  # the first-run welcome
                app.pop_screen()
            frames = hook_frames(app)
            app.start_practice(None, None, False)

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
                key_times[part.kind].append(await timed(
                    pilot, frames, lambda k=last: pilot.press(k),  # type: ignore[misc]
                    lambda b=box: "read" in str(b.query_one("#answer-preview").render())))
                enter_times[part.kind].append(await timed(
                    pilot, frames, lambda: pilot.press("enter"),
                    lambda: isinstance(app.screen, FeedbackScreen)))
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
          f"  median {statistics.median(every_key) / e:.2f}x echo   (goal p99 <= 16 ms)")
    for kind, ts in sorted(key_times.items()):
        print(f"    {kind:<8}                                 {summary(ts)}")
    print(f"Enter -> feedback painted, all kinds         {summary(every_enter)}"
          f"  median {statistics.median(every_enter) / p:.2f}x push (goal p99 <= 100 ms)")
    for kind, ts in sorted(enter_times.items()):
        print(f"    {kind:<8}                                 {summary(ts)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=60)
    args = parser.parse_args()
    asyncio.run(run(args.answers))


if __name__ == "__main__":
    main()
