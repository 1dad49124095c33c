"""The import's FSRS replay (replay.Replay) gives the cards fsrs's own scheduler
gives, byte for byte: the same card JSON and the same state before each review."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fsrs import Card, Rating, Scheduler
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.core.clock import from_utc_text, to_utc_text
from quiz.core.schedule import NEW, card_id
from quiz.core.store import Store
from quiz.core.store.merge import import_history
from quiz.core.store.replay import Replay, rebuild_cards
from quiz.core.store.validate import parse

T0 = datetime(2024, 3, 1, 9, 30, tzinfo=UTC)


def fsrs_replay(reviews: list[tuple[str, int, str]]) -> tuple[list[int], dict[str, str]]:
    """The reference: each review through ``Scheduler.review_card`` (fuzzing off)."""
    scheduler = Scheduler(enable_fuzzing=False)
    cards: dict[str, Card] = {}
    states = []
    for template, rating, at in reviews:
        when = from_utc_text(at)
        card = cards.get(template)
        states.append(NEW if card is None else int(card.state))
        if card is None:
            card = Card(card_id=card_id(template), due=when)
        cards[template], _ = scheduler.review_card(card, Rating(rating), review_datetime=when)
    return states, {t: Card.to_json(c) for t, c in cards.items()}


# Gaps from none (two reviews in the same microsecond) through minutes and hours (the
# short-term formulas below a day) to years (the long-term ones, the largest intervals).
gaps = st.one_of(
    st.just(0),
    st.integers(0, 86_400 * 10**6),
    st.integers(0, 40 * 86_400 * 10**6),
    st.integers(0, 3_650 * 86_400 * 10**6),
)
reviews = st.lists(st.tuples(st.sampled_from(["a", "b", "c/d"]), st.integers(1, 4), gaps),
                   max_size=60)


def timed(items: list[tuple[str, int, int]]) -> list[tuple[str, int, str]]:
    when, out = T0, []
    for template, rating, gap in items:
        when += timedelta(microseconds=gap)
        out.append((template, rating, to_utc_text(when)))
    return out


@settings(max_examples=400, deadline=None)
@given(reviews)
def test_replay_gives_fsrs_cards(items: list[tuple[str, int, int]]) -> None:
    log = timed(items)
    replay = Replay()
    states = [replay.review(t, r, at) for t, r, at in log]
    assert (states, replay.cards_json()) == fsrs_replay(log)


@settings(max_examples=100, deadline=None)
@given(reviews)
def test_rebuild_cards_gives_fsrs_cards(items: list[tuple[str, int, int]]) -> None:
    log = timed(items)
    # Handed over newest first: rebuild_cards sorts by time (equal times: as given).
    newest_first = sorted(log, key=lambda e: e[2], reverse=True)
    rows, cards = rebuild_cards([(t, r, at, None) for t, r, at in newest_first])
    log = [(t, r, at) for t, r, _, at, _ in rows]
    states, expected = fsrs_replay(log)
    assert cards == expected
    assert [row[2] for row in rows] == states


def test_replay_walks_every_state() -> None:
    # Learning -> Review -> Relearning -> Review, with each rating on the way.
    log = timed([("a", 1, 0), ("a", 2, 60 * 10**6), ("a", 3, 600 * 10**6),
                 ("a", 3, 700 * 10**6), ("a", 4, 3 * 86_400 * 10**6),
                 ("a", 1, 20 * 86_400 * 10**6), ("a", 2, 60 * 10**6),
                 ("a", 1, 2 * 86_400 * 10**6), ("a", 3, 86_400 * 10**6),
                 ("a", 2, 5 * 86_400 * 10**6), ("a", 3, 3600 * 10**6)])
    replay = Replay()
    states = [replay.review(t, r, at) for t, r, at in log]
    assert {1, 2, 3} <= set(states)
    assert (states, replay.cards_json()) == fsrs_replay(log)


def history_text(reviews: list[tuple[str, int, str]]) -> str:
    import json
    return json.dumps({"format": "quiz-history", "history_format": 1, "attempts": [
        {"template": t, "version": 1, "seed": i, "mode": "drill", "answer": "1 GB",
         "verdict": "correct", "score": 1.0, "seconds": 5.0, "answered_at": at,
         "topic": "memory", "tags": [], "rating": r}
        for i, (t, r, at) in enumerate(reviews)]})


def log_and_cards(store: Store) -> tuple[list[tuple[Any, ...]], dict[str, str]]:
    conn = store._conn
    log = [tuple(r) for r in conn.execute(
        "SELECT template_id, rating, state_before, reviewed_at, attempt_id FROM review_log "
        "ORDER BY reviewed_at, id")]
    cards = dict(conn.execute("SELECT template_id, card_json FROM cards").fetchall())
    # A card's time is its template's latest review.
    assert dict(conn.execute("SELECT template_id, updated_at FROM cards").fetchall()) == \
        dict(conn.execute("SELECT template_id, max(reviewed_at) FROM review_log "
                          "GROUP BY 1").fetchall())
    return log, cards


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a/x", "b/y", "c/z"]), st.integers(1, 4),
                          st.integers(0, 3 * 86_400 * 10**6)), min_size=1, max_size=12),
       st.lists(st.booleans(), min_size=12, max_size=12), st.integers(0, 12))
def test_an_import_leaves_the_log_and_cards_of_a_full_replay(
        items: list[tuple[str, int, int]], shuffle: list[bool], split: int) -> None:
    # A history with some reviews, then a file of more, in or out of time order (the
    # online replay must hand those templates to the replay from the log).
    log = timed(items)
    first, second = log[:split], log[split:]
    second = [r for r, s in zip(second, shuffle, strict=False) if s] + \
        [r for r, s in zip(second, shuffle, strict=False) if not s]
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "h.db") as store:
        for part in (first, second):
            if part:
                import_history(store, parse(history_text(part)))
        stored, cards = log_and_cards(store)
    entries = [(t, r, at, a) for t, r, _, at, a in stored]
    rows, expected = rebuild_cards(entries)
    assert stored == [tuple(row) for row in rows]
    assert cards == expected
