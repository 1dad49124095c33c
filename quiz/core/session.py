"""Sessions: the daily drill, practice and the mock interview, without any UI.

The TUI and the plain-terminal drill are thin shells over these classes: they show
:class:`Question` objects, pass typed text to :meth:`Session.preview` and
:meth:`Session.submit`, and show the :class:`Outcome`. Every graded answer is committed
to the store inside :meth:`Session.submit`, before the caller can show the next
question, so a killed process loses nothing already answered.
"""

from __future__ import annotations

import random
import re
import time
from abc import ABC, abstractmethod
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby
from typing import TYPE_CHECKING, Any

from questions.derivation import derivation_of, explanation_of
from questions.errors import TemplateError
from questions.kinds import kind_of as question_kind
from questions.loader import Bank, Summary
from questions.schema import Template
from questions.variants import PartVariant, Variant, describe, make_variant
from quiz.core.clock import local_day, local_day_start, utc_now
from quiz.core.errors import NoQuestions as NoQuestions  # re-exported: callers import it here
from quiz.core.errors import StoreError
from quiz.core.grading import Grade, grade, read_answer, unreadable_message
from quiz.core.kinds import key_text, kind_of
from quiz.core.reading import Unreadable
from quiz.core.schedule import Drill, rating_for
from quiz.core.settings import Settings
from quiz.core.store import Attempt, Flag, Store
from quiz.core.types import Mode, stored
from solver.errors import QuizError

if TYPE_CHECKING:
    from questions.derivation import Derivation
    from questions.followups import FollowUp

MAX_SEED = 1_000_000


def attempt_tags(template: Template, part: int) -> tuple[str, ...]:
    """The tags an answer to part ``part`` (1-based) counts under in the stats.

    A single question counts under all its tags. A scenario's part counts under the
    tags it names; the tags no part names count once, through the first part (five
    parts under three tags were fifteen answers to the rapid-fire items before).
    """
    if len(template.parts) <= 1:
        return tuple(template.tags)
    named = template.parts[part - 1].tags
    if named:
        return tuple(named)
    if part != 1:
        return ()
    # The first part carries the tags no part names (all of them, usually).
    return tuple(t for t in template.tags if not any(t in p.tags for p in template.parts))


@dataclass
class Question:
    """One part of one variant, as shown to the user."""

    variant: Variant
    part: PartVariant
    started: float
    hints_shown: int = 0
    answer_text: str = ""
    followup: FollowUp | None = None
    """The interviewer's follow-up this question is (None: the variant's own part)."""

    @property
    def id(self) -> str:
        """`TEMPLATE_ID#SEED`."""
        return self.variant.id

    @property
    def template(self) -> Template:
        """The template behind the question."""
        return self.variant.template

    @property
    def label(self) -> str:
        """`TEMPLATE_ID#SEED`, plus `part k/n` for scenarios."""
        if self.followup is not None:
            return f"{self.id} follow-up {self.followup.index}"
        n = len(self.variant.parts)
        return self.id if n == 1 else f"{self.id} (part {self.part.index}/{n})"

    @property
    def prompt(self) -> str:
        """The prompt (a scenario's intro comes first)."""
        intro = self.template.intro
        if intro and len(self.variant.parts) > 1 and self.followup is None:
            return f"{self.variant.intro}\n\n{self.part.prompt}"
        return self.part.prompt

    @property
    def params_table(self) -> list[tuple[str, str]]:
        """The drawn parameters as (name, value shown) rows."""
        params = self.variant.params if self.followup is None else self.followup.params
        return [(k, describe(k, v)) for k, v in params.items()]

    @property
    def hints_left(self) -> int:
        """Hints not yet shown."""
        return len(self.part.spec.hints) - self.hints_shown

    @property
    def hint_cost(self) -> float:
        """What the shown hints cost (capped at 1)."""
        return min(1.0, sum(h.cost for h in self.part.spec.hints[: self.hints_shown]))


@dataclass(frozen=True)
class Outcome:
    """What happened when an answer was submitted.

    Attributes:
        grade: verdict, score, how the answer was read, feedback.
        question: the question answered.
        attempt_id: the stored attempt (None for invalid input).
        seconds: time taken.
        more_parts: the scenario continues with another part.
    """

    grade: Grade
    question: Question
    attempt_id: int | None
    seconds: float
    more_parts: bool

    @property
    def explanation(self) -> str:
        """The worked derivation."""
        return explanation_of(self.question.part)




