"""The FSRS cards an import rebuilds from the merged review log, bit for bit.

After an import every card is a function of the review log alone: each template's
reviews replayed in time order (``(reviewed_at, id)``, the order every reader of the
log uses) with fuzzing off, wherever each review came from. :class:`Replay` is fsrs's
``Scheduler.review_card`` written out on a plain list (the same floats: a property
test compares the cards' JSON with fsrs's own replay), :class:`Online` replays the
templates whose reviews arrive in log order as they are inserted, and
:func:`rebuild_log` replays the others from the log at the end.
"""

from __future__ import annotations

import math
import sqlite3
from array import array
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler, State

from quiz.core.clock import from_utc_text
from quiz.core.schedule import NEW, card_id

__all__ = ["Online", "Replay", "rebuild_cards", "rebuild_log"]


class Replay:
    """FSRS cards rebuilt by replaying reviews in time order (fuzzing off).

    Each review is fsrs's ``Scheduler.review_card`` (fuzzing off) worked on a card held
    as a plain list, the scheduler's formulas written out in the same order of
    operations, so every float comes out the same bit for bit (a property test compares
    the cards' JSON with fsrs's own replay). ``review_card`` copies the card it is given,
    looks its helpers up by keyword and makes a review log on every call: that was most
    of an import's replay, which a 1,000,000-row import does a million times.
    """

    def __init__(self) -> None:
        self.scheduler = scheduler = Scheduler(enable_fuzzing=False)
        self.cards: dict[str, list[Any]] = {}
        """Per template: [state, step, stability, difficulty, last review, interval]."""
        p = scheduler.parameters
        self._p = p
        self._learning = scheduler.learning_steps
        self._relearning = scheduler.relearning_steps
        self._decay = scheduler._DECAY
        self._factor = scheduler._FACTOR
        # Sub-expressions of the formulas that depend on the parameters alone, each
        # written as fsrs writes it (so the same float).
        self._easy_difficulty: float = p[4] - (math.e ** (p[5] * (Rating.Easy - 1))) + 1
        self._forget_short: float = math.e ** (p[17] * p[18])
        self._recall_base: float = math.e ** (p[8])
        self._retention_term: float = (scheduler.desired_retention ** (1 / self._decay)) - 1
        self._max_interval = scheduler.maximum_interval

    def review(self, template_id: str, rating: int, reviewed_at: str) -> int:
        """Apply one review; returns the card's state before it."""
        when = from_utc_text(reviewed_at)
        card = self.cards.get(template_id)
        if card is None:
            # A new card: Learning, step 0, no stability or difficulty yet.
            card = self.cards[template_id] = [1, 0, None, None, None, None]
            state_before = NEW
        else:
            state_before = card[0]
        self._review(card, rating, when)
        return state_before

    def _difficulty(self, difficulty: float, rating: int) -> float:
        p = self._p
        delta = -(p[6] * (rating - 3))
        arg_2 = difficulty + (10.0 - difficulty) * delta / 9.0
        return min(max(p[7] * self._easy_difficulty + (1 - p[7]) * arg_2, 1.0), 10.0)

    def _short_term(self, stability: float, rating: int) -> float:
        p = self._p
        increase: float = (math.e ** (p[17] * (rating - 3 + p[18]))) * (stability ** -p[19])
        if rating != 1:
            increase = max(increase, 1.0)
        return max(stability * increase, 0.001)

    def _long_term(self, difficulty: float, stability: float, last: datetime | None,
                   when: datetime, rating: int) -> float:
        p = self._p
        if last is None:
            retrievability: float = 0
        else:
            elapsed = max(0, (when - last).days)
            retrievability = (1 + self._factor * elapsed / stability) ** self._decay
        if rating == 1:
            long_term: float = (p[11] * (difficulty ** -p[12]) * (((stability + 1) ** (p[13])) - 1)
                         * (math.e ** ((1 - retrievability) * p[14])))
            next_stability: float = min(long_term, stability / self._forget_short)
        else:
            hard_penalty = p[15] if rating == 2 else 1
            easy_bonus = p[16] if rating == 4 else 1
            next_stability = stability * (
                1 + self._recall_base * (11 - difficulty) * (stability ** -p[9])
                * ((math.e ** ((1 - retrievability) * p[10])) - 1) * hard_penalty
                * easy_bonus)
        return max(next_stability, 0.001)

    def _interval(self, stability: float) -> timedelta:
        days = round((stability / self._factor) * self._retention_term)
        return timedelta(days=min(max(days, 1), self._max_interval))

    def _review(self, card: list[Any], rating: int, when: datetime) -> None:
        state, step, stability, difficulty, last, _ = card
        if rating not in (1, 2, 3, 4):
            raise ValueError(f"Unknown rating: {rating}")
        short = last is not None and (when - last).days < 1
        if state == 2:  # Review
            if short:
                stability = self._short_term(stability, rating)
            else:
                stability = self._long_term(difficulty, stability, last, when, rating)
            difficulty = self._difficulty(difficulty, rating)
            if rating == 1 and self._relearning:
                state, step, interval = 3, 0, self._relearning[0]
            else:
                interval = self._interval(stability)
        else:  # Learning or Relearning: the same but for their steps
            if stability is None or difficulty is None:
                stability = max(self._p[rating - 1], 0.001)
                difficulty = min(max(self._p[4] - (math.e ** (self._p[5] * (rating - 1)))
                                     + 1, 1.0), 10.0)
            elif short:
                stability = self._short_term(stability, rating)
                difficulty = self._difficulty(difficulty, rating)
            else:
                stability = self._long_term(difficulty, stability, last, when, rating)
                difficulty = self._difficulty(difficulty, rating)
            steps = self._learning if state == 1 else self._relearning
            if not steps or (step >= len(steps) and rating != 1) or rating == 4 or (
                    rating == 3 and step + 1 == len(steps)):
                state, step, interval = 2, None, self._interval(stability)
            elif rating == 1:
                step, interval = 0, steps[0]
            elif rating == 2:
                if step == 0 and len(steps) == 1:
                    interval = steps[0] * 1.5
                elif step == 0:
                    interval = (steps[0] + steps[1]) / 2.0
                else:
                    interval = steps[step]
            else:
                step += 1
                interval = steps[step]
        card[:] = (state, step, stability, difficulty, when, when + interval)

    def cards_json(self) -> dict[str, str]:
        return {tid: Card.to_json(Card(card_id=card_id(tid), state=State(state), step=step,
                                       stability=stability, difficulty=difficulty, due=due,
                                       last_review=last))
                for tid, (state, step, stability, difficulty, last, due) in self.cards.items()}


