"""Spaced repetition for the daily drill: FSRS (the ``fsrs`` package) over templates.

One card per template, not per variant: what is being learned is the method (say,
"bytes of model state under ZeRO-2"), and each review draws a fresh seed so the
numbers never repeat. Cards live in the history store as JSON (``cards`` table), and
every review is logged (``review_log``) with the card state it started from, which
is how the daily caps know what was already done today.

How an answer becomes a rating (:func:`rating_for`):

=================================================  ========
answer                                             rating
=================================================  ========
invalid (unreadable)                               none: no review at all
incorrect                                          Again
partial credit                                     Hard
correct, but with hints                            Hard
correct, slow (more than 2x the expected time)     Good
correct, fast (under half the expected time)       Easy
correct otherwise                                  Good
=================================================  ========

A slow correct answer still earns Good rather than Hard: in an interview the method
matters more than speed, and Hard would shorten the interval for an answer that was
right without help. Speed only buys Easy.

Days are the local days of the store (``Store.tz``); times are UTC.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypedDict

from quiz.core.clock import local_day, local_day_start
from quiz.core.store import Review, Store

if TYPE_CHECKING:
    from fsrs import Card, Rating, Scheduler

    from quiz.core.settings import Settings
    from quiz.core.settings_cache import DailyLimits

__all__ = [
    "NEW",
    "Drill",
    "Rating",
    "TodayCounts",
    "card_id",
    "rating_for",
]

NEW: Final = 0
"""``Review.state_before`` of a template's first review (no card existed yet)."""

LEARNING: Final = 1
REVIEW: Final = 2
RELEARNING: Final = 3
"""FSRS's card states (``fsrs.State``'s values), as the cards' JSON and the review log
keep them: what is due today is worked out without importing ``fsrs`` (`quiz drill`'s
first question; a test checks they are fsrs's), which only a review needs."""


def __getattr__(name: str) -> Any:
    if name == "Rating":  # fsrs's, imported on first use (see LEARNING)
        from fsrs import Rating

        return Rating
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_SLOW_FACTOR: Final = 2.0
_FAST_FACTOR: Final = 0.5


def rating_for(
    verdict: str,
    seconds: float,
    hints_used: int,
    expected_seconds: float = 90.0,
) -> Rating | None:
    """Turn a graded answer into an FSRS rating (see the table in the module docstring).

    Args:
        verdict: ``correct``, ``partial``, ``incorrect`` or ``invalid``.
        seconds: Time taken to answer.
        hints_used: Hints revealed before answering.
        expected_seconds: Time the question is expected to take.

    Returns:
        The rating, or None for ``invalid``: unreadable input never rates a card.

    Raises:
        ValueError: an unknown verdict, or a non-positive ``expected_seconds``.

    >>> rating_for("correct", 20, 0)
    <Rating.Easy: 4>
    >>> rating_for("correct", 20, 1)
    <Rating.Hard: 2>
    >>> rating_for("invalid", 20, 0) is None
    True
    """
    from fsrs import Rating

    if not expected_seconds > 0:
        raise ValueError(f"expected_seconds must be > 0, got {expected_seconds!r}")
    match verdict:
        case "invalid":
            return None
        case "incorrect":
            return Rating.Again
        case "partial":
            return Rating.Hard
        case "correct":
            if hints_used > 0:
                return Rating.Hard
            if seconds > _SLOW_FACTOR * expected_seconds:
                return Rating.Good
            if seconds < _FAST_FACTOR * expected_seconds:
                return Rating.Easy
            return Rating.Good
        case _:
            raise ValueError(f"unknown verdict {verdict!r}")


class TodayCounts(TypedDict):
    """What :meth:`Drill.counts_today` returns (for the home screen)."""

    new_done: int
    """Templates introduced today."""
    reviews_done: int
    """Review-state cards reviewed today (what ``reviews_per_day`` caps)."""
    due_now: int
    """Cards due at this moment (any state)."""
    due_today: int
    """Cards due by the end of the local day (any state), overdue included."""
    new_available: int
    """New templates the drill may still introduce today."""


