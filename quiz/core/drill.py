"""The daily drill: today's due reviews and new templates in teaching order, the
question a drill opens with, and the summary of a drill just finished.

Importing this module imports neither pydantic nor sympy: `quiz drill` draws its first
question (:func:`first_question`) from the compiled bank's view of a template before
the template and settings models are imported, and the session built once they are
goes on from that question (:meth:`DrillSession.ask`).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict, deque
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from itertools import groupby
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from questions.variants import PartVariant, Variant, make_variant
from quiz.core.clock import local_day, local_day_start
from quiz.core.schedule import Drill
from quiz.core.session import MAX_SEED, Outcome, Question, Session
from quiz.core.store import Store
from quiz.core.types import Mode

if TYPE_CHECKING:
    from questions.loader import Bank, Summary
    from questions.schema import Template
    from quiz.core.settings import Settings
    from quiz.core.settings_cache import DailyLimits


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


class Left(Struct, frozen=True):
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


class Missed(Struct, frozen=True):
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


class DrillSummary(Struct, frozen=True):
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


def today_queue(drill: Drill, store: Store, order: Sequence[str],
                skipped: Collection[str] = (), put_aside: Sequence[str] = ()) -> list[str]:
    """What is left to do today, in order: the templates of ``order`` (the teaching
    order) that ``drill`` schedules, less those ``skipped`` (they failed to draw), with
    those ``put_aside`` (skipped by the person) last; a follow-up family's card
    (``TEMPLATE+FAMILY``) comes back like any template's."""
    order = [t for t in order if t not in skipped]
    known = set(order)
    order += sorted(c for c in store.cards() if "+" in c and c not in skipped
                    and c.split("+", 1)[0] in known)
    queue = drill.queue(order)
    later = [t for t in put_aside if t in queue]
    return [t for t in queue if t not in later] + later


def left_in(queue: Sequence[str], store: Store, now: datetime) -> Left:
    """What is left of today's ``queue``, split into unseen and returning questions."""
    start = local_day_start(local_day(now, store.tz), store.tz)
    seen = {r.template_id for r in store.reviews(since=start)}
    again = sum(1 for t in queue if t in seen)
    return Left(len(queue) - again, again)


class FirstQuestion(Struct, frozen=True):
    """The question today's drill opens with, drawn before its session exists.

    Attributes:
        question: the question (its variant drawn from what ``first_question`` was
            given: the compiled bank's view of the template, not the model).
        left: what is left today, this question included.
        rng: the session's source of seeds, past this question's seed: the session
            built later goes on from it, so it draws what it would have drawn had it
            drawn this question itself.
    """

    question: Question
    left: Left
    rng: random.Random


def first_question(bank: Bank, store: Store, limits: Settings | DailyLimits,
                   template: Callable[[str], Template | None], *, rng: random.Random,
                   clock: Callable[[], float],
                   now: Callable[[], datetime]) -> FirstQuestion | None:
    """The question a :class:`DrillSession` over ``bank`` would ask first, picked and
    seeded as :meth:`DrillSession.next` does, drawn from ``template(id)``.

    ``template`` gives the template as the compiled bank keeps it (no pydantic, see
    :func:`questions.stored.bank_view_of`). Once the bank and the settings are loaded,
    the session is built with :attr:`FirstQuestion.rng` and asks the same variant
    (:meth:`DrillSession.ask`): it is graded and recorded exactly as a question the
    session drew itself.

    Returns:
        None when it cannot be drawn so: nothing is due, a follow-up card comes first,
        ``template`` has none, or the draw fails (the session then draws its first
        question itself, from a fresh ``rng``: this one has moved on).
    """
    queue = today_queue(Drill(store, limits, now=now), store, teaching_order(bank))
    if not queue or "+" in queue[0]:
        return None
    found = template(queue[0])
    if found is None:
        return None
    seed = rng.randrange(MAX_SEED)
    try:
        variant = make_variant(found, seed)
    except Exception:  # drawn unlike the model (a bug): the session draws it and says
        return None
    return FirstQuestion(Question(variant, variant.parts[0], clock()),
                         left_in(queue, store, now()), rng)


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
        """What is left to do today, in order (see :func:`today_queue`)."""
        return today_queue(self.drill, self.store, self._order, self.skipped,
                           self.put_aside)

    def left(self) -> Left:
        """What is left today, split into unseen and returning questions."""
        return left_in(self.queue(), self.store, self.now())

    def ask(self, template_id: str, seed: int, started: float | None = None) -> Question:
        """Show a specific variant, as the template picked last (the next pick does not
        repeat it at once): see :meth:`Session.ask`."""
        question = super().ask(template_id, seed, started)
        self._last = template_id
        return question

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
