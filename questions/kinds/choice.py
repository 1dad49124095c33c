"""Choice answers: one letter (``choice``) or every letter that applies (``multi``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

from msgspec.structs import replace

from questions.errors import FieldError
from questions.kinds.base import AddStep, DrawnKey, KeyContext, Location, QuestionKind
from questions.model import KnownMistake

if TYPE_CHECKING:
    import random

    from questions.fields import PartFields as Part
    from questions.kinds.answers.choice import ChoiceAnswer, ChoiceMistake
    from questions.model import Key, PartVariant

__all__ = ["CHOICE", "KIND", "MULTI", "ChoiceKnownMistake", "answer", "fields", "key",
           "known", "known_mistake"]

CHOICE = "choice"
"""One letter is right (``answer_kind``)."""
MULTI = "multi"
"""Every letter that applies (``answer_kind``)."""


def key(correct: tuple[str, ...], display: str | None = None, *, many: bool = False) -> Key:
    """A choice key: the right labels (``many``: a multi-select's), displayed as the
    labels unless ``display`` says otherwise (a yes-or-no step's word)."""
    from questions.model import Key

    return Key(MULTI if many else CHOICE,
               ", ".join(correct) if display is None else display, correct=correct)


def fields() -> type[ChoiceAnswer]:
    """The model of a choice's or a multi-select's `[answer]`."""
    from questions.kinds.answers.choice import ChoiceAnswer

    return ChoiceAnswer


def answer(part: Part) -> ChoiceAnswer:
    """A choice part's `[answer]`."""
    return cast("ChoiceAnswer", part.answer)


def mistake_fields() -> type[ChoiceMistake]:
    """The model of a choice's or a multi-select's `[[mistakes]]` (a wrong pick)."""
    from questions.kinds.answers.choice import ChoiceMistake

    return ChoiceMistake


def mistakes(part: Part) -> list[ChoiceMistake]:
    """A choice part's known mistakes."""
    return cast("list[ChoiceMistake]", part.mistakes)


class ChoiceKnownMistake(KnownMistake, frozen=True):
    """A choice's or a multi-select's known mistake as drawn: the wrong pick."""

    choice: tuple[str, ...]
    """The labels picked, as the variant shows them."""


def known_mistake(name: str, feedback: str, credit: float,
                  labels: tuple[str, ...]) -> KnownMistake:
    """A known mistake that picks ``labels``."""
    return ChoiceKnownMistake(name, feedback, credit, labels)


def known(pv: PartVariant) -> tuple[ChoiceKnownMistake, ...]:
    """A choice part's known mistakes as drawn (:func:`draw_key`)."""
    return cast("tuple[ChoiceKnownMistake, ...]", pv.mistakes)


def mistake_figure(part: Part, key: Key, m: KnownMistake) -> str:
    """The options the mistake picks, by their text (the letters are shuffled per
    variant); its name where it picks none."""
    from questions.text import listed

    picked = cast("ChoiceKnownMistake", m).choice
    if not picked:
        return m.name
    return "; ".join(listed([part.choices[ord(c) - ord("a")] for c in picked
                             if 0 <= ord(c) - ord("a") < len(part.choices)]))


def check_part(part: Part) -> None:
    """At least two choices; the key names labels among them (exactly one for choice)."""
    a = answer(part)
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
    if part.answer_kind == CHOICE and any(
            len(c) != 1 for c in [a.correct, *(w.correct for w in a.when)]):
        raise FieldError(("answer",), "a single-choice answer has exactly one correct "
                         "label")


def texts(part: Part) -> list[tuple[Location, str]]:
    """The explanation and each option's feedback."""
    a = answer(part)
    out: list[tuple[Location, str]] = [(["answer", "explanation"], a.explanation)]
    return out + [(["answer", "option_feedback", k], v) for k, v in a.option_feedback.items()]


def expressions(part: Part) -> list[tuple[Location, str, str | None]]:
    """The conditions of ``answer.when`` (each compares like with like)."""
    return [(["answer", "when", i, "if"], w.if_, None)
            for i, w in enumerate(answer(part).when)]


LETTER_CITED = re.compile(r"\(([a-h])\)|\b(?:options?|choices?) \(?([a-h])\b\)?",
                          re.IGNORECASE)
"""A text citing an option by its letter: "(c)", "option b"."""


def _texts(part: Part) -> list[tuple[Location, str]]:
    a = answer(part)
    out: list[tuple[Location, str]] = [(["prompt"], part.prompt),
                                       (["answer", "explanation"], a.explanation)]
    out += [(["answer", "option_feedback", k], v) for k, v in a.option_feedback.items()]
    out += [(["hints", i, "text"], h.text) for i, h in enumerate(part.hints)]
    out += [(["mistakes", i, "feedback"], m.feedback) for i, m in enumerate(part.mistakes)]
    out += [(["choices", i], c) for i, c in enumerate(part.choices)]
    return out


def check_loaded(part: Part, base: Location) -> list[tuple[Location, str]]:
    """A known mistake that picks exactly the key can never fire (in every branch of
    ``answer.when``, or only in some); no text cites an option by its letter (the
    options are shuffled per variant)."""
    a = answer(part)
    keys = [set(a.correct)] + [set(w.correct) for w in a.when]
    branches = [(f"when answer.when[{i}] holds ({w.if_!r})", set(w.correct))
                for i, w in enumerate(a.when)] + [("when no answer.when holds", set(a.correct))]
    out: list[tuple[Location, str]] = []
    for where, text in _texts(part):
        cited = LETTER_CITED.search(text)
        if cited:
            out.append((base + where, f"{cited.group(0)!r} cites an option by its letter, "
                        "but each variant shows the options in its own order; name the "
                        "option by what it says"))
    labels = {chr(ord("a") + i) for i in range(len(part.choices))}
    for i, m in enumerate(mistakes(part)):
        out += [(base + ["mistakes", i, "choice"], f"no choice {c!r}") for c in m.choice
                if c not in labels]
        if all(set(m.choice) == k for k in keys):
            out.append((base + ["mistakes", i, "choice"],
                        f"{', '.join(m.choice)} is the key (answer.correct), so this mistake "
                        "can never fire; name the wrong labels it stands for"))
        keyed = [what for what, correct in branches if set(m.choice) == correct]
        if a.when and keyed and len(keyed) < len(branches):
            out.append((base + ["mistakes", i, "choice"], f"{', '.join(m.choice)} is "
                        f"the key {keyed[0]}: in those variants this mistake can never fire "
                        "and its feedback calls a right answer wrong; give it a pick that is "
                        "wrong in every branch"))
    return out


def draw_key(ctx: KeyContext) -> DrawnKey:
    """The right labels: the first ``answer.when`` that holds, else ``answer.correct``."""
    part, a = ctx.part, answer(ctx.part)
    correct = a.correct
    for w in a.when:
        if ctx.holds(w.if_):
            correct = w.correct
            break
    drawn = key(tuple(correct), many=part.answer_kind == MULTI)
    return DrawnKey(drawn, tuple(ChoiceKnownMistake(m.name, m.feedback, m.credit,
                                                  tuple(m.choice))
                               for m in mistakes(part)))


def answer_line(pv: PartVariant) -> str:
    """Each right label with its text."""
    from questions.text import picks_text

    return f"Answer: {picks_text(pv.spec.choices, pv.key.correct)}"


def shuffled(n: int, rng: random.Random) -> list[int]:
    """The order :func:`arrange` shows `n` options in: order[shown position] = written
    position. It reads nothing of the part but how many options it has, so the
    self-test can tell two variants' orders apart without drawing them
    (:func:`arranged`)."""
    order = list(range(n))
    rng.shuffle(order)
    return order


def labels_of(order: list[int]) -> dict[str, str]:
    """The labels an order moves: template label -> shown label."""
    return {chr(ord("a") + w): chr(ord("a") + s) for s, w in enumerate(order)}


def arranged(part: Part, rng: random.Random) -> dict[str, str]:
    """The labels :func:`arrange` gives a variant of `part` with `rng`, without one."""
    return labels_of(shuffled(len(part.choices), rng))


def arrange(pv: PartVariant, rng: random.Random) -> PartVariant:
    """The options in an order drawn for this variant, every label moved with them.

    Authors write the key first or make it the most careful sentence; a candidate who
    learns that "a" or the longest option is usually right learns nothing. The letters a
    variant shows are its own and stable for ``ID#SEED``: the key, ``answer.when``, the
    known mistakes' picks and ``option_feedback`` all follow the shuffle, and
    :attr:`PartVariant.labels` records it (template label -> shown label).
    """
    choices = pv.spec.choices
    order = shuffled(len(choices), rng)
    shown = labels_of(order)

    def move(labels: list[str] | tuple[str, ...]) -> list[str]:
        return sorted(shown[x] for x in labels)

    a = answer(pv.spec)
    spec = pv.spec.model_copy(update={
        "choices": [choices[w] for w in order],
        "answer": a.model_copy(update={
            "correct": move(a.correct),
            "when": [w.model_copy(update={"correct": move(w.correct)}) for w in a.when],
            "option_feedback": {shown[k]: v for k, v in sorted(
                a.option_feedback.items(), key=lambda kv: shown[kv[0]])}}),
        "mistakes": [m.model_copy(update={"choice": move(m.choice)})
                     for m in mistakes(pv.spec)]})
    correct = tuple(move(pv.key.correct))
    return replace(pv, spec=spec, key=replace(pv.key, display=", ".join(correct),
                                                 correct=correct),
                   mistakes=tuple(replace(m, choice=tuple(move(m.choice)))
                                  for m in known(pv)),
                   labels=shown)


def key_words(pv: PartVariant) -> str:
    """Each right label with its option's text (``a) ...; c) ...``); a key already in
    words (a walk-through's yes-or-no step) as it is."""
    from questions.text import picks_text

    if not pv.key.correct or pv.key.display != ", ".join(pv.key.correct):
        return pv.key.display
    return picks_text(pv.spec.choices, pv.key.correct)


def walk_steps(pv: PartVariant, explanation: str, add: AddStep) -> None:
    """Learn mode for a choice or multi-select without arithmetic: one yes-or-no step
    per option (a choice part of its own, answered yes or no)."""
    from questions.fields import PartFields

    a = answer(pv.spec)
    many = pv.kind == MULTI
    for i, choice in enumerate(pv.spec.choices):
        label = chr(ord("a") + i)
        right = label in pv.key.correct
        why = a.option_feedback.get(label) or a.explanation or explanation
        yes_no = fields()(correct=["a" if right else "b"], explanation=why)
        ask = (f"Is ({label}) one of the right options: “{choice}”? (yes or no)" if many
               else f"Is ({label}) the right option: “{choice}”? (yes or no)")
        spec = PartFields.model_construct(prompt=ask, answer_kind=CHOICE, answer=yes_no,
                                    choices=["yes", "no"], rows=[], columns={},
                                    mistakes=[], hints=[], tags=[])
        step_key = key(("a" if right else "b",), "yes" if right else "no")
        step_pv = replace(pv, prompt=ask, spec=spec, key=step_key, mistakes=(), accepted=(),
                          follow=None)
        add(f"option:{label}", ask, step_pv, None,
            f"({label}) is {'right' if right else 'wrong'}: {why}", what=f"option ({label})")


KIND = QuestionKind(check_part, draw_key, answer_line, check_loaded, arrange, arranged,
                    key_words=key_words, walk_steps=walk_steps, texts=texts,
                    expressions=expressions, part_fields=frozenset({"choices"}),
                    answer_fields=fields, mistake_fields=mistake_fields,
                    mistake_figure=mistake_figure)
"""A single choice and a multi-select (one entry: the part's kind tells them apart)."""
