"""A keystroke in the answer box paints the echo and the preview without laying the
question screen out again.

Regression of issue 15: Textual's Input stores its text's width in a reactive that
asks for a layout pass, so every key reflowed and repainted the whole question screen
(a keystroke cost 40-60 ms on the choices' screen); and a preview switching between one
and two lines (a reading, then a refusal) moved the input and laid the screen out again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from quiz.tui.widgets.answer_box import PREVIEW_LINES, AnswerBox

from .conftest import make_app, question_shown, settle


def count_layouts(screen: Screen[Any]) -> list[int]:
    """A one-item list counting the screen's layout passes from now on."""
    count = [0]
    refresh_layout = screen._refresh_layout

    def counted(*args: Any, **kw: Any) -> None:
        count[0] += 1
        refresh_layout(*args, **kw)

    screen._refresh_layout = counted  # type: ignore[method-assign]
    return count


def count_workers(box: AnswerBox) -> list[str]:
    """The texts the box hands to its preview worker from now on."""
    workers: list[str] = []
    read_in_worker = box._read_in_worker

    def counted(text: str, *args: Any) -> Any:
        workers.append(text)
        return read_in_worker(text, *args)

    box._read_in_worker = counted  # type: ignore[method-assign]
    return workers


async def answering(pilot: Any) -> tuple[Any, AnswerBox, Any]:
    """The question on screen: (its part, the answer box, the preview)."""
    screen = await question_shown(pilot)
    assert screen.question is not None
    box = screen.query_one(AnswerBox)
    return screen.question.part, box, box.query_one("#answer-preview")


def previewer(part: Any) -> Any:
    """What the box's preview says of typed text for ``part`` (its kind's own, if any)."""
    from quiz.core.session import preview
    from quiz.tui.kinds import asked_as

    return asked_as(part.kind).preview or preview


@pytest.mark.anyio
async def test_picking_options_never_grows_the_preview(data_dir: Path) -> None:
    """Regression: a multi-select's reading listed every picked option's text (three
    lines here for four options), so letters typed grew the preview and laid the whole
    screen out again (the mixed run's slowest keystrokes). The letters read fit."""
    app = make_app(data_dir, mode="practice",
                   practice_topic="parallelism/activations-untouched")
    async with app.run_test(size=(60, 24)) as pilot:
        _part, box, shown = await answering(pilot)
        layouts = count_layouts(app.screen)
        height = shown.size.height
        for key in ["a", "space", "b", "space", "c", "space", "d"]:
            await pilot.press(key)
            await settle(pilot)
        assert box.value == "a b c d"
        assert str(shown.render()) == "read as A, B, C, D"
        assert (layouts[0], shown.size.height) == (0, height)


@pytest.mark.anyio
@pytest.mark.parametrize("topic", ["memory/model-state", "parallelism/axes-memory-table",
                                   "parallelism/activations-untouched", "layout"])
async def test_typing_an_answer_lays_nothing_out(data_dir: Path, topic: str) -> None:
    app = make_app(data_dir, mode="practice", practice_topic=topic)
    async with app.run_test(size=(80, 24)) as pilot:
        part, box, shown = await answering(pilot)
        preview = previewer(part)
        layouts = count_layouts(app.screen)
        # The key as shown, letter by letter (readings and refusals in turn), a stray
        # word, the cursor moved about, then everything deleted.
        typed = part.key.display[:16] + " zz"
        keys = [{" ": "space"}.get(c, c) for c in typed]
        keys += ["left", "home", "end", "right"] + ["backspace"] * len(typed)
        laid_out = []
        for key in keys:
            before, height = layouts[0], shown.size.height
            await pilot.press(key)
            await settle(pilot)
            assert str(shown.render()) == preview(part, box.value)
            if shown.size.height == height:  # only a longer reading may need more room
                laid_out += [key] * (layouts[0] - before)
        assert box.value == ""
        assert laid_out == []
        assert shown.size.height >= PREVIEW_LINES