def card_id(template_id: str) -> int:
    """The FSRS card id of a template: stable across machines and imports."""
    # fsrs defaults card ids to the creation time in ms and sleeps 1 ms to keep them
    # unique; a hash of the template id is unique, stable and costs no sleep.
    return int.from_bytes(hashlib.sha256(template_id.encode()).digest()[:6], "big")


class Due(NamedTuple):
    """What a stored card says about when it comes back: its state (:data:`LEARNING`,
    :data:`REVIEW` or :data:`RELEARNING`), when it is due and when it was last reviewed.
    Read from the card's JSON as ``fsrs.Card.from_json`` reads it (the same fields
    checked: a card fsrs could not read is no card here either)."""

    state: int
    due: datetime
    last_review: datetime | None


def _read_due(card_json: str) -> Due | None:
    try:
        card = json.loads(card_json)
        int(card["card_id"])
        state = int(card["state"])
        for name in ("stability", "difficulty"):
            if card[name]:
                float(card[name])
        _ = card["step"]  # present, as fsrs requires
        due = datetime.fromisoformat(card["due"])
        last = card["last_review"]
        last_review = datetime.fromisoformat(last) if last else None
    except (ValueError, KeyError, TypeError, OverflowError):
        return None  # see _parse_card
    if state not in (LEARNING, REVIEW, RELEARNING):
        return None
    return Due(state, due, last_review)


def _clock_corrected(card: Card, now: datetime) -> Card:
    """The card as the corrected clock sees it, when it was reviewed "in the future".

    After the clock jumped forward and back, a card reviewed during the jump has a last
    review later than now, and a due time an interval after that, possibly years away.
    When that review really happened is unknown (at most now), so the card is due now:
    it comes back into today's queue, and its next review starts from a sane time. The
    stored card is unchanged until that review.
    """
    last = card.last_review
    if last is None or last <= now:
        return card
    card.last_review = now
    card.due = min(card.due, now)
    return card


def _due_corrected(card: Due, now: datetime) -> Due:
    """:func:`_clock_corrected` of what a card says about when it is due."""
    if card.last_review is None or card.last_review <= now:
        return card
    return Due(card.state, min(card.due, now), now)


def _parse_card(card_json: str) -> Card | None:
    from fsrs import Card

    try:
        return Card.from_json(card_json)
    except (ValueError, KeyError, TypeError, OverflowError):  # OverflowError: Infinity
        # A card we cannot read is scheduling state, not history: the template is
        # treated as new and its next review writes a good card over it. The
        # attempts and the review log stay untouched.
        return None


