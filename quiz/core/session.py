"""What every session shares, without any UI: the question, the outcome, the flag and
:class:`Session` (drawing, follow-ups, hints, grading and recording). The sessions
themselves live one per module: :mod:`quiz.core.drill`, :mod:`quiz.core.practice`,
:mod:`quiz.core.mock`.

The TUI and the plain-terminal drill are thin shells over these classes: they show
:class:`Question` objects, pass typed text to :meth:`Session.preview` and
:meth:`Session.submit`, and show the :class:`Outcome`. Every graded answer is committed
to the store inside :meth:`Session.submit`, before the caller can show the next
question, so a killed process loses nothing already answered.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec import Struct

from questions.errors import TemplateError
from questions.variants import PartVariant, Variant, describe, make_variant
from quiz.core.clock import utc_now
from quiz.core.errors import NoQuestions as NoQuestions  # re-exported: callers import it here
from quiz.core.errors import StoreError
from quiz.core.schedule import Drill, rating_for
from quiz.core.store import Attempt, Flag, Store
from quiz.core.types import Mode, stored

if TYPE_CHECKING:
    # Annotations only, and the readers and graders imported where they are used: the
    # template and settings models are pydantic's (a third of a second to import), and
    # `quiz drill` draws its first question before they, or anything that reads an
    # answer, are imported (quiz.core.drill.first_question).
    from questions.followups import FollowUp
    from questions.loader import Bank
    from questions.schema import Template
    from quiz.core.grading import Grade
    from quiz.core.settings import Settings

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


class Question(Struct):
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


class Outcome(Struct, frozen=True):
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
        from questions.derivation import explanation_of

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
    from quiz.core.grading import read_answer, unreadable_message
    from quiz.core.reading import Unreadable

    if not text.strip():
        return ""
    try:
        return f"read as {read_answer(part, text).read_as}"
    except Unreadable as exc:
        return f"can't read: {unreadable_message(exc)}"


def preview_warmups(part: PartVariant) -> tuple[str, ...]:
    """Texts to :func:`preview` ahead of the typing (never the key, never typed), so that
    the first keystrokes read as quickly as the rest; none for most kinds."""
    from quiz.core.kinds import kind_of

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

    def ask(self, template_id: str, seed: int, started: float | None = None) -> Question:
        """Show a specific variant (e.g. one pasted as TEMPLATE_ID#SEED), shown since
        ``started`` (the clock's time; None: now)."""
        variant = make_variant(self.bank.get(template_id), seed)
        self._part_scores, self._seconds, self._earlier = [], 0.0, {}
        self.base, self.chain = variant, []
        self.current = Question(variant, variant.parts[0],
                                self.clock() if started is None else started)
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
        from questions.kinds import kind_of as question_kind
        from quiz.core.grading import grade, read_answer

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
