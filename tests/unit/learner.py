"""A synthetic learner with a known forgetting curve, for the scheduler's fit (importable
as `learner` from the unit tests and the bench).

The learner's memory follows FSRS-6 with :data:`TRUE_PARAMETERS`, not the defaults: new
material is forgotten about three times faster, each success makes memory less stable
than the average learner's (w8 lower by 0.5), and recall decays along a flatter curve
(w20 = 0.5 instead of 0.1542). Reviews fall when the *default* scheduler would put them,
stretched or shrunk at random (so the log covers a range of predicted recall, as a real
one does when days are skipped), and each is recalled with the true probability.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from fsrs_rs_python import FSRS, MemoryState

from quiz.core.optimizer import DEFAULT_PARAMETERS, forgetting_curve
from quiz.core.store import Review, Store

TRUE_PARAMETERS: tuple[float, ...] = (
    0.07, 0.4, 0.75, 2.7, *DEFAULT_PARAMETERS[4:8], DEFAULT_PARAMETERS[8] - 0.5,
    *DEFAULT_PARAMETERS[9:20], 0.5)
"""The learner's FSRS-6 parameters (within FSRS's bounds)."""

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
"""The first review of the log."""


def _after(model: FSRS, state: MemoryState | None, rating: int, days: int) -> MemoryState:
    states = model.next_states(state, 0.9, days)
    return [states.again, states.hard, states.good, states.easy][rating - 1].memory


def synthetic_reviews(templates: int, reviews_each: int, seed: int = 0,
                      start: datetime = START) -> list[Review]:
    """The learner's review log: ``reviews_each`` reviews of each of ``templates``
    templates, one a day at most, oldest first within a template."""
    rng = random.Random(seed)
    truth, default = FSRS(list(TRUE_PARAMETERS)), FSRS(list(DEFAULT_PARAMETERS))
    log: list[Review] = []
    for t in range(templates):
        template_id = f"synthetic/t{t:05d}"
        when = start + timedelta(days=rng.randrange(30), minutes=t % 600)
        true_state: MemoryState | None = None
        seen: MemoryState | None = None
        days = 0
        for i in range(reviews_each):
            if true_state is None:
                recalled = rng.random() < 0.7
            else:
                recalled = rng.random() < forgetting_curve(days, true_state.stability,
                                                           TRUE_PARAMETERS)
            rating = 3 if recalled else 1
            log.append(Review(template_id=template_id, rating=rating, reviewed_at=when,
                              state_before=0 if i == 0 else 2))
            true_state = _after(truth, true_state, rating, days)
            seen = _after(default, seen, rating, days)
            interval = default.next_interval(seen.stability, 0.9, 3)
            days = max(1, round(interval * rng.uniform(0.5, 2.0)))
            when += timedelta(days=days)
    return log


def write(store: Store, reviews: list[Review]) -> None:
    """Log the reviews in one transaction (each template's card is left unreadable,
    which the drill treats as new: these tests are about the log)."""
    with store.batch():
        for review in reviews:
            store.put_card(review.template_id, "{}", review)
