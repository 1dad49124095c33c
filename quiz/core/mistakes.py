"""What you got wrong: past incorrect and partial answers, their keys and solutions.

The history stores what was typed, the verdict and the named mistake; the key, the
feedback and the worked solution are derived again from ``TEMPLATE_ID#SEED`` (the same
seed always gives the same variant), so they are never stale copies. A template whose
version changed since the answer is marked ``stale``: its variant may differ now.

A *leech* (Anki's word) is a template missed again and again: at least
:data:`LEECH_MISSES` incorrect answers. Leeches are offered as a focused practice set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from questions.derivation import derivation_of, explanation_of
from quiz.core.store import Attempt, Store

if TYPE_CHECKING:
    from questions.derivation import Derivation
    from questions.loader import Bank
    from questions.variants import PartVariant, Variant

__all__ = ["LEECH_MISSES", "Mistake", "by_mistake", "by_topic", "leeches", "mistakes"]

LEECH_MISSES: Final = 4
"""Incorrect answers after which a template counts as a leech."""


@dataclass(frozen=True)
class Mistake:
    """One past answer that was not fully right, with what it should have been.

    Attributes:
        attempt: the stored attempt.
        part: the scenario part answered (1 for single questions).
        title: the template's title ("" when the template is gone).
        key: the expected answer, as displayed.
        feedback: what grading says about the stored answer now.
        explanation: the worked solution, as text.
        derivation: the worked solution, structured (None when it cannot be drawn).
        stale: the template changed (or is gone) since the answer was given.
        leech: the template is a leech.
        key_text: the key as people read it where it says more than ``key`` (a
            choice's letters with their options' text).
        read_as: how the answer reads now ("C: <the option>", "1e12 B = 1 TB"); "" for
            a paragraph (shown as typed) or an answer that cannot be graded now.
    """

    attempt: Attempt
    part: int
    title: str
    key: str
    feedback: str
    explanation: str
    stale: bool
    leech: bool
    derivation: Derivation | None = None
    key_text: str | None = None
    read_as: str = ""

    @property
    def shown_key(self) -> str:
        """The key as shown to people: :attr:`key_text`, else :attr:`key`."""
        return self.key_text or self.key

    @property
    def yours(self) -> str:
        """The answer as shown to people: how it reads, else as typed."""
        return self.read_as or self.attempt.answer_text.strip() or "(blank)"

    @property
    def variant(self) -> str:
        """``TEMPLATE_ID#SEED``: what ``quiz ask`` and a retry reproduce."""
        return f"{self.attempt.template_id}#{self.attempt.seed}"

    def to_json(self) -> dict[str, Any]:
        """The object ``quiz mistakes --json`` prints for it."""
        a = self.attempt
        return {"template": a.template_id, "seed": a.seed, "variant": self.variant,
                "part": self.part, "title": self.title, "topic": a.topic,
                "tags": list(a.tags), "mode": a.mode, "answered_at": a.answered_at.isoformat(),
                "verdict": a.verdict, "score": a.score, "mistake": a.mistake,
                "answer": a.answer_text, "key": self.key, "key_text": self.shown_key,
                "feedback": self.feedback,
                "explanation": self.explanation, "stale": self.stale, "leech": self.leech}


def _matches(attempt: Attempt, topic: str | None) -> bool:
    if not topic:
        return True
    return topic in (attempt.topic, *attempt.tags, attempt.template_id) or \
        attempt.template_id.startswith(f"{topic.rstrip('/')}/")


def _earlier(attempts: Iterable[Attempt], parts: dict[int, int]) -> dict[int, dict[int, str]]:
    """Attempt id -> what was typed to the earlier parts of its run of the scenario
    (part -> text), for grading a part that follows through from them again."""
    runs: dict[tuple[str, int, int | None], dict[int, str]] = {}
    out: dict[int, dict[int, str]] = {}
    for a in attempts:
        if a.id is None:
            continue
        part = parts.get(a.id, 1)
        where = (a.template_id, a.seed, a.session_id)
        if part == 1:
            runs[where] = {}
        run = runs.setdefault(where, {})
        out[a.id] = dict(run)
        run[part] = a.answer_text
    return out


def _parts(attempts: Iterable[Attempt], bank: Bank) -> dict[int, int]:
    """Attempt id -> the scenario part it answered (attempts oldest first).

    The history does not store the part: the parts of one variant are answered in
    order, so the k-th answer to a variant is its part k (counted modulo the parts,
    since the same variant can be asked again).
    """
    seen: Counter[tuple[str, int, int | None]] = Counter()
    parts: dict[int, int] = {}
    for a in attempts:
        template = bank.templates.get(a.template_id)
        n = len(template.parts) if template is not None and template.parts else 1
        where = (a.template_id, a.seed, a.session_id)
        if a.id is not None:
            parts[a.id] = seen[where] % n + 1
        seen[where] += 1
    return parts


