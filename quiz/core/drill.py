"""The daily drill: today's due reviews and new templates in teaching order, and the
summary of a drill just finished."""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING, Any

from questions.loader import Bank, Summary
from questions.variants import PartVariant, Variant, make_variant
from quiz.core.clock import local_day, local_day_start
from quiz.core.schedule import Drill
from quiz.core.session import MAX_SEED, Outcome, Question, Session
from quiz.core.settings import Settings
from quiz.core.store import Store
from quiz.core.types import Mode

if TYPE_CHECKING:
    pass


def _rapid_fire_item(template: Summary) -> int:
    """The interview item a template drills (1-7), or 8 for none."""
    items = [int(tag.rsplit("-", 1)[1]) for tag in template.tags
             if re.fullmatch(r"rapid-fire-[1-7]", tag)]
    return min(items, default=8)


def teaching_order(bank: Bank) -> list[str]:
    """Every template id in the order the daily drill introduces new ones.

    Easy before hard; within a difficulty, the interview's rapid-fire items in their
    order (item 1, the model state, comes first), then the foundational templates
    before the specialised ones (fewer tags first); and consecutive templates come
    from different topics whenever one is left, so a day mixes memory, compute,
    communication and the rest instead of working through one topic at a time (but
    never by bringing a harder template forward).
    """
    templates = bank.summaries
    ranked = sorted(templates, key=lambda tid: (
        templates[tid].difficulty, _rapid_fire_item(templates[tid]),
        len(templates[tid].tags), tid))
    rank = {tid: i for i, tid in enumerate(ranked)}
    order: list[str] = []
    last_topic: str | None = None
    # Mix topics only within a difficulty: never let a change of topic pull a harder
    # template ahead of an easier one. Each topic's templates wait in rank order; the
    # next one is the best-ranked head of a topic other than the last one's (or the
    # last topic's own when no other is left): a few heads compared per pick, where a
    # scan of the list made 6,500 templates take seconds.
    for _, level in groupby(ranked, key=lambda tid: templates[tid].difficulty):
        queues: dict[str, deque[str]] = {}
        for tid in level:
            queues.setdefault(templates[tid].topic, deque()).append(tid)
        while queues:
            heads = [(rank[queue[0]], topic) for topic, queue in queues.items()
                     if topic != last_topic]
            topic = min(heads)[1] if heads else str(last_topic)
            queue = queues[topic]
            order.append(queue.popleft())
            if not queue:
                del queues[topic]
            last_topic = topic
    return order


@dataclass(frozen=True)
class Left:
    """What is left of today's drill.

    Attributes:
        fresh: questions not yet seen today.
        again: questions seen earlier today that come back (missed, or still being
            learned).
    """

    fresh: int
    again: int

    @property
    def total(self) -> int:
        """Everything left."""
        return self.fresh + self.again

    def __str__(self) -> str:
        """``12 left today``, ``12 left today (+1 again)``, ``1 again``."""
        if not self.fresh and self.again:
            return f"{self.again} again today"
        extra = f" (+{self.again} again)" if self.again else ""
        return f"{self.fresh} left today{extra}"


@dataclass(frozen=True)
class Missed:
    """A question of a finished drill that was not fully right."""

    label: str
    """``TEMPLATE_ID#SEED`` (with the part for a scenario)."""
    title: str
    verdict: str
    mistake: str | None
    """The named mistake the answer matched, if any."""
    answer: str
    key: str
    """The expected answer, as displayed."""


@dataclass(frozen=True)
class DrillSummary:
    """The end of a drill: score, what was missed, what comes tomorrow.

    Attributes:
        questions: questions answered (a scenario counts once).
        correct: of those, how many were fully right.
        score: mean score over the questions answered (None when none were).
        missed: the parts answered incorrectly or partially, in the order asked.
        skipped: questions skipped and never answered.
        tomorrow: cards that fall due tomorrow.
        new_tomorrow: never-seen templates tomorrow's drill may introduce.
    """

    questions: int
    correct: int
    score: float | None
    missed: list[Missed]
    skipped: int
    tomorrow: int
    new_tomorrow: int