def flag_question(store: Store, question: Question, reason: str, note: str,
                  when: datetime, attempt_id: int | None = None) -> int:
    """Flag a question as wrong or unclear (stored with the history, for its author).

    Args:
        store: the history.
        question: the question shown (or just answered).
        reason: ``wrong`` or ``unclear``.
        note: what the learner wants the author to know (may be empty).
        when: the time of the flag (aware).
        attempt_id: the attempt it follows, if it was answered.

    Returns:
        The flag's id.

    Raises:
        ValueError: an unknown reason.
    """
    t = question.template
    return store.add_flag(Flag(
        template_id=t.id, template_version=t.version, seed=question.variant.seed,
        part=question.part.index, reason=reason, note=note.strip(), flagged_at=when,
        attempt_id=attempt_id))


def preview(part: PartVariant, text: str) -> str:
    """How typed text reads, for the live preview (reads only: never grades or records)."""
    if not text.strip():
        return ""
    try:
        return f"read as {read_answer(part, text).read_as}"
    except Unreadable as exc:
        return f"can't read: {unreadable_message(exc)}"


def preview_warmups(part: PartVariant) -> tuple[str, ...]:
    """Texts to :func:`preview` ahead of the typing (never the key, never typed), so that
    the first keystrokes read as quickly as the rest; none for most kinds."""
    return kind_of(part.kind).warm_texts(part)