def leeches(store: Store, threshold: int = LEECH_MISSES) -> list[str]:
    """Template ids answered incorrectly at least ``threshold`` times, most missed first
    (from the history's per-template summary: no attempt is read)."""
    misses = store.misses()
    return [t for t, n in sorted(misses.items(), key=lambda kv: (-kv[1], kv[0]))
            if n >= threshold]


def mistakes(store: Store, bank: Bank, *, topic: str | None = None,
             limit: int | None = 50) -> list[Mistake]:
    """Past incorrect and partial answers, newest first, each with key and solution.

    Args:
        store: the history.
        bank: the templates (the key and solution are derived from them again).
        topic: only answers whose topic, rapid-fire tag, id or id prefix is this.
        limit: at most this many (None: all); deriving solutions costs solver time.
    """
    from questions.variants import make_variant
    from quiz.core.errors import QuizError
    from quiz.core.grading import grade
    from quiz.core.kinds import key_text, kind_of

    wrong: list[Attempt] = []
    if limit is None or limit > 0:
        # Newest first, stopping at ``limit``: the latest misses are read, not the history.
        for a in store.iter_attempts(newest_first=True, not_correct=True, about=topic):
            if _matches(a, topic):
                wrong.append(a)
                if limit is not None and len(wrong) >= limit:
                    break
    # The part a scenario answer was to, and the earlier parts' answers of its run, come
    # from the other answers to the same variant (looked up by variant, not read in full).
    scenarios = {(a.template_id, a.seed) for a in wrong
                 if (t := bank.templates.get(a.template_id)) is not None and t.parts
                 and len(t.parts) > 1}
    history = store.variant_attempts(scenarios)
    parts = _parts(history, bank)
    earlier_texts = _earlier(history, parts)
    leech_ids = set(leeches(store))
    out: list[Mistake] = []
    for a in wrong:
        part = parts.get(a.id or -1, 1)
        # A follow-up's attempt is recorded as TEMPLATE+FAMILY (questions.followups).
        base_id, _, family = a.template_id.partition("+")
        template = bank.templates.get(base_id)
        if template is None:
            out.append(Mistake(a, part, "", "?", "This template is no longer in the bank.",
                               "", True, a.template_id in leech_ids))
            continue
        try:
            variant = make_variant(template, a.seed)
            pv = variant.parts[min(part, len(variant.parts)) - 1]
            if family:
                pv = _followup_part(variant, family)
            read_as = ""
            if a.mistake in ("unanswered", "unreached") or not a.answer_text.strip():
                feedback = "Time ran out before an answer."
            else:
                earlier = _read_earlier(variant.parts, earlier_texts.get(a.id or -1, {}))
                g = grade(pv, a.answer_text, earlier=earlier)
                feedback = g.feedback
                if not kind_of(pv.kind).paragraph:  # a paragraph reads as its checklist
                    read_as = g.read_as
            key, explanation, derivation = pv.key.display, explanation_of(pv), derivation_of(pv)
            shown: str | None = key_text(pv)
        except (QuizError, ValueError, ArithmeticError) as exc:
            key, feedback, explanation = "?", f"This variant cannot be drawn now: {exc}", ""
            derivation, shown, read_as = None, None, ""
        out.append(Mistake(a, part, template.title, key, feedback, explanation,
                           template.version != a.template_version,
                           a.template_id in leech_ids, derivation, shown, read_as))
    return out


def _followup_part(variant: Variant, family: str) -> PartVariant:
    """The follow-up of this family of a variant, drawn again.

    Raises:
        TemplateError: the template has no follow-up of that family any more.
        NotApplicable: it no longer applies to this variant.
    """
    from questions.errors import TemplateError
    from questions.followups import by_family, draw

    k = by_family(variant.template, family)
    if k is None:
        raise TemplateError(f"{variant.id} has no follow-up {family} any more")
    return draw(variant, k).pv


def _read_earlier(parts: Sequence[PartVariant], texts: dict[int, str]) -> dict[int, float]:
    """The earlier parts' answers as values (those that read as numbers)."""
    from questions.kinds import kind_of
    from quiz.core.grading import read_answer
    from quiz.core.reading import Unreadable

    out: dict[int, float] = {}
    for k, text in texts.items():
        if 1 <= k <= len(parts) and kind_of(parts[k - 1].kind).amount:
            try:
                out[k] = read_answer(parts[k - 1], text).value.value
            except Unreadable:
                continue
    return out


def by_topic(entries: Iterable[Mistake]) -> dict[str, list[Mistake]]:
    """The entries grouped by topic (topics in order of their newest entry)."""
    groups: dict[str, list[Mistake]] = {}
    for m in entries:
        groups.setdefault(m.attempt.topic, []).append(m)
    return groups


def by_mistake(entries: Iterable[Mistake]) -> list[tuple[str, int]]:
    """How often each named mistake was made, most frequent first."""
    counts = Counter(m.attempt.mistake for m in entries
                     if m.attempt.mistake and m.attempt.mistake not in ("unanswered",
                                                                      "unreached"))
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