class Drill:
    """The daily drill's scheduler: which templates to ask today, and in what order.

    Args:
        store: The history; cards and the review log live there.
        settings: Supplies ``new_per_day`` and ``reviews_per_day``; read at each call,
            so changed settings apply at once (the home screen's first counts pass
            the cached limits: the settings model is not imported yet).
        now: Clock returning an aware datetime; defaults to the store's clock.
        scheduler: The FSRS scheduler; by default the history's parameters in force
            (fitted by ``quiz schedule optimize``, else FSRS's defaults) at the
            settings' ``desired_retention``, read at the first review (see
            :func:`quiz.core.optimizer.scheduler_for`), interval fuzzing on.
        learn_ahead: Learning cards due within this much time are appended at the
            end of the queue, so a card just failed comes back after the others
            rather than ending the session early (Anki's "learn ahead limit").
    """

    def __init__(
        self,
        store: Store,
        settings: Settings | DailyLimits,
        *,
        now: Callable[[], datetime] | None = None,
        scheduler: Scheduler | None = None,
        learn_ahead: timedelta = timedelta(minutes=20),
    ) -> None:
        self.store = store
        self.settings = settings
        self._now = now or store.now
        self._scheduler = scheduler
        self.learn_ahead = learn_ahead
        self.suspended_by_review: tuple[str, int] | None = None
        """The template the last :meth:`review` suspended as a leech, with its lapses;
        None when it suspended none."""

    @property
    def scheduler(self) -> Scheduler:
        """The FSRS scheduler reviews go through (built at the first review)."""
        if self._scheduler is None:
            from quiz.core.optimizer import scheduler_for

            self._scheduler = scheduler_for(
                self.store, getattr(self.settings, "desired_retention", 0.9))
        return self._scheduler

    # ----------------------------------------------------------------- helpers

    def _utc_now(self) -> datetime:
        now = self._now()
        if now.tzinfo is None:
            raise ValueError("the clock must return timezone-aware datetimes")
        return now.astimezone(UTC)

    def _today(self, now: datetime) -> date:
        return local_day(now, self.store.tz)

    def _cards(self, template_ids: Sequence[str] | None) -> dict[str, Due]:
        stored = self.store.cards()
        wanted = stored.keys() if template_ids is None else set(template_ids)
        wanted = wanted - self.store.suspended().keys()  # leeches wait to be brought back
        now = self._utc_now()
        cards: dict[str, Due] = {}
        for template_id in wanted:
            card_json = stored.get(template_id)
            card = _read_due(card_json) if card_json is not None else None
            if card is not None:
                cards[template_id] = _due_corrected(card, now)
        return cards

    def _done_on(self, day: date) -> tuple[int, int]:
        """Return (new templates introduced, review cards reviewed) on a local day."""
        start = local_day_start(day, self.store.tz)
        end = local_day_start(day + timedelta(days=1), self.store.tz)
        reviews = [r for r in self.store.reviews(since=start) if r.reviewed_at < end]
        new_done = sum(1 for r in reviews if r.state_before == NEW)
        reviews_done = sum(1 for r in reviews if r.state_before == REVIEW)
        return new_done, reviews_done

    # ----------------------------------------------------------------- public API

    def queue(self, template_ids: Sequence[str], today: date | None = None) -> list[str]:
        """Return the templates to ask now, in order.

        Order: learning and relearning cards that are due (earliest first); then
        review cards due by the end of the day, most overdue first, capped by what is
        left of ``reviews_per_day``; then never-seen templates in the order given,
        capped by what is left of ``new_per_day``; finally learning cards due within
        ``learn_ahead``. Caps count the reviews already logged on that local day.

        Args:
            template_ids: The templates that exist (e.g. the loaded bank); cards of
                templates not listed are ignored. Duplicates are ignored.
            today: The local day to plan; defaults to the current one. For another
                day, learning cards due by its end count as due.

        Returns:
            Template ids, each at most once.
        """
        now = self._utc_now()
        current = self._today(now)
        day = today if today is not None else current
        day_end = local_day_start(day + timedelta(days=1), self.store.tz)
        learn_cutoff = now if day == current else day_end
        suspended = self.store.suspended()
        ids = [t for t in dict.fromkeys(template_ids) if t not in suspended]
        cards = self._cards(ids)

        learning: list[tuple[datetime, str]] = []
        learning_soon: list[tuple[datetime, str]] = []
        due: list[tuple[datetime, str]] = []
        new: list[str] = []
        for template_id in ids:
            card = cards.get(template_id)
            if card is None:
                new.append(template_id)
            elif card.state in (LEARNING, RELEARNING):
                if card.due <= learn_cutoff:
                    learning.append((card.due, template_id))
                elif card.due <= min(learn_cutoff + self.learn_ahead, day_end):
                    learning_soon.append((card.due, template_id))
            elif card.due < day_end:
                due.append((card.due, template_id))

        new_done, reviews_done = self._done_on(day)
        review_room = max(0, self.settings.reviews_per_day - reviews_done)
        new_room = max(0, self.settings.new_per_day - new_done)
        return (
            [t for _, t in sorted(learning)]
            + [t for _, t in sorted(due)[:review_room]]
            + new[:new_room]
            + [t for _, t in sorted(learning_soon)]
        )

    def review(
        self,
        template_id: str,
        rating: Rating | int,
        when: datetime | None = None,
        *,
        attempt_id: int | None = None,
    ) -> datetime:
        """Apply a rating to a template's card, persisting the card and a review log row.

        Args:
            template_id: The template reviewed; its card is created on first review.
            rating: The FSRS rating (see :func:`rating_for`).
            when: Review time (aware); defaults to now.
            attempt_id: The attempt that produced the rating, for the review log.

        Returns:
            When the card is next due (UTC); never before the review time.

        A lapse (a learned card rated Again) that makes the template a leech (see
        :func:`quiz.core.optimizer.is_leech_at`) suspends it from the drill.
        """
        from fsrs import Card, Rating

        when = (when if when is not None else self._utc_now()).astimezone(UTC)
        rating = Rating(rating)
        self.suspended_by_review = None
        stored = self.store.get_card(template_id)
        card = _parse_card(stored) if stored is not None else None
        state_before = NEW if card is None else int(card.state)
        if card is None:
            card = Card(card_id=card_id(template_id), due=when)
        # The clock went backwards (NTP, a fixed-up VM clock): FSRS would see a negative
        # elapsed time, so move the card's last review (and its due time) back to now.
        card = _clock_corrected(card, when)
        card, _ = self.scheduler.review_card(card, rating, review_datetime=when)
        self.store.put_card(
            template_id,
            card.to_json(),
            Review(
                template_id=template_id,
                rating=int(rating),
                reviewed_at=when,
                state_before=state_before,
                attempt_id=attempt_id,
            ),
        )
        if state_before == REVIEW and rating == Rating.Again:
            from quiz.core.optimizer import is_leech_at

            lapses = self.store.lapses(template_id)
            if is_leech_at(lapses):
                self.store.suspend(template_id, lapses, when)
                self.suspended_by_review = (template_id, lapses)
        return card.due.astimezone(UTC)

    def due_forecast(
        self, days: int = 14, template_ids: Sequence[str] | None = None
    ) -> list[tuple[date, int]]:
        """Count the cards falling due on each of the next ``days`` local days.

        Overdue cards count on today. Learning cards count on the day they are due.

        Args:
            days: How many days, today first.
            template_ids: Only these templates' cards; all stored cards when None.

        Returns:
            ``[(day, count), ...]``, one entry per day, zeros included.
        """
        today = self._today(self._utc_now())
        counts = {today + timedelta(days=offset): 0 for offset in range(max(0, days))}
        for card in self._cards(template_ids).values():
            day = max(local_day(card.due, self.store.tz), today)
            if day in counts:
                counts[day] += 1
        return sorted(counts.items())

    def retention(self, days: int = 30) -> float | None:
        """Share of reviews of review-state cards rated above Again, over ``days`` days.

        Only cards in the Review state count (FSRS's "true retention"): failing a
        card that is still being learned says nothing about memory over time.

        Returns:
            A fraction in [0, 1], or None when there were no such reviews.
        """
        from fsrs import Rating

        since = self._utc_now() - timedelta(days=days)
        ratings = [
            r.rating for r in self.store.reviews(since=since) if r.state_before == REVIEW
        ]
        if not ratings:
            return None
        return sum(1 for rating in ratings if rating != Rating.Again) / len(ratings)

    def counts_today(self, template_ids: Sequence[str] | None = None) -> TodayCounts:
        """Summarize today's drill for the home screen.

        Args:
            template_ids: The templates that exist. When given, due counts cover only
                them and ``new_available`` is further limited to those never seen;
                when None, all stored cards count and ``new_available`` is just what
                remains of ``new_per_day``.
        """
        now = self._utc_now()
        today = self._today(now)
        day_end = local_day_start(today + timedelta(days=1), self.store.tz)
        new_done, reviews_done = self._done_on(today)
        cards = self._cards(template_ids)
        new_room = max(0, self.settings.new_per_day - new_done)
        if template_ids is not None:
            suspended = self.store.suspended()
            unseen = sum(1 for t in dict.fromkeys(template_ids)
                         if t not in cards and t not in suspended)
            new_room = min(new_room, unseen)
        return {
            "new_done": new_done,
            "reviews_done": reviews_done,
            "due_now": sum(1 for card in cards.values() if card.due <= now),
            "due_today": sum(1 for card in cards.values() if card.due < day_end),
            "new_available": new_room,
        }
