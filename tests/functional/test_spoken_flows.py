"""The 30-second answer in the terminal app, driven with Pilot: a paragraph typed in a
text area (Enter is a new line, Ctrl+D submits), its live reading, the checklist
feedback, and an unreadable paragraph that costs nothing."""

from __future__ import annotations

from pathlib import Path

from .conftest import question_shown, settle, started
from .test_spoken_snapshots import spoken_app, submit


async def test_enter_starts_a_new_line_and_ctrl_d_submits(data_dir: Path) -> None:
    from quiz.tui.screens.feedback import FeedbackScreen
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.widgets.answer_box import AnswerBox

    app = spoken_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        box = screen.query_one(AnswerBox)
        assert box.multiline and app.focused is box.paragraph
        assert "^d Submit" in str(screen.query_one("KeysLine").render())
        await pilot.press(*"TP 8 inside the node", "enter", *"1.13 TB")
        await settle(pilot)
        assert isinstance(app.screen, QuestionScreen)  # Enter did not submit
        assert box.value == "TP 8 inside the node\n1.13 TB"
        assert "1.13 TB" in str(box.query_one("#answer-preview").render())
        await submit(pilot)
        assert isinstance(app.screen, FeedbackScreen)
        outcome = app.screen.outcome
        assert outcome.grade.checklist is not None
        assert outcome.question.answer_text == "TP 8 inside the node\n1.13 TB"
        assert outcome.grade.verdict == "partial"


async def test_an_unreadable_paragraph_costs_nothing_and_says_why(data_dir: Path) -> None:
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.widgets.answer_box import AnswerBox

    app = spoken_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        await pilot.press("?", "!", "ctrl+d")
        await settle(pilot)
        assert isinstance(app.screen, QuestionScreen)
        box = screen.query_one(AnswerBox)
        assert box.has_class("-invalid")
        assert "words and figures" in str(box.query_one("#answer-error").render())
        assert screen.session.answered == []


async def test_a_mock_closes_with_a_30_second_answer_on_its_own_clock(
        data_dir: Path) -> None:
    from questions.loader import bank_files
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.screens.report import ReportScreen
    from quiz.tui.widgets.answer_box import AnswerBox

    from .conftest import TEMPLATES, FakeClock, answer, make_app, wait_for
    from .test_spoken_snapshots import SPOKEN

    def files(state: object) -> list[Path]:
        return [*bank_files([TEMPLATES / "memory"], bundled=False).files,
                *bank_files([SPOKEN], bundled=False).files]

    clock = FakeClock()
    app = make_app(data_dir, clock, mode="mock", mock_questions=1, mock_minutes=5,
                   mock_closing=2, template_files=files)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        screen = await question_shown(pilot)
        assert isinstance(screen, QuestionScreen) and screen.mock is not None
        assert screen.query_one(AnswerBox).multiline is False
        await answer(pilot, screen.question.part.key.display if screen.question else "")
        screen = await question_shown(pilot)
        assert screen.question is not None and screen.question.part.kind == "spoken"
        assert screen.mock is not None and screen.mock.remaining() == 120
        assert "closing answer" in str(screen.query_one("#question-progress").render())
        box = screen.query_one(AnswerBox)
        assert box.multiline
        box.paragraph.insert(screen.question.part.key.display)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ReportScreen))
        report = app.screen.report  # type: ignore[attr-defined]
        assert [r["verdict"] for r in report.rows] == ["correct", "correct"]
