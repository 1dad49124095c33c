"""Shared by the TUI benches (``bench_tui.py``, ``bench_feedback.py``): the app headless
with its frames timestamped, a sample timed from an action to its last frame, the
one-Static screen both pair their samples with, and the full garbage collections that
fall inside a sample.

These lived in the two scripts, each importing the other's; here neither imports the
other.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Static


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


class OneStatic(Screen[None]):
    """Baseline: a screen of one Static (a screen change)."""

    def compose(self) -> ComposeResult:
        yield Static("feedback")


async def _push(app: App[Any], screen: Screen[Any]) -> None:
    app.push_screen(screen)


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
