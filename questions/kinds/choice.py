"""Choice answers: one letter (``choice``) or every letter that applies (``multi``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from questions.errors import FieldError
from questions.kinds.base import DrawnKey, KeyContext, Location, QuestionKind

if TYPE_CHECKING:
    from questions.schema import Part
    from questions.variants import PartVariant

__all__ = ["KIND"]


def check_part(part: Part) -> None:
    """At least two choices; the key names labels among them (exactly one for choice)."""
    a = part.answer
    if len(part.choices) < 2:
        raise FieldError(("choices",), "a choice answer needs at least 2 choices")
    labels = {chr(ord("a") + i) for i in range(len(part.choices))}
    bad = [c for c in a.correct + [x for w in a.when for x in w.correct] if c not in labels]
    unknown = sorted(set(a.option_feedback) - labels)
    if unknown:
        raise FieldError(("answer", "option_feedback"), f"answer.option_feedback names no "
                         f"choice {unknown[0]!r}; the labels are {', '.join(sorted(labels))}")
    if not a.correct or bad:
        raise FieldError(("answer", "correct"), f"answer.correct must name labels among "
                         f"{', '.join(sorted(labels))}")
    if part.answer_kind == "choice" and any(
            len(c) != 1 for c in [a.correct, *(w.correct for w in a.when)]):
        raise FieldError(("answer",), "a single-choice answer has exactly one correct "
                         "label")


def check_loaded(part: Part, base: Location) -> list[tuple[Location, str]]:
    """A known mistake that picks exactly the key can never fire."""
    keys = [set(part.answer.correct)] + [set(w.correct) for w in part.answer.when]
    out: list[tuple[Location, str]] = []
    for i, m in enumerate(part.mistakes):
        if m.choice is not None and all(set(m.choice) == k for k in keys):
            out.append((base + ["mistakes", i, "choice"],
                        f"{', '.join(m.choice)} is the key (answer.correct), so this mistake "
                        "can never fire; name the wrong labels it stands for"))
    return out


def draw_key(ctx: KeyContext) -> DrawnKey:
    """The right labels: the first ``answer.when`` that holds, else ``answer.correct``."""
    from questions.variants import Key, KnownMistake

    part, a = ctx.part, ctx.part.answer
    correct = a.correct
    for w in a.when:
        if ctx.holds(w.if_):
            correct = w.correct
            break
    key = Key(part.answer_kind, ", ".join(correct), correct=tuple(correct))
    return DrawnKey(key, tuple(KnownMistake(m.name, m.feedback, m.credit,
                                            choice=tuple(m.choice or ()))
                               for m in part.mistakes))


def answer_line(pv: PartVariant) -> str:
    """Each right label with its text."""
    texts = pv.spec.choices
    picks = "; ".join(f"{c}) {texts[ord(c) - ord('a')]}" for c in pv.key.correct)
    return f"Answer: {picks}"


KIND = QuestionKind(check_part, draw_key, answer_line, check_loaded)