class Session(ABC):
    """A run of questions in one mode; subclasses choose which templates come next.

    Args:
        bank: the loaded templates.
        store: the history (attempts are committed here).
        settings: user settings (tolerance, caps, expected time).
        clock: monotonic seconds, injectable for tests.
        now: aware UTC datetimes, injectable for tests.
        rng: source of seeds and picks.
    """

    mode: Mode = "practice"

    def __init__(self, bank: Bank, store: Store, settings: Settings, *,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = utc_now,
                 rng: random.Random | None = None) -> None:
        self.bank = bank
        self.store = store
        self.settings = settings
        self.clock = clock
        self.now = now
        self.rng = rng or random.Random()
        self.current: Question | None = None
        self.answered: list[Outcome] = []
        self._part_scores: list[float] = []
        self._earlier: dict[int, float] = {}
        """The current scenario's number answers so far (part -> value), for parts
        that follow through from them."""
        self._seconds = 0.0
        self.skipped: set[str] = set()
        """Templates that failed to draw in this session (never picked again)."""
        self.warnings: list[str] = []
        """What went wrong while choosing questions, for the caller to show."""
        self.put_aside: list[str] = []
        """Template ids the user skipped in this session, in order (repeats possible)."""
        self.base: Variant | None = None
        """The variant last drawn (the one follow-ups change)."""
        self.chain: list[int] = []
        """The follow-ups (K) asked of it so far, in order."""

    # --- choosing

    @abstractmethod
    def pick(self) -> str | None:
        """The next template id, or None when the session is over."""

    def review(self) -> bool:
        """Whether answers in this session move FSRS cards."""
        return False

    def next(self) -> Question | None:
        """The next question (the next part of a scenario first), or None when done."""
        q = self.current
        if q is not None and q.followup is None and q.part.index < len(q.variant.parts) \
                and self._part_scores:
            part = q.variant.parts[q.part.index]
            self.current = Question(q.variant, part, self.clock())
            return self.current
        while True:
            tid = self.pick()
            if tid is None:
                self.current = None
                return None
            seed = self.rng.randrange(MAX_SEED)
            try:
                # (a follow-up card, TEMPLATE+FAMILY, is asked of its template's variant)
                variant = make_variant(self.bank.get(tid.split("+", 1)[0]), seed)
                break
            except TemplateError as exc:
                # One template that cannot be drawn must not end the session: skip it
                # for the rest of it, and say so (the callers show `warnings`).
                self.skipped.add(tid)
                self.warnings.append(f"skipped {tid}#{seed}: {exc}")
        self._part_scores, self._seconds, self._earlier = [], 0.0, {}
        self.base, self.chain = variant, []
        self.current = Question(variant, variant.parts[0], self.clock())
        return self.current

    def ask(self, template_id: str, seed: int) -> Question:
        """Show a specific variant (e.g. one pasted as TEMPLATE_ID#SEED)."""
        variant = make_variant(self.bank.get(template_id), seed)
        self._part_scores, self._seconds, self._earlier = [], 0.0, {}
        self.base, self.chain = variant, []
        self.current = Question(variant, variant.parts[0], self.clock())
        return self.current

    # --- follow-ups

    def offers_followup(self) -> bool:
        """Whether a follow-up can be asked now: the variant's last part (or a follow-up)
        was answered and its template has follow-ups not yet asked."""
        from questions.followups import count

        q = self.current
        if q is None or self.base is None or not self.answered \
                or self.answered[-1].question is not q:
            return False
        if q.followup is None and q.part.index < len(q.variant.parts):
            return False
        return count(self.base.template) > len(self.chain)

    def follow_up(self, k: int | None = None) -> Question | None:
        """Ask a follow-up of the variant just answered: the K-th, or the first one not
        yet asked that applies to it (None when none is left).

        Raises:
            NotApplicable: the K-th does not apply to this variant.
        """
        from questions.followups import NotApplicable, count, draw

        if self.base is None:
            return None
        if k is not None:
            fu = draw(self.base, k)
            self.ask_followup(fu)
            return self.current
        else:
            fu = None
            for j in range(1, count(self.base.template) + 1):
                if j in self.chain:
                    continue
                try:
                    fu = draw(self.base, j)
                    break
                except NotApplicable:
                    self.chain.append(j)  # not asked, but never offered again
            if fu is None:
                return None
        return self.ask_followup(fu)

    def ask_followup(self, fu: FollowUp) -> Question:
        """Show a drawn follow-up of the current base variant."""
        assert self.base is not None
        self.chain.append(fu.index)
        self.current = Question(self.base, fu.pv, self.clock(), followup=fu)
        return self.current

    def skip(self) -> Question | None:
        """Put the current question aside unscored and show the next one.

        A skipped template comes back later in the session (the drill asks it after
        everything else due; practice may draw it again). A scenario is skipped whole,
        from the part showing; parts already answered stay recorded.
        """
        q = self.current
        if q is not None:
            self.put_aside.append(q.template.id)
            self._part_scores = []  # next() draws a new template, not the next part
        return self.next()

    def flag(self, question: Question, reason: str, note: str = "",
             attempt_id: int | None = None) -> int:
        """Flag a question as wrong or unclear: see :func:`flag_question`."""
        return flag_question(self.store, question, reason, note, self.now(), attempt_id)

    # --- answering

    def hints_allowed(self) -> bool:
        """Whether this session shows hints at all."""
        return True

    def hint(self) -> str | None:
        """Reveal the next hint of the current question (its cost is recorded).

        Returns:
            The hint with its cost, or None when there is none left (or hints are
            off in this session: see :meth:`hints_allowed`).
        """
        q = self.current
        if q is None or q.hints_left <= 0 or not self.hints_allowed():
            return None
        q.hints_shown += 1
        h = q.part.spec.hints[q.hints_shown - 1]
        return f"{h.text} (costs {h.cost:.0%} of the score)"

    def submit(self, text: str) -> Outcome:
        """Grade and record an answer to the current question.

        Invalid input is graded but not recorded and does not end the question.

        Raises:
            RuntimeError: no question is showing.
        """
        q = self.current
        if q is None:
            raise RuntimeError("no question is showing")
        g = grade(q.part, text, hint_cost=q.hint_cost,
                  tolerance_scale=self.settings.tolerance_scale, earlier=self._earlier)
        seconds = max(0.0, self.clock() - q.started)
        if g.verdict == "invalid":
            return Outcome(g, q, None, seconds, False)
        if question_kind(q.part.kind).amount and q.followup is None:
            self._earlier[q.part.index] = read_answer(q.part, text).value.value
        q.answer_text = text
        more = q.followup is None and q.part.index < len(q.variant.parts)
        attempt_id = self._record(q, g, text, seconds, last=not more)
        out = Outcome(g, q, attempt_id, seconds, more)
        self.answered.append(out)
        return out

    def _attempt(self, q: Question, g: Grade, text: str, seconds: float) -> Attempt:
        t = q.template
        tid = t.id if q.followup is None else q.followup.card
        tags = attempt_tags(t, q.part.index) if q.followup is None else (*t.tags,
                                                                          "followup")
        return Attempt(template_id=tid, template_version=t.version, seed=q.variant.seed,
                       mode=self.mode, answer_text=text[:2000], verdict=stored(g.verdict),
                       score=g.score, topic=t.topic, answered_at=self.now(),
                       seconds=seconds, mistake=g.mistake, hints_used=q.hints_shown,
                       hint_cost=q.hint_cost, tags=tags,
                       session_id=self.session_id())

    def session_id(self) -> int | None:
        """The mock session id attempts belong to (None outside a mock)."""
        return None

    def _record(self, q: Question, g: Grade, text: str, seconds: float, *,
                last: bool) -> int:
        attempt = self._attempt(q, g, text, seconds)
        if q.followup is not None:  # its own card: its own score and time
            return self._record_followup(q, attempt, g, seconds)
        scores, spent = [*self._part_scores, g.score], self._seconds + seconds
        # The answer and its review are one transaction (one fsync), committed before
        # returning. A StoreError here (read-only file, full disk, a lock held too long)
        # changes nothing, so the caller can keep the typed answer and submit it again.
        with self.store.batch():
            attempt_id = self.store.record_attempt(attempt)
            if last and self.review():
                mean = sum(scores) / len(scores)
                verdict = "correct" if mean >= 0.999 else "partial" if mean > 0 else "incorrect"
                hints = q.hints_shown
                rating = rating_for(verdict, spent, hints, q.template.expected_seconds)
                if rating is not None:
                    drill = Drill(self.store, self.settings, now=self.now)
                    try:
                        drill.review(q.template.id, rating, self.now(), attempt_id=attempt_id)
                    except StoreError as exc:  # the answer is saved; its schedule is not
                        self.warnings.append(f"your answer was saved, but the review "
                                             f"schedule was not updated: {exc}")
                    if drill.suspended_by_review is not None:
                        leech, lapses = drill.suspended_by_review
                        self.warnings.append(
                            f"{leech} was forgotten {lapses} times since you learned it: it "
                            "leaves the daily drill (the mistakes screen, or quiz schedule "
                            "unsuspend, brings it back)")
        self._part_scores, self._seconds = scores, spent
        return attempt_id

    def _record_followup(self, q: Question, attempt: Attempt, g: Grade,
                         seconds: float) -> int:
        """A follow-up's attempt, and its review on the follow-up family's own card."""
        assert q.followup is not None
        with self.store.batch():
            attempt_id = self.store.record_attempt(attempt)
            if self.review():
                rating = rating_for(g.verdict, seconds, q.hints_shown,
                                    FOLLOWUP_SECONDS)
                if rating is not None:
                    try:
                        Drill(self.store, self.settings, now=self.now).review(
                            q.followup.card, rating, self.now(), attempt_id=attempt_id)
                    except StoreError as exc:
                        self.warnings.append(f"your answer was saved, but the review "
                                             f"schedule was not updated: {exc}")
        return attempt_id


