"""Sessions without any UI: what the drill, practice and mock interview record and say."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import bundled_bank

from quiz.core.drill import DrillSession
from quiz.core.mock import MockSession
from quiz.core.practice import PracticeSession, matching
from quiz.core.session import NoQuestions
from quiz.core.settings import Settings
from quiz.core.store import Store

BANK = bundled_bank()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "history.db")


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_invalid_answer_is_not_an_attempt_and_keeps_the_question(store: Store) -> None:
    s = PracticeSession(BANK, store, Settings(), topic="memory/model-state",
                        rng=random.Random(1))
    q = s.next()
    assert q is not None
    out = s.submit("plenty")
    assert out.grade.verdict == "invalid" and out.attempt_id is None
    assert store.attempts() == [] and s.current is q
    out = s.submit(q.part.key.display)
    assert out.grade.verdict == "correct" and len(store.attempts()) == 1


def test_scenario_parts_come_in_order_and_each_is_recorded(store: Store) -> None:
    s = PracticeSession(BANK, store, Settings(), topic="scenario/serve-it",
                        rng=random.Random(2))
    q = s.next()
    assert q is not None
    n = len(q.variant.parts)
    for i in range(1, n + 1):
        assert q is not None and q.part.index == i
        out = s.submit(q.part.key.display)
        assert out.more_parts == (i < n)
        q = s.next()
    assert len(store.attempts()) == n


def test_practice_filters_by_topic_tag_and_id(store: Store) -> None:
    assert all(BANK.templates[t].topic == "pipeline" for t in matching(BANK, "pipeline"))
    assert all("rapid-fire-3" in BANK.templates[t].tags
               for t in matching(BANK, "rapid-fire-3"))
    assert matching(BANK, "memory/model-state") == ["memory/model-state"]
    assert matching(BANK, "layout/thirty") == ["layout/thirty-second-answer"]
    # a folder still means the ids under it, not every id starting with its letters
    folder = matching(BANK, "memory")
    assert folder and all(t.startswith("memory/") or BANK.templates[t].topic == "memory"
                          or "memory" in BANK.templates[t].tags for t in folder)
    with pytest.raises(NoQuestions):
        PracticeSession(BANK, store, Settings(), topic="nothing-like-it")


def test_drill_schedules_and_stops_at_the_daily_cap(store: Store) -> None:
    s = DrillSession(BANK, store, Settings(new_per_day=3), rng=random.Random(3))
    asked: list[str] = []
    while (q := s.next()) is not None and len(asked) < 20:
        asked.append(q.template.id)
        while True:  # answer every part of a scenario
            out = s.submit(q.part.key.display)
            if not out.more_parts:
                break
            q = s.next()
            assert q is not None
    assert len(set(asked)) == 3
    assert len(store.cards()) == 3


def test_mock_warns_at_five_and_one_minute_then_expires(store: Store) -> None:
    clock = Clock()
    m = MockSession(BANK, store, Settings(), questions=3, minutes=10, clock=clock,
                    rng=random.Random(4))
    q = m.next()
    assert q is not None and m.due_warning() is None
    clock.t = 5 * 60 + 1
    assert m.due_warning() == "5 minutes left" and m.due_warning() is None
    clock.t = 9 * 60 + 30
    assert m.due_warning() == "1 minute left"
    clock.t = 10 * 60 + 1
    assert m.time_up()
    m.expire("")
    report = m.finish()
    assert report.rows[0]["mistake"] == "unanswered" and report.score == 0.0
    assert store.mock_history()[0].score == 0.0


def test_short_mock_never_says_five_minutes(store: Store) -> None:
    clock = Clock()
    m = MockSession(BANK, store, Settings(), questions=1, minutes=1, clock=clock)
    clock.t = 1
    assert m.due_warning() is None
    clock.t = 31
    assert m.due_warning() is None  # 1-minute mark equals the whole length
    assert m.remaining() == pytest.approx(29)


def test_mock_report_counts_unreached_questions_as_zero(store: Store) -> None:
    clock = Clock()
    m = MockSession(BANK, store, Settings(), questions=4, minutes=30, clock=clock,
                    rng=random.Random(5))
    q = m.next()
    assert q is not None
    while True:
        out = m.submit(q.part.key.display)
        if not out.more_parts:
            break
        q = m.next()
        assert q is not None
    report = m.finish()
    assert report.score == pytest.approx(1 / 4)
    assert all(text for _, text in report.solutions)


def test_live_preview_reads_without_grading() -> None:
    from questions.variants import make_variant
    from quiz.core.session import preview

    pv = make_variant(BANK.get("memory/model-state"), 0).parts[0]
    assert preview(pv, "2 TB") == "read as 2e12 B = 2 TB (1.82 TiB)"
    bad = preview(pv, "lots")
    assert bad.startswith("can't read:") and bad.count("For example") == 1
    layout = make_variant(BANK.get("layout/lay-out-cluster"), 0).parts[0]
    # Keys not typed are named with how they are completed (as quiz layout does).
    assert preview(layout, "tp=8 pp=1") == ("read as tp=8 pp=1 (cp=1 ep=1; mb and zero "
                                            "chosen best)")
