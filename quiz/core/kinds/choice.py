"""Choice answers: one letter (``choice``) or every letter that applies (``multi``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from questions.kinds.choice import ChoiceKnownMistake, known
from questions.variants import Key, KnownMistake, PartVariant, picks_text
from quiz.core.kinds.base import Grade, Read, by_credit, invalid
from quiz.core.reading import (
    MAX_CHOICE_CHARS,
    ChoiceReading,
    Unreadable,
    read_choice,
    yes_or_no,
)
from quiz.core.types import Verdict
from solver.formula import clean_text

__all__ = ["as_shown", "example_picks", "expected_fields", "grade", "key_text",
           "mistake_answer", "mistake_clash", "mistake_credit", "multi_mistake_verdict",
           "read"]


def example_picks(pv: PartVariant) -> str:
    """Letters to show as an example of the answer's form: never the key, so an
    example under a question (or in a refusal) cannot give the answer away.

    One letter for a single choice, two for a multi-select ("a, c").
    """
    labels = [chr(ord("a") + i) for i in range(len(pv.spec.choices))]
    right = set(pv.key.correct)
    if pv.kind == "multi" and len(labels) >= 3:
        for pair in (("a", "c"), ("b", "d"), ("a", "b"), ("b", "c"), ("c", "d")):
            if set(pair) <= set(labels) and set(pair) != right:
                return ", ".join(pair)
    for label in ("b", "a", *labels):
        if label in labels and {label} != right:
            return label
    return labels[0] if labels else "a"


def yes_no_step(pv: PartVariant) -> bool:
    """A walk-through's yes-or-no step (one option of a choice asked on its own): its
    choices are the words yes and no, and its key is one of them in words."""
    return list(pv.spec.choices) == ["yes", "no"] and pv.key.display in ("yes", "no")


def read(pv: PartVariant, text: str) -> Read:
    """Read the letters picked among the part's choices; on a walk-through's yes-or-no
    step, yes or no in words (an option letter there is refused: "b" is no answer to
    "is (b) right?").

    Raises:
        Unreadable: with what was wrong and an example that works.
    """
    if yes_no_step(pv):
        said = yes_or_no(clean_text(text, MAX_CHOICE_CHARS, "yes").strip())
        if said is None:
            raise Unreadable("answer yes or no", "yes")
        c = ChoiceReading((said,), said, text)
        return Read(c, c.read_as)
    try:
        c = read_choice(text, pv.spec.choices, pv.kind == "multi")
    except Unreadable as exc:
        raise Unreadable(exc.message, example_picks(pv).upper()) from None
    return Read(c, c.read_as)


def key_text(pv: PartVariant) -> str:
    """The right letters with their options' text (``a) ...; c) ...``); a key already
    in words (a walk-through's yes-or-no step) as it is."""
    if pv.key.display != ", ".join(pv.key.correct):
        return pv.key.display
    return picks_text(pv.spec.choices, pv.key.correct)


def _auto_credit(pv: PartVariant, picked: set[str]) -> float:
    """A multi-select's partial credit: right picks minus wrong picks, over the key (0
    for a single choice)."""
    right = set(pv.key.correct)
    if pv.kind != "multi" or not right:
        return 0.0
    return max(0.0, (len(picked & right) - len(picked - right)) / len(right))


def mistake_credit(pv: PartVariant, m: ChoiceKnownMistake) -> float:
    """A known mistake's score: never below the same picks as an unnamed slip."""
    return max(m.credit, _auto_credit(pv, set(m.choice)))


def multi_mistake_verdict(pv: PartVariant, m: KnownMistake) -> Verdict:
    """A multi-select's known mistake is partial where its picks earn some credit."""
    return by_credit(mistake_credit(pv, cast(ChoiceKnownMistake, m)))


def mistake_answer(pv: PartVariant, m: KnownMistake) -> str | None:
    """The letters the mistake picks."""
    return ", ".join(cast(ChoiceKnownMistake, m).choice) or None


def mistake_clash(pv: PartVariant, m: KnownMistake) -> str | None:
    """A mistake that picks the key of this draw (a draw-dependent key, ``answer.when``)
    is right here: it can never fire, and its feedback calls a right answer wrong."""
    key = pv.key
    if set(cast(ChoiceKnownMistake, m).choice) != set(key.correct):
        return None
    options = "; ".join(pv.spec.choices[ord(c) - ord("a")] for c in key.correct)
    return (f"{m.name!r} picks the key of this draw ({options!r}), so here it is right "
            "and its feedback wrong; keep such draws out with a constraint, or make the "
            "mistake a pick that is wrong in every answer.when branch")


def grade(pv: PartVariant, text: str, scale: float) -> Grade:
    """Grade the letters picked; the grade shows the key with its options' text."""
    g = _grade(pv, text)
    return g if g.verdict == "invalid" else replace(g, key_text=key_text(pv))


def _grade(pv: PartVariant, text: str) -> Grade:
    key = pv.key
    choices = pv.spec.choices
    try:
        r = read(pv, text).value
    except Unreadable as exc:
        return invalid(pv, exc.message, exc.example)
    labels = {text: chr(ord("a") + i) for i, text in enumerate(choices)}
    picked, right = {labels[t] for t in r.picked}, set(key.correct)
    if picked == right:
        return Grade("correct", 1.0, r.read_as, None, "Correct.", key)
    why = _why(pv, picked, right)
    auto = _auto_credit(pv, picked)
    for m in known(pv):
        if m.choice and set(m.choice) == picked:
            score = mistake_credit(pv, m)
            return Grade(by_credit(score), round(score, 4), r.read_as, m.name,
                         " ".join([m.feedback, *why]), key)
    if pv.kind == "multi":
        missing = ", ".join(sorted(right - picked)) or "none"
        extra = ", ".join(sorted(picked - right)) or "none"
        return Grade(by_credit(auto), round(auto, 4), r.read_as,
                     None, " ".join([f"Missed: {missing}; wrongly picked: {extra}.", *why,
                                     f"The key is {key_text(pv)}."]), key)
    return Grade("incorrect", 0.0, r.read_as, None,
                 " ".join([*why, f"The key is {key_text(pv)}."]), key)


def _why(pv: PartVariant, picked: set[str], right: set[str]) -> list[str]:
    """The template's reason for each option picked wrongly or missed, in label order."""
    from questions.kinds.choice import answer

    reasons = answer(pv.spec).option_feedback
    out = []
    for label in sorted((picked - right) | (right - picked)):
        if label in reasons:
            how = "picked" if label in picked else "missed"
            out.append(f"{label} ({how}): {reasons[label]}")
    return out


def as_shown(pv: PartVariant, text: str) -> str:
    """An answer written in the template's own letters (its examples, test corpora),
    in the letters the variant shows; text that picks no option is returned unchanged.
    """
    if not pv.labels:
        return text
    written = [""] * len(pv.spec.choices)
    for label, shown in pv.labels.items():
        written[ord(label) - ord("a")] = pv.spec.choices[ord(shown) - ord("a")]
    try:
        picked = read_choice(text, written, pv.kind == "multi").picked
    except Unreadable:
        return text
    return ", ".join(sorted(pv.labels[chr(ord("a") + written.index(p))] for p in picked))


def expected_fields(key: Key) -> dict[str, Any]:
    """The right labels (``correct``), in the letters the variant shows."""
    return {"correct": list(key.correct)}


def prompt_lines(pv: PartVariant) -> list[str]:
    """The labelled choices (on a walk-through's yes-or-no step: answer yes or no)."""
    if yes_no_step(pv):
        return ["  Answer yes or no."]
    return [f"  {chr(ord('a') + j)}) {choice}" for j, choice in enumerate(pv.spec.choices)]