FOLLOWUP_SECONDS = 120.0
"""How long a prepared candidate takes over a follow-up (the setting is known already)."""


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


class PracticeSession(Session):
    """Endless practice on a topic, a rapid-fire item, a tag or a difficulty.

    Args:
        topic: a topic name, a tag (e.g. `rapid-fire-3`), or None for everything.
        difficulty: only this difficulty, or None.
        schedule: whether answers move FSRS cards (off unless asked).
        ids: exactly these templates (e.g. the leeches) instead of a topic.
        first: ask this ``(template id, seed)`` first (a retry of a past variant).

    Raises:
        NoQuestions: nothing matches.
    """

    mode: Mode = "practice"

    def __init__(self, bank: Bank, store: Store, settings: Settings, *,
                 topic: str | None = None, difficulty: int | None = None,
                 schedule: bool = False, ids: Sequence[str] | None = None,
                 first: tuple[str, int] | None = None, **kw: Any) -> None:
        super().__init__(bank, store, settings, **kw)
        self.ids = ([i for i in dict.fromkeys(ids) if i in bank.templates] if ids is not None
                    else matching(bank, topic, difficulty))
        self._first = first
        if not self.ids:
            raise NoQuestions(f"no template matches {topic or 'any topic'}"
                              + (f" at difficulty {difficulty}" if difficulty else ""))
        self.schedule = schedule
        self._last: str | None = None

    def review(self) -> bool:
        return self.schedule

    def next(self) -> Question | None:
        if self._first is not None:
            (template_id, seed), self._first = self._first, None
            self._last = template_id
            return self.ask(template_id, seed)
        return super().next()

    def pick(self) -> str | None:
        ids = [i for i in self.ids if i not in self.skipped]
        if not ids:
            return None
        pool = [i for i in ids if i != self._last] or ids
        self._last = self.rng.choice(pool)
        return self._last


