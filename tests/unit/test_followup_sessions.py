"""Follow-ups in sessions (issue 31): offered after a layout or scenario answer in
practice and drill, recorded as attempts of their own with their own FSRS card, and
chosen by the mock interviewer from what the candidate got right or wrong."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import bundled_bank

from questions.followups import draw
from questions.variants import Variant
from quiz.core.drill import DrillSession
from quiz.core.grading import grade
from quiz.core.interviewer import MAX_FOLLOWUPS, choose
from quiz.core.mock import MockSession
from quiz.core.practice import PracticeSession
from quiz.core.session import Question
from quiz.core.settings import Settings
from quiz.core.store import Store

BANK = bundled_bank()
LAYOUT = "layout/lay-out-cluster"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "history.db")


def test_practice_offers_the_followup_after_a_layout_answer(store: Store) -> None:
    s = PracticeSession(BANK, store, Settings(), topic=LAYOUT, rng=random.Random(1))
    q = s.next()
    assert q is not None and not s.offers_followup()  # not before the answer
    s.submit(q.part.key.display)
    assert s.offers_followup()
    fu_q = s.follow_up()
    assert fu_q is not None and fu_q.followup is not None
    assert fu_q.label == f"{q.id} follow-up {fu_q.followup.index}"
    assert fu_q.prompt == fu_q.part.prompt and fu_q.followup.said in fu_q.prompt
    out = s.submit(fu_q.part.key.display)
    assert out.grade.verdict == "correct" and not out.more_parts
    rows = store.attempts()
    assert [a.template_id for a in rows] == [LAYOUT, f"{LAYOUT}+{fu_q.followup.family}"]
    assert "followup" in rows[1].tags and rows[1].seed == q.variant.seed
    # the next follow-up is another one; then a new question
    again = s.follow_up()
    assert again is not None and again.followup is not None
    assert again.followup.index != fu_q.followup.index
    s.submit(again.part.key.display)
    nxt = s.next()
    assert nxt is not None and nxt.followup is None and nxt.variant is not q.variant


def test_a_scenario_offers_followups_only_after_its_last_part(store: Store) -> None:
    s = PracticeSession(BANK, store, Settings(), topic="scenario/serve-it",
                        rng=random.Random(2))
    q = s.next()
    assert q is not None
    while True:
        out = s.submit(q.part.key.display)
        if not out.more_parts:
            break
        assert not s.offers_followup()
        q = s.next()
        assert q is not None
    assert s.offers_followup()
    fu_q = s.follow_up()
    assert fu_q is not None and fu_q.followup is not None
    assert fu_q.followup.spec.ask == "part"


def test_no_followup_after_a_plain_question(store: Store) -> None:
    s = PracticeSession(BANK, store, Settings(), topic="memory/model-state",
                        rng=random.Random(3))
    q = s.next()
    assert q is not None
    s.submit(q.part.key.display)
    assert not s.offers_followup()


def test_each_family_has_its_own_card_and_comes_back_in_the_drill(store: Store) -> None:
    clock_now = [datetime(2025, 3, 3, 12, tzinfo=UTC)]
    s = DrillSession(BANK, store, Settings(new_per_day=400), rng=random.Random(4),
                     now=lambda: clock_now[0])
    q = s.ask(LAYOUT, 7)
    s.submit(q.part.key.display)
    fu_q = s.follow_up()
    assert fu_q is not None and fu_q.followup is not None
    s.submit("tp=1 pp=1 cp=1 ep=1 mb=1 zero=0" if fu_q.part.kind == "layout" else "a")
    card = fu_q.followup.card
    cards = store.cards()
    assert LAYOUT in cards and card in cards
    assert cards[card] is not cards[LAYOUT]
    # days later the follow-up card is due like a template's, and is asked as a
    # follow-up of a fresh variant
    clock_now[0] += timedelta(days=30)
    later = DrillSession(BANK, store, Settings(new_per_day=0), rng=random.Random(5),
                         now=lambda: clock_now[0])
    assert card in later.queue()
    seen: list[Question] = []
    while (q2 := later.next()) is not None and len(seen) < 10:
        seen.append(q2)
        if q2.followup is not None:
            break
        later.submit(q2.part.key.display)
    followed = [x for x in seen if x.followup is not None]
    assert followed and followed[0].followup is not None
    assert followed[0].followup.card == card


def _seed_case_variant() -> Variant:
    from questions.variants import make_variant

    t = BANK.templates[LAYOUT]
    for seed in range(200):
        v = make_variant(t, seed)
        if (v.params["gpu"], v.params["gpus"], v.params["seq"]) == ("h100", 512, 8192):
            return v
    raise AssertionError


def test_the_interviewer_follows_a_wrong_memory_figure_with_a_memory_question() -> None:
    v = _seed_case_variant()
    pv = v.parts[0]
    g = grade(pv, "tp=1 pp=1 cp=1 ep=1 mb=1 zero=0")
    assert g.mistake == "does not fit"
    fu = choose(v, [(pv, g)], [])
    assert fu is not None and fu.spec.ask in ("memory", "fits")


def test_the_interviewer_follows_a_right_answer_with_a_harder_change() -> None:
    v = _seed_case_variant()
    pv = v.parts[0]
    fu = choose(v, [(pv, grade(pv, pv.key.display))], [])
    assert fu is not None and fu.spec.harder
    second = choose(v, [(fu.pv, grade(fu.pv, fu.pv.key.display))], [fu.index])
    assert second is not None and second.spec.harder and second.index != fu.index


def test_the_interviewer_follows_another_wrong_answer_with_an_ordinary_one() -> None:
    v = _seed_case_variant()
    pv = v.parts[0]
    g = grade(pv, "tp=16 pp=1 cp=1 ep=1 mb=1 zero=3")
    assert g.verdict == "partial"
    fu = choose(v, [(pv, g)], [])
    assert fu is not None and not fu.spec.harder


def test_a_mock_asks_up_to_two_followups_and_the_report_shows_the_chain(
        store: Store) -> None:
    t = [0.0]
    s = MockSession(BANK, store, Settings(), questions=3, minutes=600,
                    rng=random.Random(6), clock=lambda: t[0])
    s.plan[:] = [LAYOUT, "memory/model-state", "scenario/serve-it"]
    s.n = 3
    labels = []
    while (q := s.next()) is not None:
        labels.append((q.id, q.followup.index if q.followup else None))
        t[0] += 10
        s.submit(q.part.key.display)
    followups = [x for x in labels if x[1] is not None]
    per_variant: dict[str, int] = {}
    for vid, _ in followups:
        per_variant[vid] = per_variant.get(vid, 0) + 1
    assert per_variant and max(per_variant.values()) == MAX_FOLLOWUPS
    assert not any(v.startswith("memory/") for v in per_variant)
    report = s.finish()
    assert report.chains and all(len(c) == 1 + MAX_FOLLOWUPS for c in report.chains)
    assert report.chains[0][0].startswith(LAYOUT) and "→" not in report.chains[0][0]
    # the score is the planned questions' (all right here)
    assert report.score == pytest.approx(1.0)
    assert any("followup" in row for row in report.rows)


def test_followups_of_a_chain_are_reproducible_from_id_and_k() -> None:
    v = _seed_case_variant()
    pv = v.parts[0]
    fu = choose(v, [(pv, grade(pv, pv.key.display))], [])
    assert fu is not None
    again = draw(v, fu.index)
    assert again.to_json() == fu.to_json() and again.pv.key == fu.pv.key


def test_a_missed_followup_is_listed_with_its_own_key(store: Store) -> None:
    from quiz.core.mistakes import mistakes

    s = PracticeSession(BANK, store, Settings(), topic=LAYOUT, rng=random.Random(8))
    q = s.next()
    assert q is not None
    s.submit(q.part.key.display)
    fu_q = s.follow_up()
    assert fu_q is not None and fu_q.part.kind == "choice"
    wrong = next(c for c in "abcd" if c not in fu_q.part.key.correct)
    assert s.submit(wrong).grade.verdict == "incorrect"
    listed = mistakes(store, BANK)
    assert len(listed) == 1 and listed[0].attempt.template_id.endswith(
        "+" + fu_q.followup.family if fu_q.followup else "")
    assert listed[0].key == fu_q.part.key.display and "before" in listed[0].explanation
