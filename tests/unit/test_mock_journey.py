"""The mock interview as a candidate meets it: comparison, scenarios, warnings, hints."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from questions.loader import Bank, load_bank
from quiz.core.session import MockSession
from quiz.core.settings import Settings
from quiz.core.store import Store

BANK = load_bank()
SCENARIO = next(t for t in sorted(BANK.templates) if t.startswith("scenario/"))


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "history.db")


def one_mock(store: Store, right: int, n: int = 2, seed: int = 0) -> float:
    """A mock of n questions answered right for the first `right` of them."""
    only = Bank(templates={t: BANK.templates[t] for t in (
        "memory/model-state", "compute/train-flops", "memory/sgd-momentum-state")})
    m = MockSession(only, store, Settings(), questions=n, minutes=30, clock=Clock(),
                    rng=random.Random(seed))
    for i in range(n):
        q = m.next()
        assert q is not None
        m.submit(q.part.key.display if i < right else "1 B")
    return m.finish().score


def test_the_report_compares_with_the_last_mock_not_the_first(store: Store) -> None:
    """mock_history is newest first; the report once took its first entry as the
    oldest, so a third mock was compared with the second-oldest order reversed."""
    scores = [one_mock(store, right) for right in (0, 2)]
    assert scores == [0.0, 1.0]
    only = Bank(templates={"memory/model-state": BANK.templates["memory/model-state"]})
    m = MockSession(only, store, Settings(), questions=1, minutes=30, clock=Clock())
    q = m.next()
    assert q is not None
    m.submit(q.part.key.display)
    report = m.finish()
    assert report.previous == [0.0, 1.0]  # oldest first: the last one is the 100%


def test_a_scenario_counts_as_one_question_and_unreached_parts_are_listed(
        store: Store) -> None:
    clock = Clock()
    only = Bank(templates={SCENARIO: BANK.templates[SCENARIO]})
    m = MockSession(only, store, Settings(), questions=1, minutes=1, clock=clock)
    q = m.next()
    assert q is not None
    n_parts = len(q.variant.parts)
    assert n_parts >= 2
    m.submit(q.part.key.display)  # part 1 right
    assert m.next() is not None
    clock.t = 61
    m.expire("")  # time ran out on part 2
    report = m.finish()
    assert report.score == pytest.approx(1 / n_parts)
    assert report.unreached == 0  # the one question was reached
    assert [r["mistake"] for r in report.rows][2:] == ["unreached"] * (n_parts - 2)
    assert len(report.rows) == n_parts
    score, answered = report.by_topic["scenario"]
    assert score == pytest.approx(1 / n_parts) and answered == 1


def test_a_short_mock_warns_in_its_last_seconds(store: Store) -> None:
    clock = Clock()
    m = MockSession(BANK, store, Settings(), questions=1, minutes=1, clock=clock)
    clock.t = 50
    assert m.due_warning() == "15 seconds left"
    assert m.due_warning() is None


def test_hints_are_off_in_mocks_unless_the_setting_turns_them_on(store: Store) -> None:
    only = Bank(templates={"memory/model-state": BANK.templates["memory/model-state"]})
    m = MockSession(only, store, Settings(), questions=1, minutes=30, clock=Clock())
    assert m.next() is not None
    assert m.hint() is None and not m.hints_allowed()
    m = MockSession(only, store, Settings(mock_hints=True), questions=1, minutes=30,
                    clock=Clock())
    assert m.next() is not None
    assert m.hint() is not None
