"""Shared set-up for the Pilot and snapshot tests.

Every test gets its own data folder, a fixed bank (the templates under
``tests/functional/templates``, so that the snapshots do not move when the bundled bank
grows), a fixed random seed, a fixed "now" and a hand-driven monotonic clock.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quiz.tui.app import QuizApp

if TYPE_CHECKING:
    from textual.app import App
    from textual.pilot import Pilot
    from textual.widget import Widget

    from questions.loader import Bank
    from quiz.core.state import AppState, DataFolder
    from quiz.tui.screens.question import QuestionScreen

FULL = os.environ.get("QUIZ_FUZZ") == "full"
"""CI's profile (``QUIZ_FUZZ=full``, what `.ci/run` sets), as ``tests/unit/helpers.py``
reads it (the functional tests do not import the unit tests' helpers)."""


def per_profile(local: int, full: int) -> int:
    """``local`` in the README's ``pytest``, ``full`` under ``QUIZ_FUZZ=full``."""
    return full if FULL else local


TEMPLATES = Path(__file__).parent / "templates"
NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
"""The fixed "now" of every test (noon UTC: the same local day in most time zones)."""


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.t += seconds


def fixture_bank(state: AppState) -> Bank:
    """The test templates plus the user's folders (never the bundled bank)."""
    from questions.catalog import load_bank

    return load_bank([TEMPLATES, *state.template_dirs], bundled=False)


def fixture_files(state: DataFolder) -> list[Path]:
    """The test templates' files plus the user's folders' (never the bundled bank)."""
    from questions.loader import bank_files

    return bank_files([TEMPLATES, *state.template_dirs], bundled=False).files


START_FIELDS = ("mode", "mock_minutes", "mock_questions", "mock_closing", "practice_topic",
                "practice_difficulty", "learn_target")
"""Arguments of :class:`quiz.tui.routing.Start` (``mode`` for its mode) make_app takes."""


def make_app(data_dir: Path, clock: FakeClock | None = None, **kw: Any) -> QuizApp:
    """A deterministic app over a fresh data folder (``mode=...`` and the other
    :data:`START_FIELDS` build the app's :class:`~quiz.tui.routing.Start`)."""
    from quiz.tui.routing import Start

    kw.setdefault("template_files", fixture_files)
    start = {name: kw.pop(name) for name in START_FIELDS if name in kw}
    if start.get("mode") is not None:
        kw["start"] = Start(**start)
    return QuizApp(data_dir=data_dir, seed=0, now=lambda: NOW, clock=clock or FakeClock(),
                   **kw)


@pytest.fixture(autouse=True)
def _app_heap(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Locally, an app started by a test freezes nothing at start-up and thaws nothing
    on exit (:mod:`quiz.tui.heap`'s ``hold_imports``, ``freeze_startup`` and ``thaw`` do
    nothing; a hold left without its unfreeze would keep the app's cyclic garbage): its
    ``gc.unfreeze()`` would hand the test process's frozen heap (``tests/conftest.py``)
    back to the collector, and its start-up collection scan all of it, about a quarter
    of a Pilot test's CPU. Both only move when collections run, never what they free.
    The tests marked ``app_heap`` (``test_heap_shape``, which checks them) and every
    test under ``QUIZ_FUZZ=full`` run them as the app does; after a marked test, what
    is alive is frozen again."""
    import gc

    from quiz.tui import heap

    if request.node.get_closest_marker("app_heap") is not None:
        yield
        gc.collect()
        gc.freeze()
        return
    if not FULL:
        monkeypatch.setattr(heap, "hold_imports", lambda: None)
        monkeypatch.setattr(heap, "freeze_startup", lambda: None)
        monkeypatch.setattr(heap, "thaw", lambda: None)
    yield


@pytest.fixture
def anyio_backend() -> str:
    """The ``async def`` tests run on asyncio (Textual's loop), through anyio's plugin
    (``anyio_mode = "auto"`` in pyproject.toml: every one, no marker to forget)."""
    return "asyncio"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh data folder."""
    return tmp_path / "data"


WAIT_BOUND_S = 120.0
"""How long :func:`wait_for` lets the app run before it calls the wait a hang. Never the
thing under test: a hang detector, generous enough for a machine loaded by other work
(a bank loaded by a worker thread took over 15 s under a load of 10 on two cores)."""


async def wait_for(pilot: Pilot[Any], condition: Callable[[], object],
                   timeout: float = WAIT_BOUND_S) -> None:
    """Let the app run until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting; screen is {pilot.app.screen!r}")
        await pilot.pause(0.02)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for every worker (a cancelled one is fine), then for what they posted."""
    from textual.worker import WorkerCancelled, WorkerFailed

    for _ in range(3):
        for worker in list(pilot.app.workers):
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        await pilot.pause()


def _pending(app: App[Any]) -> bool:
    """Whether the app still has something to do: a worker running, a message waiting in
    the app's, the screen's or a widget's queue, or a layout, repaint or widget refresh
    waiting for the screen's next update."""
    screen = app.screen
    if any(worker.is_running for worker in app.workers):
        return True
    if screen._layout_required or screen._repaint_required or screen._dirty_widgets:
        return True
    return any(not node._message_queue.empty()
               for node in (app, screen, *screen.walk_children()))


async def drained(pilot: Pilot[Any]) -> None:
    """Let the app run until it has nothing left to do (:func:`_pending`) twice in a
    row. Each round runs the screen's update, so a frame that was still to come is
    painted (and counted) before this returns: unlike a pause of some milliseconds, no
    late frame is missed on a busy machine, and none is waited for on an idle one."""
    quiet = 0
    deadline = time.monotonic() + WAIT_BOUND_S
    while quiet < 2:
        await settle(pilot)
        quiet = 0 if _pending(pilot.app) else quiet + 1
        if time.monotonic() > deadline:
            raise AssertionError(f"never idle; screen is {pilot.app.screen!r}")


async def started(pilot: Pilot[Any], *, welcome: bool = False) -> None:
    """Wait until the bank is loaded and the home figures shown; close the welcome."""
    app = pilot.app
    assert isinstance(app, QuizApp)
    await wait_for(pilot, lambda: app.bank is not None or app.failure is not None)
    await settle(pilot)
    from quiz.tui.screens.welcome import WelcomeScreen

    if not welcome and isinstance(app.screen, WelcomeScreen):
        await pilot.press("enter")
        await settle(pilot)


async def browser_shown(pilot: Pilot[Any]) -> None:
    """From the home screen, open the template browser (``t``) and let it settle."""
    from quiz.tui.screens.browser import BrowserScreen

    await pilot.press("t")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, BrowserScreen))
    await settle(pilot)


async def question_shown(pilot: Pilot[Any]) -> QuestionScreen:
    """Wait until a question screen shows a question, and return the screen."""
    from quiz.tui.screens.question import QuestionScreen

    def ready() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, QuestionScreen) and screen.question is not None \
            and not screen.busy

    await wait_for(pilot, ready)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, QuestionScreen)
    return screen