class DrillSession(Session):
    """The daily drill: FSRS decides which templates are due (learning, due, new)."""

    mode: Mode = "drill"

    def __init__(self, bank: Bank, store: Store, settings: Settings, **kw: Any) -> None:
        super().__init__(bank, store, settings, **kw)
        self.drill = Drill(store, settings, now=self.now)
        self._last: str | None = None
        self._order = teaching_order(bank)

    def review(self) -> bool:
        return True

    def queue(self) -> list[str]:
        """What is left to do today, in order (questions put aside last); a follow-up
        family's card (``TEMPLATE+FAMILY``) comes back like any template's."""
        order = [t for t in self._order if t not in self.skipped]
        known = set(order)
        order += sorted(c for c in self.store.cards() if "+" in c and c not in self.skipped
                        and c.split("+", 1)[0] in known)
        queue = self.drill.queue(order)
        later = [t for t in self.put_aside if t in queue]
        return [t for t in queue if t not in later] + later

    def left(self) -> Left:
        """What is left today, split into unseen and returning questions."""
        queue = self.queue()
        start = local_day_start(local_day(self.now(), self.store.tz), self.store.tz)
        seen = {r.template_id for r in self.store.reviews(since=start)}
        again = sum(1 for t in queue if t in seen)
        return Left(len(queue) - again, again)

    def pick(self) -> str | None:
        queue = self.queue()
        if len(queue) > 1 and queue[0] == self._last:
            queue = queue[1:] + queue[:1]
        self._last = queue[0] if queue else None
        return self._last

    def next(self) -> Question | None:
        """The next question; a due follow-up card is asked of a fresh variant."""
        q = super().next()
        while q is not None and self._last is not None and "+" in self._last \
                and q.followup is None and q.template.id != self._last:
            card = self._last
            got = self._followup_card(card)
            if got is not None:
                return got
            self.skipped.add(card)
            self.warnings.append(f"skipped {card}: no variant drawn has that follow-up")
            q = super().next()
        return q

    def _followup_card(self, card: str) -> Question | None:
        """Ask the follow-up family `card` of the base variant just drawn (or of other
        seeds, when that variant has no such follow-up)."""
        from questions.followups import NotApplicable, by_family

        family = card.split("+", 1)[1]
        for _ in range(8):
            variant = self.current.variant if self.current is not None else None
            if variant is None:
                return None
            k = by_family(variant.template, family)
            if k is None:
                return None
            try:
                return self.follow_up(k)
            except NotApplicable:
                self.current = Question(*self._redraw(variant))
        return None

    def _redraw(self, variant: Variant) -> tuple[Variant, PartVariant, float]:
        fresh = make_variant(variant.template, self.rng.randrange(MAX_SEED))
        self.base, self.chain = fresh, []
        return fresh, fresh.parts[0], self.clock()

    def summary(self) -> DrillSummary:
        """Score, what was missed (with its named mistake), and what comes tomorrow."""
        by_variant: dict[str, list[Outcome]] = defaultdict(list)
        for out in self.answered:
            by_variant[f"{out.question.id}@{id(out.question.variant)}"].append(out)
        scores = [sum(o.grade.score for o in outs) / len(outs)
                  for outs in by_variant.values()]
        missed = [Missed(o.question.label, o.question.template.title, o.grade.verdict,
                         o.grade.mistake, o.question.answer_text, o.grade.shown_key)
                  for o in self.answered if o.grade.verdict != "correct"]
        answered = {o.question.template.id for o in self.answered}
        forecast = self.drill.due_forecast(2, self._order)
        return DrillSummary(
            questions=len(scores),
            correct=sum(1 for s in scores if s >= 0.999),
            score=sum(scores) / len(scores) if scores else None,
            missed=missed,
            skipped=len([t for t in dict.fromkeys(self.put_aside) if t not in answered]),
            tomorrow=forecast[1][1] if len(forecast) > 1 else 0,
            new_tomorrow=min(self.settings.new_per_day,
                             len(set(self._order) - set(self.store.cards()))))
