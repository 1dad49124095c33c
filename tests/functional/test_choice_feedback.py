"""The feedback on a choice question shows the key's letters with their options' text.

Regression: the feedback screen said "Key  a, c" under "You  B: Tensor parallelism ...":
the options were out of sight and the letters alone said nothing.
"""

from __future__ import annotations

from pathlib import Path

from quiz.core.kinds import key_text
from quiz.tui.screens.feedback import FeedbackScreen

from .conftest import answer, make_app, question_shown, screen_text, settle, started, wait_for


async def test_the_feedback_names_each_right_option_by_its_text(data_dir: Path) -> None:
    app = make_app(data_dir, mode="practice",
                   practice_topic="parallelism/activations-untouched")
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert screen.question is not None
        part = screen.question.part
        wrong = next(c for c in "abcd" if c not in part.key.correct)
        await answer(pilot, wrong)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await settle(pilot)
        summary = " ".join(screen_text(app.screen.query_one("#feedback-summary")).split())
        assert f"Key {key_text(part)}" in summary
        for label in part.key.correct:
            assert f"{label}) {part.spec.choices[ord(label) - ord('a')]}" in summary
