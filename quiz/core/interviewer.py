"""The mock interviewer's follow-ups: which one to ask, from what the candidate got right
or wrong.

After a layout question or a scenario (its last part) the interviewer asks up to
:data:`MAX_FOLLOWUPS` follow-ups (:mod:`questions.followups`). A wrong memory figure
(a byte answer, or a layout that does not fit) leads to a memory follow-up; another
wrong answer to an ordinary one; answers all right to a harder perturbation (the
follow-ups marked ``harder``). The second follow-up is chosen the same way from the
answer to the first. Nothing here is random: a chain is a function of ``ID#SEED`` and
the answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from questions.followspec import FollowUpSpec
    from questions.followups import FollowUp
    from questions.variants import PartVariant, Variant
    from quiz.core.kinds.base import Grade

MAX_FOLLOWUPS = 2
"""Follow-ups per layout question or scenario in a mock."""


def wrong_memory(pv: PartVariant, g: Grade) -> bool:
    """The answer got a memory figure wrong: a byte answer not right, or a layout that
    does not fit."""
    if g.verdict == "correct":
        return False
    return pv.key.unit == "B" or g.mistake == "does not fit" or "memory" in (
        g.mistake or "")


def _memory_ask(spec: FollowUpSpec) -> bool:
    return spec.ask in ("memory", "fits")


def choose(variant: Variant, answers: Sequence[tuple[PartVariant, Grade]],
           asked: Sequence[int]) -> FollowUp | None:
    """The follow-up to ask next, drawn (None: none left that applies).

    Args:
        variant: the variant the follow-ups change.
        answers: the latest answers (the variant's parts, or the last follow-up), with
            their grades.
        asked: the follow-ups (K) already asked of it.
    """
    from questions.followups import NotApplicable, draw, specs

    left = [(k, s) for k, s in enumerate(specs(variant.template), 1) if k not in asked]
    memory = any(wrong_memory(pv, g) for pv, g in answers)
    wrong = any(g.verdict != "correct" for _, g in answers)
    if memory:
        order = sorted(left, key=lambda ks: (not _memory_ask(ks[1]), ks[1].ask != "part",
                                             ks[1].harder, ks[0]))
    elif wrong:
        order = sorted(left, key=lambda ks: (ks[1].harder, ks[0]))
    else:
        order = sorted(left, key=lambda ks: (not ks[1].harder, ks[0]))
    later = None
    for k, spec in order:
        try:
            fu = draw(variant, k)
        except NotApplicable:
            continue
        if memory and spec.ask == "part" and fu.pv.key.unit != "B":
            later = later or fu  # a part asked again, but not a memory one
            continue
        return fu
    return later
