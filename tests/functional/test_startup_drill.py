"""`quiz drill` shows its first question before the settings and template models
(pydantic) are imported; what is done on it before the drill's session exists is kept
and done by the session, exactly as on a question the session drew itself."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from textual.widgets import OptionList

from quiz import locations
from quiz.core.drill import DrillSession
from quiz.core.settings import Settings
from quiz.core.state import catalog_for, open_folder
from quiz.tui.screens.done import DoneScreen
from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.home import HomeScreen
from quiz.tui.screens.question import QuestionScreen

from .conftest import (
    NOW,
    TEMPLATES,
    WAIT_BOUND_S,
    FakeClock,
    fixture_bank,
    fixture_files,
    make_app,
    screen_text,
    seed_cards,
    settle,
    wait_for,
)

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from questions.loader import Bank
    from quiz.core.state import AppState
    from quiz.core.store import Store
    from quiz.tui.app import QuizApp

SIZE = (120, 40)

PROBE = """
import json, sys
from pathlib import Path
from questions.loader import bank_files
from quiz.tui.app import QuizApp
from quiz.tui.routing import Start
from quiz.tui.screens.question import QuestionScreen

seen = {}
shown = QuestionScreen.show_first

def show_first(self, question, left):
    seen.update(label=question.label, left=left, modules=sorted(
        m for m in sys.modules if m.split(".")[0] in ("pydantic", "sympy")
        or m in ("questions.schema", "quiz.core.settings", "solver.engine")))
    shown(self, question, left)

QuestionScreen.show_first = show_first

async def main():
    app = QuizApp(data_dir=sys.argv[1], start=Start("drill"), seed=0,
                  template_files=lambda folder: bank_files([Path(sys.argv[2])],
                                                           bundled=False).files)
    async with app.run_test() as pilot:
        while app.bank is None and app.failure is None:
            await pilot.pause(0.02)

import asyncio
asyncio.run(main())
print(json.dumps(seen))
"""


def modules_when_the_first_question_shows(data_dir: Path) -> dict[str, object]:
    """What a fresh interpreter has imported when `quiz drill` shows its first question
    (and that question's label)."""
    out = subprocess.run([sys.executable, "-c", PROBE, str(data_dir), str(TEMPLATES)],
                         capture_output=True, text=True, check=True, timeout=WAIT_BOUND_S)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_the_drills_first_question_needs_neither_pydantic_nor_sympy(data_dir: Path) -> None:
    # The first start compiles the bank and validates the settings (pydantic)...
    first = modules_when_the_first_question_shows(data_dir)
    assert "questions.schema" in first["modules"]  # type: ignore[operator]
    # ...every start after it draws the question from the compiled bank's view.
    again = modules_when_the_first_question_shows(data_dir)
    assert again["modules"] == []
    # the same question (seed 0 both times), drawn from the model and from the view
    assert again["label"] == first["label"] and again["left"] == first["left"] == \
        "6 left today"


def fixture_templates() -> Bank:
    """The fixture bank, as the app loads it (no user templates in these tests)."""
    from questions.catalog import load_bank

    return load_bank([TEMPLATES], bundled=False)


def warm_bank_cache(data_dir: Path) -> None:
    """Compile the fixture bank into the data folder's cache (as a first start does)."""
    folder = open_folder(data_dir)
    try:
        catalog_for(folder, fixture_files(folder))
    finally:
        folder.store.close()


def held_drill(data_dir: Path) -> tuple[threading.Event, QuizApp]:
    """`quiz drill` over a warm bank cache whose bank loads only once the returned event
    is set (its first question is drawn before)."""
    warm_bank_cache(data_dir)
    release = threading.Event()

    def load(state: AppState) -> Bank:
        release.wait(WAIT_BOUND_S)
        return fixture_bank(state)

    return release, make_app(data_dir, mode="drill", bank_loader=load)


async def first_question(pilot: Pilot[int], app: QuizApp) -> None:
    """Wait until the drill shows its first question."""
    await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen)
                   and app.screen.question is not None)


def reference_session(store: Store) -> DrillSession:
    """The drill's session as the app makes it (fixture bank, default settings, seed 0,
    the tests' clock)."""
    return DrillSession(fixture_templates(), store, Settings(), rng=random.Random(0),
                        clock=FakeClock(), now=lambda: NOW)


async def test_an_answer_typed_before_the_drill_has_loaded_is_graded_as_before(
        data_dir: Path, tmp_path: Path) -> None:
    release, app = held_drill(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await first_question(pilot, app)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        assert app.bank is None  # drawn before the bank was loaded
        shown = screen.question
        assert shown is not None
        typed = shown.part.key.display
        # a hint, the answer and Enter, all before the session exists
        await pilot.press("ctrl+g", *typed, "enter")
        assert not isinstance(app.screen, FeedbackScreen)
        release.set()
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await settle(pilot)
        feedback = app.screen
        assert isinstance(feedback, FeedbackScreen)
        assert feedback.outcome.question.label == shown.label
        assert app.state is not None
        got = app.state.store.attempts()
        got_cards = app.state.store.cards()

    # The same drill, its session drawing the first question itself (as before).
    other = open_folder(tmp_path / "before", now=lambda: NOW)
    try:
        session = reference_session(other.store)
        question = session.next()
        assert question is not None and question.label == shown.label
        session.hint()
        outcome = session.submit(typed)
        assert outcome.grade.verdict == feedback.outcome.grade.verdict
        assert outcome.grade.score == feedback.outcome.grade.score < 1  # the hint cost
        assert other.store.attempts() == got
        assert other.store.cards() == got_cards
    finally:
        other.store.close()


async def test_the_drill_goes_on_as_its_session_would_after_the_first_question(
        data_dir: Path) -> None:
    warm_bank_cache(data_dir)
    app = make_app(data_dir, mode="drill")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen)
                       and app.screen.question is not None and app.bank is not None)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        labels = [screen.session.current.label if screen.session.current else None]
        for _ in range(2):
            await pilot.press("ctrl+s")  # skip: the session draws the next
            await wait_for(pilot, lambda: screen.question is not None and not screen.busy)
            labels.append(screen.question.label if screen.question else None)

    reference = open_folder(data_dir, now=lambda: NOW)
    try:
        session = reference_session(reference.store)
        first = session.next()
        expected = [first.label if first else None]
        for _ in range(2):
            q = session.skip()
            expected.append(q.label if q else None)
    finally:
        reference.store.close()
    assert labels == expected


async def test_leaving_the_drill_before_it_has_loaded_stays_home(data_dir: Path) -> None:
    release, app = held_drill(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await first_question(pilot, app)
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
        release.set()
        await wait_for(pilot, lambda: app.bank is not None)
        await settle(pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        # composed when first shown (not under the first question): with what it was
        # told meanwhile, today's figures and every mode ready
        assert "in today's drill" in screen_text(home.query_one("#home-due"))
        menu = home.query_one("#home-menu", OptionList)
        assert menu.option_count and not any(
            menu.get_option_at_index(i).disabled for i in range(menu.option_count))
        assert app.focused is menu


async def test_with_nothing_due_the_drill_says_it_is_done(data_dir: Path) -> None:
    folder = open_folder(data_dir)
    try:
        catalog = catalog_for(folder, fixture_files(folder))
        template_ids = catalog.ids
    finally:
        folder.store.close()
    seed_cards(data_dir, template_ids)
    locations.config_path(data_dir).write_text("new_per_day = 0\n")
    app = make_app(data_dir, mode="drill")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DoneScreen))
        await settle(pilot)
        assert len(app.screen_stack) == 2  # the home, and the summary on it
