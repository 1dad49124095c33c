"""The layout lab as a person uses it: from home or the palette, keys change the layout."""

from __future__ import annotations

from pathlib import Path

from quiz.tui.screens.layout_lab import LayoutLabScreen
from solver.perf import Evaluation

from .conftest import make_app, settle, started, wait_for


async def test_lab_opens_from_home_and_tp_key_moves_traffic_to_network(
        data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LayoutLabScreen))
        screen = app.screen
        assert isinstance(screen, LayoutLabScreen)
        await wait_for(pilot, lambda: screen.lab.workload is not None)
        await settle(pilot)
        await pilot.press("T")
        e = screen.current()
        assert isinstance(e, Evaluation) and e.layout.tp == 16
        assert e.tp_link == "network"
        await pilot.press("o")
        assert screen.lab.layout.tp == 8
        await pilot.press("escape")
        assert not isinstance(app.screen, LayoutLabScreen)


async def test_lab_opens_from_the_command_palette_mode(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        app.open_mode("lab")
        await wait_for(pilot, lambda: isinstance(app.screen, LayoutLabScreen))
        await settle(pilot)


async def test_changing_the_gpu_reloads_in_a_worker(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LayoutLabScreen))
        screen = app.screen
        assert isinstance(screen, LayoutLabScreen)
        await pilot.press("g")
        assert screen.lab.setup.gpu == "h200"
        await wait_for(pilot, lambda: screen.lab.workload is not None)
        workload = screen.lab.workload
        assert workload is not None and workload.hbm_bytes == 141e9


def test_a_layout_questions_feedback_opens_the_lab_with_the_typed_layout() -> None:
    from questions.catalog import load_bank
    from questions.variants import make_variant
    from quiz.core.layout_lab import lab_for

    pv = make_variant(load_bank().get("layout/lay-out-cluster"), 0).parts[0]
    setup, layout = lab_for(pv.model, pv.gpu, pv.overrides, "tp=16 pp=1 mb=1 zero=1")
    assert (setup.model, setup.gpus, setup.seq) == ("llama3-70b", 512, 8192)
    assert layout is not None and layout.tp == 16 and layout.dp == 32


async def test_a_layout_answers_feedback_names_the_lab_key_and_opens_it(
        data_dir: Path) -> None:
    """Regression: `l` opened the lab from a layout question's feedback, but the keys
    line never said so; the lab's title bar said only "quiz"."""
    from quiz.tui.screens.feedback import FeedbackScreen

    from .conftest import answer, question_shown, screen_text

    app = make_app(data_dir, mode="practice", practice_topic="layout")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await question_shown(pilot)
        await answer(pilot, "tp=8 pp=1 cp=1 ep=1 mb=1 zero=1")
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        feedback = app.screen
        assert "l Lab" in screen_text(feedback.query_one("KeysLine"))
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LayoutLabScreen))
        assert "Layout lab" in screen_text(app.screen.query_one("TitleBar"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is feedback)