async def answer(pilot: Pilot[Any], text: str) -> None:
    """Type an answer into the answer box (fast path: set the text) and submit it."""
    from quiz.tui.widgets.answer_box import AnswerBox

    box = pilot.app.screen.query_one(AnswerBox)
    box.input.value = text
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


def seed_cards(data_dir: Path, template_ids: list[str]) -> None:
    """Give templates review cards falling due on the following days (one a day)."""
    from fsrs import Card, State

    from quiz import locations
    from quiz.core.store import Store

    data_dir.mkdir(parents=True, exist_ok=True)
    with Store.open(locations.db_path(data_dir), now=lambda: NOW) as store:
        for i, tid in enumerate(template_ids, 1):
            card = Card(card_id=i, state=State.Review, stability=5.0, difficulty=5.0,
                        due=NOW + timedelta(days=i), last_review=NOW - timedelta(days=3))
            store.put_card(tid, card.to_json())


def screen_text(widget: Widget) -> str:
    """The text a widget shows on screen, line by line (styles dropped)."""
    from textual.geometry import Region

    width, height = widget.size
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(line.text.rstrip() for line in lines)


def seed_history(data_dir: Path, days: int = 3) -> None:
    """Write a small, fixed history: a few answers on each of the last ``days`` days."""
    from quiz import locations
    from quiz.core.store import Attempt, Store

    rows = [("memory/model-state", "memory", ("rapid-fire-1",)),
            ("compute/flops-formula", "compute", ("rapid-fire-2",)),
            ("parallelism/activations-untouched", "parallelism", ("rapid-fire-4",))]
    verdicts = [("correct", 1.0), ("incorrect", 0.0), ("partial", 0.5), ("correct", 1.0)]
    data_dir.mkdir(parents=True, exist_ok=True)
    with Store.open(locations.db_path(data_dir), now=lambda: NOW) as store:
        n = 0
        for day in range(days, 0, -1):
            for tid, topic, tags in rows:
                verdict, score = verdicts[n % len(verdicts)]
                n += 1
                store.record_attempt(Attempt(
                    template_id=tid, template_version=1, seed=n, mode="drill",
                    answer_text="x", verdict=verdict, score=score,  # type: ignore[arg-type]
                    topic=topic, tags=tags, seconds=30.0 + n,
                    answered_at=NOW - timedelta(days=day - 1, hours=1)))
