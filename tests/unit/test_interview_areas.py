"""The questions interviews ask next (issue 13): every area is drilled, and shows up."""

from __future__ import annotations

from questions.catalog import load_bank
from questions.tags import AREAS, tag_label

BANK = load_bank()

# The thirteen numbered areas and the tags that mark them.
NUMBERED = {
    1: ["decode"], 2: ["prefill"], 3: ["cost"], 4: ["scaling-laws"], 5: ["batch-size"],
    6: ["recompute"], 7: ["precision"], 8: ["moe"], 9: ["overlap"], 10: ["reliability"],
    11: ["long-context"], 12: ["topology"], 13: ["speculative-decoding", "lora", "logits"],
}


def test_each_numbered_area_has_three_templates_over_two_difficulties() -> None:
    assert {t for tags in NUMBERED.values() for t in tags} == set(AREAS)
    for number, tags in NUMBERED.items():
        drilled = [t for t in BANK.templates.values() if set(tags) & set(t.tags)]
        assert len(drilled) >= 3, number
        assert len({t.difficulty for t in drilled}) >= 2, number


def test_numeric_questions_of_the_new_areas_know_two_mistakes() -> None:
    for t in BANK.templates.values():
        if not set(AREAS) & set(t.tags):
            continue
        for part in t.all_parts():
            if part.answer_kind == "number":
                assert len(part.mistakes) >= 2, t.id


def test_the_bank_holds_at_least_120_templates() -> None:
    assert len(BANK.templates) >= 120


def test_area_tags_read_as_their_names_in_lists() -> None:
    assert tag_label("moe") == "moe: mixture of experts"
    assert tag_label("kv-cache") == "kv-cache"


def test_practice_offers_every_area() -> None:
    from quiz.tui.screens.practice import practice_targets

    offered = {target for group in practice_targets(BANK) for _, target in group}
    assert set(AREAS) <= offered
