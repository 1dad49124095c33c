"""Store faults in the TUI: a readable message, never a crash; a failed save keeps the
typed answer for a retry."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz import locations
from quiz.core.errors import StoreError
from quiz.core.store import Attempt, Store
from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.widgets.answer_box import AnswerBox

from .conftest import answer, make_app, question_shown, settle, started, wait_for

SIZE = (100, 30)


async def test_a_folder_in_the_historys_place_is_a_message_not_a_crash(
    data_dir: Path,
) -> None:
    locations.db_path(data_dir).mkdir(parents=True)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.failure is not None)
        assert "is a folder" in (app.failure or "")
        await wait_for(pilot, lambda: any("is a folder" in n.message
                                          for n in app._notifications))
        await pilot.press("d")  # asking for the drill says why it cannot start
        await settle(pilot)
        assert app.is_running


async def test_a_failed_save_keeps_the_answer_and_enter_retries(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(data_dir)
    real = Store.record_attempt
    failing = [True]

    def flaky(self: Store, attempt: Attempt) -> int:
        if failing[0]:
            raise StoreError(f"{self.path}: could not save to the history: disk is full")
        return real(self, attempt)

    monkeypatch.setattr(Store, "record_attempt", flaky)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("d")
        screen = await question_shown(pilot)
        assert screen.question is not None
        key = screen.question.part.key.display
        await answer(pilot, key)
        await wait_for(pilot, lambda: any("disk is full" in n.message
                                          for n in app._notifications))
        await wait_for(pilot, lambda: not screen.busy)
        assert app.screen is screen and screen.query_one(AnswerBox).value == key
        failing[0] = False
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
    with Store.open(locations.db_path(data_dir)) as store:
        assert [a.answer_text for a in store.attempts()] == [key]
