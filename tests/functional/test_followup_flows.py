"""The interviewer's follow-ups in the app (issue 31): offered after a layout answer in
practice (`u`), asked, graded and explained before and after side by side; chained in
a mock and shown in its report. Pilot tests, and snapshots at 80x24 and 120x40."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from textual.pilot import Pilot

from questions.derivation import explanation_of
from quiz import locations
from quiz.core.store import Store
from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.question import QuestionScreen

from .conftest import (
    FakeClock,
    answer,
    make_app,
    question_shown,
    screen_text,
    settle,
    started,
    wait_for,
)
from .test_snapshots import snap, steps, until_screen

LAYOUT = "layout/lay-out-cluster"


async def feedback_shown(pilot: Pilot[Any]) -> FeedbackScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, FeedbackScreen))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FeedbackScreen)
    return screen


async def layout_answered(pilot: Pilot[Any]) -> None:
    screen = await question_shown(pilot)
    assert screen.question is not None
    await answer(pilot, screen.question.part.key.display)
    await feedback_shown(pilot)


async def followup_asked(pilot: Pilot[Any]) -> None:
    await layout_answered(pilot)
    await pilot.press("u")
    screen = await question_shown(pilot)
    assert screen.question is not None and screen.question.followup is not None


async def followup_answered(pilot: Pilot[Any]) -> None:
    await followup_asked(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, QuestionScreen) and screen.question is not None
    await answer(pilot, screen.question.part.key.display)
    await feedback_shown(pilot)


async def test_u_asks_the_followup_and_records_it_under_its_family(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic=LAYOUT)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await layout_answered(pilot)
        feedback = pilot.app.screen
        assert "u Follow-up" in screen_text(feedback.query_one("KeysLine"))
        await pilot.press("u")
        screen = await question_shown(pilot)
        q = screen.question
        assert q is not None and q.followup is not None
        label = screen_text(screen.query_one("#question-label"))
        assert "follow-up 1" in label
        await answer(pilot, q.part.key.display)
        done = await feedback_shown(pilot)
        assert "best after" in explanation_of(done.outcome.question.part)
        assert done.outcome.grade.verdict == "correct"
        # the chain goes on: another follow-up, then Enter moves to a new question
        await pilot.press("u")
        screen = await question_shown(pilot)
        assert screen.question is not None and screen.question.followup is not None
        assert screen.question.followup.index == 2
    with Store.open(locations.db_path(data_dir)) as store:
        ids = [a.template_id for a in store.attempts()]
    assert ids == [LAYOUT, f"{LAYOUT}+{q.followup.family}"]


async def test_no_followup_key_after_a_plain_question(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await layout_answered(pilot)
        feedback = pilot.app.screen
        assert "Follow-up" not in screen_text(feedback.query_one("KeysLine"))
        await pilot.press("u")  # nothing happens
        await settle(pilot)
        assert pilot.app.screen is feedback


@pytest.fixture
def layout_mock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mocks whose plan is the layout question alone."""
    monkeypatch.setattr("quiz.core.mock.mock_plan", lambda *a, **kw: [LAYOUT])


@pytest.mark.usefixtures("layout_mock")
async def test_a_mock_chains_followups_and_the_report_shows_them(data_dir: Path) -> None:
    clock = FakeClock()
    app = make_app(data_dir, clock, mode="mock", mock_questions=1, mock_minutes=30)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await chain_in_mock(pilot, clock)
        await until_screen("ReportScreen")(pilot)
        text = screen_text(pilot.app.screen.query_one("#report-chains"))
        lines = text.splitlines()
        assert lines[0].startswith(LAYOUT)
        assert sum(1 for line in lines if line.startswith("  → ")) == 2


async def chain_in_mock(pilot: Pilot[Any], clock: FakeClock) -> None:
    """Answer the question shown and every follow-up with its key."""
    for _ in range(3):
        screen = await question_shown(pilot)
        assert screen.question is not None
        clock.advance(30)
        await answer(pilot, screen.question.part.key.display)


# ---------------------------------------------------------------- snapshots


def test_followup_question(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic=LAYOUT)
    snap(snapshot, app, steps(followup_asked))


def test_followup_feedback(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic=LAYOUT)
    snap(snapshot, app, steps(followup_answered))


@pytest.mark.usefixtures("layout_mock")
def test_mock_report_with_followups(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    clock = FakeClock()
    app = make_app(data_dir, clock, mode="mock", mock_questions=1, mock_minutes=30)

    async def run(pilot: Pilot[Any]) -> None:
        await chain_in_mock(pilot, clock)
        await until_screen("ReportScreen")(pilot)

    snap(snapshot, app, steps(run))
