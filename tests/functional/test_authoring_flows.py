"""An author's own template in the app: its free tag in the practice picker, its title on
the question and feedback screens, and follow-through from one part to the next."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.practice import PracticeScreen
from solver.units import format_value

from .conftest import answer, make_app, question_shown, screen_text, started, wait_for

SIZE = (120, 40)
GUIDE = Path(__file__).parents[2] / "AUTHORING.md"


def text_of(screen: Any, selector: str) -> str:
    return " ".join(screen_text(screen.query_one(selector)).split())


def own_templates(tmp_path: Path) -> Path:
    """The guide's follow-through scenario (tagged "mine") in a folder of one's own."""
    section = GUIDE.read_text(encoding="utf-8").split(
        "#### Worked example: a scenario with follow-through", 1)[1]
    text = section.split("```toml\n", 1)[1].split("```", 1)[0]
    assert 'tags = ["mine"]' in text
    folder = tmp_path / "mine"
    (folder / "scenario").mkdir(parents=True)
    (folder / "scenario" / "my-zero-steps.toml").write_text(text, encoding="utf-8")
    return folder


async def test_a_free_tag_is_practised_from_the_picker_with_follow_through(
        data_dir: Path, tmp_path: Path) -> None:
    app = make_app(data_dir, template_dirs=[str(own_templates(tmp_path))])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PracticeScreen))
        picker = app.screen
        assert isinstance(picker, PracticeScreen)
        assert ("mine", "mine") in picker.groups[-1]
        labels = [label for label, _ in picker.targets]
        menu = picker.query_one("#practice-list", OptionList)
        menu.highlighted = menu.get_option_index(str(labels.index("mine")))
        await pilot.press("enter")
        screen = await question_shown(pilot)
        question = screen.question
        assert question is not None and question.template.id == "scenario/my-zero-steps"
        assert text_of(screen, "#question-title") == "ZeRO-3 in three steps"

        first = question.part.key.value
        assert first is not None
        await answer(pilot, format_value(3 * first, "B"))  # wrong by 3x in part 1
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        assert text_of(app.screen, "#feedback-summary").startswith(
            "ZeRO-3 in three steps scenario/my-zero-steps#")
        await pilot.press("enter")
        screen = await question_shown(pilot)
        assert screen.question is not None and screen.question.part.index == 2
        dp = float(screen.question.variant.params["dp"])
        await answer(pilot, format_value(3 * first / dp, "B"))  # right from that
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        feedback = app.screen
        assert isinstance(feedback, FeedbackScreen)
        assert feedback.outcome.grade.verdict == "correct"
        assert "Carried forward: from your earlier answer (part 1:" in text_of(
            feedback, "#feedback-summary")


def test_your_own_tags_come_before_the_banks(tmp_path: Path) -> None:
    from questions.catalog import load_bank
    from quiz.tui.screens.practice import practice_targets

    bank = load_bank([own_templates(tmp_path)], packs=[])
    tags = practice_targets(bank)[-1]
    assert tags[0] == ("mine", "mine")
    assert ("kv-cache", "kv-cache") in tags  # the bank's free tags follow
    assert not {"memory", "rapid-fire-1", "decode"} & {tag for _, tag in tags}
