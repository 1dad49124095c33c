"""Learn mode driven as a person uses it: the picker, a walk-through with a wrong step,
a retry, a revealed step, the whole question and the cold one; "walk me through it"
after a miss."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from quiz import locations
from quiz.core.store import Store
from quiz.tui.screens.learn import LearnScreen, WalkScreen

from .conftest import answer, make_app, question_shown, screen_text, settle, started, wait_for

SIZE = (100, 30)


async def walk_shown(pilot: Pilot[Any]) -> WalkScreen:
    def ready() -> bool:
        s = pilot.app.screen
        return isinstance(s, WalkScreen) and s.walkthrough is not None and not s.busy

    await wait_for(pilot, ready)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, WalkScreen)
    return screen


async def picker_shown(pilot: Pilot[Any]) -> LearnScreen:
    """From the home screen, open learn mode's picker (``w``)."""
    await started(pilot)
    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LearnScreen))
    screen = pilot.app.screen
    assert isinstance(screen, LearnScreen)
    return screen


def text_of(screen: WalkScreen, selector: str) -> str:
    return screen_text(screen.query_one(selector))


async def test_a_walk_through_explains_a_wrong_step_then_asks_whole_and_cold(
        data_dir: Path) -> None:
    app = make_app(data_dir, mode="learn", learn_target="memory/model-state")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await walk_shown(pilot)
        w = screen.walkthrough
        assert w is not None and w.label == "Step 1 of 1"
        assert "bytes of model state per parameter" in text_of(screen, "#walk-prompt")
        await answer(pilot, "12 B")
        feedback = text_of(screen, "#walk-feedback")
        assert "Known mistake: 12 bytes per parameter" in feedback
        assert "2 + 2 + 4 + 8" in feedback and w.label == "Step 1 of 1"  # retry
        await answer(pilot, "16 B")
        # The last step was the question itself: it is asked once, whole.
        assert w.phase == "whole" and "16 B" in text_of(screen, "#walk-done")
        assert "put the steps together" in text_of(screen, "#walk-prompt")
        assert not screen.query_one("#walk-feedback").display
        await answer(pilot, w.variant.parts[0].key.display)
        assert w.label.startswith("Now cold") and "Now cold" in text_of(screen, "#walk-prompt")
        cold = w.asked_variant
        assert cold.parts[0].prompt.split()[2] in text_of(screen, "#walk-question")
        await answer(pilot, cold.parts[0].key.display)
        assert w.finished and "done" in text_of(screen, "#walk-prompt")
        await pilot.press("enter")  # the plan had one template: back home
        await settle(pilot)
        assert not isinstance(app.screen, WalkScreen)
    with Store.open(locations.db_path(data_dir)) as store:
        guided, cold_attempt = store.attempts()
        assert guided.guided and not cold_attempt.guided
        assert cold_attempt.verdict == "correct" and store.reviews() == []


async def test_learn_is_on_home_and_lists_items_and_topics(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_shown(pilot)
        groups = [p.group for p in screen.progress]
        assert "memory" in groups and all(p.learned == 0 for p in screen.progress)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, LearnScreen)


async def test_walk_me_through_it_after_a_miss(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        question = screen.question
        assert question is not None
        await answer(pilot, "1 GB")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "FeedbackScreen")
        assert "Walk through" in screen_text(app.screen.query_one("KeysLine"))
        await pilot.press("w")
        walk = await walk_shown(pilot)
        assert walk.walkthrough is not None
        assert walk.walkthrough.variant.id == question.id and walk.walkthrough.cold is None
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "FeedbackScreen"


async def test_a_missed_choice_shows_the_key_with_its_options(data_dir: Path) -> None:
    from quiz.core.kinds import key_text

    app = make_app(data_dir, mode="learn",
                   learn_target="parallelism/activations-untouched")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await walk_shown(pilot)
        w = screen.walkthrough
        assert w is not None
        while w.phase == "step":
            await pilot.press("ctrl+r")  # reveal the step: its key and working
            await settle(pilot)
        assert text_of(screen, "#walk-done").count("(shown)") == len(w.steps) > 0
        part = w.part
        assert part is not None and part.kind == "multi"
        wrong = next(c for c in "abcd" if c not in part.key.correct)
        await answer(pilot, wrong)
        shown = " ".join(text_of(screen, "#walk-done").split())
        assert f"key {key_text(part)}" in shown
        assert all(part.spec.choices[ord(c) - ord("a")] in key_text(part)
                   for c in part.key.correct)


async def test_a_spoken_part_is_answered_in_the_paragraph_box(data_dir: Path) -> None:
    """Regression: learn mode asked a 30-second answer in the one-line input, where
    Enter submitted the first sentence. It gets the question screen's text area: Enter
    starts a new line, Ctrl+D submits, and the keys line says so."""
    from textual.widgets import TextArea

    from quiz.tui.widgets.answer_box import AnswerBox

    from .test_spoken_snapshots import ANSWER, spoken_files

    app = make_app(data_dir, mode="learn", learn_target="layout/thirty-second-answer",
                   template_files=spoken_files)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = await walk_shown(pilot)
        w = screen.walkthrough
        assert w is not None
        keys = screen.query_one("KeysLine")
        while w.phase == "step":
            assert "Enter Submit" in screen_text(keys) and "Reveal step" in screen_text(keys)
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert w.part is not None and w.part.kind == "spoken"
        box = screen.query_one(AnswerBox)
        assert box.multiline and app.focused is box.paragraph
        assert "^d Submit" in screen_text(keys) and "Reveal step" not in screen_text(keys)
        first, second = ANSWER
        box.query_one("#answer-text", TextArea).insert(first)
        await pilot.press("enter")  # a new line, not a submission
        box.query_one("#answer-text", TextArea).insert(second)
        await settle(pilot)
        assert w.phase == "whole" and box.value == f"{first}\n{second}"
        assert screen_text(box.query_one("#answer-preview")).strip()  # the live reading
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: w.phase != "whole")
        await settle(pilot)
        assert app.state is not None
        (attempt,) = app.state.store.attempts()
        assert attempt.guided and attempt.answer_text == f"{first}\n{second}"
        assert attempt.verdict == "partial"  # the model answer follows, on lines of its own
        done = text_of(screen, "#walk-done")
        whole = done.split("\n~ the whole question: ", 1)[1]
        assert whole.split("\n")[1].startswith("  Model answer: ") and "key" not in \
            whole.split("\n")[0]


async def test_the_picker_counts_again_after_a_walk_through(data_dir: Path) -> None:
    """Regression: back from a walk-through, the picker still said "0 of N learned"
    with no "walked through": it showed the counts of when it opened."""
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        picker = await picker_shown(pilot)
        first = picker.progress[0]
        assert first.walked == 0
        await pilot.press("enter")
        screen = await walk_shown(pilot)
        w = screen.walkthrough
        assert w is not None
        while w.phase == "step":
            await pilot.press("ctrl+r")
            await settle(pilot)
        part = w.part
        assert part is not None
        await answer(pilot, part.key.display)  # the guided attempt
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is picker)
        await settle(pilot)
        assert picker.progress[0].group == first.group and picker.progress[0].walked == 1
        assert "1 walked through" in screen_text(picker.query_one("#learn-list"))
