"""Behaviour of the FSRS drill scheduler (quiz.core.schedule)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler, State
from helpers import LOCAL, T0, Clock, record
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.core.schedule import NEW, Drill, rating_for
from quiz.core.settings import Settings
from quiz.core.store import Attempt, Store


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[Store]:
    with Store.open(tmp_path / "history.db", now=clock, tz=LOCAL) as opened:
        yield opened


def make_drill(store: Store, new_per_day: int = 10, reviews_per_day: int = 100) -> Drill:
    # No fuzzing: intervals are exact, so tests can reason about due dates.
    limits = Settings(new_per_day=new_per_day, reviews_per_day=reviews_per_day)
    return Drill(store, limits, scheduler=Scheduler(enable_fuzzing=False))


def make_attempt(template_id: str, seed: int, verdict: str, when: datetime) -> Attempt:
    return Attempt(
        template_id=template_id,
        template_version=1,
        seed=seed,
        mode="drill",
        answer_text="42",
        verdict=verdict,  # type: ignore[arg-type]
        score={"correct": 1.0, "partial": 0.5}.get(verdict, 0.0),
        topic="memory",
        answered_at=when,
        seconds=60.0,
    )


def card_of(store: Store, template_id: str) -> Card:
    card_json = store.get_card(template_id)
    assert card_json is not None
    return Card.from_json(card_json)


# ----------------------------------------------------------------------- rating rule


@pytest.mark.parametrize(
    ("verdict", "seconds", "hints", "expected"),
    [
        ("invalid", 10, 0, None),
        ("invalid", 500, 3, None),
        ("incorrect", 10, 0, Rating.Again),
        ("incorrect", 500, 2, Rating.Again),
        ("partial", 10, 0, Rating.Hard),
        ("partial", 60, 1, Rating.Hard),
        ("correct", 10, 1, Rating.Hard),  # hints beat speed
        ("correct", 500, 1, Rating.Hard),
        ("correct", 181, 0, Rating.Good),  # slow: > 2 x 90 s
        ("correct", 180, 0, Rating.Good),
        ("correct", 90, 0, Rating.Good),
        ("correct", 45, 0, Rating.Good),  # exactly half is not fast
        ("correct", 44.9, 0, Rating.Easy),  # fast: < 0.5 x 90 s
        ("correct", 0, 0, Rating.Easy),
    ],
)
def test_rating_rule(verdict: str, seconds: float, hints: int, expected: Rating | None) -> None:
    assert rating_for(verdict, seconds, hints) == expected


def test_rating_rule_scales_with_expected_time() -> None:
    assert rating_for("correct", 100, 0, expected_seconds=300) == Rating.Easy
    assert rating_for("correct", 25, 0, expected_seconds=10) == Rating.Good


def test_rating_rule_rejects_unknown_verdicts_and_bad_expected_time() -> None:
    with pytest.raises(ValueError, match="verdict"):
        rating_for("right", 10, 0)
    with pytest.raises(ValueError, match="expected_seconds"):
        rating_for("correct", 10, 0, expected_seconds=0)


# ----------------------------------------------------------------------- queue


def test_queue_orders_learning_then_due_reviews_most_overdue_first_then_new(
    store: Store,
) -> None:
    drill = make_drill(store)
    # Reviewed days ago, so nothing here counts against today's caps.
    drill.review("rev-overdue", Rating.Easy, T0 - timedelta(days=40))
    drill.review("rev-due", Rating.Easy, T0 - timedelta(days=10))
    drill.review("rev-later-today", Rating.Easy, T0 - timedelta(days=8, hours=-5))
    drill.review("rev-future", Rating.Easy, T0 - timedelta(days=1))
    drill.review("learning", Rating.Again, T0 - timedelta(hours=2))
    assert card_of(store, "learning").state == State.Learning
    assert card_of(store, "rev-due").state == State.Review
    assert card_of(store, "rev-overdue").due < card_of(store, "rev-due").due < T0
    assert T0 < card_of(store, "rev-later-today").due < datetime(2025, 3, 11, 5, tzinfo=UTC)

    order = ["new-1", "rev-due", "learning", "rev-future", "new-2", "rev-overdue"]
    order.append("rev-later-today")
    assert drill.queue(order) == [
        "learning",
        "rev-overdue",
        "rev-due",
        "rev-later-today",  # due later today (local): part of today's drill
        "new-1",
        "new-2",
    ]


def test_queue_ignores_duplicates_and_cards_of_unlisted_templates(store: Store) -> None:
    drill = make_drill(store)
    drill.review("gone", Rating.Again, T0 - timedelta(days=3))
    assert drill.queue(["a", "b", "a"]) == ["a", "b"]


def test_daily_caps_count_what_was_done_earlier_today(store: Store, clock: Clock) -> None:
    drill = make_drill(store, new_per_day=2, reviews_per_day=2)
    for name in ("r1", "r2", "r3"):
        drill.review(name, Rating.Easy, T0 - timedelta(days=30))
    templates = ["r1", "r2", "r3", "n1", "n2", "n3"]
    assert drill.queue(templates) == ["r1", "r2", "n1", "n2"]

    # Earlier today (local): one new template introduced, one review done.
    morning = datetime(2025, 3, 10, 8, 0, tzinfo=LOCAL)
    drill.review("n1", Rating.Good, morning)
    drill.review("r1", Rating.Good, morning)
    queue = drill.queue(templates)
    assert queue[0] == "n1"  # now learning, due: never capped
    assert queue[1:] == ["r2", "n2"]  # one review and one new left today

    drill.review("r2", Rating.Good, morning + timedelta(minutes=1))
    drill.review("n2", Rating.Easy, morning + timedelta(minutes=2))
    # Caps used up: r3 (due) and n3 (new) wait for tomorrow; n1 is still learning.
    assert drill.queue(templates) == ["n1"]


def test_caps_reset_at_local_midnight_not_utc_midnight(store: Store, clock: Clock) -> None:
    drill = make_drill(store, new_per_day=1)
    # 22:00 local on the 9th (03:00 UTC on the 10th): yesterday, locally.
    drill.review("n0", Rating.Easy, datetime(2025, 3, 9, 22, 0, tzinfo=LOCAL))
    assert drill.queue(["n1", "n2"]) == ["n1"]
    assert drill.counts_today()["new_done"] == 0
    # 00:30 local on the 10th: today.
    drill.review("n1", Rating.Easy, datetime(2025, 3, 10, 0, 30, tzinfo=LOCAL))
    assert drill.queue(["n1", "n2"]) == []
    assert drill.counts_today()["new_done"] == 1


def test_zero_caps_leave_only_learning_cards(store: Store) -> None:
    drill = make_drill(store, new_per_day=0, reviews_per_day=0)
    drill.review("r", Rating.Easy, T0 - timedelta(days=30))
    drill.review("l", Rating.Again, T0 - timedelta(hours=1))
    assert drill.queue(["n", "r", "l"]) == ["l"]


def test_just_failed_card_comes_back_after_the_others(store: Store, clock: Clock) -> None:
    drill = make_drill(store)
    due = drill.review("a", Rating.Again, T0)
    assert T0 < due <= T0 + timedelta(minutes=10)
    assert drill.queue(["a", "b"]) == ["b", "a"]  # learn-ahead: at the end
    strict = Drill(store, Settings(), learn_ahead=timedelta(0))
    assert strict.queue(["a", "b"]) == ["b"]
    clock.value = due
    assert drill.queue(["a", "b"]) == ["a", "b"]


def test_queue_for_another_day_counts_its_own_caps(store: Store) -> None:
    drill = make_drill(store, new_per_day=1)
    drill.review("n1", Rating.Easy, T0)  # uses today's only new slot
    assert drill.queue(["n1", "n2"]) == []
    tomorrow = date(2025, 3, 11)
    assert drill.queue(["n1", "n2"], today=tomorrow) == ["n2"]


# ----------------------------------------------------------------------- reviews


def test_one_card_per_template_across_seeds(store: Store, clock: Clock) -> None:
    drill = make_drill(store)
    for seed, verdict in [(1, "incorrect"), (2, "correct"), (99, "correct")]:
        clock.value += timedelta(minutes=15)
        recorded = record(drill, make_attempt("memory/model-state", seed, verdict, clock.value))
        assert recorded.due is not None
        assert recorded.due >= clock.value
    assert list(store.cards()) == ["memory/model-state"]
    reviews = store.reviews()
    assert reviews[0].state_before == NEW
    assert [r.rating for r in reviews] == [Rating.Again, Rating.Good, Rating.Good]
    assert [r.attempt_id for r in reviews] == [a.id for a in store.attempts()]
    assert {a.seed for a in store.attempts()} == {1, 2, 99}


def test_review_accepts_any_aware_time_and_returns_utc(store: Store) -> None:
    drill = make_drill(store)
    due = drill.review("t", Rating.Good, datetime(2025, 3, 10, 10, 0, tzinfo=LOCAL))
    assert due.tzinfo == UTC
    assert due > T0


def test_clock_going_backwards_never_schedules_into_the_past(store: Store) -> None:
    drill = make_drill(store)
    drill.review("t", Rating.Good, T0)
    due = drill.review("t", Rating.Good, T0 - timedelta(hours=3))
    assert due >= T0


def test_unreadable_card_is_treated_as_new(store: Store) -> None:
    store.put_card("t", "{not json")
    drill = make_drill(store)
    assert drill.queue(["t"]) == ["t"]
    drill.review("t", Rating.Good, T0)
    assert card_of(store, "t").state == State.Learning
    assert store.reviews()[0].state_before == NEW


# ----------------------------------------------------------------------- summaries


def test_due_forecast_counts_cards_per_local_day(store: Store) -> None:
    drill = make_drill(store)
    drill.review("overdue", Rating.Easy, T0 - timedelta(days=30))
    drill.review("learning", Rating.Again, T0)
    drill.review("in-a-week", Rating.Easy, T0)
    forecast = drill.due_forecast(days=14)
    assert len(forecast) == 14
    assert forecast[0] == (date(2025, 3, 10), 2)  # the overdue card and the learning one
    week_day = card_of(store, "in-a-week").due.astimezone(LOCAL).date()
    assert dict(forecast)[week_day] == 1
    assert sum(count for _, count in forecast) == 3
    assert drill.due_forecast(days=3, template_ids=["overdue"]) == [
        (date(2025, 3, 10), 1),
        (date(2025, 3, 11), 0),
        (date(2025, 3, 12), 0),
    ]


def test_retention_is_the_share_of_review_cards_not_forgotten(store: Store) -> None:
    drill = make_drill(store)
    assert drill.retention() is None
    for name in ("a", "b", "c", "d"):
        drill.review(name, Rating.Easy, T0 - timedelta(days=60))
    # Learning-phase failures do not count: only cards already in review.
    drill.review("e", Rating.Again, T0 - timedelta(days=1))
    for name, rating in [("a", Rating.Good), ("b", Rating.Hard), ("c", Rating.Again)]:
        drill.review(name, rating, T0 - timedelta(days=2))
    drill.review("d", Rating.Again, T0 - timedelta(days=45))  # outside the window
    assert drill.retention() == pytest.approx(2 / 3)


def test_counts_today_summarise_the_home_screen(store: Store) -> None:
    drill = make_drill(store, new_per_day=3)
    drill.review("old", Rating.Easy, T0 - timedelta(days=30))
    drill.review("later-today", Rating.Easy, T0 - timedelta(days=8, hours=-5))
    drill.review("seen-today", Rating.Easy, T0 - timedelta(hours=1))
    counts = drill.counts_today(["old", "later-today", "seen-today", "n1", "n2", "n3"])
    assert counts == {
        "new_done": 1,
        "reviews_done": 0,
        "due_now": 1,
        "due_today": 2,
        "new_available": 2,  # 3 per day, 1 done; 3 unseen
    }
    assert drill.counts_today(["n1"])["new_available"] == 1
    assert drill.counts_today()["new_available"] == 2


# ----------------------------------------------------------------------- property


@settings(max_examples=40, deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["correct", "partial", "incorrect", "invalid"]),
            st.floats(min_value=0, max_value=600),
            st.integers(min_value=0, max_value=3),
            st.integers(min_value=0, max_value=90 * 24 * 3600),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_due_date_is_never_before_the_review_time(
    steps: list[tuple[str, float, int, int]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        clock = Clock(T0)
        with Store.open(Path(folder) / "h.db", now=clock, tz=LOCAL) as store:
            drill = Drill(store, Settings())  # default scheduler: fuzzing on
            reviews = 0
            for verdict, seconds, hints, gap in steps:
                clock.value += timedelta(seconds=gap)
                rating = rating_for(verdict, seconds, hints)
                if rating is None:
                    continue  # invalid input never reviews
                due = drill.review("t", rating, clock.value)
                reviews += 1
                assert due >= clock.value
                card = card_of(store, "t")
                assert card.due == due
                assert card.last_review == clock.value
            assert len(store.reviews()) == reviews
            assert len(store.cards()) == (1 if reviews else 0)


def test_the_card_states_are_fsrs_own() -> None:
    from quiz.core import schedule

    fsrs_states = (State.Learning.value, State.Review.value, State.Relearning.value)
    assert fsrs_states == (schedule.LEARNING, schedule.REVIEW, schedule.RELEARNING)


_FIELD_VALUES = st.one_of(
    st.none(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=8),
    st.sampled_from(["2026-03-01T10:00:00+00:00", "2026-13-01T10:00:00+00:00", "", "x",
                     "1.5", "2"]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(),
                                                          max_size=1))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["card_id", "state", "step", "stability",
                                        "difficulty", "due", "last_review", "other"]),
                       _FIELD_VALUES, max_size=8),
       st.booleans())
def test_what_is_due_is_read_as_fsrs_reads_the_card(fields: dict[str, object],
                                                    start_good: bool) -> None:
    """Hostile cards: the queue's reading (no fsrs import) accepts exactly the cards fsrs
    accepts, and sees the same state and times in them."""
    from quiz.core.schedule import _parse_card, _read_due

    good = Card(card_id=7, state=State.Review, step=None, stability=3.2, difficulty=5.0,
                due=datetime(2026, 3, 1, tzinfo=UTC),
                last_review=datetime(2026, 2, 20, tzinfo=UTC)).to_dict()
    card: dict[str, object] = {**good, **fields} if start_good else dict(fields)
    text = json.dumps(card)
    ours, theirs = _read_due(text), _parse_card(text)
    assert (ours is None) == (theirs is None), text
    if ours is not None and theirs is not None:
        assert (ours.state, ours.due, ours.last_review) == (
            int(theirs.state), theirs.due, theirs.last_review)


def test_a_card_that_is_not_json_is_no_card() -> None:
    from quiz.core.schedule import _parse_card, _read_due

    for text in ("", "{", "[]", "null", '"card"', "1", '{"state": 2}'):
        assert _read_due(text) is None and _parse_card(text) is None
