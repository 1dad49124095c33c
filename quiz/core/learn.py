"""Learn mode without any UI: walk through a variant step by step, then answer it whole.

A :class:`Walkthrough` asks the steps of :func:`questions.steps.walk` one at a time. A
step answered right moves on; a wrong one keeps the step (retry) and gives its
explanation; :meth:`Walkthrough.reveal` shows the key and moves on. Steps are not
attempts. A one-part question whose last step is the question itself (a number's final
step) is not asked twice: that step is left to the whole question, which shows what
the step would have shown before it (:attr:`Walkthrough.lead_in`). After the last step
every part of the question is asked whole: these
answers are recorded as *guided* attempts, which never move the FSRS card. In learn
mode a fresh variant of the same template follows, asked cold: an ordinary attempt.

:func:`plan` orders an item's or topic's templates easiest first, and :func:`progress`
counts, per rapid-fire item and topic, the templates answered right cold after a
walk-through.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from questions.derivation import explanation_of
from quiz.core.clock import utc_now
from quiz.core.grading import Grade, grade
from quiz.core.store import Attempt
from quiz.core.types import Mode, stored

if TYPE_CHECKING:
    from questions.loader import Bank
    from questions.steps import LearnStep, Walk
    from questions.variants import PartVariant, Variant
    from quiz.core.settings import Settings
    from quiz.core.store import Store

__all__ = [
    "WALK_OFFER_MISSES",
    "Phase",
    "Progress",
    "WalkAnswer",
    "Walkthrough",
    "bank_templates",
    "learned_templates",
    "offers_walk",
    "plan",
    "progress",
    "progress_in",
    "target_of",
]

Phase = Literal["step", "whole", "cold", "done"]
"""Where a walk-through is: asking steps, the question whole (guided), a fresh variant
cold, or finished."""


@dataclass(frozen=True)
class WalkAnswer:
    """An answer given in a walk-through, graded.

    Attributes:
        grade: verdict, score, how it was read, feedback, key.
        phase: what was answered (``step``, ``whole`` or ``cold``).
        label: "Step 2 of 5", "The whole question", ...
        explanation: what to show: the step's working (without its result) after a
            wrong step; the worked solution after a whole or cold answer.
        advanced: the walk moved on (a step answered right, or any graded whole or cold
            answer); False after an unreadable answer or a wrong step (retry).
        attempt_id: the recorded attempt (whole and cold answers only).
    """

    grade: Grade
    phase: Phase
    label: str
    explanation: str
    advanced: bool
    attempt_id: int | None = None
    what: str = ""
    """What was answered, as a phrase ("the bytes of model state per parameter")."""
    tries: int = 0
    """Wrong answers to this step before this one (a step's summary line shows them)."""


@dataclass(frozen=True)
class Done:
    """A step already dealt with in this walk: answered right, or revealed."""

    step: LearnStep
    typed: str
    revealed: bool
    tries: int = 0
    """Wrong answers before it was answered right or revealed."""


class Walkthrough:
    """One variant walked through (and, in learn mode, a fresh one asked cold).

    Args:
        variant: the variant to walk through.
        store: where the whole and cold answers are recorded (None: nowhere, a dry run).
        settings: the tolerance setting.
        cold: a fresh variant of the same template to ask cold at the end (learn
            mode), or None.
        mode: the session kind the recorded attempts belong to.
        walk: the variant's walk, when already built (it runs the solver).
    """

    def __init__(self, variant: Variant, store: Store | None, settings: Settings, *,
                 cold: Variant | None = None, mode: Mode = "practice",
                 walk: Walk | None = None,
                 now: Callable[[], datetime] = utc_now,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from questions.steps import walk as build

        self.variant = variant
        self.walk = walk or build(variant)
        steps = self.walk.steps
        self.lead_in: LearnStep | None = None
        """The walk's last step when it asks the one part's own question (left to the
        whole question, so that it is asked once): its given values and inputs are
        shown with the whole question."""
        if len(variant.parts) == 1 and steps and steps[-1].final:
            self.lead_in, steps = steps[-1], steps[:-1]
        self._steps = steps
        self.cold = cold
        self.store = store
        self.settings = settings
        self.mode = mode
        self.now = now
        self.clock = clock
        self.position = 0
        """0-based: the next step to ask (steps phase), or the part (whole, cold)."""
        self.phase: Phase = "step" if steps else "whole"
        self.done: list[Done] = []
        self.wrong_tries = 0
        """Wrong answers to the step showing."""
        self.started = clock()

    # --- what is asked

    @property
    def steps(self) -> tuple[LearnStep, ...]:
        """Every step the walk asks (without :attr:`lead_in`)."""
        return self._steps

    @property
    def step(self) -> LearnStep | None:
        """The step showing (None outside the steps phase)."""
        return self.steps[self.position] if self.phase == "step" else None

    @property
    def asked_variant(self) -> Variant:
        """The variant whose question is showing (the cold one in the cold phase)."""
        return self.cold if self.phase == "cold" and self.cold is not None else self.variant

    @property
    def part(self) -> PartVariant | None:
        """The part showing (the step's own part in the steps phase)."""
        if self.phase == "done":
            return None
        if self.phase == "step":
            return self.steps[self.position].pv
        return self.asked_variant.parts[self.position]

    @property
    def label(self) -> str:
        """Where the walk is, for people."""
        if self.phase == "step":
            return f"Step {self.position + 1} of {len(self.steps)}"
        n = len(self.asked_variant.parts)
        of = f", part {self.position + 1} of {n}" if n > 1 else ""
        if self.phase == "whole":
            return f"The whole question{of}"
        if self.phase == "cold":
            return f"Now cold: a fresh variant{of}"
        return "Done"

    @property
    def prompt(self) -> str:
        """What to answer now: the step's question, or the part's prompt."""
        if self.phase == "step":
            return self.steps[self.position].prompt
        v = self.asked_variant
        if self.phase == "done":
            return ""
        pv = v.parts[self.position]
        if v.template.intro and len(v.parts) > 1 and self.phase == "cold" \
                and self.position == 0:
            return f"{v.intro}\n\n{pv.prompt}"
        return pv.prompt

    @property
    def finished(self) -> bool:
        """Whether nothing is left to answer."""
        return self.phase == "done"

    # --- answering

    def submit(self, text: str) -> WalkAnswer:
        """Grade an answer to what is showing.

        Raises:
            RuntimeError: the walk is finished.
        """
        pv = self.part
        if pv is None:
            raise RuntimeError("the walk-through is finished")
        phase, label = self.phase, self.label
        g = grade(pv, text, tolerance_scale=self.settings.tolerance_scale)
        if g.verdict == "invalid":
            return WalkAnswer(g, phase, label, "", False)
        if phase == "step":
            step = self.steps[self.position]
            if g.verdict != "correct":
                self.wrong_tries += 1
                return WalkAnswer(g, phase, label, step.working, False, what=step.what)
            tries = self.wrong_tries
            self.done.append(Done(step, text, False, tries))
            self._next_step()
            return WalkAnswer(g, phase, label, step.explanation, True, what=step.what,
                              tries=tries)
        attempt_id = self._record(pv, g, text, guided=phase == "whole")
        self._next_part()
        what = "the whole question" if phase == "whole" else "cold"
        return WalkAnswer(g, phase, label, explanation_of(pv), True, attempt_id, what)

    def reveal(self) -> LearnStep | None:
        """Show the step's key and working and move on (None outside the steps)."""
        step = self.step
        if step is None:
            return None
        self.done.append(Done(step, "", True, self.wrong_tries))
        self._next_step()
        return step

    def _next_step(self) -> None:
        self.wrong_tries = 0
        self.position += 1
        if self.position >= len(self.steps):
            self.phase, self.position = "whole", 0
        self.started = self.clock()

    def _next_part(self) -> None:
        self.position += 1
        if self.position >= len(self.asked_variant.parts):
            self.position = 0
            self.phase = "cold" if self.phase == "whole" and self.cold is not None \
                else "done"
        self.started = self.clock()

    def _record(self, pv: PartVariant, g: Grade, text: str, *, guided: bool) -> int | None:
        if self.store is None:
            return None
        t = self.asked_variant.template
        attempt = Attempt(template_id=t.id, template_version=t.version,
                          seed=self.asked_variant.seed, mode=self.mode,
                          answer_text=text[:2000], verdict=stored(g.verdict), score=g.score,
                          topic=t.topic, answered_at=self.now(),
                          seconds=max(0.0, self.clock() - self.started), mistake=g.mistake,
                          tags=tuple(t.tags), guided=guided)
        # Committed before the next thing shows, like every attempt. A guided attempt
        # never reviews the FSRS card; the cold one is practice, which does not either.
        return self.store.record_attempt(attempt)


# ---------------------------------------------------------------- what to learn


WALK_OFFER_MISSES = 2
"""Cold misses of a template after which the drill offers a walk-through."""


def offers_walk(store: Store, template_id: str) -> bool:
    """Whether a template has been missed cold often enough to offer a walk-through
    (a leech for learn mode: :data:`WALK_OFFER_MISSES` incorrect unguided answers)."""
    # From the per-template summary less the guided misses (an index of guided answers):
    # two look-ups, not every answer at the template.
    misses = store.misses(template_id).get(template_id, 0) - store.guided_misses(template_id)
    return misses >= WALK_OFFER_MISSES


def plan(bank: Bank, topic: str) -> list[str]:
    """The templates of a rapid-fire item, topic, tag or id prefix, easiest first.

    Raises:
        NoQuestions: nothing matches.
    """
    from quiz.core.drill import teaching_order
    from quiz.core.errors import NoQuestions
    from quiz.core.practice import matching

    ids = matching(bank, topic)
    if not ids:
        import difflib

        names = sorted({n for tid, t in bank.summaries.items() for n in (tid, t.topic, *t.tags)})
        close = difflib.get_close_matches(topic, names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise NoQuestions(f"no template matches {topic}{hint}")
    order = {tid: i for i, tid in enumerate(teaching_order(bank))}
    return sorted(ids, key=lambda tid: (bank.summaries[tid].difficulty,
                                        order.get(tid, len(order)), tid))


def target_of(bank: Bank, target: str) -> tuple[list[str], tuple[str, int] | None]:
    """What ``quiz learn TARGET`` walks through: a plan of template ids (an item, topic,
    tag, id prefix or one template id), or one variant (``TEMPLATE_ID#SEED``).

    Raises:
        TemplateError: a bad seed, or an unknown template id with a seed.
        NoQuestions: nothing matches the item, topic or tag.
    """
    from questions.variants import parse_variant_id

    tid, seed = parse_variant_id(target)
    if seed is not None:
        bank.get(tid)  # unknown: a TemplateError with "did you mean"
        return [], (tid, seed)
    if tid in bank.templates:
        return [tid], None
    return plan(bank, target), None


@dataclass(frozen=True)
class Progress:
    """How far learn mode has got in one rapid-fire item or topic.

    Attributes:
        group: ``rapid-fire-N`` or a topic.
        templates: templates in it.
        walked: templates walked through at least once.
        learned: templates answered right cold after a walk-through.
    """

    group: str
    templates: int
    walked: int
    learned: int

    def to_json(self) -> dict[str, Any]:
        """The group's progress as JSON (``quiz stats --json``'s ``learn``)."""
        return {"templates": self.templates, "walked": self.walked,
                "learned": self.learned}


def learned_templates(attempts: Sequence[Attempt]) -> tuple[set[str], set[str]]:
    """Templates walked through, and those answered right cold after a walk-through."""
    first_guided: dict[str, datetime] = {}
    for a in sorted(attempts, key=lambda a: a.answered_at):
        if a.guided:
            first_guided.setdefault(a.template_id, a.answered_at)
    learned = {a.template_id for a in attempts
               if not a.guided and a.verdict == "correct" and a.template_id in first_guided
               and a.answered_at > first_guided[a.template_id]}
    return set(first_guided), learned


def progress(attempts: Sequence[Attempt],
             templates: Iterable[tuple[str, str, Sequence[str]]]) -> list[Progress]:
    """Learn-mode progress per rapid-fire item (in order), then per topic.

    Args:
        attempts: the history.
        templates: every template as (id, topic, tags): a bank's or a catalog's.
    """
    return _progress(*learned_templates(attempts), templates)


def progress_in(store: Store,
                templates: Iterable[tuple[str, str, Sequence[str]]]) -> list[Progress]:
    """:func:`progress` of the history in ``store``, read by SQL (:meth:`Store.learn_marks`):
    the guided attempts and a look-up per walked template, at any history size."""
    return _progress(*store.learn_marks(), templates)


def _progress(walked: set[str], learned: set[str],
              templates: Iterable[tuple[str, str, Sequence[str]]]) -> list[Progress]:
    from questions.tags import RAPID_FIRE

    groups: dict[str, list[str]] = {tag: [] for tag in RAPID_FIRE}
    topics: dict[str, list[str]] = {}
    for tid, topic, tags in sorted(templates):
        for tag in tags:
            if tag in groups:
                groups[tag].append(tid)
        topics.setdefault(topic, []).append(tid)
    groups |= dict(sorted(topics.items()))
    return [Progress(g, len(ids), len(walked & set(ids)), len(learned & set(ids)))
            for g, ids in groups.items() if ids]


def bank_templates(bank: Bank) -> list[tuple[str, str, Sequence[str]]]:
    """A bank's templates as :func:`progress` takes them."""
    return [(tid, t.topic, t.tags) for tid, t in bank.summaries.items()]
