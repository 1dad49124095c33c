"""The 30-second answer in the terminal app: a paragraph typed in a text area (Enter is
a new line, Ctrl+D submits) and the checklist feedback, driven with Pilot and kept as
SVG snapshots at 80x24 and 120x40.

The app runs over its own copy of the spoken template (``spoken_templates/``), so these
snapshots do not move when the bundled template is edited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from syrupy.assertion import SnapshotAssertion
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from quiz.tui.app import QuizApp

from .conftest import make_app, question_shown, settle, started, wait_for
from .sizes import snap_both_sizes

if TYPE_CHECKING:
    from quiz.core.state import DataFolder

SPOKEN = Path(__file__).parent / "spoken_templates"

ANSWER = ("16 bytes per parameter gives 2.8 TB of state; activations 60 GB per sequence.",
          "TP 8 inside the node, FSDP across nodes. About 400 days.")


def spoken_files(state: DataFolder) -> list[Path]:
    from questions.loader import bank_files

    return bank_files([SPOKEN], bundled=False).files


def spoken_app(data_dir: Path) -> QuizApp:
    return make_app(data_dir, mode="practice", practice_topic="layout/thirty-second-answer",
                    template_files=spoken_files)


async def type_paragraph(pilot: Pilot[Any]) -> None:
    await question_shown(pilot)
    first, second = ANSWER
    area = pilot.app.screen.query_one("#answer-text", TextArea)
    area.insert(first)
    await pilot.press("enter")  # a new line, not a submission
    area.insert(second)
    await settle(pilot)


async def submit(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+d")
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "FeedbackScreen")
    await settle(pilot)


def steps(*actions: Callable[[Pilot[Any]], Awaitable[None]]) -> Callable[
        [Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        await started(pilot)
        for action in actions:
            await action(pilot)
        await settle(pilot)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        for area in pilot.app.screen.query(TextArea):
            area.cursor_blink = False
        pilot.app.clear_notifications()
        await pilot.pause()

    return run


def test_spoken_question_with_a_paragraph_typed(snapshot: SnapshotAssertion,
                                                data_dir: Path) -> None:
    snap_both_sizes(snapshot, spoken_app(data_dir), steps(type_paragraph))


def test_spoken_checklist_feedback(snapshot: SnapshotAssertion, data_dir: Path) -> None:
    snap_both_sizes(snapshot, spoken_app(data_dir), steps(type_paragraph, submit))
