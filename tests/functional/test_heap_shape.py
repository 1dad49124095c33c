"""What a run of answers leaves alive, and when the garbage collector runs (issue 15).

Enter -> feedback had a 99th percentile five times its median: full garbage collections,
which scan every live container object, fell inside the Enter, and the objects to scan
grew with every answer (widgets long removed, kept alive by Textual's caches). These
tests count objects, never time: the answers of a later session leave no more behind
than those of an earlier one; start-up's objects are frozen out of collections for the
app's life; a full collection that is due runs while the feedback is read.
"""

from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.segment import Segment
from textual._styles_cache import StylesCache
from textual.cache import LRUCache
from textual.strip import Strip
from textual.widget import Widget

from quiz.tui import heap
from quiz.tui.app import QuizApp
from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.home import HomeScreen
from quiz.tui.textual_private import fix_paint_cycles, fix_styles_cache
from quiz.tui.widgets.paragraph_area import ParagraphArea

from .conftest import answer, make_app, per_profile, question_shown, settle, started, wait_for
from .test_spoken_snapshots import spoken_app

pytestmark = pytest.mark.app_heap
"""Every test here runs the app's own freezing and thawing (tests/functional/conftest.py,
``_app_heap``)."""

SIZE = (100, 30)
WRONG = {"memory/model-state": "1 TB", "compute/flops-formula": "2*P*D",
         "parallelism/axes-memory-table": None, "layout/lay-out-cluster": None}
"""Number, formula, table and layout answers (each kind builds its own widgets), with a
wrong answer to alternate with the key where the kind has an easy one (None: the key)."""


ONE_SESSION = 20
"""Widgets of a question screen (16 at most in these templates), and a few more."""

LATER_ROUNDS = per_profile(1, 2)
"""Rounds of the four kinds' sessions after the census of the warm app: one locally
(4 sessions, 8 answers; each leak this test guards against is over its bound after
one round), two under ``QUIZ_FUZZ=full``."""


def census() -> Counter[str]:
    """Live objects of the kinds that grew, after a full collection."""
    gc.collect()
    widgets = [o for o in gc.get_objects() if isinstance(o, Widget)]
    owned = {id(w._styles_cache) for w in widgets}
    caches = [o for o in gc.get_objects() if isinstance(o, StylesCache)]
    return Counter({
        "widgets": len(widgets),
        "orphan styles caches": sum(id(c) not in owned for c in caches),
        "strips": sum(isinstance(o, Strip) for o in gc.get_objects()),
        "paragraph areas": sum(isinstance(o, ParagraphArea) for o in gc.get_objects()),
    })


async def one_session(pilot: Any, template_id: str, answers: int) -> None:
    """Practise one template: ``answers`` answers (wrong and right), then leave."""
    app = pilot.app
    app.start_practice_on([template_id])
    for i in range(answers):
        screen = await question_shown(pilot)
        assert screen.question is not None
        key = screen.question.part.key.display
        await answer(pilot, key if i % 2 else WRONG[template_id] or key)
        await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
        await settle(pilot)
        await pilot.press("enter" if i < answers - 1 else "escape")
        await settle(pilot)
    await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
    await settle(pilot)


async def test_later_answers_leave_no_more_alive_than_earlier_ones(data_dir: Path) -> None:
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        for tid in WRONG:  # every kind's widgets built once, caches warm
            await one_session(pilot, tid, 2)
        early = census()
        for _ in range(LATER_ROUNDS):
            for tid in WRONG:
                await one_session(pilot, tid, 2)
        late = census()
    # 8 answers in 4 sessions later (16 in 8 under full): the same widgets alive (the
    # home, the feedback screen, the last session or two, which their last callbacks
    # may still hold), the removed ones gone with the lines they painted. Before the fixes, the last
    # 1,024 widgets ever painted kept their styles caches and strips, and every
    # session left its answer box's text area behind (4 or 8 more here).
    assert late["orphan styles caches"] == early["orphan styles caches"] == 0
    assert late["paragraph areas"] <= early["paragraph areas"] + 1
    assert late["widgets"] <= early["widgets"] + ONE_SESSION
    assert late["strips"] <= early["strips"] * 1.2


