"""The mock interview as a candidate meets it: comparison, scenarios, warnings, hints."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import bundled_bank

from questions.loader import Bank
from quiz.core.mock import MockSession
from quiz.core.settings import Settings
from quiz.core.store import Store

BANK = bundled_bank()
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


# ---------------------------------------------------------------- a closing 30-second answer

CLOSING_BANK = Bank(templates={t: BANK.templates[t] for t in (
    "memory/model-state", "compute/train-flops", "layout/thirty-second-answer",
    "moe/train-a-moe")})


def test_a_30_second_answer_closes_the_mock_on_its_own_clock(store: Store) -> None:
    clock = Clock()
    m = MockSession(CLOSING_BANK, store, Settings(), questions=2, minutes=10, clock=clock,
                    closing=True, rng=random.Random(1))
    assert m.n == 3 and m.closing_due() and m.closing_minutes == 3
    kinds = []
    for _ in range(2):
        q = m.next()
        assert q is not None
        kinds.append(q.part.kind)
        clock.t += 60
        m.submit(q.part.key.display)
    assert kinds == ["number", "number"]  # spoken templates wait for the close
    q = m.next()
    assert q is not None and q.part.kind == "spoken" and m.closing
    assert m.remaining() == 180  # its own 3 minutes, not the 8 left of the 10
    clock.t += 179
    assert not m.time_up()
    assert m.due_warning() == "15 seconds left"
    m.submit(q.part.key.display)
    assert m.next() is None
    report = m.finish()
    assert report.score == 1.0 and len(report.rows) == 3
    assert report.rows[-1]["question"].startswith(q.template.id)


def test_when_the_questions_run_out_of_time_the_closing_answer_still_comes(
        store: Store) -> None:
    clock = Clock()
    m = MockSession(CLOSING_BANK, store, Settings(), questions=2, minutes=1, clock=clock,
                    closing=True, closing_minutes=2)
    q = m.next()
    assert q is not None and q.part.kind == "number"
    clock.t += 61
    assert m.time_up() and m.closing_due()
    m.expire("")  # the typed nothing: unanswered
    q = m.next()
    assert q is not None and q.part.kind == "spoken"
    assert m.remaining() == 120 and not m.time_up()
    clock.t += 121
    assert m.time_up() and not m.closing_due()
    m.expire(q.part.key.display)  # what was typed when its time ran out is graded
    assert m.next() is None
    report = m.finish()
    assert report.unreached == 1  # the second question was never reached
    assert [r["verdict"] for r in report.rows] == ["incorrect", "correct"]


def test_without_a_closing_answer_nothing_changes(store: Store) -> None:
    m = MockSession(CLOSING_BANK, store, Settings(), questions=2, minutes=10, clock=Clock())
    assert m.closing_id is None and not m.closing_due() and m.n == 2