def matching(bank: Bank, topic: str | None, difficulty: int | None = None) -> list[str]:
    """Template ids whose topic, tag, id or id prefix is `topic`, at `difficulty`.

    A folder (``layout`` or ``layout/``) matches the ids under it; when no topic, tag,
    id or folder matches, the start of an id does (``layout/thirty`` matches
    ``layout/thirty-second-answer``).
    """
    if not topic:
        return [tid for tid, t in sorted(bank.summaries.items())
                if not difficulty or t.difficulty == difficulty]
    folder = f"{topic.rstrip('/')}/"
    named = [tid for tid, t in sorted(bank.summaries.items())
             if topic in (t.topic, *t.tags, tid) or tid.startswith(folder)]
    if not named:
        named = [tid for tid in sorted(bank.summaries) if tid.startswith(topic)]
    return [tid for tid in named
            if not difficulty or bank.summaries[tid].difficulty == difficulty]


# ---------------------------------------------------------------- mock interview


@dataclass
class MockReport:
    """The end of a mock interview.

    Attributes:
        score: mean score over all questions (unanswered count as 0).
        by_topic: topic -> (mean score, questions).
        rows: per question: label, topic, verdict, score, seconds, answer, key.
        solutions: per question: label and worked derivation.
        previous: scores of earlier finished mocks, oldest first.
        unreached: planned questions the clock never reached (each scores 0).
    """

    score: float
    by_topic: dict[str, tuple[float, int]]
    rows: list[dict[str, Any]]
    solutions: list[tuple[str, Derivation]]
    previous: list[float] = field(default_factory=list)
    unreached: int = 0
    chains: list[list[str]] = field(default_factory=list)
    """The interviewer's follow-up chains: the question, then each follow-up asked of
    it (what changed, its family, the verdict and the key)."""


