"""The mock interview: a timed plan of questions, the interviewer's follow-ups, an
optional closing 30-second answer, and the report scored at the end."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from questions.derivation import derivation_of
from questions.loader import Bank
from quiz.core.grading import Grade
from quiz.core.kinds import key_text, kind_of
from quiz.core.session import Outcome, Question, Session
from quiz.core.settings import Settings
from quiz.core.store import Store
from quiz.core.types import Mode
from solver.errors import QuizError

if TYPE_CHECKING:
    from questions.derivation import Derivation
    from questions.followups import FollowUp


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
