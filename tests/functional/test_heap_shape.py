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

from textual._styles_cache import StylesCache
from textual.strip import Strip
from textual.widget import Widget

from quiz.tui.screens.feedback import FeedbackScreen
from quiz.tui.screens.home import HomeScreen
from quiz.tui.textual_fixes import fix_styles_cache
from quiz.tui.widgets.answer_box import ParagraphArea

from .conftest import answer, make_app, question_shown, settle, started, wait_for

SIZE = (100, 30)
WRONG = {"memory/model-state": "1 TB", "compute/flops-formula": "2*P*D",
         "parallelism/axes-memory-table": None, "layout/lay-out-cluster": None}
"""Number, formula, table and layout answers (each kind builds its own widgets), with a
wrong answer to alternate with the key where the kind has an easy one (None: the key)."""


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
        for _ in range(2):
            for tid in WRONG:
                await one_session(pilot, tid, 2)
        late = census()
    # 16 answers in 8 sessions later: the same widgets alive (the home, the feedback
    # screen, the last session's), the removed ones gone with the lines they painted.
    # Before the fixes, the last 1,024 widgets ever painted kept their styles caches
    # and strips, and every session left its answer box's text area behind.
    assert late["orphan styles caches"] == early["orphan styles caches"] == 0
    assert late["paragraph areas"] <= early["paragraph areas"]
    assert late["widgets"] <= early["widgets"]
    assert late["strips"] <= early["strips"] * 1.1


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