async def test_a_formula_reads_with_the_echo_once_warmed_up(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A formula's reading builds sympy expressions: the box reads texts that are never
    typed (the refusals' example) in a worker while the question is read, and until
    that is done, typed text is read in the worker. Then each keystroke is read with
    its echo while readings stay quick; after a costly one, in the worker; a text read
    once reads again with the echo, no worker started."""
    import threading

    import quiz.core.session
    from quiz.core.session import preview, preview_warmups

    from .conftest import WAIT_BOUND_S, wait_for

    # Every reading takes no time by this clock (a loaded machine must not decide).
    monkeypatch.setattr("quiz.tui.widgets.answer_box.reading_clock", lambda: 0.0)
    warmed: list[tuple[str, ...]] = []
    go_on = threading.Event()

    def held_warmups(part: Any) -> tuple[str, ...]:
        # held until the test lets it go on: a fixed wait could run out on a loaded
        # machine before the first key is typed (the bound only ends a failed test's
        # thread)
        go_on.wait(WAIT_BOUND_S)
        warmed.append(preview_warmups(part))
        return warmed[-1]

    monkeypatch.setattr(quiz.core.session, "preview_warmups", held_warmups)
    app = make_app(data_dir, mode="practice", practice_topic="compute/flops-formula")
    async with app.run_test(size=(80, 24)) as pilot:
        from quiz.tui.screens.question import QuestionScreen

        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen)
                       and app.screen.question is not None)
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.question is not None
        box = screen.query_one(AnswerBox)
        shown = box.query_one("#answer-preview")
        question = screen.question
        part = question.part
        workers = count_workers(box)
        try:
            await wait_for(pilot, lambda: box._warming)
            await pilot.press("6")  # still warming up: the worker reads it
            assert workers == ["6"]
        finally:
            go_on.set()
        await wait_for(pilot, lambda: not box._warming)
        await settle(pilot)
        assert str(shown.render()) == preview(part, "6")
        assert warmed and all(text != part.key.formula for text in warmed[0])
        for typed in ("6*", "6*P", "6*P*", "6*P*D"):
            await pilot.press(typed[-1])
            assert str(shown.render()) == preview(part, typed)  # no worker waited for
        assert workers == ["6"]
        box._last_cost = 1.0  # as if that reading had taken a second
        await pilot.press("+")
        await settle(pilot)
        assert workers == ["6", "6*P*D+"]
        assert str(shown.render()) == preview(part, "6*P*D+")
        box._last_cost = 1.0
        await pilot.press("backspace")  # read before: with the echo, though costly
        assert str(shown.render()) == preview(part, "6*P*D")
        assert workers == ["6", "6*P*D+"]


async def test_a_short_paragraph_reads_with_the_echo_a_costly_one_in_the_worker(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A paragraph's reading grows with its length: it reads on the keystroke while the
    last reading was within budget, and in the worker after one that was not."""
    from quiz.core.session import preview

    from .test_spoken_snapshots import spoken_app

    # Every reading takes no time by this clock (a loaded machine must not decide).
    monkeypatch.setattr("quiz.tui.widgets.answer_box.reading_clock", lambda: 0.0)
    app = spoken_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        part, box, shown = await answering(pilot)
        workers = count_workers(box)
        await pilot.press(*"TP 8 in the node")
        assert str(shown.render()) == preview(part, "TP 8 in the node")
        assert workers == []
        box._last_cost = 1.0  # as if that reading had taken a second
        await pilot.press(",")
        await settle(pilot)
        assert workers == ["TP 8 in the node,"]
        assert str(shown.render()) == preview(part, "TP 8 in the node,")
        await pilot.press("space")  # the worker's reading was quick: back on the keystroke
        assert str(shown.render()) == preview(part, "TP 8 in the node, ")
        assert workers == ["TP 8 in the node,"]


def frames_painted(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The ids of the widgets each screen update repaints, from the app's start (the
    hook must be set before the screens start their update timers)."""
    frames: list[set[str]] = []
    on_timer_update = Screen._on_timer_update

    def recorded(screen: Screen[Any]) -> None:
        if screen._dirty_widgets:
            frames.append({str(w.id) for w in screen._dirty_widgets})
        on_timer_update(screen)

    monkeypatch.setattr(Screen, "_on_timer_update", recorded)
    return frames


async def test_a_paragraphs_reading_paints_with_its_echo(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every frame that paints a keystroke in the paragraph paints its reading too.

    Regression of issue 15: the paragraph's reading was updated from the text area's
    ``Changed`` message, which reaches the box after the frame echoing the key, so
    every spoken keystroke painted twice and its reading landed a frame (16-33 ms)
    late.
    """
    from quiz.core.session import preview

    from .test_spoken_snapshots import spoken_app

    monkeypatch.setattr("quiz.tui.widgets.answer_box.reading_clock", lambda: 0.0)
    frames = frames_painted(monkeypatch)
    app = spoken_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        part, box, shown = await answering(pilot)
        box.paragraph.cursor_blink = False
        await settle(pilot)
        typed = "TP 8 in the node, 1.13 TB"
        keys = [{" ": "space", ",": "comma", ".": "full_stop"}.get(c, c) for c in typed]
        keys += ["backspace"] * 4
        changed = 0
        for key in keys:
            frames.clear()
            before = str(shown.render())
            await pilot.press(key)
            await settle(pilot)
            echoed = [f for f in frames if "answer-text" in f]
            assert echoed, key
            reading = str(shown.render())
            assert reading == preview(part, box.value)
            # a new reading paints with the echo; an unchanged one is not painted again
            assert all(("answer-preview" in f) == (reading != before)
                       for f in echoed), (key, frames)
            changed += reading != before
        assert box.value == typed[:-4]
        assert 4 < changed < len(keys) - 4


async def test_ctrl_d_right_after_typing_submits_what_was_typed(data_dir: Path) -> None:
    """Keys typed in one burst with Ctrl+D at its end submit every key typed.

    Regression: Ctrl+D is a priority binding, run by the app as soon as it takes the
    key from its queue, while the letters before it still wait in the text area's own
    queue: a paragraph typed fast and sent at once was read as empty (or cut short).
    """
    from textual import events

    from quiz.tui.screens.feedback import FeedbackScreen

    from .conftest import wait_for
    from .test_spoken_snapshots import spoken_app

    app = spoken_app(data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        _part, box, _shown = await answering(pilot)
        typed = "TP 8 inside the node"
        for c in typed:  # queued at once, as a terminal delivers a burst of keys
            app.post_message(events.Key({" ": "space"}.get(c, c), c))
        app.post_message(events.Key("ctrl+d", None))
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        assert isinstance(app.screen, FeedbackScreen)
        assert app.screen.outcome.question.answer_text == typed
        assert box.value == typed