def test_the_styles_cache_fix_keys_by_colour_and_holds_no_instance() -> None:
    from textual.color import Color

    def alive() -> int:
        gc.collect()
        return sum(isinstance(o, StylesCache) for o in gc.get_objects())

    fix_styles_cache()
    assert not fix_styles_cache()  # applied once, recognised after
    before = alive()
    for shade in range(20):  # twenty widgets' caches, each painting once
        inner, outer = StylesCache().get_inner_outer(Color(10, 20, shade),
                                                     Color(0, 0, 0, 0.5))
        assert outer.background == Color(10, 20, shade)
        assert inner.background == Color(10, 20, shade) + Color(0, 0, 0, 0.5)
    assert alive() == before  # none of them kept by the colour cache


async def test_start_up_objects_are_frozen_for_the_apps_life(data_dir: Path) -> None:
    gc.unfreeze()
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: gc.get_freeze_count() > 0)
        # sympy, pydantic, Textual and the bank: far more than the screens add later
        assert gc.get_freeze_count() > 50_000
    assert gc.get_freeze_count() == 0  # thawed on exit: the tests' apps are freed


async def test_what_is_alive_at_the_mount_is_out_of_collections_until_start_up_ends(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython's first full collection comes with its eleventh young one, whatever the
    heap holds: the objects alive when the app is mounted (the imports) are frozen, so
    that it does not scan them inside the home's first figures; start-up's own
    collection then collects them too (a cycle made before the app is freed)."""
    import weakref

    gc.unfreeze()

    class Node:
        other: Node | None = None

    cycle = Node()
    cycle.other = Node()
    cycle.other.other = cycle
    gone = weakref.ref(cycle)
    held = [cycle]  # let go of as the app mounts: garbage when the imports are held
    del cycle
    mounted = QuizApp.on_mount

    def on_mount(self: QuizApp) -> None:
        held.clear()
        mounted(self)

    monkeypatch.setattr(QuizApp, "on_mount", on_mount)
    frozen_when_shown: list[int] = []
    shown = HomeScreen.ready

    def ready(self: HomeScreen, *args: Any, **kwargs: Any) -> None:
        frozen_when_shown.append(gc.get_freeze_count())
        shown(self, *args, **kwargs)

    monkeypatch.setattr(HomeScreen, "ready", ready)
    collected: list[bool] = []
    real = heap.freeze_startup

    def freeze_startup() -> None:
        real()
        collected.append(gone() is None)

    monkeypatch.setattr(heap, "freeze_startup", freeze_startup)
    app = make_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: collected)
        assert frozen_when_shown and frozen_when_shown[0] > 0
        assert collected == [True]  # held at the mount, collected once start-up ended
    assert gc.get_freeze_count() == 0


async def test_a_due_full_collection_runs_while_the_feedback_is_read(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown_then: list[object] = []
    real = heap.collect_if_due

    def noted(due_at: int = heap.DUE_AT) -> bool:
        shown_then.append(app.screen)
        return real(due_at)

    monkeypatch.setattr(heap, "collect_if_due", noted)
    app = make_app(data_dir, mode="practice", practice_topic="memory/model-state")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        for _ in range(3):
            await question_shown(pilot)
            assert not shown_then  # nothing while the question is typed (not a mock)
            await answer(pilot, "1 TB")
            await wait_for(pilot, lambda: isinstance(app.screen, FeedbackScreen))
            # once the feedback is painted and still, with the feedback showing
            await wait_for(pilot, lambda: shown_then)
            assert shown_then == [app.screen]
            shown_then.clear()
            await pilot.press("enter")
        await question_shown(pilot)


def test_collect_if_due_runs_a_full_collection_only_when_one_is_near() -> None:
    was_enabled = gc.isenabled()
    gc.disable()  # no automatic collection moves the counts under the test
    try:
        gc.collect()
        assert gc.get_count()[2] < heap.DUE_AT and not heap.collect_if_due()
        for _ in range(heap.DUE_AT):
            gc.collect(1)  # each young collection counts towards the next full one
        assert gc.get_count()[2] >= heap.DUE_AT
        full = gc.get_stats()[2]["collections"]
        assert heap.collect_if_due()
        assert gc.get_stats()[2]["collections"] == full + 1
        assert gc.get_count()[2] == 0
    finally:
        if was_enabled:
            gc.enable()


def test_a_screen_being_read_collects_sooner_than_a_pause_in_the_typing() -> None:
    # Between a feedback and the next Enter, the next question's drawing and typing
    # run up to five young collections: a read that waited for DUE_AT would leave a
    # full collection to fall inside that Enter.
    assert gc.get_threshold()[2] > heap.READING_DUE_AT + 5
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for _ in range(heap.READING_DUE_AT):
            gc.collect(1)
        assert not heap.collect_if_due()  # not yet near for a keystroke's pause
        assert heap.collect_if_due(heap.READING_DUE_AT)
        assert gc.get_count()[2] == 0
    finally:
        if was_enabled:
            gc.enable()


async def test_typing_a_paragraph_leaves_no_painted_line_to_the_cycle_collector(
        data_dir: Path) -> None:
    """Regression of issue 15: nearly every line painted was a reference cycle (a strip
    cut at its own end cached itself; a text area's cleared line cache left its ring of
    entries linked), some 300 container objects per keystroke that only a collection
    frees, so typing a paragraph set off a full collection every ~150 keys."""
    app = spoken_app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await question_shown(pilot)
        area = app.screen.query_one(ParagraphArea)
        area.cursor_blink = False
        await settle(pilot)
        was_enabled = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            for key in "TP 8 in the node then 1.13 TB of state":
                await pilot.press({" ": "space"}.get(key, key))
            await settle(pilot)
            assert len(area.text) > 30  # every key was painted, and its reading
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            left = Counter(type(o).__name__ for o in gc.garbage
                           if isinstance(o, Strip) or type(o).__module__.startswith("textual"))
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            if was_enabled:
                gc.enable()
        assert left == Counter(), left  # before: some 20 strips a key


@given(texts=st.lists(st.text(alphabet="ab c", min_size=1, max_size=6), min_size=1,
                      max_size=4),
       cuts=st.lists(st.integers(0, 30), max_size=4), start=st.integers(-2, 30),
       end=st.integers(0, 30))
@settings(max_examples=200, deadline=None)
def test_the_paint_cycle_fix_gives_textuals_results(texts: list[str], cuts: list[int],
                                                   start: int, end: int) -> None:
    fix_paint_cycles()
    assert not fix_paint_cycles()  # applied once, recognised after

    def strip() -> Strip:
        return Strip([Segment(t) for t in texts])

    def texts_of(strips: Any) -> list[str]:
        return [s.text for s in strips]

    length = strip().cell_length
    for cut in ([*sorted(cuts), length], [length], sorted(cuts)):
        assert texts_of(strip().divide(cut)) == texts_of(
            Strip.divide.__wrapped__(strip(), cut))  # type: ignore[attr-defined]
    for a, b in ((start, end), (0, length), (start, length)):
        assert strip().crop_extend(a, b, None).text == \
            Strip.crop_extend.__wrapped__(strip(), a, b, None).text  # type: ignore[attr-defined]


def test_a_cleared_line_cache_and_a_whole_strip_free_without_the_collector() -> None:
    fix_paint_cycles()
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(50):
            line = Strip([Segment("read as 1.13 TB")])
            assert line.divide([line.cell_length]) == [line]
            assert line.crop_extend(0, line.cell_length, None) is line
            cache: LRUCache[int, Strip] = LRUCache(4)
            for y in range(6):
                cache[y] = line
            cache.clear()
            assert cache.get(5) is None and len(cache) == 0
            cache[1] = line  # still usable after clearing
            assert cache.get(1) is line
            cache.clear()
        del line, cache
        assert gc.collect() == 0  # nothing was left in a cycle
    finally:
        if was_enabled:
            gc.enable()