class MockSession(Session):
    """A timed mock interview: N mixed questions, no feedback until the end.

    Args:
        questions: how many (default: settings.mock_questions).
        minutes: time limit (default: settings.mock_minutes).
        closing: end with a 30-second answer (a spoken template), on a clock of its own
            that starts when the other questions are done or their time is up.
        closing_minutes: the closing answer's time limit (default
            :data:`CLOSING_MINUTES`).
    """

    mode: Mode = "mock"
    WARNINGS = (300.0, 60.0, 15.0)
    """Seconds left at which a warning is given (the last one also in short mocks)."""

    def __init__(self, bank: Bank, store: Store, settings: Settings, *,
                 questions: int | None = None, minutes: float | None = None,
                 closing: bool = False, closing_minutes: float | None = None,
                 **kw: Any) -> None:
        super().__init__(bank, store, settings, **kw)
        self.n = questions or settings.mock_questions
        self.minutes = minutes or settings.mock_minutes
        closers = spoken_templates(bank) if closing else []
        self.closing_id = self.rng.choice(closers) if closers else None
        """The spoken template that closes the interview (None: no closing answer)."""
        self.closing_minutes = closing_minutes or CLOSING_MINUTES
        self.closing_deadline: float | None = None
        """When the closing answer's time runs out (None until it starts)."""
        self.plan = mock_plan(bank, self.n, self.rng,
                              exclude=set(closers) if self.closing_id else set())
        if self.closing_id is not None:
            self.plan.append(self.closing_id)
        self.n = len(self.plan)  # a bank smaller than asked gives a shorter interview
        self.started = self.clock()
        self.deadline = self.started + self.minutes * 60
        self._warned: set[float] = set()
        self._index = 0
        self.finished = False
        self._mock_id = store.start_mock(minutes=int(self.minutes), n_questions=self.n)

    def session_id(self) -> int | None:
        return self._mock_id

    def hints_allowed(self) -> bool:
        """Interviews give no hints; the ``mock_hints`` setting turns them on."""
        return self.settings.mock_hints

    def remaining(self) -> float:
        """Seconds left (never negative) on the clock running now: the questions', or
        the closing answer's once it has started."""
        deadline = self.deadline if self.closing_deadline is None else self.closing_deadline
        return max(0.0, deadline - self.clock())

    @property
    def closing(self) -> bool:
        """Whether the closing answer has started."""
        return self.closing_deadline is not None

    def closing_due(self) -> bool:
        """Whether a closing answer comes next (it has not started yet)."""
        return self.closing_id is not None and self.closing_deadline is None

    def _length(self) -> float:
        """Seconds on the clock running now, from its start."""
        return (self.closing_minutes if self.closing else self.minutes) * 60

    def due_warning(self) -> str | None:
        """A warning when 5 minutes, 1 minute or 15 seconds remain: the most urgent mark
        passed and not yet given (marks at or beyond the mock's whole length are never
        given, so a one-minute mock still gets its last-seconds warning)."""
        left = self.remaining()
        if left <= 0:
            return None
        passed = [m for m in self.WARNINGS if left <= m < self._length()
                  and m not in self._warned]
        if not passed:
            return None
        mark = min(passed)
        self._warned.update(m for m in self.WARNINGS if m >= mark)
        if mark < 60:
            return f"{int(mark)} seconds left"
        return f"{int(mark // 60)} minute{'s' if mark > 60 else ''} left"

    def time_up(self) -> bool:
        """Whether the time limit has passed."""
        return self.remaining() <= 0

    def next(self) -> Question | None:
        """The next question: the interviewer's follow-up when one is due (see
        :mod:`quiz.core.interviewer`), else the plan's next."""
        fu = self._interviewer_followup()
        if fu is not None:
            return self.ask_followup(fu)
        return super().next()

    def _interviewer_followup(self) -> FollowUp | None:
        from questions.followups import standard_set
        from quiz.core.interviewer import MAX_FOLLOWUPS, choose

        q, base = self.current, self.base
        if q is None or base is None or self.time_up() or self.closing \
                or len(self.chain) >= MAX_FOLLOWUPS or not self.answered \
                or self.answered[-1].question is not q:
            return None
        if q.followup is None and q.part.index < len(q.variant.parts):
            return None
        if not (standard_set(base.template) or base.template.followups):
            return None
        latest = [(o.question.part, o.grade) for o in self.answered
                  if o.question is q or (q.followup is None and o.question.followup is None
                                         and o.question.variant is base)]
        try:
            return choose(base, latest, self.chain)
        except QuizError as exc:  # a follow-up that cannot be drawn ends the chain
            self.warnings.append(f"no follow-up of {base.id}: {exc}")
            return None

    def pick(self) -> str | None:
        regular = len(self.plan) - (self.closing_id is not None)
        if self.closing:
            return None
        if not self.time_up() and self._index < regular:
            tid = self.plan[self._index]
            self._index += 1
            return tid
        if self.closing_id is None:
            return None
        # The questions are done (or their time is): the closing answer's clock starts.
        self._index = len(self.plan)
        self.closing_deadline = self.clock() + self.closing_minutes * 60
        self._warned = set()
        return self.closing_id

    def expire(self, typed: str = "") -> None:
        """Time ran out: submit what is typed (a blank counts as unanswered)."""
        q = self.current
        if q is None:
            return
        q.answer_text = typed
        if typed.strip():
            out = super().submit(typed)
            if out.grade.verdict != "invalid":
                return
        blank = Grade("incorrect", 0.0, "", "unanswered", "Time ran out before an answer.",
                      q.part.key)
        more = q.followup is None and q.part.index < len(q.variant.parts)
        attempt_id = self._record(q, blank, typed, self.clock() - q.started, last=not more)
        self.answered.append(Outcome(blank, q, attempt_id, self.clock() - q.started, more))
        self.current = None

    def finish(self) -> MockReport:
        """End the interview, store the report, and compare with earlier mocks.

        A scenario is one question: its score is the mean over all its parts, and
        parts the clock never reached are listed as unreached and score 0 within it.
        """
        self.finished = True
        rows, solutions = [], []
        by_variant: dict[int, list[Outcome]] = defaultdict(list)
        chains: dict[int, list[str]] = {}
        for out in self.answered:
            q = out.question
            row = {"question": q.label, "topic": q.template.topic,
                   "verdict": out.grade.verdict, "score": out.grade.score,
                   "seconds": round(out.seconds, 1), "answer": q.answer_text,
                   "read_as": out.grade.read_as, "key": out.grade.shown_key,
                   "mistake": out.grade.mistake, "feedback": out.grade.feedback}
            solutions.append((q.label, derivation_of(q.part)))
            mark = _CHAIN_MARKS.get(out.grade.verdict, out.grade.verdict)
            if q.followup is not None:
                # Follow-ups are listed and chained to their question; the score stays
                # the planned questions' (a follow-up is the interviewer's choice).
                row |= {"followup": q.followup.to_json()}
                rows.append(row)
                chains.setdefault(id(q.variant), [q.variant.id]).append(
                    f"{q.followup.short}: {mark} {out.grade.verdict}, key "
                    f"{out.grade.shown_key}")
                continue
            rows.append(row)
            if id(q.variant) not in chains:
                chains[id(q.variant)] = [q.variant.id]
            chains[id(q.variant)][0] += f" {mark}"
            by_variant[id(q.variant)].append(out)
        topics: dict[str, list[float]] = defaultdict(list)
        question_scores = []
        for outs in by_variant.values():
            variant = outs[0].question.variant
            n_parts = len(variant.parts)
            question_scores.append(sum(o.grade.score for o in outs) / n_parts)
            topics[variant.template.topic].append(question_scores[-1])
            for part in variant.parts[len(outs):]:  # the clock stopped inside a scenario
                rows.append({"question": f"{variant.id} (part {part.index}/{n_parts})",
                             "topic": variant.template.topic, "verdict": "incorrect",
                             "score": 0.0, "seconds": 0.0, "answer": "", "read_as": "",
                             "key": key_text(part), "mistake": "unreached",
                             "feedback": "Time ran out before this part."})
        asked = self.n - len(self.skipped & set(self.plan))  # a broken template is no one's fault
        unanswered = max(0, asked - len(by_variant))
        scores = question_scores + [0.0] * unanswered
        score = sum(scores) / len(scores) if scores else 0.0
        by_topic = {t: (sum(v) / len(v), len(v)) for t, v in sorted(topics.items())}
        # mock_history is newest first; the report wants the earlier ones oldest first.
        previous = [m.score for m in reversed(self.store.mock_history())
                    if m.score is not None and m.id != self._mock_id]
        chain_lines = [c for c in chains.values() if len(c) > 1]
        report = MockReport(score, by_topic, rows, solutions, previous, unanswered,
                            chain_lines)
        self.store.finish_mock(self._mock_id, score=score,
                               report={"score": score, "rows": rows, "chains": chain_lines,
                                       "by_topic": {k: v[0] for k, v in by_topic.items()}})
        return report


