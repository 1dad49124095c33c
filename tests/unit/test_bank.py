"""The bundled bank: every template holds its properties over many seeds, and the bank
covers the interview."""

from __future__ import annotations

from collections import defaultdict
from typing import get_args

import pytest
from helpers import bundled_bank, per_profile

from questions.types import AnswerKind
from quiz.core.selftest import check_template

BANK = bundled_bank()
SEEDS = per_profile(1, 100)
"""Seeds per template: a whole-bank sweep, so one locally (every check runs on
every template), 100 under QUIZ_FUZZ=full: CI digs deeper (a known
mistake that meets its key within tolerance at one parameter combination in ten hid
from 12 seeds)."""


def test_bundled_bank_loads_without_problems() -> None:
    assert [str(p) for p in BANK.problems] == []


@pytest.mark.parametrize("template_id", sorted(BANK.templates))
def test_template_holds_its_properties_over_many_seeds(template_id: str) -> None:
    failures = check_template(BANK.templates[template_id], seeds=SEEDS)
    assert [str(f) for f in failures] == []


def test_bank_has_at_least_forty_templates() -> None:
    assert len(BANK.templates) >= 40


@pytest.mark.parametrize("item", range(1, 8))
def test_every_rapid_fire_item_has_three_templates_at_different_difficulties(
    item: int,
) -> None:
    tagged = [t for t in BANK.templates.values() if f"rapid-fire-{item}" in t.tags]
    assert len(tagged) >= 3
    assert len({t.difficulty for t in tagged}) >= 2


def test_at_least_three_multi_part_scenarios() -> None:
    assert sum(1 for t in BANK.templates.values() if len(t.parts) > 1) >= 3


def test_numeric_parts_name_at_least_two_known_mistakes() -> None:
    thin = [f"{t.id} part {i}" for t in BANK.templates.values()
            for i, p in enumerate(t.all_parts(), 1)
            if p.answer_kind == "number" and len(p.mistakes) < 2]
    assert thin == []


def test_every_answer_kind_is_used() -> None:
    kinds = {p.answer_kind for t in BANK.templates.values() for p in t.all_parts()}
    assert kinds == set(get_args(AnswerKind))


def test_every_topic_has_templates() -> None:
    topics: dict[str, int] = defaultdict(int)
    for t in BANK.templates.values():
        topics[t.topic] += 1
    assert {"memory", "compute", "parallelism", "communication", "pipeline",
            "inference", "conventions", "layout", "scenario"} <= set(topics)


def test_changed_templates_bump_their_version() -> None:
    from questions.versions import problems

    assert problems(BANK.templates) == []
