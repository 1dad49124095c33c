"""The daily drill as a learner meets it: teaching order, honest counts, skip, summary."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import bundled_bank

from questions.loader import Bank
from quiz.core.drill import DrillSession, Left, teaching_order
from quiz.core.settings import Settings
from quiz.core.store import Store

BANK = bundled_bank()
# Three templates with byte answers, so that "1 B" is always a readable wrong answer.
BYTES = Bank(templates={t: BANK.templates[t] for t in (
    "memory/model-state", "memory/activations-one-layer", "memory/sgd-momentum-state")})
DAY1 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


class Now:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def __call__(self) -> datetime:
        return self.t


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "history.db", now=lambda: DAY1, tz=UTC)


def test_day_one_starts_with_the_model_state_and_mixes_topics() -> None:
    order = teaching_order(BANK)
    assert order[0] == "memory/model-state"  # rapid-fire item 1 comes first
    first_day = order[:10]
    topics = [BANK.templates[t].topic for t in first_day]
    assert len(set(topics)) >= 4
    assert all(a != b for a, b in itertools.pairwise(topics))
    assert sorted(order) == sorted(BANK.templates)


def test_easy_templates_come_before_hard_ones() -> None:
    levels = [BANK.templates[t].difficulty for t in teaching_order(BANK)]
    assert levels == sorted(levels)


def test_day_one_drill_follows_the_teaching_order(store: Store) -> None:
    now = Now(DAY1)
    s = DrillSession(BANK, store, Settings(), now=now, rng=random.Random(0))
    assert s.queue() == teaching_order(BANK)[:10]
    q = s.next()
    assert q is not None and q.template.id == "memory/model-state"


def _answer(s: DrillSession, right: bool) -> None:
    q = s.current
    assert q is not None
    s.submit(q.part.key.display if right else "1 B")


def test_a_missed_card_shows_as_again_not_as_a_new_question(store: Store) -> None:
    now = Now(DAY1)
    s = DrillSession(BYTES, store, Settings(new_per_day=3), now=now, rng=random.Random(0))
    assert s.left() == Left(3, 0)
    s.next()
    _answer(s, right=False)
    assert s.left() == Left(2, 1)
    assert str(s.left()) == "2 left today (+1 again)"
    assert str(Left(0, 1)) == "1 again today" and str(Left(4, 0)) == "4 left today"


def test_a_skipped_question_is_unscored_and_comes_back_last(store: Store) -> None:
    now = Now(DAY1)
    s = DrillSession(BYTES, store, Settings(new_per_day=3), now=now, rng=random.Random(0))
    first = s.next()
    assert first is not None
    second = s.skip()
    assert second is not None and second.template.id != first.template.id
    assert store.attempts() == []
    assert s.queue()[-1] == first.template.id
    _answer(s, right=True)
    third = s.next()
    assert third is not None and third.template.id not in (first.template.id,
                                                           second.template.id)


def test_the_summary_names_the_misses_and_what_comes_tomorrow(store: Store) -> None:
    now = Now(DAY1)
    s = DrillSession(BYTES, store, Settings(new_per_day=2), now=now, rng=random.Random(0))
    s.next()
    _answer(s, right=True)
    s.next()
    _answer(s, right=False)
    summary = s.summary()
    assert summary.questions == 2 and summary.correct == 1
    assert summary.score is not None and 0.4 < summary.score < 0.6
    assert len(summary.missed) == 1 and summary.missed[0].answer == "1 B"
    assert summary.missed[0].verdict == "incorrect"
    assert summary.new_tomorrow == 1  # the third template is still new
    assert summary.tomorrow == 0  # the miss comes back today, the easy one in days