def rebuild_cards(entries: Iterable[tuple[str, int, str, int | None]]
                  ) -> tuple[list[tuple[str, int, int, str, int | None]], dict[str, str]]:
    """Replay reviews in time order into fresh FSRS cards (fuzzing off: deterministic).

    Args:
        entries: ``(template_id, rating, reviewed_at UTC text, attempt_id)`` in any order.

    Returns:
        The review log rows ``(template_id, rating, state_before, reviewed_at,
        attempt_id)`` in replay order, and ``{template_id: card_json}``.
    """
    replay = Replay()
    log = sorted(enumerate(entries), key=lambda e: (e[1][2], e[0]))
    rows = [(t, r, replay.review(t, r, at), at, a) for _, (t, r, at, a) in log]
    return rows, replay.cards_json()


class Online:
    """The replay of the reviews an import adds, as they are inserted, for the templates
    whose whole review log they are in log order: no review of the template in the log
    before the import, and each review no earlier than the one before it (a review at
    the same time is later in the log too: its id is larger). Such a template's log is
    replayed by then, its reviews inserted with their ``state_before``; any other
    template is replayed from the log at the end (:func:`rebuild_log`)."""

    def __init__(self, logged: Iterable[str]) -> None:
        self.replay = Replay()
        self.stale: set[str] = set(logged)
        """Templates replayed from the log at the end."""
        self.last: dict[str, str] = {}

    def review(self, template_id: str, rating: int, reviewed_at: str) -> int:
        """The review's ``state_before`` (0 for now, if the template is replayed from the
        log at the end)."""
        if template_id in self.stale:
            return NEW
        if reviewed_at < self.last.get(template_id, ""):  # out of time order
            self.stale.add(template_id)
            return NEW
        self.last[template_id] = reviewed_at
        return self.replay.review(template_id, rating, reviewed_at)


def rebuild_log(conn: sqlite3.Connection, online: Online) -> int:
    """The whole review log replayed in time order into fresh cards: the templates
    :class:`Online` replayed as their reviews came in are done; every other one's log
    is replayed here, streamed, and each review's ``state_before`` set from the replay.
    The cards are replaced. Returns how many cards there are.

    The log keeps its rows and ids: replay order is ``(reviewed_at, id)``, which is
    the order every reader of the log uses, so only ``state_before`` changes; each
    template's card depends on its own reviews alone."""
    replay = Replay()
    # The changes, held compactly (16 bytes a review) and written after the read.
    ids, states = array("q"), array("b")
    read = conn.cursor()
    read.row_factory = None
    for template in sorted(online.stale):
        for log_id, template_id, rating, reviewed_at, state in read.execute(
                "SELECT id, template_id, rating, reviewed_at, state_before FROM review_log "
                "WHERE template_id = ? ORDER BY reviewed_at, id", (template,)):
            before = replay.review(template_id, rating, reviewed_at)
            if before != state:
                ids.append(log_id)
                states.append(before)
    conn.executemany("UPDATE review_log SET state_before = ? WHERE id = ?",
                     zip(states, ids, strict=True))
    cards = {tid: card for tid, card in online.replay.cards_json().items()
             if tid not in online.stale}
    cards.update(replay.cards_json())
    # A card's time is its template's latest review: the last one replayed online (in
    # time order), else asked of the log's index.
    updated = {tid: online.last[tid] for tid in cards if tid not in online.stale}
    for tid in online.stale:
        updated[tid] = read.execute("SELECT max(reviewed_at) FROM review_log WHERE "
                                    "template_id = ?", (tid,)).fetchone()[0]
    conn.execute("DELETE FROM cards")
    conn.executemany(
        "INSERT INTO cards (template_id, card_json, updated_at) VALUES (?, ?, ?)",
        [(tid, card_json, updated[tid]) for tid, card_json in sorted(cards.items())])
    return len(cards)