_CHAIN_MARKS = {"correct": "✓", "partial": "~", "incorrect": "✗"}

CLOSING_MINUTES = 3.0
"""Default time for the 30-second answer that may close a mock interview (saying it takes
thirty seconds; composing it, a few minutes)."""


def spoken_templates(bank: Bank) -> list[str]:
    """The bank's spoken (30-second answer) templates, in id order."""
    return sorted(tid for tid, t in bank.summaries.items() if kind_of(t.kind).paragraph)


def mock_plan(bank: Bank, n: int, rng: random.Random,
              exclude: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """N templates mixed across topics and difficulties (round-robin over topics),
    leaving out ``exclude``."""
    by_topic: dict[str, list[str]] = defaultdict(list)
    for tid, t in sorted(bank.summaries.items()):
        if tid not in exclude:
            by_topic[t.topic].append(tid)
    for ids in by_topic.values():
        rng.shuffle(ids)
    topics = sorted(by_topic)
    rng.shuffle(topics)
    plan: list[str] = []
    while len(plan) < n and any(by_topic.values()):
        for topic in topics:
            if by_topic[topic] and len(plan) < n:
                plan.append(by_topic[topic].pop())
    # Easy first, hard last, as interviews usually go.
    plan.sort(key=lambda tid: bank.summaries[tid].difficulty)
    return plan

